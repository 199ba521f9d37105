// THE cluster connection: where every part of the lab (allocator, seeder, the load engine, exporter,
// experiments, the shell scripts through bin/connection) finds Elasticsearch and how it proves
// who it is. The lab's own nodes (native, compose) need neither credentials nor TLS; an existing
// cluster (RUNTIME=external) is named by ES_URL, with
//   ES_API_KEY or ES_API_KEY_FILE                (an API key, base64 "id:key" as Elasticsearch returns it)
//   ES_USERNAME and ES_PASSWORD or ES_PASSWORD_FILE   (basic authentication)
//   ES_CA_CERT                                   (the CA that signed the cluster's certificate, PEM)
//   ES_TLS_VERIFY=true|false                     (false: no certificate check at all; warned about)
// Secrets come from the environment or from a file outside the repository; they are never put
// on a command line, in lab.env, in a log or in a result. What `make up RUNTIME=external` was
// given, except the secrets, is kept in $LAB_DIR/connection.env so later commands (make seed,
// make load, make experiment) talk to the same cluster without repeating it.
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { labRoot, loadLabEnv } from './lab-env-file.js';
import { parseLabEnv } from './lab-env.js';
import { ConnectionError } from './errors.js';

export { ConnectionError };

/** The connection keys `make up RUNTIME=external` keeps in $LAB_DIR/connection.env (no secret among them). */
export const KEPT_KEYS = Object.freeze(['ES_URL', 'ES_USERNAME', 'ES_PASSWORD_FILE', 'ES_API_KEY_FILE', 'ES_CA_CERT', 'ES_TLS_VERIFY']);
/** Keys that hold a secret themselves: never in lab.env or connection.env. */
export const SECRET_KEYS = Object.freeze(['ES_PASSWORD', 'ES_API_KEY']);

export const labDirOf = (env) => resolve(env.LAB_DIR || join(labRoot, '.lab'));

/** The runtime of the lab in LAB_DIR: RUNTIME when given (not auto), else the running lab's. */
export function runtimeOf(env) {
  if (env.RUNTIME && env.RUNTIME !== 'auto') return env.RUNTIME;
  try {
    return readFileSync(join(labDirOf(env), 'runtime'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** lab.env and the environment, plus what an external lab's `make up` kept (the environment wins). */
export function connectionSettings(env = loadLabEnv()) {
  const runtime = runtimeOf(env);
  if (runtime !== 'external') return { ...env, RUNTIME: runtime ?? env.RUNTIME };
  const kept = join(labDirOf(env), 'connection.env');
  const saved = existsSync(kept) ? parseLabEnv(readFileSync(kept, 'utf8'), kept) : {};
  const merged = { ...env, RUNTIME: 'external' };
  for (const k of KEPT_KEYS) if (!merged[k] && saved[k]) merged[k] = saved[k];
  return merged;
}

function insideRepository(path) {
  const rel = relative(labRoot, resolve(path));
  // the lab's own state folder (.lab/, ignored by git) is not the repository's content
  return !rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith('.lab');
}

function secretFrom(env, key) {
  if (env[key]) return env[key];
  const file = env[`${key}_FILE`];
  if (!file) return '';
  if (insideRepository(file)) {
    throw new ConnectionError(`${key}_FILE=${file} is inside the repository: keep secrets in a file outside it (e.g. ~/.config/tenantlab/${key.toLowerCase()}), where no commit can take them`);
  }
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConnectionError(`${key}_FILE=${file} cannot be read (${err.code ?? err.message}): give a readable file holding the ${key === 'ES_API_KEY' ? 'API key' : 'password'}`);
  }
  const value = text.replace(/\r?\n$/, '');
  if (!value) throw new ConnectionError(`${key}_FILE=${file} is empty: it should hold the ${key === 'ES_API_KEY' ? 'API key' : 'password'}`);
  return value;
}

/**
 * The connection the lab's parts use: { url, external, auth, caFile, ca, verify, describe }.
 * `auth` is { apiKey } or { username, password } or null (the client's own shape). Throws
 * ConnectionError (one line saying what to set) on a bad setting.
 */
export function clusterConnection(env = loadLabEnv()) {
  const s = connectionSettings(env);
  const external = s.RUNTIME === 'external';
  let url;
  if (external) {
    if (!s.ES_URL) throw new ConnectionError('RUNTIME=external needs ES_URL, the cluster to use (e.g. ES_URL=https://es.example.internal:9200)');
    url = s.ES_URL;
  } else {
    url = s.ES_URL || `http://${s.LAB_BIND || '127.0.0.1'}:${s.ES_MASTER_HTTP_PORT || '9200'}`;
  }
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConnectionError(`ES_URL=${url} is not a URL: want http(s)://HOST:PORT`);
  }
  if (!/^https?:$/.test(parsed.protocol)) throw new ConnectionError(`ES_URL=${url}: want an http:// or https:// URL`);
  if (parsed.username || parsed.password) {
    throw new ConnectionError('ES_URL carries credentials: give them as ES_USERNAME and ES_PASSWORD (or ES_PASSWORD_FILE) instead, so they never show in logs or process lists');
  }
  url = `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;

  const verifyText = String(s.ES_TLS_VERIFY ?? 'true').toLowerCase() || 'true';
  if (!['true', 'false'].includes(verifyText)) throw new ConnectionError(`ES_TLS_VERIFY=${s.ES_TLS_VERIFY}: want true (the default) or false`);
  const verify = verifyText === 'true';

  let auth = null;
  const apiKey = secretFrom(s, 'ES_API_KEY');
  const password = secretFrom(s, 'ES_PASSWORD');
  if (apiKey && (s.ES_USERNAME || password)) throw new ConnectionError('both an API key (ES_API_KEY) and a user (ES_USERNAME/ES_PASSWORD) are set: give one of them');
  if (apiKey) auth = { apiKey };
  else if (s.ES_USERNAME || password) {
    if (!s.ES_USERNAME) throw new ConnectionError('ES_PASSWORD is set without ES_USERNAME: give the user too');
    if (!password) throw new ConnectionError(`ES_USERNAME=${s.ES_USERNAME} has no password: set ES_PASSWORD in the environment or ES_PASSWORD_FILE to a file outside the repository`);
    auth = { username: s.ES_USERNAME, password };
  }

  let caFile = null;
  let ca = null;
  if (s.ES_CA_CERT) {
    caFile = resolve(s.ES_CA_CERT);
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch (err) {
      throw new ConnectionError(`ES_CA_CERT=${s.ES_CA_CERT} cannot be read (${err.code ?? err.message}): give the PEM file of the CA that signed the cluster's certificate`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new ConnectionError(`ES_CA_CERT=${s.ES_CA_CERT} holds no PEM certificate: give the CA's certificate (-----BEGIN CERTIFICATE-----)`);
  }
  const how = auth?.apiKey ? 'an API key' : auth ? `user ${auth.username}` : 'no credentials';
  const tls = parsed.protocol === 'https:' ? (verify ? (caFile ? `, TLS checked against ${caFile}` : ', TLS checked against the system CAs') : ', TLS NOT checked (ES_TLS_VERIFY=false)') : '';
  return Object.freeze({ url, external, auth, caFile, ca, verify, https: parsed.protocol === 'https:', describe: `${url} (${how}${tls})` });
}

/** Options for @elastic/elasticsearch's Client: `new Client({ ...clientOptions(conn), requestTimeout })`. */
export function clientOptions(conn) {
  const o = { node: conn.url };
  if (conn.auth) o.auth = conn.auth;
  if (conn.https) o.tls = { ...(conn.ca ? { ca: conn.ca } : {}), rejectUnauthorized: conn.verify };
  return o;
}

/** The Authorization header's value ('' without credentials), for HTTP clients other than the official one (the load engine). */
export function authorizationHeader(conn) {
  if (!conn.auth) return '';
  if (conn.auth.apiKey) return `ApiKey ${conn.auth.apiKey}`;
  return `Basic ${Buffer.from(`${conn.auth.username}:${conn.auth.password}`).toString('base64')}`;
}

/**
 * The environment a child program needs to reach the cluster, by program: 'load' (the load
 * engine, Locust: the header in ES_AUTHORIZATION, the CA's PEM file in ES_CA_CERT,
 * ES_TLS_VERIFY=false when the certificate is not to be checked, ES_EXTERNAL=1 for an external
 * cluster) or 'exporter' (elasticsearch_exporter reads ES_USERNAME / ES_PASSWORD / ES_API_KEY;
 * its CA and skip-verify are flags, see exporterFlags).
 */
export function childEnv(conn, program) {
  const env = {};
  if (program === 'load') {
    const header = authorizationHeader(conn);
    if (header) env.ES_AUTHORIZATION = header;
    if (conn.caFile) env.ES_CA_CERT = conn.caFile;
    if (conn.https && !conn.verify) env.ES_TLS_VERIFY = 'false';
    if (conn.external) env.ES_EXTERNAL = '1';
  } else if (program === 'exporter') {
    if (conn.auth?.apiKey) env.ES_API_KEY = conn.auth.apiKey;
    else if (conn.auth) Object.assign(env, { ES_USERNAME: conn.auth.username, ES_PASSWORD: conn.auth.password });
  } else {
    throw new Error(`childEnv: unknown program ${program}`);
  }
  return env;
}

/** elasticsearch_exporter's TLS flags for this connection (no secret among them). */
export function exporterFlags(conn) {
  const flags = [];
  if (conn.caFile) flags.push(`--es.ca=${conn.caFile}`);
  if (conn.https && !conn.verify) flags.push('--es.ssl-skip-verify');
  return flags;
}

/** curl's config (curl -K -) for this connection: the header and the CA; never on a command line. */
export function curlConfig(conn) {
  const lines = [];
  const header = authorizationHeader(conn);
  const q = (v) => `"${String(v).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  if (header) lines.push(`header = ${q(`Authorization: ${header}`)}`);
  if (conn.caFile) lines.push(`cacert = ${q(conn.caFile)}`);
  if (conn.https && !conn.verify) lines.push('insecure');
  return lines.join('\n') + (lines.length ? '\n' : '');
}

/** Every secret value of the connection (for checks that none leaked into a file). */
export function secretsOf(conn) {
  if (!conn.auth) return [];
  return conn.auth.apiKey ? [conn.auth.apiKey] : [conn.auth.password];
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authorizationHeader, childEnv, clientOptions, clusterConnection, curlConfig, exporterFlags, secretsOf } from '../src/connection.js';
import { labRoot } from '../src/lab-env-file.js';
import { esReason } from '../src/errors.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const tmp = () => mkdtempSync(join(tmpdir(), 'conn-'));
// a lab folder with no runtime recorded, so nothing of a running lab leaks into a case
const base = () => ({ LAB_DIR: tmp(), LAB_BIND: '127.0.0.1', ES_MASTER_HTTP_PORT: '9200' });

test('the lab\'s own nodes: the master\'s loopback port, no credentials, no TLS', () => {
  const c = clusterConnection(base());
  assert.equal(c.url, 'http://127.0.0.1:9200');
  assert.equal(c.external, false);
  assert.deepEqual(clientOptions(c), { node: 'http://127.0.0.1:9200' });
  assert.equal(curlConfig(c), '');
  assert.deepEqual(childEnv(c, 'load'), {});
  assert.throws(() => childEnv(c, 'k6'), /unknown program k6/);
});

test('external with a user: basic auth in the client, the header, the exporter\'s environment; the CA file', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'ca.pem'), PEM);
  const c = clusterConnection({ ...base(), RUNTIME: 'external', ES_URL: 'https://127.0.0.1:19443/', ES_USERNAME: 'lab', ES_PASSWORD: 's3cret', ES_CA_CERT: join(dir, 'ca.pem') });
  assert.equal(c.url, 'https://127.0.0.1:19443');
  assert.deepEqual(clientOptions(c), { node: c.url, auth: { username: 'lab', password: 's3cret' }, tls: { ca: PEM, rejectUnauthorized: true } });
  assert.equal(authorizationHeader(c), `Basic ${Buffer.from('lab:s3cret').toString('base64')}`);
  assert.deepEqual(childEnv(c, 'exporter'), { ES_USERNAME: 'lab', ES_PASSWORD: 's3cret' });
  assert.deepEqual(childEnv(c, 'load'), { ES_AUTHORIZATION: authorizationHeader(c), ES_CA_CERT: join(dir, 'ca.pem'), ES_EXTERNAL: '1' });
  assert.deepEqual(exporterFlags(c), [`--es.ca=${join(dir, 'ca.pem')}`]);
  assert.match(curlConfig(c), /^header = "Authorization: Basic .+"\ncacert = ".+ca\.pem"\n$/);
  assert.ok(!c.describe.includes('s3cret'));
  assert.deepEqual(secretsOf(c), ['s3cret']);
});

test('an API key from a file outside the repository; TLS unchecked is said so', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'key'), 'aWQ6a2V5\n');
  const c = clusterConnection({ ...base(), RUNTIME: 'external', ES_URL: 'https://127.0.0.1:9443', ES_API_KEY_FILE: join(dir, 'key'), ES_TLS_VERIFY: 'false' });
  assert.deepEqual(c.auth, { apiKey: 'aWQ6a2V5' });
  assert.equal(authorizationHeader(c), 'ApiKey aWQ6a2V5');
  assert.deepEqual(childEnv(c, 'exporter'), { ES_API_KEY: 'aWQ6a2V5' });
  assert.deepEqual(childEnv(c, 'load'), { ES_AUTHORIZATION: 'ApiKey aWQ6a2V5', ES_TLS_VERIFY: 'false', ES_EXTERNAL: '1' });
  assert.deepEqual(exporterFlags(c), ['--es.ssl-skip-verify']);
  assert.match(curlConfig(c), /\ninsecure\n$/);
  assert.match(c.describe, /TLS NOT checked/);
});

test('the load engine\'s environment: ES_TLS_VERIFY=false only over https, ES_EXTERNAL only for an external cluster', () => {
  const plain = clusterConnection({ ...base(), RUNTIME: 'external', ES_URL: 'http://127.0.0.1:9201', ES_TLS_VERIFY: 'false' });
  assert.deepEqual(childEnv(plain, 'load'), { ES_EXTERNAL: '1' });
  const own = clusterConnection({ ...base(), ES_URL: 'http://127.0.0.1:9200' });
  assert.deepEqual(childEnv(own, 'load'), {});
});

test('what make up RUNTIME=external kept in connection.env holds for later commands; the environment wins', () => {
  const env = base();
  mkdirSync(env.LAB_DIR, { recursive: true });
  writeFileSync(join(env.LAB_DIR, 'runtime'), 'external\n');
  writeFileSync(join(env.LAB_DIR, 'connection.env'), 'ES_URL=https://127.0.0.1:19443\nES_USERNAME=lab\n');
  const c = clusterConnection({ ...env, ES_PASSWORD: 'pw' });
  assert.equal(c.external, true);
  assert.equal(c.url, 'https://127.0.0.1:19443');
  assert.equal(c.auth.username, 'lab');
  assert.equal(clusterConnection({ ...env, ES_PASSWORD: 'pw', ES_USERNAME: 'other' }).auth.username, 'other');
  // another runtime asked for explicitly is not the external lab's
  assert.equal(clusterConnection({ ...env, RUNTIME: 'native' }).external, false);
});

test('bad settings are one line each, naming what to set', () => {
  const dir = tmp();
  const ext = { ...base(), RUNTIME: 'external' };
  const cases = [
    [{ ...ext }, /RUNTIME=external needs ES_URL/],
    [{ ...ext, ES_URL: 'es.example:9200' }, /ES_URL=es\.example:9200: want an http:\/\/ or https:\/\/ URL|is not a URL/],
    [{ ...ext, ES_URL: 'ftp://x:1' }, /want an http:\/\/ or https:\/\/ URL/],
    [{ ...ext, ES_URL: 'https://u:p@127.0.0.1:9200' }, /ES_URL carries credentials/],
    [{ ...ext, ES_URL: 'https://127.0.0.1:9200', ES_USERNAME: 'lab' }, /has no password: set ES_PASSWORD/],
    [{ ...ext, ES_URL: 'https://127.0.0.1:9200', ES_PASSWORD: 'x' }, /ES_PASSWORD is set without ES_USERNAME/],
    [{ ...ext, ES_URL: 'https://127.0.0.1:9200', ES_API_KEY: 'k', ES_USERNAME: 'u', ES_PASSWORD: 'p' }, /give one of them/],
    [{ ...ext, ES_URL: 'https://127.0.0.1:9200', ES_TLS_VERIFY: 'maybe' }, /ES_TLS_VERIFY=maybe: want true/],
    [{ ...ext, ES_URL: 'https://127.0.0.1:9200', ES_CA_CERT: join(dir, 'missing.pem') }, /ES_CA_CERT=.*cannot be read/],
    [{ ...ext, ES_URL: 'https://127.0.0.1:9200', ES_USERNAME: 'u', ES_PASSWORD_FILE: join(dir, 'nope') }, /ES_PASSWORD_FILE=.*cannot be read/],
    [{ ...ext, ES_URL: 'https://127.0.0.1:9200', ES_USERNAME: 'u', ES_PASSWORD_FILE: join(labRoot, 'lab.env') }, /inside the repository/],
  ];
  writeFileSync(join(dir, 'not-pem'), 'hello');
  cases.push([{ ...ext, ES_URL: 'https://127.0.0.1:9200', ES_CA_CERT: join(dir, 'not-pem') }, /holds no PEM certificate/]);
  for (const [env, re] of cases) {
    assert.throws(() => clusterConnection(env), (err) => {
      assert.equal(err.exitCode, 2);
      assert.match(err.message, re);
      assert.ok(!err.message.includes('\n'), `one line: ${err.message}`);
      return true;
    });
  }
});

test('esReason names the setting behind a 401 and an untrusted certificate', () => {
  assert.match(esReason({ name: 'ResponseError', message: 'Response Error', meta: { statusCode: 401, body: '<html>401</html>' } }), /^HTTP 401 Unauthorized: .*ES_USERNAME and ES_PASSWORD.*ES_API_KEY/);
  assert.match(esReason({ name: 'ConnectionError', message: 'self-signed certificate in certificate chain' }), /not trusted .*set ES_CA_CERT/);
  assert.match(esReason({ name: 'ConnectionError', message: 'unable to verify the first certificate' }), /set ES_CA_CERT/);
});

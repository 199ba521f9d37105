// What a browser may ask of the allocator. It has no authentication and serves the console, so a
// page on another site must not reach it: a request whose Host is not one of the allocator's own
// names (DNS rebinding: attacker.example resolved to 127.0.0.1) is refused, and a state-changing
// request whose Origin is another site's (a cross-site form or fetch) is refused too. Requests
// without an Origin (curl, the load engine, Prometheus, the runner) are not a browser's and pass.
// Pure: the plugin (plugins/origin-guard.js) applies it to every request.

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
// RFC 1123 host names and IPv4 literals; an IPv6 literal in brackets
const NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The allowed "name:port" pairs: the loopback names and the listen address, any extra names
 * (ALLOCATOR_ALLOWED_HOSTS: a compose or Kubernetes service name), on the port the allocator
 * listens on and the one it is published on (ALLOCATOR_PUBLIC_PORT: compose maps the host's
 * ALLOCATOR_PORT to the container's 8080).
 * -> a Set of lower-case "name:port"
 */
export function allowedHosts({ listenHost, port, publicPort = null, extraNames = [] }) {
  const names = new Set([...LOOPBACK_NAMES, ...extraNames.map((n) => n.toLowerCase())]);
  if (listenHost && !['0.0.0.0', '::', ''].includes(listenHost)) names.add(listenHost.includes(':') ? `[${listenHost}]` : listenHost.toLowerCase());
  const ports = new Set([port, publicPort].filter((p) => Number.isInteger(p) && p > 0));
  const out = new Set();
  for (const n of names) for (const p of ports) out.add(`${n}:${p}`);
  // port 80 may be left out of a Host header
  for (const n of names) if (ports.has(80)) out.add(n);
  return out;
}

/** ALLOCATOR_ALLOWED_HOSTS ("allocator, allocator.lab.svc") -> names, or an Error naming the key. */
export function parseHostNames(value, key = 'ALLOCATOR_ALLOWED_HOSTS') {
  if (value === undefined || value.trim() === '') return [];
  const names = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const bad = names.find((n) => !NAME.test(n));
  if (bad !== undefined) throw new Error(`${key}: '${bad}' is not a host name (a comma-separated list of names like allocator or allocator.lab.svc, no port, no scheme)`);
  return names;
}

/**
 * One request -> null when it may pass, or { status, error, message } when it may not.
 * headers: the request's (lower-case keys), as Node gives them.
 */
export function checkRequest(allowed, { method, headers }) {
  const host = (headers.host ?? '').toLowerCase();
  const first = allowed.values().next().value;
  if (!allowed.has(host)) {
    // 421 Misdirected Request, as Locust's web UI answers (traffic/lib/run.py)
    return {
      status: 421,
      error: 'forbidden_host',
      message: `Host '${headers.host ?? ''}' is not this allocator's name: open http://${first}/ (a page of another name reaching this port is refused; ALLOCATOR_ALLOWED_HOSTS adds a name)`,
    };
  }
  if (SAFE_METHODS.has(method)) return null;
  const origin = headers.origin;
  if (origin === undefined) return null;
  let originHost = null;
  try {
    const u = new URL(origin);
    if (u.protocol === 'http:' && u.pathname === '/' && !u.username) originHost = u.host.toLowerCase();
  } catch {
    // "null" (a sandboxed frame, a file) or garbage: not the console's own origin
  }
  if (originHost === null || !allowed.has(originHost)) {
    return {
      status: 403,
      error: 'forbidden_origin',
      message: `a ${method} from the page at '${origin}' is refused: only the console at http://${host}/ may change the lab (scripts send no Origin)`,
    };
  }
  return null;
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedHosts, checkRequest, parseHostNames } from '../../src/http/origin-guard.js';

const lab = allowedHosts({ listenHost: '127.0.0.1', port: 8080 });
const req = (method, headers) => ({ method, headers });

test('the allocator answers its own loopback names on its port, nothing else', () => {
  for (const host of ['127.0.0.1:8080', 'localhost:8080', 'LOCALHOST:8080', '[::1]:8080']) assert.equal(checkRequest(lab, req('GET', { host })), null, host);
  for (const host of ['attacker.example:8080', '127.0.0.1:9090', '127.0.0.1', 'localhost', '127.0.0.1:8080.attacker.example', '']) {
    const r = checkRequest(lab, req('GET', { host }));
    assert.equal(r?.status, 421, host);
    assert.equal(r.error, 'forbidden_host');
  }
  assert.equal(checkRequest(lab, req('GET', {})).error, 'forbidden_host', 'no Host at all');
  assert.equal(checkRequest(lab, req('GET', { host: 'attacker.example:8080' })).message,
    "Host 'attacker.example:8080' is not this allocator's name: open http://127.0.0.1:8080/ (a page of another name reaching this port is refused; ALLOCATOR_ALLOWED_HOSTS adds a name)");
});

test('compose: the service name and the published port, the container port too', () => {
  const c = allowedHosts({ listenHost: '0.0.0.0', port: 8080, publicPort: 18080, extraNames: ['allocator'] });
  for (const host of ['allocator:8080', '127.0.0.1:18080', 'localhost:18080', '127.0.0.1:8080']) assert.equal(checkRequest(c, req('GET', { host })), null, host);
  assert.equal(checkRequest(c, req('GET', { host: '0.0.0.0:8080' }))?.error, 'forbidden_host', 'the wildcard is not a name');
  assert.equal(checkRequest(c, req('GET', { host: 'allocator' }))?.error, 'forbidden_host');
  // port 80 may be left out of Host
  assert.equal(checkRequest(allowedHosts({ listenHost: '127.0.0.1', port: 80 }), req('GET', { host: 'localhost' })), null);
});

test('a state-changing request from another origin is refused; from the console or without an Origin it passes', () => {
  const host = '127.0.0.1:8080';
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    assert.equal(checkRequest(lab, req(method, { host })), null, `${method} from a script (no Origin)`);
    assert.equal(checkRequest(lab, req(method, { host, origin: 'http://127.0.0.1:8080' })), null, `${method} from the console`);
    assert.equal(checkRequest(lab, req(method, { host, origin: 'http://localhost:8080' })), null, 'the console opened as localhost');
    for (const origin of ['http://attacker.example', 'http://127.0.0.1:3000', 'https://127.0.0.1:8080', 'null', 'file://', 'http://user@127.0.0.1:8080', 'garbage']) {
      const r = checkRequest(lab, req(method, { host, origin }));
      assert.equal(r?.status, 403, `${method} ${origin}`);
      assert.equal(r.error, 'forbidden_origin');
    }
  }
  // reads: a browser's CORS keeps another site from reading the answer; the Host check is what matters
  assert.equal(checkRequest(lab, req('GET', { host, origin: 'http://attacker.example' })), null);
  assert.equal(checkRequest(lab, req('POST', { host, origin: 'http://attacker.example' })).message,
    "a POST from the page at 'http://attacker.example' is refused: only the console at http://127.0.0.1:8080/ may change the lab (scripts send no Origin)");
});

test('ALLOCATOR_ALLOWED_HOSTS: names only, one line naming the key otherwise', () => {
  assert.deepEqual(parseHostNames(undefined), []);
  assert.deepEqual(parseHostNames(' allocator , Allocator.lab.svc '), ['allocator', 'allocator.lab.svc']);
  for (const bad of ['http://allocator', 'allocator:8080', 'a b', '-x']) {
    assert.throws(() => parseHostNames(bad), (e) => e.message.startsWith(`ALLOCATOR_ALLOWED_HOSTS: '${bad.toLowerCase()}' is not a host name`), bad);
  }
});

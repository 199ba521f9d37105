import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorTypes, esReason, isTransient, isTransientItem, itemReason } from '../src/errors.js';

// Errors shaped as the official client throws them (name + meta), without the client.
const named = (name, message = 'boom') => Object.assign(new Error(message), { name });
const response = (statusCode, error) => Object.assign(named('ResponseError', 'response error'), { meta: { statusCode, body: error ? { error } : undefined } });

test('no answer at all is transient', () => {
  for (const name of ['ConnectionError', 'NoLivingConnectionsError', 'TimeoutError']) assert.ok(isTransient(named(name)), name);
  for (const name of ['SerializationError', 'ConfigurationError', 'Error']) assert.ok(!isTransient(named(name)), name);
  assert.ok(!isTransient(null));
});

test('push-back and an unavailable cluster are transient, whatever the type', () => {
  for (const s of [429, 502, 503, 504]) assert.ok(isTransient(response(s)), String(s));
  for (const s of [400, 404, 409, 500]) assert.ok(!isTransient(response(s, { type: 'illegal_argument_exception', reason: 'x' })), String(s));
});

test('a node lost or a master election is transient, by type anywhere in the error', () => {
  assert.ok(isTransient(response(500, { type: 'node_disconnected_exception' })));
  assert.ok(isTransient(response(500, { type: 'x', root_cause: [{ type: 'node_closed_exception' }] })));
  assert.ok(isTransient(response(500, { type: 'x', caused_by: { type: 'y', caused_by: { type: 'not_master_exception' } } })));
  assert.ok(isTransient(response(400, { type: 'cluster_block_exception' })));
  assert.deepEqual(errorTypes({ type: 'a', root_cause: [{ type: 'b' }], caused_by: { type: 'c', caused_by: { type: 'd' } } }), ['a', 'b', 'c', 'd']);
});

test('bulk items follow the same rules', () => {
  assert.ok(isTransientItem({ status: 429, error: { type: 'es_rejected_execution_exception' } }));
  assert.ok(isTransientItem({ status: 503, error: { type: 'unavailable_shards_exception' } }));
  assert.ok(isTransientItem({ status: 500, error: { type: 'node_closed_exception' } }));
  assert.ok(!isTransientItem({ status: 400, error: { type: 'mapper_parsing_exception' } }));
  assert.ok(!isTransientItem({ status: 409, error: { type: 'version_conflict_engine_exception' } }));
  assert.equal(itemReason({ status: 400, error: { type: 'mapper_parsing_exception', reason: 'bad' } }), 'mapper_parsing_exception: bad');
});

test('the reason is one line a human can read', () => {
  assert.equal(esReason(response(400, { type: 'illegal_argument_exception', reason: 'no' })), 'illegal_argument_exception: no');
  assert.equal(esReason(named('ConnectionError', 'connect ECONNREFUSED 127.0.0.1:9')), 'ECONNREFUSED 127.0.0.1:9');
  assert.equal(esReason(named('TimeoutError', 'Request timed out')), 'Request timed out');
  assert.equal(esReason('text'), 'text');
});

test('every error of the contracts has the lab\'s shape: its class\'s name, one line, an exit code where a CLI ends with it', async () => {
  const { LabError, InputError, LabEnvError, TopologyError, ConnectionError, QueryLogError, AllocatorClientError } = await import('../src/errors.js');
  const env = new LabEnvError('lab.env', 3, 'oops');
  assert.ok(env instanceof InputError && env instanceof LabError && env instanceof Error);
  assert.deepEqual([env.name, env.message, env.exitCode, env.file, env.line], ['LabEnvError', 'error: lab.env:3: not a KEY=VALUE line: oops', 2, 'lab.env', 3]);
  assert.equal(String(new TopologyError('lab.env', 'ES_X_GROUP is missing')), 'TopologyError: error: lab.env: ES_X_GROUP is missing');
  assert.equal(new ConnectionError('ES_URL is not a URL').exitCode, 2);
  // errors a caller words or maps itself carry no exit code of their own
  assert.equal(new QueryLogError('bad', 4).message, 'line 4: bad');
  assert.equal('exitCode' in new QueryLogError('bad'), false);
  const refused = new AllocatorClientError('no', { kind: 'refused', status: 409, code: 'conflict' });
  assert.deepEqual([refused.name, refused.kind, refused.status, refused.code, refused.detail], ['AllocatorClientError', 'refused', 409, 'conflict', null]);
  // a package's own error: the shape, with its own exit code and fields
  class ServiceDown extends LabError {
    constructor(message) { super(message, { exitCode: 3 }); }
  }
  const down = new ServiceDown('the allocator does not answer');
  assert.deepEqual([down.name, down.exitCode, down instanceof LabError], ['ServiceDown', 3, true]);
});

test('the contracts hand their errors on with their functions: one class each, wherever it is imported from', async () => {
  const errors = await import('../src/errors.js');
  const faces = { 'lab-env.js': 'LabEnvError', 'lab-env-file.js': 'LabEnvError', 'topology.js': 'TopologyError', 'connection.js': 'ConnectionError', 'querylog.js': 'QueryLogError', 'legacy-dsl.js': 'TranslateError', 'store-map.js': 'StoreMapError', 'allocator-client.js': 'AllocatorClientError' };
  for (const [file, name] of Object.entries(faces)) assert.equal((await import(`../src/${file}`))[name], errors[name], `${file} ${name}`);
});

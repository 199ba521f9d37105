import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GroupHistory } from '../../src/observe/history.js';

const snap = (t, groups) => ({ at: new Date(t).toISOString(), cost: { groups: new Map(groups.map((g) => [g.group, g])) } });

test('one point per group and observation, as columns; old points and gone groups dropped', () => {
  const h = new GroupHistory({ keepMs: 60_000, maxPoints: 100 });
  h.add(snap(0, [{ group: 'g1', signal: 'probe', p95_ms: 20, objective_ms: 100, relative_limit_ms: 30, search_rate: 5, rejected_per_s: 0, cpu_percent: 40 }, { group: 'g2', p95_ms: 10 }]));
  h.add(snap(30_000, [{ group: 'g1', signal: 'load', p95_ms: 25 }, { group: 'g2', p95_ms: 11 }]));
  let v = h.view();
  assert.equal(v.keep_s, 60);
  assert.deepEqual(v.groups.g1.t, [0, 30]);
  assert.deepEqual(v.groups.g1.p95_ms, [20, 25]);
  assert.deepEqual(v.groups.g1.signal, ['probe', 'load']);
  assert.deepEqual(v.groups.g1.objective_ms, [100, null], 'a field an observation lacks is null');
  h.add(snap(90_001, [{ group: 'g1', p95_ms: 30 }]));
  v = h.view();
  assert.deepEqual(v.groups.g1.t, [90.001], 'older than a minute: gone');
  assert.equal(v.groups.g2, undefined, 'a group no longer observed: gone');
});

test('bounded by count too', () => {
  const h = new GroupHistory({ keepMs: 1e9, maxPoints: 3 });
  for (let i = 0; i < 10; i++) h.add(snap(i * 1000, [{ group: 'g1', p95_ms: i }]));
  assert.deepEqual(h.view().groups.g1.p95_ms, [7, 8, 9]);
});

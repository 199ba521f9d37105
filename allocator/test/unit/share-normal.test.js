// Each tenant's normal share of its group (observe/share-normal.js): the relative objective's culprit
// must have risen above it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ShareNormals } from '../../src/observe/share-normal.js';

const t = (tenant, search, write = 0) => ({ tenant, share_of_group: search, write_share_of_group: write });

describe('normal shares', () => {
  const make = () => new ShareNormals({ windowMs: 60000, readyMs: 10000, floor: 0.15 });

  it('is the median of the learned shares, ready once the group learned over half a window', () => {
    const n = make();
    n.add(0, 'g1', [t('big', 0.5), t('small', 0.02)], true);
    assert.equal(n.get('big', 'g1', 'search', 0), null);
    n.add(5000, 'g1', [t('big', 0.6), t('small', 0.02)], true);
    n.add(10000, 'g1', [t('big', 0.55), t('small', 0.02)], true);
    assert.deepEqual(n.get('big', 'g1', 'search', 10000), { share: 0.55, under: false, sd: 0.05 });
    // a share under the floor is not kept: its normal is "under the floor"
    assert.deepEqual(n.get('small', 'g1', 'search', 10000), { share: 0.15, under: true, sd: 0 });
    assert.deepEqual(n.get('big', 'g1', 'write', 10000), { share: 0.15, under: true, sd: 0 });
    // of another group: nothing learned there
    assert.equal(n.get('big', 'g2', 'search', 10000), null);
  });

  it('learns nothing while told not to (a flag in the group, the hold), and the burst samples before a flag do not move the median', () => {
    const n = make();
    for (let at = 0; at <= 20000; at += 5000) n.add(at, 'g1', [t('bot', 0.02)], true);
    n.add(25000, 'g1', [t('bot', 0.7)], true); // the burst's first observation, before its flag
    for (let at = 30000; at <= 50000; at += 5000) n.add(at, 'g1', [t('bot', 0.8)], false);
    assert.deepEqual(n.get('bot', 'g1', 'search', 50000), { share: 0.15, under: true, sd: 0 });
  });

  it('forgets samples out of the window and tenants that are gone; survives a restart', () => {
    const n = make();
    for (let at = 0; at <= 20000; at += 5000) n.add(at, 'g1', [t('a', 0.4), t('b', 0.4)], true);
    n.keepOnly(new Set(['a']));
    assert.deepEqual(n.get('b', 'g1', 'search', 20000), { share: 0.15, under: true, sd: 0 });
    const again = make();
    again.restore(JSON.parse(JSON.stringify(n.toJSON())));
    assert.deepEqual(again.get('a', 'g1', 'search', 20000), { share: 0.4, under: false, sd: 0 });
    // 70 s later the window holds none of them
    again.add(90000, 'g1', [t('a', 0.2)], false);
    assert.equal(again.get('a', 'g1', 'search', 90000), null);
  });

  it("says how much a share varies: the standard deviation of its kept shares, 0 with fewer than 3", () => {
    const n = make();
    n.add(0, 'g1', [t('a', 0.3)], true);
    n.add(5000, 'g1', [t('a', 0.4)], true);
    // learned over half a window: ready; two shares kept, too few to say how it varies
    n.add(10000, 'g1', [t('a', 0.02)], true);
    assert.deepEqual(n.get('a', 'g1', 'search', 10000), { share: 0.3, under: false, sd: 0 });
    n.add(15000, 'g1', [t('a', 0.2)], true);
    n.add(20000, 'g1', [t('a', 0.5)], true);
    // kept: 0.3, 0.4, 0.2, 0.5 (the share under the floor is not kept); its sd 0.129
    assert.deepEqual(n.get('a', 'g1', 'search', 20000), { share: 0.3, under: false, sd: 0.129 });
  });
});

// A group's own normal (baseline.js) and the probe's p95 (probe.js): what the relative objective
// compares with, how it learns, what it refuses to learn and how it survives a restart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Baselines } from '../../src/observe/baseline.js';
import { percentile, probeBody, ProbeWindow } from '../../src/observe/probe.js';
import { SEARCH_FIELDS } from '@tenantlab/contract/storefront';

describe('baseline', () => {
  const make = () => new Baselines({ windowMs: 600000, readyMs: 30000 });

  it('is the median of the healthy p95s over the trailing window, ready once they span readyMs', () => {
    const b = make();
    for (let s = 0; s <= 20; s += 5) b.add(s * 1000, 'g1', 'probe', 30 + s, true);
    assert.equal(b.get('g1', 'probe').ready, false, '20 s of samples: still learning');
    b.add(30000, 'g1', 'probe', 40, true);
    const got = b.get('g1', 'probe');
    assert.deepEqual([got.ready, got.p95_ms, got.samples, got.span_s], [true, 40, 6, 30]);
  });

  it('does not learn while a tenant of the group is flagged, nor the first slow observations of a burst', () => {
    const b = make();
    for (let s = 0; s <= 60; s += 5) b.add(s * 1000, 'g1', 'probe', 30, true);
    // a burst: two slow observations before the flag (learned), then flagged (not learned)
    b.add(65000, 'g1', 'probe', 90, true);
    b.add(70000, 'g1', 'probe', 95, true);
    for (let s = 75; s <= 200; s += 5) b.add(s * 1000, 'g1', 'probe', 120, false);
    assert.equal(b.get('g1', 'probe').p95_ms, 30, 'the median keeps the onset out');
  });

  it('counts a spike as no more than the relative limit of its time, yet follows a lasting rise', () => {
    const b = new Baselines({ windowMs: 100000, readyMs: 10000 });
    for (let s = 0; s < 50; s += 5) b.add(s * 1000, 'g1', 'probe', 30, true, 39);
    // a lasting rise to 60 ms: each sample counts as at most the limit of its time
    let limit = 39;
    for (let s = 50; s <= 400; s += 5) {
      b.add(s * 1000, 'g1', 'probe', 60, true, limit);
      limit = Math.max(b.get('g1', 'probe').p95_ms * 1.3, b.get('g1', 'probe').p95_ms + 5);
    }
    assert.equal(b.get('g1', 'probe').p95_ms, 60, 'the new normal, reached a limit at a time');
    const c = new Baselines({ windowMs: 100000, readyMs: 10000 });
    for (let s = 0; s < 50; s += 5) c.add(s * 1000, 'g1', 'probe', 30, true, 39);
    for (let s = 50; s < 105; s += 5) c.add(s * 1000, 'g1', 'probe', 500, true, 39);
    assert.equal(c.get('g1', 'probe').p95_ms, 39, 'eleven spikes of 500 ms count as the limit (39), not as 500');
  });

  it("follows a lab that got faster within a quarter window: the lower of the window's median and its last quarter's", () => {
    const b = new Baselines({ windowMs: 300000, readyMs: 7500 });
    // a cold lab: 346 ms for two minutes, then warm at 20 ms
    for (let s = 0; s <= 120; s += 1) b.add(s * 1000, 'g1', 'load', 346, true);
    for (let s = 121; s <= 135; s += 1) b.add(s * 1000, 'g1', 'load', 20, true);
    assert.equal(b.get('g1', 'load').p95_ms, 346, '15 s warm of the last 75 s: the quarter is still mostly cold');
    for (let s = 136; s <= 165; s += 1) b.add(s * 1000, 'g1', 'load', 20, true);
    assert.equal(b.get('g1', 'load').p95_ms, 20, 'the last quarter (75 s) mostly warm: its median');
    // a lab that got slower is not followed that way: the whole window's median stays
    const c = new Baselines({ windowMs: 300000, readyMs: 7500 });
    for (let s = 0; s <= 120; s += 1) c.add(s * 1000, 'g1', 'load', 20, true);
    for (let s = 121; s <= 200; s += 1) c.add(s * 1000, 'g1', 'load', 30, true);
    assert.equal(c.get('g1', 'load').p95_ms, 20);
  });

  it('forgets what is older than its window, so a group that really grows busier gets a new normal', () => {
    const b = new Baselines({ windowMs: 60000, readyMs: 10000 });
    for (let s = 0; s <= 60; s += 5) b.add(s * 1000, 'g1', 'probe', 30, true);
    for (let s = 65; s <= 200; s += 5) b.add(s * 1000, 'g1', 'probe', 60, true);
    assert.equal(b.get('g1', 'probe').p95_ms, 60);
  });

  it('keeps one baseline per signal: the probe and the shoppers differ in scale', () => {
    const b = make();
    for (let s = 0; s <= 40; s += 5) {
      b.add(s * 1000, 'g1', 'probe', 30, true);
      b.add(s * 1000, 'g1', 'load', 150, true);
    }
    assert.equal(b.get('g1', 'probe').p95_ms, 30);
    assert.equal(b.get('g1', 'load').p95_ms, 150);
    assert.equal(b.get('g1', null), null);
    assert.equal(b.get('g2', 'probe'), null);
  });

  it('a running allocator whose samples aged out learns again: no stale normal from before an idle spell', () => {
    const b = new Baselines({ windowMs: 60000, readyMs: 10000 });
    // a cold first load run: a slow normal, judged by the shoppers' p95
    for (let s = 0; s <= 30; s += 5) b.add(s * 1000, 'g1', 'load', 190, true);
    assert.equal(b.get('g1', 'load').p95_ms, 190);
    // no load for two minutes: the probe judges the group, the load signal gets no sample
    for (let s = 35; s <= 150; s += 5) b.add(s * 1000, 'g1', 'probe', 20, false);
    const idle = b.get('g1', 'load');
    assert.equal(idle, null, 'no sample of the load signal inside the window: learning, not the cold 190 ms');
    // the next run: a fresh normal from its own first seconds
    for (let s = 155; s <= 170; s += 5) b.add(s * 1000, 'g1', 'load', 45, true);
    assert.deepEqual([b.get('g1', 'load').p95_ms, b.get('g1', 'load').ready], [45, true]);
  });

  it("forgets one group's samples and last baseline, every signal, and no other group's", () => {
    const b = make();
    for (let s = 0; s <= 60; s += 5) for (const [g, sig] of [['g1', 'load'], ['g1', 'probe'], ['g10', 'load']]) b.add(s * 1000, g, sig, 30, true);
    b.restore(JSON.parse(JSON.stringify(b.toJSON()))); // as after a restart: the last ones marked restored
    assert.equal(b.forget('g1'), 26);
    assert.equal(b.get('g1', 'load'), null, 'nothing left to stand in, not even the last one');
    assert.equal(b.get('g1', 'probe'), null);
    assert.equal(b.get('g10', 'load').p95_ms, 30, 'a group whose name starts the same is untouched');
    assert.deepEqual(Object.keys(b.toJSON().samples), ['g10|load'], 'the saved state forgets it too');
    b.add(65000, 'g1', 'load', 12, true);
    assert.deepEqual([b.get('g1', 'load').p95_ms, b.get('g1', 'load').ready], [12, false], 'learned again from the next observations');
    assert.equal(b.forget('g9'), 0);
  });

  it('survives a restart: restored from what the state keeps, and the last one stays (stale) after a long stop', () => {
    const b = make();
    for (let s = 0; s <= 40; s += 5) b.add(s * 1000, 'g1', 'probe', 30, true);
    const saved = JSON.parse(JSON.stringify(b.toJSON()));
    const again = new Baselines({ windowMs: 600000, readyMs: 30000, saved });
    assert.equal(again.get('g1', 'probe').p95_ms, 30);
    assert.equal(again.get('g1', 'probe').ready, true);
    // an hour later every sample has aged out: the last baseline is kept, marked stale
    again.add(3600000, 'g1', 'probe', 500, false);
    const stale = again.get('g1', 'probe');
    assert.deepEqual([stale.p95_ms, stale.stale], [30, true]);
  });
});

describe('probe', () => {
  it("keeps a window of timings and gives each group's nearest-rank p95 with its count", () => {
    const w = new ProbeWindow(10000);
    for (let i = 1; i <= 20; i += 1) w.add(i * 100, new Map([['g1', { ms: i, tenant: 't' }], ['g2', { ms: null, tenant: 'u' }]]));
    assert.deepEqual(w.p95s().get('g1'), { p95_ms: 19, count: 20 });
    assert.equal(w.p95s().has('g2'), false, 'a failed probe is no figure');
    assert.deepEqual([w.sent, w.failed], [40, 20]);
    w.add(20000, new Map([['g1', { ms: 5, tenant: 't' }]]));
    assert.deepEqual(w.p95s().get('g1'), { p95_ms: 5, count: 1 }, 'samples older than the window are gone');
    assert.equal(percentile([], 0.95), null);
  });

  it("is shaped like the storefront's requests: faceted category pages and text searches on the .partial fields, by turns", () => {
    const page = probeBody(2, ['Home', 'Home/Kitchen']);
    assert.equal(page.size, 24);
    assert.deepEqual(Object.keys(page.aggs), ['brands', 'colors', 'sizes', 'price', 'rating']);
    assert.ok(page.sort);
    // one of the store's own categories, rotating; the whole store when its categories are unknown
    assert.deepEqual(page.query.bool.filter[0], { term: { categories: 'Home/Kitchen' } });
    assert.deepEqual(probeBody(0, []).query.bool.filter, [{ term: { is_visible: true } }]);
    const text = probeBody(1);
    const q = text.query.bool.must[0].simple_query_string;
    assert.deepEqual(q.fields, SEARCH_FIELDS);
    assert.ok(q.fields.some((f) => f.endsWith('.partial')));
    assert.match(q.query, /^[a-z]{2,}$/);
    assert.notEqual(probeBody(3).query.bool.must[0].simple_query_string.query, q.query, 'the words rotate');
  });
});

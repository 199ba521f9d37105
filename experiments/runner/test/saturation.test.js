// Rates as shares of the lab's saturation (src/run/calibrate.js): the rule that ends the
// calibration, the rates it sets, the saturating workload, and what results.json and the report
// say of it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CALIBRATION, CALIBRATION_QUICK } from '../src/spec.js';
import { applyCalibration, calibrated, calibrationOf, rateAt, saturatingWorkload, saturationOf } from '../src/run/calibrate.js';
import { validateResults } from '../src/results.js';
import { writeReport } from '../src/report.js';
import { syntheticResults } from './fixtures/synthetic.js';

const p = (throughput_rps, p95_ms = 40) => ({ throughput_rps, p95_ms });

test('calibrated: the last two windows measured something and set no new high over 5% above the best before them; the saturation is the median of the last three', () => {
  assert.equal(calibrated([p(300), p(301)]), false, 'two windows never are');
  assert.equal(calibrated([p(551), p(559), p(539)]), true, "a fresh lab's plateau: 559 is 1.5% over 551");
  assert.equal(calibrated([p(163), p(182.2), p(180.6)]), false, "the demo's false plateau of 2026-11-29: 182 is 12% over 163");
  assert.equal(calibrated([p(163), p(182.2), p(180.6), p(181)]), true, 'then no new high');
  assert.equal(calibrated([p(497.75), p(634), p(594.63), p(538.25)]), true, "a warm lab's 8-s windows scatter by 10%, yet set no new high");
  assert.equal(calibrated([p(359), p(395), p(396), p(446)]), false, 'a lab still warming sets one');
  assert.equal(calibrated([p(300), p(315), p(300)]), true, 'exactly 5% above the best before is no new high');
  assert.equal(calibrated([p(0, null), p(0, null), p(0, null)]), false, 'nothing measured');
  assert.equal(calibrated([p(500), p(0, null), p(500)]), false, 'a window that answered nothing');
  assert.equal(saturationOf([p(497.75), p(634), p(594.63), p(538.25)]), 594.63);
  assert.equal(saturationOf([p(100), p(200)]), 150, 'fewer windows: the median of those');
});

test('rateAt: a share of the saturation in whole requests/s, never below 1', () => {
  assert.equal(rateAt(1031.4, 0.4), 413);
  assert.equal(rateAt(310, 0.32), 99);
  assert.equal(rateAt(1, 0.1), 1);
});

test('applyCalibration: sets the shares\' rates in place and leaves fixed ones alone', () => {
  const plan = {
    workload: { model: 'open', rate: null, rate_of_saturation: 0.4 },
    variants: [
      { name: 'isolated', burst: { kind: 'bot', rate: null, rate_of_saturation: 0.32 } },
      { name: 'fixed', burst: { kind: 'bot', rate: 30 } },
      { name: 'quiet' },
    ],
  };
  const burst = plan.variants[0].burst;
  assert.deepEqual(applyCalibration(plan, 1000), { workload: 400, bursts: { isolated: 320 } });
  assert.equal(plan.workload.rate, 400);
  assert.equal(burst.rate, 320, 'the same object results.json holds');
  assert.equal(plan.variants[1].burst.rate, 30);
  const fixed = { workload: { model: 'open', rate: 120 }, variants: [{ name: 'a', burst: { rate: null, rate_of_saturation: 0.5 } }] };
  assert.deepEqual(applyCalibration(fixed, 300), { workload: null, bursts: { a: 150 } });
  assert.equal(fixed.workload.rate, 120);
});

test('saturatingWorkload: closed shoppers with no think time, the plan\'s phases unless given', () => {
  const w = { scenario: 'storefront', model: 'open', rate: null, rate_of_saturation: 0.4, vus: 8, think_ms: 0, ramp_up: '5s', ramp_up_s: 5, warmup: '10s', warmup_s: 10, measure: '80s', measure_s: 80 };
  assert.deepEqual(saturatingWorkload(w, 8), { ...w, model: 'closed', vus: 8, think_ms: 0, rate: null });
  const c = saturatingWorkload(w, 6, { rampS: 2, warmS: 3, windowS: 15 });
  assert.deepEqual([c.model, c.vus, c.rate, c.ramp_up, c.ramp_up_s, c.warmup_s, c.measure, c.measure_s], ['closed', 6, null, '2s', 2, 3, '15s', 15]);
  assert.equal(w.model, 'open', 'the plan\'s workload is not changed');
});

test('calibrationOf: a full run in 15 s windows up to 8; a QUICK run (the demo too), whose cold round is seconds, in 8 s windows up to 20 (about five minutes for a lab just started)', () => {
  assert.equal(calibrationOf({ quick: false }), CALIBRATION);
  assert.equal(calibrationOf({ quick: true }), CALIBRATION_QUICK);
  assert.deepEqual([CALIBRATION.windowS, CALIBRATION.maxPasses, CALIBRATION.tolerance, CALIBRATION.windows], [15, 8, 0.05, 3]);
  assert.deepEqual([CALIBRATION_QUICK.windowS, CALIBRATION_QUICK.maxPasses, CALIBRATION_QUICK.tolerance, CALIBRATION_QUICK.windows], [8, 20, 0.05, 3]);
});

test('results.calibration validates; the report states the saturation, the windows and the rates, and says when it never was steady', async () => {
  const { results } = syntheticResults();
  const r0 = structuredClone(results);
  r0.plan.workload = { ...r0.plan.workload, model: 'open', rate: 413, rate_of_saturation: 0.4, vus: null, think_ms: null };
  r0.variants[0].burst = { kind: 'bot', from: 0.25, to: 1, rate: 330, rate_of_saturation: 0.32 };
  const base = { variant: r0.variants[0].name, vus: 8, window_s: 15, tolerance: 0.1, max_passes: 4, saturation_rps: 1031.4, rate: 413, burst_rates: { [r0.variants[0].name]: 330 } };
  for (const [calibration, re] of [
    [{ ...base, passes: [p(880.2), p(1012), p(1031.4)], steady: true },
      /The rates are shares of the lab's saturation, measured on it after a cold round run saturated: 3 windows of 15 s of \S+'s stores with 8 shoppers and no think time until two in a row agreed within 10% \(880, 1,012, 1,031 page views\/s\): saturation 1,031 page views\/s, so the storefront at 413 page views\/s \(40%\), the bot at 330 pages\/s \(32%\)\. /],
    [{ ...base, passes: [p(500), p(700), p(900), p(1031.4)], steady: false }, /\*\*never steady\*\* \(the last window's figure was used\): saturation 1,031/],
    [{ ...base, tolerance: 0.05, windows: 3, passes: [p(880.2), p(1012), p(1031.4), p(1020)], steady: true, saturation_rps: 1020 }, /4 windows of 15 s of \S+'s stores with 8 shoppers and no think time until two in a row set no new high more than 5% above the best before them \(880, 1,012, 1,031, 1,020 page views\/s\): saturation \(the median of the last three\) 1,020 page views\/s, so /],
    [{ ...base, tolerance: 0.05, windows: 3, passes: [p(83), p(101), p(130)], steady: false, saturation_rps: 101 }, /\*\*never steady\*\* \(the median of the last three was used\): saturation \(the median of the last three\) 101/],
  ]) {
    const r = { ...structuredClone(r0), calibration };
    assert.deepEqual(validateResults(r), []);
    const dir = join(mkdtempSync(join(tmpdir(), 'calibration-')), 'run');
    await writeReport(dir, r);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    assert.match(md, re);
    assert.match(md, /open model, 413 requests\/s \(40% of the lab's measured saturation\)/);
  }
  for (const bad of [{ ...base, passes: [], steady: true }, { ...base, passes: [p(900)], steady: 'yes' }, { ...base, passes: [p(900)], steady: true, saturation_rps: 0 }]) {
    assert.notDeepEqual(validateResults({ ...structuredClone(r0), calibration: bad }), [], JSON.stringify(bad));
  }
  // a smoke run (QUICK, the demo) has no protocol paragraph: its verdict paragraph says it
  const smoke = { ...structuredClone(r0), verdicts: [], smoke: { result: 'passed', reason: 'every variant measured in every repetition' }, calibration: { ...base, passes: [p(880.2), p(1031.4)], steady: true } };
  assert.deepEqual(validateResults(smoke), []);
  const smokeDir = join(mkdtempSync(join(tmpdir(), 'calibration-')), 'run');
  await writeReport(smokeDir, smoke);
  assert.match(readFileSync(join(smokeDir, 'report.md'), 'utf8'), /\*\*smoke run, no verdict\*\* \(passed\): [^\n]*The rates are shares of the lab's saturation[^\n]*saturation 1,031 page views\/s, so the storefront at 413 page views\/s \(40%\)/);
  // a run whose rates were the spec's own says nothing of a calibration
  const dir = join(mkdtempSync(join(tmpdir(), 'calibration-')), 'run');
  await writeReport(dir, structuredClone(results));
  assert.doesNotMatch(readFileSync(join(dir, 'report.md'), 'utf8'), /saturation/);
});

test("a full run's closing calibration: results.calibration.closing validates, and the report says how far the lab moved and the rates' shares of it then", async () => {
  const { results } = syntheticResults();
  const r0 = structuredClone(results);
  r0.plan.workload = { ...r0.plan.workload, model: 'open', rate: 234, rate_of_saturation: 0.4, vus: null, think_ms: null };
  r0.variants[0].burst = { kind: 'bot', from: 0.25, to: 1, rate: 175, rate_of_saturation: 0.3 };
  const base = { variant: r0.variants[0].name, vus: 8, window_s: 15, tolerance: 0.1, max_passes: 4, passes: [p(547), p(585)], steady: true, saturation_rps: 585, rate: 234, burst_rates: { [r0.variants[0].name]: 175 } };
  for (const [closing, re] of [
    [{ passes: [p(780), p(800)], steady: true, saturation_rps: 800, ratio: 1.37 },
      /saturation 585 page views\/s, so [^\n]*\. After the last round the same windows measured 800 page views\/s \(780, 800\), 1\.37x the calibration's, \*\*the lab got faster: the rates were smaller shares of it by the end\*\* \(the storefront 29\.3%, the bot 21\.9% of it\)\. /],
    [{ passes: [p(600), p(610)], steady: true, saturation_rps: 610, ratio: 1.04 }, /After the last round the same windows measured 610 page views\/s \(600, 610\), 1\.04x the calibration's, within the calibration's tolerance of it/],
    [{ passes: [p(300), p(500), p(400), p(450)], steady: false, saturation_rps: 450, ratio: 0.77 }, /\(300, 500, 400, 450, never steady\), 0\.77x the calibration's, \*\*the lab got slower: the rates were larger shares/],
  ]) {
    const r = { ...structuredClone(r0), calibration: { ...base, closing } };
    assert.deepEqual(validateResults(r), []);
    const dir = join(mkdtempSync(join(tmpdir(), 'calibration-')), 'run');
    await writeReport(dir, r);
    assert.match(readFileSync(join(dir, 'report.md'), 'utf8'), re);
  }
  for (const bad of [{ passes: [], steady: true, saturation_rps: 800, ratio: 1.37 }, { passes: [p(800)], steady: true, saturation_rps: 800 }, { passes: [p(800)], steady: true, saturation_rps: 800, ratio: 0 }]) {
    assert.notDeepEqual(validateResults({ ...structuredClone(r0), calibration: { ...base, closing: bad } }), [], JSON.stringify(bad));
  }
  // without a closing calibration (a QUICK run, or one whose windows answered nothing): nothing said
  const dir = join(mkdtempSync(join(tmpdir(), 'calibration-')), 'run');
  await writeReport(dir, { ...structuredClone(r0), calibration: base });
  assert.doesNotMatch(readFileSync(join(dir, 'report.md'), 'utf8'), /After the last round/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32, Random } from '../src/random.js';

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('the plain seeded stream is reproducible, in [0, 1), and roughly uniform', () => {
  const a = mulberry32(42);
  const b = mulberry32(42);
  const xs = Array.from({ length: 20000 }, () => a());
  assert.deepEqual(xs.slice(0, 5), Array.from({ length: 5 }, () => b()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.ok(Math.abs(mean(xs) - 0.5) <= 0.01, `mean ${mean(xs)}`);
  assert.notDeepEqual(xs.slice(0, 5), Array.from({ length: 5 }, mulberry32(43)));
});

test('a keyed stream is the same whenever it is asked for, and another key gives another', () => {
  const draw = (...key) => {
    const r = new Random(...key);
    return Array.from({ length: 5 }, () => r.float());
  };
  assert.deepEqual(draw(7, 'product', 3, 41), draw(7, 'product', 3, 41));
  assert.notDeepEqual(draw(7, 'product', 3, 41), draw(7, 'product', 3, 42));
  assert.notDeepEqual(draw(7, 'product', 3, 41), draw(7, 'store', 3, 41));
  assert.notDeepEqual(draw(2 ** 32 + 7, 'product', 3, 41), draw(7, 'product', 3, 41), 'a seed above 2^32 keeps its high bits');
});

// The console's pure helpers (the page itself is tested in a real browser: tests/live/57-console.bats)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shareColour, tileSide } from '../../src/console/map.js';
import { moveProgress } from '../../src/console/moves.js';
import { duration } from '../../src/console/dom.js';

test('a tile: its area grows with its documents, the smallest still a target; its colour darkens with its share', () => {
  assert.equal(tileSide(0, 1000), 24);
  assert.equal(tileSide(1000, 1000), 80);
  assert.equal(tileSide(250, 1000), 52, 'a quarter of the documents: half the extra side, a quarter of the extra area');
  assert.equal(tileSide(5, 0), 24, 'no documents anywhere yet');
  assert.equal(shareColour(0), 'hsl(24 90% 96%)');
  assert.equal(shareColour(1), 'hsl(24 90% 44%)');
  assert.equal(shareColour(2), shareColour(1), 'clamped');
  assert.equal(shareColour(null), shareColour(0));
});

test("a move's progress: its phase, and inside the copy the documents copied of the tenant's", () => {
  assert.equal(moveProgress({ state: 'queued', phase: 'prepare' }, 100), 0);
  assert.equal(moveProgress({ state: 'running', phase: 'copy', documents_copied: 50 }, 100), 0.5);
  assert.equal(moveProgress({ state: 'running', phase: 'copy', documents_copied: 500 }, 100), 0.6, 'never past the copy phase while copying');
  assert.equal(moveProgress({ state: 'running', phase: 'cleanup' }, 100), 0.8);
  assert.equal(moveProgress({ state: 'succeeded', phase: 'done' }, 100), 1);
});

test('durations read as people say them', () => {
  assert.equal(duration(4.26), '4.3 s');
  assert.equal(duration(125), '2 min 5 s');
  assert.equal(duration(null), '–');
});

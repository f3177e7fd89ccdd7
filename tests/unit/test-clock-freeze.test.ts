/**
 * Freezing or advancing a project's clock reads the running time once: read twice, a clock that ticked in
 * between made "freeze now" a move back, refused with a 400 (seen once in a full run, under load).
 */
import { expect, test } from '@jest/globals';
import { advanceTestClock, freezeTestClock } from '../../server/domain/test-clock.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { MemoryStore } from '../../server/store/memory.js';

test('when the clock ticks on every reading, then freezing it at its time now and advancing it by a duration still succeed', async () => {
  const store = new MemoryStore(SCHEMA);
  await store.createProject('p');
  let ms = Date.parse('2026-05-01T08:00:00.000Z');
  // A millisecond passes between any two readings, as it can under load.
  const ticking = { now: () => new Date(ms++) };
  await store.transaction('p', async (uow) => {
    const ctx = { uow, clock: ticking };
    const frozen = await freezeTestClock(ctx as never, {});
    expect(frozen).toMatchObject({ frozen: true, time: '2026-05-01T08:00:00.000Z' });
  });
  await store.transaction('p', async (uow) => {
    const ctx = { uow, clock: ticking };
    const moved = await advanceTestClock(ctx as never, { by: 'PT1H' });
    expect(moved.frozen).toBe(true);
    expect(Date.parse(moved.time) - Date.parse('2026-05-01T08:00:00.000Z')).toBeGreaterThanOrEqual(60 * 60 * 1000);
  });
});

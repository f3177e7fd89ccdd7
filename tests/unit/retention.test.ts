/** The event log keeps a project's most recent events; what it drops changes no counter. */
import { describe, expect, test } from '@jest/globals';
import { campaignCounters } from '../../server/domain/campaign-counters.js';
import { OffsetClock } from '../../server/domain/clock.js';
import { recordEvent } from '../../server/domain/events.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { withRetention } from '../../server/store/retention.js';
import { appendFirst } from '../../server/store/store.js';

describe('event retention', () => {
  test('when a project records more events than it keeps, then the oldest are dropped, in each project apart', async () => {
    const store = withRetention(new MemoryStore(SCHEMA), { events: 10 });
    const clock = new OffsetClock();
    for (const project of ['a', 'b']) await store.createProject(project);
    for (let i = 0; i < 25; i++) {
      await store.transaction('a', (uow) => recordEvent({ uow, clock }, 'customer.created', { customer_id: `c${i}` }, {}));
    }
    await store.transaction('b', (uow) => recordEvent({ uow, clock }, 'customer.created', { customer_id: 'only' }, {}));
    const kept = await store.transaction('a', async (uow) => (await uow.events.query({})).rows.map((row) => row.customer_id));
    expect(kept).toEqual(Array.from({ length: 10 }, (_, i) => `c${i + 15}`));
    expect(await store.transaction('a', (uow) => uow.events.countBy('customer_id', 'c0'))).toBe(0);
    expect(await store.transaction('b', async (uow) => (await uow.events.query({})).total)).toBe(1);
  });

  test('when events are recorded by appends, then the oldest are dropped too (the append is refused the deletion and runs again as a transaction, which counts again)', async () => {
    // 300 kept: the table is counted every 3 inserts, so the rerun of a refused append must count once more.
    const store = withRetention(new MemoryStore(SCHEMA), { events: 300 });
    const clock = new OffsetClock();
    await store.createProject('a');
    for (let i = 0; i < 330; i++) {
      await appendFirst(store, 'a', (uow) => recordEvent({ uow, clock }, 'customer.created', { customer_id: `c${i}` }, {}));
    }
    const { total } = await store.transaction('a', (uow) => uow.events.query({ limit: 0 }));
    expect(total).toBeGreaterThanOrEqual(300);
    expect(total).toBeLessThan(303);
  });

  test('when counted events are dropped, then the campaign counters do not change, whole or in a window', async () => {
    const clock = new OffsetClock();
    const start = Date.UTC(2026, 0, 1, 10, 0, 0);
    const kept = withRetention(new MemoryStore(SCHEMA), { events: 5 });
    const whole = withRetention(new MemoryStore(SCHEMA), { events: 1000 });
    for (const store of [kept, whole]) {
      await store.createProject('p');
      for (let i = 0; i < 40; i++) {
        clock.travelTo(new Date(start + i * 10 * 60_000));
        await store.transaction('p', (uow) =>
          recordEvent({ uow, clock }, i % 3 === 0 ? 'redemption.failed' : 'redemption.succeeded', { campaign_id: 'camp' }, { order_amount: 1000, discount_amount: 100 }),
        );
      }
    }
    const hour = 3_600_000;
    for (const [from, to] of [
      [-Infinity, Infinity],
      [start + hour, start + 4 * hour - 1],
      [start, start + 2 * hour - 1],
      [start + 2 * hour, Infinity],
    ] as const) {
      const fromKept = await kept.transaction('p', (uow) => campaignCounters({ uow, clock }, 'camp', from, to));
      const fromWhole = await whole.transaction('p', (uow) => campaignCounters({ uow, clock }, 'camp', from, to));
      expect(fromKept).toEqual(fromWhole);
    }
    const all = await kept.transaction('p', (uow) => campaignCounters({ uow, clock }, 'camp', -Infinity, Infinity));
    expect(all).toMatchObject({ redemptions: 40, redemptions_failed: 14, redemptions_succeeded: 26, orders_amount: 26_000, discounted_amount: 2_600 });
    expect(await kept.transaction('p', async (uow) => (await uow.events.query({})).total)).toBe(5);
  });

  test('when a window cuts an hour whose events are still all kept, then it counts to the millisecond', async () => {
    const clock = new OffsetClock();
    const store = withRetention(new MemoryStore(SCHEMA), { events: 1000 });
    await store.createProject('p');
    const start = Date.UTC(2026, 0, 1, 10, 0, 0);
    for (let i = 0; i < 6; i++) {
      clock.travelTo(new Date(start + i * 5));
      await store.transaction('p', (uow) => recordEvent({ uow, clock }, 'validation.succeeded', { campaign_id: 'camp' }, {}));
    }
    const counted = await store.transaction('p', (uow) => campaignCounters({ uow, clock }, 'camp', start + 7, start + 22));
    expect(counted).toMatchObject({ validations: 3, validations_succeeded: 3 });
  });

  test('when projects insert in turn into a log of 300, then each is counted every 3 inserts of its own, and never holds 3 more', async () => {
    const store = withRetention(new MemoryStore(SCHEMA), { events: 300 });
    const clock = new OffsetClock();
    const total = (project: string) => store.transaction(project, async (uow) => (await uow.events.query({ limit: 0 })).total);
    for (const project of ['a', 'b']) await store.createProject(project);
    const seen = { a: [] as number[], b: [] as number[] };
    for (let i = 0; i < 700; i++) {
      // b inserts once for every two of a's, so the projects' counts of inserts since their last count differ.
      for (const project of i % 2 === 0 ? ['a', 'b'] : ['a']) {
        await store.transaction(project, (uow) => recordEvent({ uow, clock }, 'customer.created', { customer_id: `c${i}` }, {}));
        seen[project as 'a' | 'b'].push(await total(project));
      }
    }
    for (const totals of Object.values(seen)) {
      expect(Math.max(...totals)).toBe(302);
      expect(totals.slice(-6).every((count) => count >= 300 && count <= 302)).toBe(true);
    }
    // Dropped whenever 3 inserts of its own have passed: a's log was cut back to 300 at its 303rd insert, not before.
    expect(seen.a.slice(299, 303)).toEqual([300, 301, 302, 300]);
  });

  test('when a retention names a table the store does not keep, or is not a whole number of rows, then it is refused', () => {
    expect(() => withRetention(new MemoryStore(SCHEMA), { event: 10 } as never)).toThrow('no table event');
    expect(() => withRetention(new MemoryStore(SCHEMA), { events: 0.5 })).toThrow('whole number');
  });
});

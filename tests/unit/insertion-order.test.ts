/**
 * Pages read off insertion order (no `where`, ordered by a field that grows with insertion) must equal
 * the pages of a full sort, whatever mix of inserts, updates, deletes, undone deletes, re-inserted IDs
 * and clocks moving backwards came before. Model-based, with fast-check.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { VoucherRecord } from '../../server/domain/vouchers.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import type { Query } from '../../server/store/store.js';
import { and } from '../../server/store/conditions.js';

type Step =
  | { kind: 'insert'; campaign: string; tick: number }
  | { kind: 'move'; pick: number; campaign: string }
  | { kind: 'delete'; pick: number }
  | { kind: 'undone-delete'; pick: number }
  | { kind: 'reinsert'; pick: number; campaign: string };

const campaigns = fc.constantFrom('c1', 'c2', 'c3');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('insert' as const), campaign: campaigns, tick: fc.integer({ min: -1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), campaign: campaigns }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('undone-delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reinsert' as const), pick: fc.nat(), campaign: campaigns }) },
);

const voucher = (id: string, campaign: string, createdAt: number) =>
  ({ id, code: `code-${id}`, campaign_id: campaign, holder_id: null, category_id: null, created_at: new Date(createdAt).toISOString() }) as unknown as VoucherRecord;

describe('MemoryStore pages in insertion order', () => {
  test('when no where is given, then every page equals the page of a full sort', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 60 }),
        fc.boolean(),
        fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 6 }),
        async (steps, useIndex, direction, offset, limit) => {
          const store = new MemoryStore(SCHEMA);
          await store.createProject('p');
          let clock = Date.UTC(2026, 0, 1);
          let next = 0;
          const live: string[] = [];
          const gone: string[] = [];
          for (const s of steps) {
            await store
              .transaction('p', async (uow) => {
                if (s.kind === 'insert') {
                  clock += s.tick * 1000;
                  const id = `v${next++}`;
                  await uow.vouchers.insert(voucher(id, s.campaign, clock));
                  live.push(id);
                } else if (s.kind === 'reinsert' && gone.length > 0) {
                  const id = gone.splice(s.pick % gone.length, 1)[0]!;
                  await uow.vouchers.insert(voucher(id, s.campaign, clock));
                  live.push(id);
                } else if (live.length > 0 && s.kind !== 'reinsert') {
                  const id = live[s.pick % live.length]!;
                  if (s.kind === 'move') {
                    const row = (await uow.vouchers.get(id))!;
                    // Some updates also move the creation time back, which ends the insertion-order shortcut.
                    const createdAt = s.pick % 2 === 1 ? new Date(clock - 5000).toISOString() : row.created_at;
                    await uow.vouchers.update({ ...row, campaign_id: s.campaign, created_at: createdAt });
                  } else {
                    await uow.vouchers.delete(id);
                    if (s.kind === 'undone-delete') throw new Error('undo');
                    live.splice(live.indexOf(id), 1);
                    gone.push(id);
                  }
                }
              })
              .catch(() => undefined);
          }
          await store.transaction('p', async (uow) => {
            const base: Query<VoucherRecord> = {
              ...(useIndex && { index: { field: 'campaign_id', value: 'c1' } }),
              orderBy: { field: 'created_at', direction },
              offset,
              limit,
            };
            const direct = await uow.vouchers.query(base);
            const sorted = await uow.vouchers.query({ ...base, where: and() });
            expect(direct.total).toBe(sorted.total);
            expect(direct.rows.map((row) => row.id)).toEqual(sorted.rows.map((row) => row.id));
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

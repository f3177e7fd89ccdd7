/**
 * Sorted pages near the start are selected in one pass (MemoryTable.selectTop) instead of sorting every match.
 * Model check: for random rows (with ties, deletes and re-inserts), indexes, filters, orders, offsets and
 * limits, the page and total equal those of the full sort (the same query without a limit, sliced).
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Sku } from '../../server/domain/catalog/types.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import type { Query } from '../../server/store/store.js';
import { ne } from '../../server/store/conditions.js';

const sku = (id: string, productId: string, price: number | null): Sku =>
  ({ id, source_id: null, product_id: productId, sku: null, price, currency: null, attributes: {}, image_url: null, metadata: {}, created_at: '2026-01-01T00:00:00.000Z', updated_at: null, object: 'sku' }) as Sku;

describe('sorted pages selected in one pass', () => {
  test('equal the full sort for any rows, index, filter, order, offset and limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ product: fc.constantFrom('p1', 'p2'), price: fc.option(fc.integer({ min: 0, max: 5 })), reinsert: fc.boolean() }), { maxLength: 60 }),
        fc.record({
          index: fc.option(fc.constantFrom('p1', 'p2')),
          skipPrice: fc.option(fc.integer({ min: 0, max: 5 })),
          field: fc.constantFrom<'price' | 'id'>('price', 'id'),
          direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
          offset: fc.integer({ min: 0, max: 20 }),
          limit: fc.integer({ min: 0, max: 30 }),
        }),
        async (rows, q) => {
          const store = new MemoryStore(SCHEMA);
          await store.createProject('p');
          await store.transaction('p', async (uow) => {
            for (const [i, row] of rows.entries()) await uow.skus.insert(sku(`sku_${String(i).padStart(3, '0')}`, row.product, row.price));
            // Deleted and inserted again: such rows move to the end of insertion order.
            for (const [i, row] of rows.entries()) {
              if (!row.reinsert) continue;
              await uow.skus.delete(`sku_${String(i).padStart(3, '0')}`);
              await uow.skus.insert(sku(`sku_${String(i).padStart(3, '0')}`, row.product, row.price));
            }
          });
          const query: Query<Sku> = {
            ...(q.index !== null && { index: { field: 'product_id', value: q.index } }),
            ...(q.skipPrice !== null && { where: ne('price', q.skipPrice) }),
            orderBy: { field: q.field, direction: q.direction },
          };
          const [page, full] = await store.transaction('p', (uow) => Promise.all([uow.skus.query({ ...query, offset: q.offset, limit: q.limit }), uow.skus.query(query)]));
          expect(page.total).toBe(full.total);
          expect(page.rows.map((row) => row.id)).toEqual(full.rows.slice(q.offset, q.offset + q.limit).map((row) => row.id));
        },
      ),
      { numRuns: 300 },
    );
  });
});

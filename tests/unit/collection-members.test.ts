/**
 * An auto-update collection's members are selected by the store (its filter a store condition, a page of each
 * table merged), not by reading every product and SKU into memory. The list must be what working the filter
 * out member by member gives: the same members, order, pages and total, on the memory store and on PGlite.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { ManualClock } from '../../server/domain/clock.js';
import { createCollection, listCollectionMembers, matchesCollectionFilter, type MembersQuery } from '../../server/domain/catalog/collections.js';
import { createProduct, updateProduct } from '../../server/domain/catalog/products.js';
import { createSku } from '../../server/domain/catalog/skus.js';
import type { Product, ProductCollectionFilter, Sku } from '../../server/domain/catalog/types.js';
import type { DomainContext } from '../../server/domain/context.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { MemoryStore } from '../../server/store/memory.js';
import { openPgliteStore } from '../../server/store/sql/sql-store.js';

type AnyStore = MemoryStore<typeof SCHEMA>;

const HOUR = 60 * 60 * 1000;
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The list as it was worked out before: every product and SKU in hand, filtered, sorted, cut. */
function expected(everything: (Product | Sku)[], filter: ProductCollectionFilter, query: MembersQuery, now: number) {
  let members = [...everything].sort((a, b) => a.created_at.localeCompare(b.created_at)).filter((record) => matchesCollectionFilter(record, filter, now));
  if (query.order !== undefined) {
    const field = query.order.replace(/^-/, '') as 'created_at' | 'updated_at';
    const sorted = members.map((member, position) => ({ member, position }));
    sorted.sort((a, b) => (a.member[field] ?? '').localeCompare(b.member[field] ?? '') || a.position - b.position);
    if (query.order.startsWith('-')) sorted.reverse();
    members = sorted.map(({ member }) => member);
  }
  if (query.starting_after !== undefined) {
    const cursor = Date.parse(query.starting_after);
    members = members.filter((member) => (query.order === '-created_at' ? Date.parse(member.created_at) < cursor : Date.parse(member.created_at) > cursor));
  }
  const limit = query.limit ?? 10;
  const offset = ((query.page ?? 1) - 1) * limit;
  return { ids: members.slice(offset, offset + limit).map((member) => member.id), total: members.length };
}

const FILTERS: Record<string, ProductCollectionFilter> = {
  'price over 1500': { junction: 'and', price: { conditions: { $more_than: [1500] } } } as never,
  'red, or named Tea…': { junction: 'or', 'metadata.color': { conditions: { $is: ['red'] } }, name: { conditions: { $starts_with: ['Tea'] } } } as never,
  'made less than a day ago': { junction: 'and', created_at: { conditions: { $less_than_ago: [1] } } } as never,
  'made today, or updated two days ago': { junction: 'or', created_at: { conditions: { $is_days_ago: [0] } }, updated_at: { conditions: { $is_days_ago: [2] } } } as never,
  'SKUs under 1000, spelled with an alias': { junction: 'and', object: { conditions: { $is: ['sku'] } }, price: { conditions: { $less_than_equal: [999] } } } as never,
  'not green, priced at least 500': { junction: 'and', 'metadata.color': { conditions: { $is_not: ['green'] } }, price: { conditions: { $more_than_equal: [500] } } } as never,
  // Worked out member by member: `$count` holds only for arrays, and an object operand is whole JSON.
  'two attributes': { junction: 'and', attributes: { conditions: { $count: [2] } } } as never,
};

const QUERIES: MembersQuery[] = [
  {},
  { limit: 3 },
  { limit: 3, page: 2 },
  { limit: 2, page: 3, order: '-created_at' },
  { limit: 4, order: 'updated_at' },
  { limit: 4, page: 2, order: '-updated_at' },
  { order: 'created_at', starting_after: '2026-03-01T13:00:00.000Z' },
  { order: '-created_at', starting_after: '2026-03-01T15:00:00.000Z', limit: 3 },
];

describe.each([
  ['memory', async () => new MemoryStore(SCHEMA) as AnyStore],
  [
    'PGlite',
    async () => {
      const store = await openPgliteStore(SCHEMA);
      closers.push(() => store.close());
      return store as unknown as AnyStore;
    },
  ],
])('auto-update collection members on the %s store', (_name, open) => {
  test('when members are listed with any filter, order, page and cursor, then the store selects what the filter worked out member by member gives', async () => {
    const store = await open();
    await store.createProject('p');
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    await store.transaction('p', async (uow) => {
      const ctx = { uow, clock } as unknown as DomainContext;
      const colors = ['red', 'green', 'blue'];
      const products: Product[] = [];
      for (let i = 0; i < 9; i++) {
        // Every third product is made in the same millisecond as the one before: ties in creation.
        if (i % 3 !== 1) clock.advance(HOUR / 2);
        const product = await createProduct(ctx, { name: i % 4 === 0 ? `Tea ${i}` : `Mug ${i}`, price: 400 * i, metadata: { color: colors[i % 3] }, attributes: i % 2 ? ['size', 'tone'] : ['size'] } as never);
        products.push(product);
        for (let s = 0; s < i % 3; s++) await createSku(ctx, product.id, { sku: `S${i}-${s}`, price: 300 * (i + s), attributes: { size: `${s}` } } as never);
      }
      // Some are updated later, two of them in one millisecond.
      clock.advance(HOUR);
      await updateProduct(ctx, products[2]!.id, { name: 'Tea renamed' } as never);
      await updateProduct(ctx, products[5]!.id, { price: 2000 } as never);
      clock.advance(HOUR);
      await updateProduct(ctx, products[7]!.id, { metadata: { color: 'red' } } as never);
      // A day and a half on, with one more made now, so that "ago" operators split the catalog.
      clock.advance(36 * HOUR);
      await createProduct(ctx, { name: 'Tea late', price: 1600, metadata: { color: 'green' } } as never);
      const everything: (Product | Sku)[] = [...(await uow.products.query({})).rows, ...(await uow.skus.query({})).rows];
      // "Updated two days ago" needs a day boundary between the updates and now.
      const now = clock.now().getTime();
      let nonEmpty = 0;
      for (const [name, filter] of Object.entries(FILTERS)) {
        const collection = await createCollection(ctx, { name, type: 'AUTO_UPDATE', filter } as never);
        for (const query of QUERIES) {
          const listed = await listCollectionMembers(ctx, collection.id, query);
          const want = expected(everything, filter, query, now);
          expect({ filter: name, query, ids: listed.rows.map((row) => row.id), total: listed.total }).toEqual({ filter: name, query, ...want });
          if (want.ids.length > 0) nonEmpty += 1;
        }
      }
      // The cases select something: an empty list everywhere would prove nothing.
      expect(nonEmpty).toBeGreaterThan(Object.keys(FILTERS).length * QUERIES.length * 0.6);
    });
  }, 60_000);
});

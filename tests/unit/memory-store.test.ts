import { describe, expect, test } from '@jest/globals';
import type { Product } from '../../server/domain/catalog/types.js';
import { MemoryStore } from '../../server/store/memory.js';
import { UniqueViolation, UnknownProject } from '../../server/store/store.js';

function product(id: string, fields: Partial<Product> = {}): Product {
  return {
    id,
    source_id: null,
    name: null,
    price: null,
    attributes: [],
    metadata: {},
    image_url: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: null,
    object: 'product',
    ...fields,
  };
}

async function storeWithProject() {
  const store = new MemoryStore();
  await store.createProject('p');
  return store;
}

describe('MemoryStore', () => {
  test('when a unit of work throws, then every write it made is undone, deletes included', async () => {
    const store = await storeWithProject();
    await store.transaction('p', async (uow) => {
      await uow.products.insert(product('a', { source_id: 'A' }));
      await uow.products.insert(product('b'));
    });
    await expect(
      store.transaction('p', async (uow) => {
        await uow.products.update(product('a', { source_id: 'A2' }));
        await uow.products.delete('b');
        await uow.products.insert(product('c', { source_id: 'C' }));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await store.transaction('p', async (uow) => {
      expect((await uow.products.query({})).rows.map((row) => [row.id, row.source_id])).toEqual([
        ['a', 'A'],
        ['b', null],
      ]);
      expect(await uow.products.getBy('source_id', 'A')).toMatchObject({ id: 'a' });
      expect(await uow.products.getBy('source_id', 'A2')).toBeUndefined();
      expect(await uow.products.getBy('source_id', 'C')).toBeUndefined();
    });
  });

  test('when a unique value or id is reused, then UniqueViolation names the field; nulls never clash', async () => {
    const store = await storeWithProject();
    await store.transaction('p', async (uow) => {
      await uow.products.insert(product('a', { source_id: 'S', name: 'N' }));
      await uow.products.insert(product('b'));
      await uow.products.insert(product('c'));
      await expect(uow.products.insert(product('d', { source_id: 'S' }))).rejects.toMatchObject({ field: 'source_id' });
      await expect(uow.products.update(product('b', { name: 'N' }))).rejects.toBeInstanceOf(UniqueViolation);
      await expect(uow.products.insert(product('a'))).rejects.toMatchObject({ field: 'id' });
    });
  });

  test('when rows are returned, then they are frozen copies that cannot change stored state', async () => {
    const store = await storeWithProject();
    const input = product('a', { metadata: { n: 1 } });
    await store.transaction('p', (uow) => uow.products.insert(input));
    input.metadata.n = 2;
    const stored = await store.transaction('p', (uow) => uow.products.get('a'));
    expect(stored?.metadata).toEqual({ n: 1 });
    expect(() => {
      (stored!.metadata as Record<string, unknown>).n = 3;
    }).toThrow(TypeError);
  });

  test('when units of work overlap in time, then they run one after another on the same project', async () => {
    const store = await storeWithProject();
    await store.transaction('p', (uow) => uow.products.insert(product('counter', { price: 0 })));
    const increment = () =>
      store.transaction('p', async (uow) => {
        const row = await uow.products.get('counter');
        await new Promise((resolve) => setTimeout(resolve, 1));
        await uow.products.update({ ...row!, price: (row!.price ?? 0) + 1 });
      });
    await Promise.all(Array.from({ length: 25 }, increment));
    expect((await store.transaction('p', (uow) => uow.products.get('counter')))?.price).toBe(25);
  });

  test('when projects differ, then their data is apart; an unknown project is refused', async () => {
    const store = await storeWithProject();
    await store.createProject('q');
    await store.transaction('p', (uow) => uow.products.insert(product('a', { source_id: 'S' })));
    await store.transaction('q', async (uow) => {
      expect(await uow.products.get('a')).toBeUndefined();
      await uow.products.insert(product('a', { source_id: 'S' }));
    });
    await expect(store.transaction('nope', async () => undefined)).rejects.toBeInstanceOf(UnknownProject);
  });

  test('when querying, then where, order, offset and limit apply and total ignores the page', async () => {
    const store = await storeWithProject();
    await store.transaction('p', async (uow) => {
      for (const [id, price] of [['a', 3], ['b', 1], ['c', 2], ['d', 1]] as const) await uow.products.insert(product(id, { price }));
      const page = await uow.products.query({
        where: (row) => row.id !== 'c',
        orderBy: { field: 'price', direction: 'desc' },
        offset: 1,
        limit: 2,
      });
      expect(page).toEqual({ rows: [expect.objectContaining({ id: 'd' }), expect.objectContaining({ id: 'b' })], total: 3 });
    });
  });
});

describe('MemoryStore index scans', () => {
  test('a query scoped to an index sees only those rows, in insertion order, with the same where, order and total', async () => {
    const store = new MemoryStore();
    await store.createProject('p');
    await store.transaction('p', async (uow) => {
      for (const [id, product_id, price] of [['s1', 'a', 3], ['s2', 'b', 1], ['s3', 'a', 1], ['s4', 'a', 2]] as const) {
        await uow.skus.insert({
          id,
          source_id: null,
          product_id,
          sku: null,
          price,
          currency: null,
          attributes: {},
          image_url: null,
          metadata: {},
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: null,
          object: 'sku',
        });
      }
      const scoped = await uow.skus.query({ index: { field: 'product_id', value: 'a' } });
      expect(scoped.rows.map((row) => row.id)).toEqual(['s1', 's3', 's4']);
      const sorted = await uow.skus.query({ index: { field: 'product_id', value: 'a' }, where: (row) => row.id !== 's1', orderBy: { field: 'price', direction: 'asc' }, limit: 1 });
      expect(sorted).toEqual({ rows: [expect.objectContaining({ id: 's3' })], total: 2 });
    });
  });
});

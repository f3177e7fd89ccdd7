import { describe, expect, test } from '@jest/globals';
import type { Product } from '../../server/domain/catalog/types.js';
import type { PendingPoints } from '../../server/domain/loyalty/types.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { UniqueViolation, UnknownProject } from '../../server/store/store.js';
import { ne } from '../../server/store/conditions.js';

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
  const store = new MemoryStore(SCHEMA);
  await store.createProject('p');
  return store;
}

describe('MemoryStore', () => {
  test('when rows are updated keeping, changing and then restoring a unique value, and an update is undone, then each value finds exactly its row', async () => {
    const store = await storeWithProject();
    await store.transaction('p', async (uow) => {
      await uow.products.insert(product('a', { source_id: 'A' }));
      await uow.products.insert(product('b', { source_id: 'B' }));
    });
    // Unchanged: the value keeps finding the row, and another row still cannot take it.
    await store.transaction('p', (uow) => uow.products.update(product('a', { source_id: 'A', name: 'renamed' })));
    await store.transaction('p', async (uow) => {
      expect((await uow.products.getBy('source_id', 'A'))?.name).toBe('renamed');
      await expect(uow.products.update(product('b', { source_id: 'A' }))).rejects.toBeInstanceOf(UniqueViolation);
    });
    // Changed: the old value is free and finds nothing; the new one finds the row.
    await store.transaction('p', (uow) => uow.products.update(product('a', { source_id: 'A2' })));
    await store.transaction('p', async (uow) => {
      expect(await uow.products.getBy('source_id', 'A')).toBeUndefined();
      expect((await uow.products.getBy('source_id', 'A2'))?.id).toBe('a');
      await uow.products.update(product('b', { source_id: 'A' }));
    });
    // An update that keeps the value, undone with its unit of work: the value still finds the row.
    await expect(
      store.transaction('p', async (uow) => {
        await uow.products.update(product('b', { source_id: 'A', name: 'lost' }));
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    await store.transaction('p', async (uow) => {
      const found = await uow.products.getBy('source_id', 'A');
      expect([found?.id, found?.name]).toEqual(['b', null]);
      expect((await uow.products.getBy('source_id', 'A2'))?.id).toBe('a');
      expect(await uow.products.getBy('source_id', 'B')).toBeUndefined();
    });
  });

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

  test('when a row is stored, then it is the very object written, frozen in place with its parts, so neither its writer nor a reader can change it', async () => {
    const store = await storeWithProject();
    const input = product('a', { metadata: { n: 1, list: [{ m: 1 }] } });
    await store.transaction('p', (uow) => uow.products.insert(input));
    expect(() => {
      input.metadata.n = 2;
    }).toThrow(TypeError);
    const stored = await store.transaction('p', (uow) => uow.products.get('a'));
    expect(stored).toBe(input);
    expect(stored?.metadata).toEqual({ n: 1, list: [{ m: 1 }] });
    expect(() => {
      ((stored!.metadata.list as { m: number }[])[0] as { m: number }).m = 3;
    }).toThrow(TypeError);
    // A part its maker froze, holding one that is not frozen, is frozen all the way down too.
    const shallow = Object.freeze({ inner: { n: 1 } });
    await store.transaction('p', (uow) => uow.products.update({ ...stored!, metadata: shallow }));
    expect(Object.isFrozen(shallow.inner)).toBe(true);
  });

  test('when a write is refused, then the row is left as its writer made it, not frozen', async () => {
    const store = await storeWithProject();
    await store.transaction('p', (uow) => uow.products.insert(product('a', { source_id: 'S' })));
    const clash = product('b', { source_id: 'S', metadata: { n: 1 } });
    await expect(store.transaction('p', (uow) => uow.products.insert(clash))).rejects.toBeInstanceOf(UniqueViolation);
    expect(Object.isFrozen(clash) || Object.isFrozen(clash.metadata)).toBe(false);
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
        where: ne('id', 'c'),
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
    const store = new MemoryStore(SCHEMA);
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
      const sorted = await uow.skus.query({ index: { field: 'product_id', value: 'a' }, where: ne('id', 's1'), orderBy: { field: 'price', direction: 'asc' }, limit: 1 });
      expect(sorted).toEqual({ rows: [expect.objectContaining({ id: 's3' })], total: 2 });
    });
  });
});

describe('MemoryStore pages in ID order on a sorted index', () => {
  type Entry = { id: string; campaign_id: string; voucher_id: string };
  const entry = (id: string, campaign_id: string, voucher_id = 'card'): PendingPoints =>
    ({ id, campaign_id, voucher_id, customer_id: 'cust', order_id: null, points: 1, activates_at: '2026-12-01', created_at: '2026-11-01T00:00:00.000Z', details: {}, object: 'loyalty_pending_points' }) as unknown as PendingPoints;

  test('when entries are added, moved, deleted and rolled back, then every cursor page equals sorting the live entries', async () => {
    const store = await storeWithProject();
    const live = new Map<string, Entry>();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const id = () => `lpp_${Math.floor(random() * 1e12).toString(16).padStart(10, '0')}`;
    await store.transaction('p', async (uow) => {
      for (let i = 0; i < 300; i++) {
        const row = entry(id(), random() < 0.7 ? 'camp_a' : 'camp_b', `card_${i % 7}`);
        await uow.pending_points.insert(row);
        live.set(row.id, row);
      }
      // Some move to the other program, some go.
      for (const row of [...live.values()].filter(() => random() < 0.2)) {
        const moved = { ...entry(row.id, row.campaign_id === 'camp_a' ? 'camp_b' : 'camp_a', row.voucher_id) };
        await uow.pending_points.update(moved);
        live.set(row.id, moved);
      }
      for (const row of [...live.values()].filter(() => random() < 0.2)) {
        await uow.pending_points.delete(row.id);
        live.delete(row.id);
      }
      // Some change, but stay in their program and on their card.
      for (const row of [...live.values()].filter(() => random() < 0.3)) {
        await uow.pending_points.update({ ...entry(row.id, row.campaign_id, row.voucher_id), points: 5 });
      }
    });
    // A unit of work that fails leaves the sorted IDs as they were.
    await expect(
      store.transaction('p', async (uow) => {
        await uow.pending_points.insert(entry('lpp_0000000000', 'camp_a'));
        await uow.pending_points.delete([...live.keys()][0]!);
        const [, kept, moved] = [...live.values()];
        await uow.pending_points.update({ ...entry(kept!.id, kept!.campaign_id, kept!.voucher_id), points: 9 });
        await uow.pending_points.update(entry(moved!.id, moved!.campaign_id === 'camp_a' ? 'camp_b' : 'camp_a', moved!.voucher_id));
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');

    await store.transaction('p', async (uow) => {
      // Each card's entries, sorted, whatever moved around them.
      for (let card = 0; card < 7; card++) {
        const page = await uow.pending_points.query({ index: { field: 'voucher_id', value: `card_${card}` }, orderBy: { field: 'id', direction: 'asc' }, limit: 1000 });
        expect(page.rows.map((row) => row.id)).toEqual([...live.values()].filter((row) => row.voucher_id === `card_${card}`).map((row) => row.id).sort());
      }
      const ids = (campaign: string) => [...live.values()].filter((row) => row.campaign_id === campaign).map((row) => row.id).sort();
      for (const campaign of ['camp_a', 'camp_b', 'camp_none']) {
        const sorted = ids(campaign);
        const cursors = [undefined, sorted[0], sorted[Math.floor(sorted.length / 2)], sorted.at(-1), 'lpp_7', 'lpp_'];
        for (const direction of ['asc', 'desc'] as const) {
          for (const after of cursors) {
            for (const [offset, limit] of [[0, 10], [3, 5], [0, 1000]] as const) {
              const page = await uow.pending_points.query({
                index: { field: 'campaign_id', value: campaign },
                orderBy: { field: 'id', direction },
                ...(after !== undefined && { after }),
                offset,
                limit,
              });
              const inOrder = direction === 'asc' ? sorted : [...sorted].reverse();
              const past = after === undefined ? inOrder : inOrder.filter((value) => (direction === 'asc' ? value > after : value < after));
              expect({ rows: page.rows.map((row) => row.id), total: page.total }).toEqual({ rows: past.slice(offset, offset + limit), total: past.length });
            }
          }
        }
      }
    });
  });

  test('when a cursor is given on an ordinary index or with a where, then it is one more condition, with the same result', async () => {
    const store = await storeWithProject();
    await store.transaction('p', async (uow) => {
      for (const [id, price] of [['a', 3], ['b', 1], ['c', 2], ['d', 1]] as const) await uow.products.insert(product(id, { price }));
      const page = await uow.products.query({ orderBy: { field: 'id', direction: 'desc' }, after: 'c', where: ne('price', 3) });
      expect(page).toEqual({ rows: [expect.objectContaining({ id: 'b' })], total: 1 });
      await expect(uow.products.query({ after: 'c' })).rejects.toThrow('orderBy');
    });
  });
});

describe('MemoryStore rows as written', () => {
  test('when the store does not freeze rows, then it keeps the objects written as they are, and an update shares the parts it kept', async () => {
    const store = new MemoryStore(SCHEMA, { freezeRows: false });
    await store.createProject('p');
    const first = await store.transaction('p', (uow) => uow.products.insert(product('a', { metadata: { nested: { deep: [1, { n: 2 }] } }, attributes: ['size'] })));
    expect(Object.isFrozen(first) || Object.isFrozen(first.metadata)).toBe(false);
    const change = { ...first, name: 'Renamed', attributes: [...first.attributes, 'colour'] };
    const updated = await store.transaction('p', (uow) => uow.products.update(change));
    expect(updated).toBe(change);
    expect(updated.metadata).toBe(first.metadata);
    expect(await store.transaction('p', (uow) => uow.products.get('a'))).toBe(change);
  });

  test('when a table is declared frozen, then its rows are frozen even in a store that does not freeze rows', async () => {
    const store = new MemoryStore(SCHEMA, { freezeRows: false });
    await store.createProject('p');
    expect(SCHEMA.segments.frozen).toBe(true);
    const segment = { id: 'seg_a', name: 'Club', type: 'auto-update', filter: { junction: 'and', 'customer.metadata.tier': { conditions: { $is: ['gold'] } } }, created_at: '2026-01-01T00:00:00.000Z', object: 'segment' };
    const stored = await store.transaction('p', (uow) => uow.segments.insert(segment as never));
    expect(Object.isFrozen(stored) && Object.isFrozen((stored as unknown as typeof segment).filter['customer.metadata.tier'].conditions)).toBe(true);
    // An ordinary table's rows are not.
    expect(Object.isFrozen(await store.transaction('p', (uow) => uow.products.insert(product('a'))))).toBe(false);
  });

  test('when a key is named __proto__ or a value is a Date, then the row keeps it as it was given', async () => {
    const store = await storeWithProject();
    const metadata = JSON.parse('{"__proto__": {"polluted": true}, "when": null}') as Record<string, unknown>;
    const when = new Date('2026-01-01T00:00:00.000Z');
    metadata.when = when;
    const stored = await store.transaction('p', (uow) => uow.products.insert(product('a', { metadata })));
    expect(Object.keys(stored.metadata)).toEqual(['__proto__', 'when']);
    expect(Object.getPrototypeOf(stored.metadata)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(stored.metadata.when).toBe(when);
    expect(Object.isFrozen(Object.getOwnPropertyDescriptor(stored.metadata, '__proto__')!.value)).toBe(true);
  });
});

describe('MemoryStore under churn', () => {
  /** A repeatable choice among `n`: a linear congruential generator's high bits (its low bits repeat with a short period). */
  const roller = (seed: number) => {
    let random = seed;
    return (n: number) => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return Math.floor(random / 65536) % n;
    };
  };
  type Event = { id: string; customer_id: string | null; voucher_id: string | null; counted_in: string | null; created_at: string };
  const event = (id: string, customer: string | null): Event => ({ id, customer_id: customer, voucher_id: null, counted_in: null, created_at: '2026-01-01T00:00:00.000Z' });

  test('when most rows are dropped oldest first, with moves and undone deletes between, then pages, lookups and counts match a model', async () => {
    const store = await storeWithProject();
    const model = new Map<string, string | null>();
    let next = 0;
    const roll = roller(7);
    const customers = ['c1', 'c2', 'c3', null];
    for (let round = 0; round < 60; round++) {
      await store.transaction('p', async (uow) => {
        for (let i = 0; i < 100; i++) {
          const id = `e${next++}`;
          const customer = customers[roll(4)]!;
          await uow.events.insert(event(id, customer) as never);
          model.set(id, customer);
        }
        // Keep the newest 1500, as the event log's retention does.
        const { total } = await uow.events.query({ limit: 0 });
        if (total > 1500) {
          for (const row of (await uow.events.query({ limit: total - 1500 })).rows) {
            await uow.events.delete(row.id);
            model.delete(row.id);
          }
        }
        const ids = [...model.keys()];
        const moved = ids[roll(ids.length)]!;
        const to = customers[roll(4)]!;
        await uow.events.update({ ...((await uow.events.get(moved)) as unknown as Event), customer_id: to } as never);
        model.set(moved, to);
      });
      await store
        .transaction('p', async (uow) => {
          const ids = [...model.keys()];
          await uow.events.delete(ids[roll(ids.length)]!);
          await uow.events.delete(ids[roll(ids.length)]!);
          throw new Error('undo');
        })
        .catch(() => undefined);
    }
    await store.transaction('p', async (uow) => {
      const all = [...model.keys()];
      expect((await uow.events.query({})).rows.map((row) => row.id)).toEqual(all);
      expect((await uow.events.query({ limit: 5, offset: 3 })).rows.map((row) => row.id)).toEqual(all.slice(3, 8));
      for (const customer of ['c1', 'c2', 'c3']) {
        const expected = all.filter((id) => model.get(id) === customer);
        expect((await uow.events.findBy('customer_id', customer)).map((row) => row.id)).toEqual(expected);
        expect(await uow.events.countBy('customer_id', customer)).toBe(expected.length);
        const newest = await uow.events.query({ index: { field: 'customer_id', value: customer }, orderBy: { field: 'created_at', direction: 'desc' }, limit: 3 });
        expect(newest.rows.map((row) => row.id)).toEqual(expected.slice(-3).reverse());
      }
      expect(await uow.events.countBy('customer_id', 'nobody')).toBe(0);
    });
  });

  test('when values are held by one row, then two, then one again, with undone writes between, then lookups, counts and pages match a model', async () => {
    // Many values with a row or two each: values pass often between one row (kept as the row's ID) and a list.
    const store = await storeWithProject();
    const model = new Map<string, string | null>();
    let next = 0;
    const roll = roller(11);
    const customer = () => (roll(8) === 0 ? null : `c${roll(60)}`);
    for (let round = 0; round < 80; round++) {
      await store.transaction('p', async (uow) => {
        for (let i = 0; i < 3; i++) {
          const id = `e${next++}`;
          const to = customer();
          await uow.events.insert(event(id, to) as never);
          model.set(id, to);
        }
        const ids = [...model.keys()];
        for (let i = 0; i < 2; i++) {
          const moved = ids[roll(ids.length)]!;
          const to = customer();
          await uow.events.update({ ...((await uow.events.get(moved)) as unknown as Event), customer_id: to } as never);
          model.set(moved, to);
        }
        if (round % 3 === 0) {
          const gone = ids[roll(ids.length)]!;
          await uow.events.delete(gone);
          model.delete(gone);
        }
      });
      // Moves, inserts and deletes undone with their unit of work leave every value as it was.
      await store
        .transaction('p', async (uow) => {
          const ids = [...model.keys()];
          await uow.events.update({ ...((await uow.events.get(ids[roll(ids.length)]!)) as unknown as Event), customer_id: customer() } as never);
          await uow.events.insert(event(`undone${round}`, customer()) as never);
          await uow.events.delete(ids[roll(ids.length)]!);
          await uow.events.update({ ...((await uow.events.get(ids[roll(ids.length)]!)) as unknown as Event), customer_id: customer() } as never);
          throw new Error('undo');
        })
        .catch(() => undefined);
    }
    await store.transaction('p', async (uow) => {
      const all = [...model.keys()];
      const held = new Set([...model.values()].filter((value) => value !== null));
      // The run made values of one row and of several, or it would not test the change between them.
      const sizes = [...held].map((value) => all.filter((id) => model.get(id) === value).length);
      expect(sizes).toContain(1);
      expect(sizes.some((size) => size > 1)).toBe(true);
      for (let c = 0; c < 60; c++) {
        const value = `c${c}`;
        const expected = all.filter((id) => model.get(id) === value);
        expect((await uow.events.findBy('customer_id', value)).map((row) => row.id)).toEqual(expected);
        expect(await uow.events.countBy('customer_id', value)).toBe(expected.length);
        const second = await uow.events.query({ index: { field: 'customer_id', value }, offset: 1, limit: 1 });
        expect({ ids: second.rows.map((row) => row.id), total: second.total }).toEqual({ ids: expected.slice(1, 2), total: expected.length });
        const newest = await uow.events.query({ index: { field: 'customer_id', value }, orderBy: { field: 'created_at', direction: 'desc' }, limit: 2 });
        expect(newest.rows.map((row) => row.id)).toEqual(expected.slice(-2).reverse());
      }
    });
  });

  test('when a sparse index is asked for null, then it refuses, since rows without a value are not in it', async () => {
    const store = await storeWithProject();
    await store.transaction('p', async (uow) => {
      await uow.events.insert(event('e1', null) as never);
      await expect(uow.events.findBy('customer_id', null)).rejects.toThrow(/not indexed for null/);
    });
  });
});

/**
 * One behaviour, every store: the same cases run against each store factory (tests/unit/store/factories.ts).
 * PGlite in memory always; PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { and, compare, eq, has, isIn, length, isNull, ne, not, notIn, notNull, or, text, type Condition } from '../../server/store/conditions.js';
import { appendFirst, ChangeConflict, ChangeInAppend, optimisticFirst, OPTIMISTIC_TRIES, readFirst, UniqueViolation, UnknownProject, WriteInRead, type Query } from '../../server/store/store.js';
import { storeFactories, type Item, type TestStore } from './store/factories.js';

const factories = storeFactories();
let projects = 0;

const settle = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(factories)('$name store', (factory) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await factory.open();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await factory.cleanUp();
  });

  async function project(...rows: Item[]): Promise<string> {
    const id = `p${projects++}`;
    await store.createProject(id);
    if (rows.length > 0) await store.transaction(id, async (uow) => void (await Promise.all(rows.map((row) => uow.items.insert(row)))));
    return id;
  }
  /** Inserts one at a time, so that insertion order is the order given. */
  async function projectInOrder(rows: Item[]): Promise<string> {
    const id = await project();
    await store.transaction(id, async (uow) => {
      for (const row of rows) await uow.items.insert(row);
    });
    return id;
  }
  const read = <R>(projectId: string, work: (uow: Parameters<Parameters<TestStore['transaction']>[1]>[0]) => Promise<R>) => store.transaction(projectId, work);
  const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);

  describe('rows', () => {
    test('when rows are inserted, updated and deleted, then get reads what was written, as plain objects', async () => {
      const p = await project();
      const written = await read(p, (uow) => uow.items.insert({ id: 'a', name: 'apple', meta: { deep: [1, { x: null }] }, tags: undefined }));
      expect(written).toEqual({ id: 'a', name: 'apple', meta: { deep: [1, { x: null }] } });
      const got = await read(p, (uow) => uow.items.get('a'));
      expect(got).toEqual({ id: 'a', name: 'apple', meta: { deep: [1, { x: null }] } });
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
      await read(p, (uow) => uow.items.update({ id: 'a', name: 'apricot' }));
      expect(await read(p, (uow) => uow.items.get('a'))).toEqual({ id: 'a', name: 'apricot' });
      expect(await read(p, (uow) => uow.items.delete('a'))).toBe(true);
      expect(await read(p, (uow) => uow.items.delete('a'))).toBe(false);
      expect(await read(p, (uow) => uow.items.get('a'))).toBeUndefined();
      await expect(read(p, (uow) => uow.items.update({ id: 'a' }))).rejects.toThrow('items has no row a to update');
    });

    test('when two tables hold the same id, then each keeps its own row', async () => {
      const p = await project({ id: 'x', name: 'item' });
      await read(p, (uow) => uow.counters.insert({ id: 'x', value: 7 }));
      expect(await read(p, (uow) => Promise.all([uow.items.get('x'), uow.counters.get('x')]))).toEqual([{ id: 'x', name: 'item' }, { id: 'x', value: 7 }]);
    });
  });

  describe('uniqueness', () => {
    test('when an id or a unique value is taken, then insert and update throw UniqueViolation naming it', async () => {
      const p = await project({ id: 'a', code: 'A', email: 'a@x' }, { id: 'b', code: 'B' });
      await expect(read(p, (uow) => uow.items.insert({ id: 'a' }))).rejects.toEqual(new UniqueViolation('items', 'id', 'a'));
      await expect(read(p, (uow) => uow.items.insert({ id: 'c', code: 'A' }))).rejects.toMatchObject({ table: 'items', field: 'code', value: 'A' });
      await expect(read(p, (uow) => uow.items.insert({ id: 'c', email: 'a@x' }))).rejects.toMatchObject({ field: 'email', value: 'a@x' });
      await expect(read(p, (uow) => uow.items.update({ id: 'b', code: 'A' }))).rejects.toBeInstanceOf(UniqueViolation);
      // A row keeps its own value, and a value becomes free when its holder lets it go.
      await read(p, (uow) => uow.items.update({ id: 'a', code: 'A', email: null }));
      await read(p, (uow) => uow.items.insert({ id: 'c', email: 'a@x' }));
      expect(await read(p, (uow) => uow.items.getBy('email', 'a@x'))).toEqual({ id: 'c', email: 'a@x' });
    });

    test('when unique values are null, missing, or the same text as a number, then they are not taken', async () => {
      const p = await project({ id: 'a', code: null }, { id: 'b', code: null }, { id: 'c' }, { id: 'd', code: 5 }, { id: 'e', code: '5' });
      expect(await read(p, (uow) => Promise.all([uow.items.getBy('code', 5), uow.items.getBy('code', '5'), uow.items.getBy('code', null)]))).toEqual([
        { id: 'd', code: 5 },
        { id: 'e', code: '5' },
        undefined,
      ]);
      await expect(read(p, (uow) => uow.items.getBy('group', 'g'))).rejects.toThrow('items.group is not a unique field');
    });

    test('when a unit of work catches a UniqueViolation, then it goes on and commits its other writes', async () => {
      const p = await project({ id: 'a', code: 'A' });
      await read(p, async (uow) => {
        await expect(uow.items.insert({ id: 'b', code: 'A' })).rejects.toBeInstanceOf(UniqueViolation);
        await expect(uow.items.insert({ id: 'a' })).rejects.toBeInstanceOf(UniqueViolation);
        await uow.items.insert({ id: 'c', code: 'C' });
        await expect(uow.items.update({ id: 'c', code: 'A' })).rejects.toBeInstanceOf(UniqueViolation);
        await uow.items.update({ id: 'a', code: 'A', name: 'kept' });
      });
      const rows = await read(p, (uow) => uow.items.query({}));
      expect(rows.rows).toEqual([{ id: 'a', code: 'A', name: 'kept' }, { id: 'c', code: 'C' }]);
    });
  });

  test('when a unit of work throws, then its inserts, updates and deletes are all undone, the deleted row back in its place', async () => {
    const p = await projectInOrder([{ id: 'a', group: 'g', code: 'A' }, { id: 'b', group: 'g' }, { id: 'c', group: 'g' }]);
    await expect(
      read(p, async (uow) => {
        await uow.items.insert({ id: 'd', group: 'g', code: 'D' });
        await uow.items.update({ id: 'a', group: 'h', code: 'A2' });
        await uow.items.delete('b');
        await uow.counters.insert({ id: 'n', value: 1 });
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    await read(p, async (uow) => {
      expect(ids(await uow.items.findBy('group', 'g'))).toEqual(['a', 'b', 'c']);
      expect(await uow.items.get('a')).toEqual({ id: 'a', group: 'g', code: 'A' });
      expect(await uow.items.getBy('code', 'D')).toBeUndefined();
      expect(await uow.counters.get('n')).toBeUndefined();
      expect(ids((await uow.items.query({})).rows)).toEqual(['a', 'b', 'c']);
    });
  });

  test('when look-ups and reads of one row run at once, then each gets its own rows, and a write sent with them comes after them', async () => {
    const p = await projectInOrder([
      { id: 'a', group: 'g' },
      { id: 'b', group: 'h' },
      { id: 'c', group: 'g' },
      { id: 'd', group: null },
    ]);
    await read(p, async (uow) => {
      const [g, h, none, missing, again, byNull] = await Promise.all([
        uow.items.findBy('group', 'g'),
        uow.items.findBy('group', 'h'),
        uow.items.findBy('group', 'x'),
        uow.items.findBy('group', 'g'),
        uow.items.get('a'),
        uow.items.findBy('group', null),
      ]);
      expect([ids(g), ids(h), ids(none), ids(missing), ids(byNull)]).toEqual([['a', 'c'], ['b'], [], ['a', 'c'], ['d']]);
      expect(again).toEqual({ id: 'a', group: 'g' });
      // Callers get lists of their own: changing one changes no other.
      g.pop();
      expect(ids(missing)).toEqual(['a', 'c']);
      const [before, , sameRow, sameRowAgain] = await Promise.all([uow.items.findBy('group', 'g'), uow.items.insert({ id: 'e', group: 'g' }), uow.items.get('b'), uow.items.get('b')]);
      expect(ids(before)).toEqual(['a', 'c']);
      expect(sameRow).toEqual(sameRowAgain);
      expect(ids(await uow.items.findBy('group', 'g'))).toEqual(['a', 'c', 'e']);
    });
  });

  test('when rows are found by an indexed field, then they come in insertion order, counted, with null found only where the index holds it', async () => {
    const p = await projectInOrder([
      { id: 'a', group: 'g', owner: 'o' },
      { id: 'b', group: 'h' },
      { id: 'c', group: 'g', owner: null },
      { id: 'd', group: null },
      { id: 'e' },
      { id: 'f', group: 'g' },
    ]);
    await read(p, async (uow) => {
      // An update moves a row into another value's list at its insertion position.
      await uow.items.update({ id: 'b', group: 'g' });
      expect(ids(await uow.items.findBy('group', 'g'))).toEqual(['a', 'b', 'c', 'f']);
      expect(await uow.items.countBy('group', 'g')).toBe(4);
      expect(ids(await uow.items.findBy('group', null))).toEqual(['d', 'e']);
      expect(await uow.items.countBy('group', 'none')).toBe(0);
      expect(ids(await uow.items.findBy('owner', 'o'))).toEqual(['a']);
      await expect(uow.items.findBy('owner', null)).rejects.toThrow('items.owner is not indexed for null');
      await expect(uow.items.findBy('name', 'x')).rejects.toThrow('items.name is not an indexed field');
      expect(ids((await uow.items.query({ index: { field: 'group', value: 'g' }, orderBy: { field: 'id', direction: 'desc' }, limit: 2 })).rows)).toEqual(['f', 'c']);
    });
  });

  describe('conditions', () => {
    const rows: Item[] = [
      { id: 'a', name: 'apple', n: 5, group: 'g1', tags: ['red', 'fruit'], meta: { color: 'red', size: 3 }, at: '2026-11-24T10:00:00.000Z', flag: true, num: 12 },
      { id: 'b', name: 'Banana', n: '5', group: 'g1', tags: ['yellow'], meta: { color: null }, at: '2026-11-24', flag: false, num: '12.5' },
      { id: 'c', name: 'cherry', n: 12, group: 'g2', tags: [], meta: { color: 'dark red', nested: { deep: 1 } }, at: '2026-11-24T11:30:00+02:00', num: '7' },
      { id: 'd', name: null, n: null, group: null, meta: null, at: 'not a date', num: 'abc' },
      { id: 'e' },
      { id: 'f', name: '\u00e9clair', n: -1.5, group: 'g2', tags: ['red', 5, null, ['blue']], meta: { color: ['red'] }, at: 1795514400000, flag: true, num: 3 },
      { id: 'g', name: 'Zebra', n: 100, tags: 'red-ish', meta: ['color'], at: '2026-02-30', num: '-0.5' },
      { id: 'h', name: 'kiwi', n: 0, at: '2026-11-24T09:00:00.000-01:30', num: '1e3', meta: { size: '3' } },
    ];
    let p: string;
    beforeAll(async () => {
      p = await projectInOrder(rows);
    });
    const where = async (condition: Condition) => ids((await read(p, (uow) => uow.items.query({ where: condition }))).rows);

    test.each<[string, Condition, string[]]>([
      ['eq is type-strict', eq('n', 5), ['a']],
      ['eq on a string', eq('n', '5'), ['b']],
      ['eq on a boolean', eq('flag', true), ['a', 'f']],
      ['eq null is is_null, missing included', eq('name', null), ['d', 'e']],
      ['eq on a path', eq(['meta', 'color'], 'red'), ['a']],
      ['eq never matches an array or object', eq('meta', 'color'), []],
      // Text no store keeps (a NUL, an unpaired surrogate) equals or contains nothing, and fails nothing.
      ['eq on text with a NUL matches nothing', eq('name', 'apple\u0000'), []],
      ['ne on text with an unpaired surrogate matches every row', ne('name', '\ud800'), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']],
      ['in leaves out text with a NUL', isIn('name', ['\u0000', 'kiwi']), ['h']],
      ['has text with a NUL matches nothing', has('tags', 'red\u0000'), []],
      ['contains text with a NUL matches nothing', text('contains', 'name', '\u0000'), []],
      ['ne keeps nulls and other types', ne('n', 5), ['b', 'c', 'd', 'e', 'f', 'g', 'h']],
      ['ne null is not_null', ne('group', null), ['a', 'b', 'c', 'f']],
      ['in', isIn('n', [5, 12, '100']), ['a', 'c']],
      ['in with null', isIn('group', ['g2', null]), ['c', 'd', 'e', 'f', 'g', 'h']],
      ['empty in matches nothing', isIn('n', []), []],
      ['not_in keeps nulls', notIn('group', ['g1']), ['c', 'd', 'e', 'f', 'g', 'h']],
      ['not_in with null', notIn('group', ['g1', null]), ['c', 'f']],
      ['empty not_in matches everything', notIn('n', []), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']],
      ['lt on numbers leaves out strings and nulls', compare('lt', 'n', 5), ['f', 'h']],
      ['gte on numbers', compare('gte', 'n', 12), ['c', 'g']],
      ['gt on strings in code unit order', compare('gt', 'name', 'Zebra'), ['a', 'c', 'f', 'h']],
      ['lte on strings leaves out numbers', compare('lte', 'n', '5'), ['b']],
      ['strings after ASCII', compare('gt', 'name', 'z'), ['f']],
      ['ISO timestamps of one format in time order', compare('lt', 'at', '2026-11-24T10:00:00.000Z'), ['b', 'g', 'h']],
      ['as number reads decimal strings', compare('gt', 'num', 5, 'number'), ['a', 'b', 'c']],
      ['as number leaves out what is not a decimal', compare('lte', 'num', 5, 'number'), ['f', 'g']],
      ['as number with a string value matches nothing', compare('gt', 'num', '5', 'number'), []],
      ['as time reads dates, offsets and numbers', compare('gte', 'at', Date.parse('2026-11-24T10:00:00.000Z'), 'time'), ['a', 'f', 'h']],
      ['as time: a date alone is midnight UTC', compare('lte', 'at', Date.parse('2026-11-24T00:00:00.000Z'), 'time'), ['b', 'g']],
      ['as time: offsets', compare('lt', 'at', Date.parse('2026-11-24T09:31:00.000Z'), 'time'), ['b', 'c', 'g']],
      ['as time: a day past the month runs on, as Date.parse', compare('gt', 'at', Date.parse('2026-03-01T23:00:00.000Z'), 'time'), ['a', 'b', 'c', 'f', 'g', 'h']],
      ['is_null', isNull(['meta', 'color']), ['b', 'd', 'e', 'g', 'h']],
      ['not_null on a path', notNull(['meta', 'nested', 'deep']), ['c']],
      ['a path through an array reads null', isNull(['tags', '0']), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']],
      ['has', has('tags', 'red'), ['a', 'f']],
      ['has is type-strict and matches null elements', or(has('tags', '5'), has('tags', null)), ['f']],
      ['has never matches a nested array or a string', has('tags', 'blue'), []],
      ['contains', text('contains', 'name', 'an'), ['b']],
      ['contains is case-sensitive', text('contains', 'name', 'A'), []],
      ['starts_with', text('starts_with', 'name', '\u00e9c'), ['f']],
      ['ends_with', text('ends_with', 'name', 'y'), ['c']],
      ['contains the empty string: every string', text('contains', 'name', ''), ['a', 'b', 'c', 'f', 'g', 'h']],
      ['contains each reads string elements', text('starts_with', 'tags', 're', true), ['a', 'f', 'g']],
      ['contains without each reads strings only', text('starts_with', 'tags', 're'), ['g']],
      ['contains each on a path', text('contains', ['meta', 'color'], 'red', true), ['a', 'c', 'f']],
      ['length counts array elements', length('tags', 'eq', 2), ['a']],
      ['length of anything but an array is 0', length('tags', 'eq', 0), ['c', 'd', 'e', 'g', 'h']],
      ['length less than', length('tags', 'lt', 2), ['b', 'c', 'd', 'e', 'g', 'h']],
      ['length more than, on a path', length(['meta', 'color'], 'gt', 0), ['f']],
      ['not of length', not(length('tags', 'gt', 1)), ['b', 'c', 'd', 'e', 'g', 'h']],
      ['and', and(eq('group', 'g1'), eq('flag', false)), ['b']],
      ['or', or(eq('n', 0), eq('name', 'apple')), ['a', 'h']],
      ['empty and matches everything', and(), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']],
      ['empty or matches nothing', or(), []],
      ['not is two-valued: nulls do not match eq, so they match its not', not(eq('group', 'g1')), ['c', 'd', 'e', 'f', 'g', 'h']],
      ['not of a comparison keeps nulls and other types', not(compare('gte', 'n', 5)), ['b', 'd', 'e', 'f', 'h']],
      ['not of as number', not(compare('gt', 'num', 5, 'number')), ['d', 'e', 'f', 'g', 'h']],
      ['not of contains', not(text('contains', 'name', 'e')), ['b', 'd', 'e', 'f', 'h']],
      ['not of or', not(or(eq('group', 'g1'), isNull('group'))), ['c', 'f']],
      ['not of not', not(not(eq(['meta', 'color'], 'red'))), ['a']],
      ['not inside and', and(notNull('name'), not(eq('flag', true))), ['b', 'c', 'g', 'h']],
    ])('%s', async (_name, condition, expected) => {
      expect(await where(condition)).toEqual(expected);
    });

    test('as time reads a date-time without an offset in the server process\u2019s zone, as Date.parse does', async () => {
      const local = '2026-06-01T12:00';
      const q = await project({ id: 'l', at: local });
      const at = Date.parse(local);
      const matches = (c: Condition) => read(q, async (uow) => ids((await uow.items.query({ where: c })).rows));
      expect(await matches(and(compare('gte', 'at', at, 'time'), compare('lte', 'at', at, 'time')))).toEqual(['l']);
    });
  });

  describe('lists', () => {
    const rows: Item[] = [
      { id: 'r1', n: 3, name: 'b', flag: true, group: 'g' },
      { id: 'r2', n: null, name: 'B', flag: false },
      { id: 'r3', n: 1, name: '10', group: 'g' },
      { id: 'r4', n: 3, name: 'a', flag: true, group: 'g' },
      { id: 'r5', n: 10, name: '\u00e9', flag: null },
      { id: 'r6', n: 9, name: 'Z', flag: false, group: 'g' },
      { id: 'r7', name: '9' },
      { id: 'r8', n: 3, name: 'b', flag: true },
    ];
    let p: string;
    beforeAll(async () => {
      p = await projectInOrder(rows);
    });
    const list = async (query: Query<Item>) => {
      const page = await read(p, (uow) => uow.items.query(query));
      return { ids: ids(page.rows), total: page.total };
    };

    test('when ordered by a number field, then numbers order as numbers, null first, ties in insertion order, and descending is the exact reverse', async () => {
      const ascending = ['r2', 'r7', 'r3', 'r1', 'r4', 'r8', 'r6', 'r5'];
      expect(await list({ orderBy: { field: 'n', direction: 'asc' } })).toEqual({ ids: ascending, total: 8 });
      expect(await list({ orderBy: { field: 'n', direction: 'desc' } })).toEqual({ ids: [...ascending].reverse(), total: 8 });
    });

    test('when ordered by a text field, then strings order by code unit whatever the database\u2019s collation', async () => {
      expect((await list({ orderBy: { field: 'name', direction: 'asc' } })).ids).toEqual(['r3', 'r7', 'r2', 'r6', 'r4', 'r1', 'r8', 'r5']);
    });

    test('when ordered by a boolean field, then false before true, null first', async () => {
      expect((await list({ orderBy: { field: 'flag', direction: 'asc' } })).ids).toEqual(['r3', 'r5', 'r7', 'r2', 'r6', 'r1', 'r4', 'r8']);
    });

    test('when a list has no order, then rows come in insertion order', async () => {
      expect(await list({ where: eq('group', 'g') })).toEqual({ ids: ['r1', 'r3', 'r4', 'r6'], total: 4 });
    });

    test('when paged with offset and limit, then the pages make up the whole list and total counts every match', async () => {
      const orderBy = { field: 'n', direction: 'desc' } as const;
      const pages = await Promise.all([0, 3, 6].map((offset) => list({ orderBy, offset, limit: 3 })));
      expect(pages.flatMap((page) => page.ids)).toEqual((await list({ orderBy })).ids);
      expect(pages.map((page) => page.total)).toEqual([8, 8, 8]);
      expect(await list({ orderBy, offset: 20, limit: 3 })).toEqual({ ids: [], total: 8 });
      expect(await list({ orderBy, limit: 0 })).toEqual({ ids: [], total: 8 });
      expect(await list({ where: notNull('group'), index: { field: 'group', value: 'g' }, offset: 1, limit: 2 })).toEqual({ ids: ['r3', 'r4'], total: 4 });
    });

    test('when paged with a keyset cursor, then a page holds the rows strictly past it and total counts those', async () => {
      expect(await list({ orderBy: { field: 'n', direction: 'asc' }, after: 3, limit: 2 })).toEqual({ ids: ['r6', 'r5'], total: 2 });
      // Descending, null sorts last: it is past every cursor.
      expect(await list({ orderBy: { field: 'n', direction: 'desc' }, after: 3 })).toEqual({ ids: ['r3', 'r7', 'r2'], total: 3 });
      expect(await list({ orderBy: { field: 'n', direction: 'asc' }, after: 3, where: eq('group', 'g') })).toEqual({ ids: ['r6'], total: 1 });
      expect(await list({ orderBy: { field: 'name', direction: 'asc' }, after: 'Z', limit: 1 })).toEqual({ ids: ['r4'], total: 4 });
      expect(await list({ orderBy: { field: 'id', direction: 'desc' }, after: 'r3', offset: 1 })).toEqual({ ids: ['r1'], total: 2 });
      expect(await list({ orderBy: { field: 'n', direction: 'asc' }, after: 100 })).toEqual({ ids: [], total: 0 });
    });
  });

  describe('projects', () => {
    test('when two projects hold the same ids, then each sees only its own rows', async () => {
      const p = await project({ id: 'a', code: 'A', name: 'in p' });
      const q = await project({ id: 'a', code: 'A', name: 'in q' });
      expect(await read(p, (uow) => uow.items.get('a'))).toEqual({ id: 'a', code: 'A', name: 'in p' });
      expect(await read(q, (uow) => uow.items.query({}))).toEqual({ rows: [{ id: 'a', code: 'A', name: 'in q' }], total: 1 });
    });

    test('when a project is created twice, then it keeps its data; when dropped, its data and name are gone', async () => {
      const p = await project({ id: 'a' });
      await store.createProject(p);
      expect(await read(p, (uow) => uow.items.get('a'))).toEqual({ id: 'a' });
      expect(await store.hasProject(p)).toBe(true);
      expect(await store.projectIds()).toContain(p);
      await store.dropProject(p);
      expect(await store.hasProject(p)).toBe(false);
      expect(await store.projectIds()).not.toContain(p);
      await expect(read(p, (uow) => uow.items.get('a'))).rejects.toBeInstanceOf(UnknownProject);
      await store.createProject(p);
      expect(await read(p, (uow) => uow.items.get('a'))).toBeUndefined();
    });

    test('when a project is dropped while a unit of work runs on it, then the drop waits for it', async () => {
      const p = await project();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const work = read(p, async (uow) => {
        await uow.items.insert({ id: 'a' });
        started();
        await held;
      });
      await running;
      let dropped = false;
      const drop = store.dropProject(p).then(() => (dropped = true));
      await sleep(200);
      expect(dropped).toBe(false);
      release();
      await Promise.all([work, drop]);
      expect(await store.hasProject(p)).toBe(false);
    });
  });

  describe('concurrency', () => {
    /** Reads a counter, lets every other waiting task run, then writes it plus one: a lost update shows. */
    const increment = (s: TestStore, p: string) =>
      s.transaction(p, async (uow) => {
        const counter = (await uow.counters.get('c'))!;
        await settle();
        await uow.counters.update({ ...counter, value: counter.value + 1 });
      });
    const loop = async (s: TestStore, p: string, times: number) => {
      for (let i = 0; i < times; i++) await increment(s, p);
    };
    const counterProject = async () => {
      const p = await project();
      await read(p, (uow) => uow.counters.insert({ id: 'c', value: 0 }));
      return p;
    };

    test('when two loops read-modify-write one counter 50 times each at once, then it ends at exactly 100', async () => {
      const p = await counterProject();
      await Promise.all([loop(store, p, 50), loop(store, p, 50)]);
      expect(await read(p, (uow) => uow.counters.get('c'))).toEqual({ id: 'c', value: 100 });
    }, 60_000);

    const acrossInstances = typeof factory.second === 'string' ? test.skip : test;
    if (typeof factory.second === 'string') console.log(`${factory.name}: units of work across two instances skipped: ${factory.second}`);
    acrossInstances('when two store instances on one database each increment one counter 50 times at once, then it ends at exactly 100', async () => {
      const other = await (factory.second as () => Promise<TestStore>)();
      try {
        const p = await counterProject();
        await Promise.all([loop(store, p, 50), loop(other, p, 50)]);
        expect(await read(p, (uow) => uow.counters.get('c'))).toEqual({ id: 'c', value: 100 });
      } finally {
        await other.close();
      }
    }, 60_000);

    const twoProjects = factory.concurrentProjects === true ? test : test.skip;
    if (factory.concurrentProjects !== true) console.log(`${factory.name}: units of work on two projects at once skipped: ${factory.concurrentProjects}`);
    twoProjects('when a unit of work holds one project, then a unit of work on another project runs meanwhile', async () => {
      const [p, q] = [await project(), await project()];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = read(p, async (uow) => {
        await uow.items.insert({ id: 'a' });
        await held;
      });
      try {
        const other = read(q, (uow) => uow.items.insert({ id: 'b' }));
        const late = sleep(5_000).then(() => 'blocked');
        expect(await Promise.race([other.then(() => 'ran'), late])).toBe('ran');
      } finally {
        release();
        await first;
      }
    });
  });

  describe('kept tables', () => {
    const setting = (key: string, scope: string | null, value: unknown) => ({ id: `s_${key}`, key, scope, value });
    /** Every way of reading the table, in one unit of work. */
    const everyReading = (uow: Parameters<Parameters<TestStore['transaction']>[1]>[0]) =>
      Promise.all([
        uow.settings.get('s_a'),
        uow.settings.getBy('key', 'b'),
        uow.settings.findBy('scope', 'x').then(ids),
        uow.settings.countBy('scope', 'x'),
        uow.settings.query({ where: eq('value', 2) }).then(({ rows, total }) => [ids(rows), total]),
        uow.settings.query({ limit: 1, offset: 1 }).then(({ rows, total }) => [ids(rows), total]),
      ]);

    test('when a kept table is written, then every later unit of work reads the change, by every reading, and a unit of work reads its own writes', async () => {
      const p = await project();
      expect(await store.read(p, everyReading)).toEqual([undefined, undefined, [], 0, [[], 0], [[], 0]]);
      await read(p, async (uow) => {
        await uow.settings.insert(setting('a', 'x', 1));
        // Its own write, before it commits.
        expect(await uow.settings.get('s_a')).toEqual(setting('a', 'x', 1));
        await uow.settings.insert(setting('b', 'x', 2));
      });
      expect(await store.read(p, everyReading)).toEqual([setting('a', 'x', 1), setting('b', 'x', 2), ['s_a', 's_b'], 2, [['s_b'], 1], [['s_b'], 2]]);
      // Read again: the same answers (a SQL store now from its copy).
      expect(await store.read(p, everyReading)).toEqual([setting('a', 'x', 1), setting('b', 'x', 2), ['s_a', 's_b'], 2, [['s_b'], 1], [['s_b'], 2]]);
      await read(p, async (uow) => {
        await uow.settings.update(setting('b', 'y', 3));
        await uow.settings.delete('s_a');
      });
      expect(await read(p, everyReading)).toEqual([undefined, setting('b', 'y', 3), [], 0, [[], 0], [[], 1]]);
      // Kept rows are handed out frozen (the memory store's are too): nobody changes a shared copy.
      expect(Object.isFrozen(await store.read(p, (uow) => uow.settings.get('s_b')))).toBe(true);
    });

    test('when a write to a kept table is rolled back, then the rows before it are read', async () => {
      const p = await project();
      await read(p, (uow) => uow.settings.insert(setting('a', 'x', 1)));
      expect(await store.read(p, (uow) => uow.settings.get('s_a'))).toEqual(setting('a', 'x', 1));
      await expect(
        read(p, async (uow) => {
          await uow.settings.update(setting('a', 'x', 9));
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await store.read(p, (uow) => uow.settings.get('s_a'))).toEqual(setting('a', 'x', 1));
    });

    test('when an append writes a kept table, then it is refused and appendFirst runs the work again as a transaction', async () => {
      const p = await project();
      await expect(store.append(p, (uow) => uow.settings.insert(setting('a', 'x', 1)))).rejects.toEqual(new ChangeInAppend('settings', 'kept table'));
      let runs = 0;
      await appendFirst(store, p, (uow) => (runs++, uow.settings.insert(setting('a', 'x', 1))));
      expect(runs).toBe(2);
      expect(await store.read(p, (uow) => uow.settings.getBy('key', 'a'))).toEqual(setting('a', 'x', 1));
    });

    const acrossInstances = typeof factory.second === 'function' ? test : test.skip;
    acrossInstances('when another store instance writes a kept table, then this instance reads the change', async () => {
      const other = await (factory.second as () => Promise<TestStore>)();
      try {
        const p = await project();
        await read(p, (uow) => uow.settings.insert(setting('a', 'x', 1)));
        expect(await store.read(p, everyReading)).toEqual([setting('a', 'x', 1), undefined, ['s_a'], 1, [[], 0], [[], 1]]);
        await other.transaction(p, (uow) => uow.settings.insert(setting('b', 'x', 2)));
        expect(await store.read(p, everyReading)).toEqual([setting('a', 'x', 1), setting('b', 'x', 2), ['s_a', 's_b'], 2, [['s_b'], 1], [['s_b'], 2]]);
        // A project dropped and made again under its ID is not the old one, whoever dropped it.
        await other.dropProject(p);
        await other.createProject(p);
        expect(await store.read(p, (uow) => uow.settings.get('s_a'))).toBeUndefined();
      } finally {
        await other.close();
      }
    }, 60_000);

    acrossInstances('when appends on two store instances insert at once, then the whole table counts every row', async () => {
      const other = await (factory.second as () => Promise<TestStore>)();
      try {
        const p = await project();
        await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? store : other).append(p, (uow) => uow.items.insert({ id: `r${i}` }))));
        await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? store : other).transaction(p, (uow) => uow.items.delete(`r${i}`))));
        expect((await store.read(p, (uow) => uow.items.query({ limit: 1 }))).total).toBe(30);
      } finally {
        await other.close();
      }
    }, 60_000);
  });

  describe('tables of fresh IDs', () => {
    test('when rows are inserted into a table of fresh IDs, then the unit of work reads them at once, and they are kept, counted, or rolled back with it', async () => {
      const p = await project();
      await read(p, async (uow) => {
        await uow.entries.insert({ id: 'e1', about: 'x' });
        // Read in the same unit of work, before anything else is sent: by ID, by index, whole.
        expect(await uow.entries.get('e1')).toEqual({ id: 'e1', about: 'x' });
        await uow.entries.insert({ id: 'e2', about: 'x' });
        expect(ids(await uow.entries.findBy('about', 'x'))).toEqual(['e1', 'e2']);
        await uow.entries.insert({ id: 'e3', about: 'y' });
        expect((await uow.entries.query({ limit: 1 })).total).toBe(3);
        // The last one is sent with the end of the unit of work.
        await uow.entries.insert({ id: 'e4', about: 'y' });
      });
      expect(await store.read(p, async (uow) => [ids(await uow.entries.findBy('about', 'y')), (await uow.entries.query({ limit: 1 })).total])).toEqual([['e3', 'e4'], 4]);
      await expect(
        read(p, async (uow) => {
          await uow.entries.insert({ id: 'e5', about: 'z' });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      // An ID taken after all fails the unit of work (at the insert, or at its end), and keeps nothing of it.
      await expect(
        read(p, async (uow) => {
          await uow.items.insert({ id: 'kept-not' });
          await uow.entries.insert({ id: 'e1', about: 'again' });
        }),
      ).rejects.toThrow();
      expect(await store.read(p, async (uow) => [await uow.items.get('kept-not'), await uow.entries.get('e5'), (await uow.entries.get('e1'))?.about, (await uow.entries.query({ limit: 1 })).total])).toEqual([
        undefined,
        undefined,
        'x',
        4,
      ]);
    });

    test('when appends insert into a table of fresh IDs, then every row is kept and counted', async () => {
      const p = await project();
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.append(p, (uow) => uow.entries.insert({ id: `a${i}`, about: i % 2 === 0 ? 'even' : 'odd' }))));
      expect(await store.read(p, async (uow) => [await uow.entries.countBy('about', 'even'), (await uow.entries.query({ limit: 1 })).total])).toEqual([10, 20]);
    });
  });

  describe('reads', () => {
    test('when a read only reads, then it sees what was committed and returns what its work returns; on an unknown project it throws UnknownProject', async () => {
      const p = await project({ id: 'a', name: 'apple', n: 1 }, { id: 'b', name: 'banana', n: 2 });
      const seen = await store.read(p, async (uow) => [await uow.items.get('a'), (await uow.items.query({ orderBy: { field: 'n', direction: 'desc' }, limit: 1 })).rows]);
      expect(seen).toEqual([{ id: 'a', name: 'apple', n: 1 }, [{ id: 'b', name: 'banana', n: 2 }]]);
      await expect(store.read('no-such-project', (uow) => uow.items.get('a'))).rejects.toBeInstanceOf(UnknownProject);
    });

    test('when a read writes, then the write is refused with WriteInRead and nothing is kept, even when the work catches the refusal', async () => {
      const p = await project({ id: 'a', name: 'apple' });
      await expect(store.read(p, (uow) => uow.items.insert({ id: 'b' }))).rejects.toBeInstanceOf(WriteInRead);
      await expect(store.read(p, (uow) => uow.items.update({ id: 'a', name: 'apricot' }))).rejects.toBeInstanceOf(WriteInRead);
      await expect(store.read(p, (uow) => uow.items.delete('a'))).rejects.toBeInstanceOf(WriteInRead);
      const caught = store.read(p, async (uow) => {
        await uow.counters.insert({ id: 'c', value: 1 }).catch(() => undefined);
        return 'went on';
      });
      await expect(caught).rejects.toEqual(new WriteInRead('counters'));
      expect(await read(p, async (uow) => [await uow.items.get('a'), await uow.items.get('b'), await uow.counters.get('c')])).toEqual([{ id: 'a', name: 'apple' }, undefined, undefined]);
    });

    test('when work begun with readFirst writes, then it runs again as a transaction and its writes are kept; work that only reads runs once', async () => {
      const p = await project({ id: 'a', name: 'apple' });
      let runs = 0;
      const written = await readFirst(store, p, async (uow) => {
        runs++;
        const found = await uow.items.get('a');
        return uow.items.update({ ...found!, name: `${found!.name} (run ${runs})` });
      });
      expect([runs, written]).toEqual([2, { id: 'a', name: 'apple (run 2)' }]);
      expect(await read(p, (uow) => uow.items.get('a'))).toEqual({ id: 'a', name: 'apple (run 2)' });
      runs = 0;
      expect(await readFirst(store, p, async (uow) => (runs++, (await uow.items.get('a'))!.name))).toBe('apple (run 2)');
      expect(runs).toBe(1);
      await expect(readFirst(store, p, async () => Promise.reject(new Error('the work failed')))).rejects.toThrow('the work failed');
    });

    const besideWriters = factory.readsBesideWriters === true ? test : test.skip;
    if (factory.readsBesideWriters !== true) console.log(`${factory.name}: reads beside a writer skipped: ${factory.readsBesideWriters}`);
    besideWriters('when a unit of work holds the project, then a read runs meanwhile and sees only what was committed', async () => {
      const p = await project({ id: 'a', name: 'apple' });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inserted!: () => void;
      const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
      const writer = store.transaction(p, async (uow) => {
        await uow.items.insert({ id: 'b', name: 'banana' });
        await uow.items.update({ id: 'a', name: 'apricot' });
        inserted();
        await held;
      });
      try {
        await insertedYet;
        const reading = store.read(p, async (uow) => [await uow.items.get('a'), await uow.items.get('b')]);
        const late = sleep(5_000).then(() => 'blocked');
        expect(await Promise.race([reading, late])).toEqual([{ id: 'a', name: 'apple' }, undefined]);
      } finally {
        release();
        await writer;
      }
      expect(await store.read(p, async (uow) => [await uow.items.get('a'), await uow.items.get('b')])).toEqual([{ id: 'a', name: 'apricot' }, { id: 'b', name: 'banana' }]);
    });
  });

  describe('appends', () => {
    test('when an append only inserts, then its rows are kept; a change or a taken value is refused with ChangeInAppend and nothing is kept, even when the work catches it', async () => {
      const p = await project({ id: 'a', name: 'apple', code: 'A' });
      expect(await store.append(p, (uow) => uow.items.insert({ id: 'b', name: 'banana' }))).toEqual({ id: 'b', name: 'banana' });
      await expect(store.append(p, (uow) => uow.items.update({ id: 'a', name: 'apricot' }))).rejects.toEqual(new ChangeInAppend('items', 'update'));
      await expect(store.append(p, (uow) => uow.items.delete('a'))).rejects.toEqual(new ChangeInAppend('items', 'delete'));
      const caught = store.append(p, async (uow) => {
        await uow.counters.insert({ id: 'c', value: 1 });
        await uow.items.insert({ id: 'd', code: 'A' }).catch(() => undefined);
        return 'went on';
      });
      await expect(caught).rejects.toEqual(new ChangeInAppend('items', 'taken value'));
      // Refused too when the work reads on (a SQL store may send the insert only with its next statement).
      const readOn = store.append(p, async (uow) => {
        await uow.items.insert({ id: 'g', code: 'A' }).catch(() => undefined);
        return uow.counters.get('none');
      });
      await expect(readOn).rejects.toEqual(new ChangeInAppend('items', 'taken value'));
      await expect(store.append(p, (uow) => uow.items.insert({ id: 'a' }))).rejects.toEqual(new ChangeInAppend('items', 'taken value'));
      await expect(store.append('no-such-project', (uow) => uow.items.get('a'))).rejects.toBeInstanceOf(UnknownProject);
      expect(await read(p, async (uow) => [await uow.items.get('a'), await uow.items.get('b'), await uow.counters.get('c'), await uow.items.get('d')])).toEqual([
        { id: 'a', name: 'apple', code: 'A' },
        { id: 'b', name: 'banana' },
        undefined,
        undefined,
      ]);
    });

    test('when work begun with appendFirst changes a row or meets a taken value, then it runs again as a transaction, which gives its answer', async () => {
      const p = await project({ id: 'a', name: 'apple', code: 'A' });
      let runs = 0;
      const written = await appendFirst(store, p, async (uow) => {
        runs++;
        const found = await uow.items.get('a');
        return uow.items.update({ ...found!, name: `${found!.name} (run ${runs})` });
      });
      expect([runs, written]).toEqual([2, { id: 'a', name: 'apple (run 2)', code: 'A' }]);
      runs = 0;
      await expect(appendFirst(store, p, (uow) => (runs++, uow.items.insert({ id: 'e', code: 'A' })))).rejects.toEqual(new UniqueViolation('items', 'code', 'A'));
      expect(runs).toBe(2);
      runs = 0;
      await appendFirst(store, p, (uow) => (runs++, uow.items.insert({ id: 'f', code: 'F' })));
      expect(runs).toBe(1);
    });

    const besideEachOther = factory.readsBesideWriters === true ? test : test.skip;
    besideEachOther('when appends on one project run at once, then each runs while the other holds the project, and a transaction waits for both', async () => {
      const p = await project();
      let arrived = 0;
      let bothIn!: () => void;
      const together = new Promise<void>((resolve) => (bothIn = resolve));
      // Each append waits, holding the project, until the other is in too: run one at a time, they never end.
      const appending = (id: string) =>
        store.append(p, async (uow) => {
          await uow.items.insert({ id, code: id });
          if (++arrived === 2) bothIn();
          await together;
        });
      const appends = Promise.all([appending('x'), appending('y')]);
      const late = sleep(5_000).then(() => 'blocked');
      expect(await Promise.race([appends.then(() => 'ran'), late])).toBe('ran');
      // A transaction that starts while an append holds the project sees its rows only once it committed.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const third = store.append(p, async (uow) => {
        await uow.items.insert({ id: 'z' });
        inside();
        await held;
      });
      await entered;
      const counted = store.transaction(p, async (uow) => (await uow.items.query({ limit: 0 })).total);
      await sleep(100);
      release();
      await third;
      expect(await counted).toBe(3);
    });
  });

  describe('optimistic units of work', () => {
    test('when an optimistic unit of work changes rows it read, then they are kept; an unread row, a taken value or a kept table is refused with ChangeConflict and nothing is kept, even when the work catches it', async () => {
      const p = await project({ id: 'a', name: 'apple', code: 'A' }, { id: 'b', name: 'banana', code: 'B' });
      const changed = await store.optimistic(p, async (uow) => {
        const a = (await uow.items.get('a'))!;
        const [b] = (await uow.items.query({ where: eq('code', 'B') })).rows;
        await uow.items.insert({ id: 'c', name: 'cherry' });
        await uow.items.update({ ...a, name: 'apricot' });
        await uow.items.update({ ...b!, name: 'blueberry' });
        // A row it wrote, written again.
        await uow.items.update({ id: 'c', name: 'cranberry' });
        return uow.items.delete('b');
      });
      expect(changed).toBe(true);
      await expect(store.optimistic(p, (uow) => uow.items.update({ id: 'a', name: 'avocado' }))).rejects.toEqual(new ChangeConflict('items', 'unread'));
      const caught = store.optimistic(p, async (uow) => {
        await uow.counters.insert({ id: 'k', value: 1 });
        await uow.items.insert({ id: 'd', code: 'A' }).catch(() => undefined);
        return 'went on';
      });
      await expect(caught).rejects.toEqual(new ChangeConflict('items', 'taken value'));
      await expect(store.optimistic(p, (uow) => uow.settings.insert({ id: 's', key: 'k' }))).rejects.toEqual(new ChangeConflict('settings', 'kept table'));
      await expect(store.optimistic('no-such-project', (uow) => uow.items.get('a'))).rejects.toBeInstanceOf(UnknownProject);
      expect(await read(p, async (uow) => [await uow.items.get('a'), await uow.items.get('b'), await uow.items.get('c'), await uow.counters.get('k'), await uow.settings.get('s')])).toEqual([
        { id: 'a', name: 'apricot', code: 'A' },
        undefined,
        { id: 'c', name: 'cranberry' },
        undefined,
        undefined,
      ]);
    });

    test('when work begun with optimisticFirst is refused for anything but a changed row, then it runs again as a transaction, which gives its answer', async () => {
      const p = await project({ id: 'a', name: 'apple', code: 'A' });
      let runs = 0;
      const written = await optimisticFirst(store, p, (uow) => (runs++, uow.items.update({ id: 'a', name: `unread (run ${runs})`, code: 'A' })));
      expect([runs, written]).toEqual([2, { id: 'a', name: 'unread (run 2)', code: 'A' }]);
      runs = 0;
      await expect(optimisticFirst(store, p, (uow) => (runs++, uow.items.insert({ id: 'e', code: 'A' })))).rejects.toEqual(new UniqueViolation('items', 'code', 'A'));
      expect(runs).toBe(2);
    });

    /** Reads a counter, lets every other waiting task run, then writes it plus one, optimistically: a lost update shows. */
    const increment = (s: TestStore, p: string) =>
      optimisticFirst(s, p, async (uow) => {
        const counter = (await uow.counters.get('c'))!;
        await settle();
        await uow.counters.update({ ...counter, value: counter.value + 1 });
      });
    const loop = async (s: TestStore, p: string, times: number) => {
      for (let i = 0; i < times; i++) await increment(s, p);
    };

    test('when two loops read-modify-write one counter optimistically 50 times each at once, then it ends at exactly 100', async () => {
      const p = await project();
      await read(p, (uow) => uow.counters.insert({ id: 'c', value: 0 }));
      await Promise.all([loop(store, p, 50), loop(store, p, 50)]);
      expect(await read(p, (uow) => uow.counters.get('c'))).toEqual({ id: 'c', value: 100 });
    }, 60_000);

    const acrossInstances = typeof factory.second === 'string' ? test.skip : test;
    acrossInstances('when two store instances each read-modify-write one counter optimistically 50 times at once, then it ends at exactly 100', async () => {
      const other = await (factory.second as () => Promise<TestStore>)();
      try {
        const p = await project();
        await read(p, (uow) => uow.counters.insert({ id: 'c', value: 0 }));
        await Promise.all([loop(store, p, 50), loop(other, p, 50)]);
        expect(await read(p, (uow) => uow.counters.get('c'))).toEqual({ id: 'c', value: 100 });
      } finally {
        await other.close();
      }
    }, 60_000);

    const besideEachOther = factory.readsBesideWriters === true ? test : test.skip;
    besideEachOther('when optimistic units of work change different rows at once, then both run together; one that read a row another changed since is refused as changed', async () => {
      const p = await project({ id: 'a', name: 'apple' }, { id: 'b', name: 'banana' });
      let arrived = 0;
      let bothIn!: () => void;
      const together = new Promise<void>((resolve) => (bothIn = resolve));
      // Each holds its row's lock until the other has written its own: one at a time, they never end.
      const changing = (id: string) =>
        store.optimistic(p, async (uow) => {
          const row = (await uow.items.get(id))!;
          await uow.items.update({ ...row, name: `${row.name}!` });
          if (++arrived === 2) bothIn();
          await together;
        });
      const both = Promise.all([changing('a'), changing('b')]);
      expect(await Promise.race([both.then(() => 'ran'), sleep(5_000).then(() => 'blocked')])).toBe('ran');
      // A reads `a`, B changes it and commits, then A writes what it read: refused, and nothing of A is kept.
      let readIt!: () => void;
      const hasRead = new Promise<void>((resolve) => (readIt = resolve));
      let goOn!: () => void;
      const changedMeanwhile = new Promise<void>((resolve) => (goOn = resolve));
      const stale = store.optimistic(p, async (uow) => {
        const row = (await uow.items.get('a'))!;
        readIt();
        await changedMeanwhile;
        await uow.items.insert({ id: 'from-a' });
        await uow.items.update({ ...row, name: 'from A' });
      });
      await hasRead;
      await store.optimistic(p, async (uow) => uow.items.update({ ...(await uow.items.get('a'))!, name: 'from B' }));
      goOn();
      await expect(stale).rejects.toEqual(new ChangeConflict('items', 'changed'));
      expect(await read(p, async (uow) => [await uow.items.get('a'), await uow.items.get('from-a')])).toEqual([{ id: 'a', name: 'from B' }, undefined]);
    });

    test('when optimistic units of work read one row for update at once, then they change it one after another, none refused', async () => {
      const p = await project({ id: 'a', code: 'A', n: 0 });
      const bump = () =>
        store.optimistic(p, async (uow) => {
          const row = (await uow.items.getBy('code', 'A', { forUpdate: true }))!;
          await sleep(20);
          await uow.items.update({ ...row, n: (row.n as number) + 1 });
        });
      await Promise.all([bump(), bump(), bump()]);
      expect(await read(p, (uow) => uow.items.get('a'))).toEqual({ id: 'a', code: 'A', n: 3 });
      // By ID too: each reads the count the one before it left.
      const byId = () =>
        store.optimistic(p, async (uow) => {
          const row = (await uow.items.get('a', { forUpdate: true }))!;
          await sleep(20);
          await uow.counters.insert({ id: `seen-${row.n as number}`, value: 1 });
          await uow.items.update({ ...row, n: (row.n as number) + 1 });
        });
      await Promise.all([byId(), byId(), byId()]);
      expect(await read(p, async (uow) => [(await uow.items.get('a'))!.n, (await uow.counters.query({})).rows.map((row) => row.id).sort()])).toEqual([
        6,
        ['seen-3', 'seen-4', 'seen-5'],
      ]);
    });

    besideEachOther(`when a row keeps changing under optimistic work, then optimisticFirst runs it ${OPTIMISTIC_TRIES} times, then as a transaction`, async () => {
      const p = await project({ id: 'a', name: 'apple' });
      let runs = 0;
      const written = await optimisticFirst(store, p, async (uow) => {
        runs++;
        const row = (await uow.items.get('a'))!;
        // Another unit of work changes the row between this one's read and its write, while this one can still be refused.
        if (runs <= OPTIMISTIC_TRIES) await store.optimistic(p, async (other) => other.items.update({ ...(await other.items.get('a'))!, name: `other ${runs}` }));
        return uow.items.update({ ...row, name: `${row.name}, run ${runs}` });
      });
      expect(written).toEqual({ id: 'a', name: `other ${OPTIMISTIC_TRIES}, run ${OPTIMISTIC_TRIES + 1}` });
    });
  });

  describe('walks', () => {
    test('when a table is walked, then its matches come in insertion order, a page at a time, none twice, and a walk left early reads no further', async () => {
      const rows = Array.from({ length: 23 }, (_, i) => ({ id: `w${String(22 - i).padStart(2, '0')}`, group: i % 3 === 0 ? 'x' : 'y', n: i }));
      const p = await projectInOrder(rows);
      const walked = await read(p, async (uow) => {
        const pages = async (query: Parameters<typeof uow.items.walk>[0], size: number) => {
          const seen: string[][] = [];
          for await (const page of uow.items.walk(query, size)) seen.push(ids(page));
          return seen;
        };
        let early = 0;
        for await (const page of uow.items.walk({}, 5)) {
          early += page.length;
          break;
        }
        return { all: await pages({}, 5), exact: await pages({ where: compare('lt', 'n', 10) }, 5), indexed: await pages({ index: { field: 'group', value: 'x' }, where: compare('gte', 'n', 3) }, 2), early };
      });
      const inOrder = ids(rows);
      expect(walked.all).toEqual([inOrder.slice(0, 5), inOrder.slice(5, 10), inOrder.slice(10, 15), inOrder.slice(15, 20), inOrder.slice(20)]);
      expect(walked.exact).toEqual([inOrder.slice(0, 5), inOrder.slice(5, 10)]);
      expect(walked.indexed.flat()).toEqual(rows.filter((row) => row.group === 'x' && row.n >= 3).map((row) => row.id));
      expect(walked.indexed.map((page) => page.length)).toEqual([2, 2, 2, 1]);
      expect(walked.early).toBe(5);
      // An optimistic unit of work may change what it walked over.
      await store.optimistic(p, async (uow) => {
        for await (const page of uow.items.walk({ where: eq('n', 0) }, 10)) for (const row of page) await uow.items.update({ ...row, name: 'walked' });
      });
      expect(await read(p, (uow) => uow.items.get('w22'))).toMatchObject({ name: 'walked' });
    });
  });

  describe('added amounts', () => {
    test('when amounts are added, then a missing row is inserted with them and a stored one has them added, at any depth; the unit of work reads them at once, and they are counted or rolled back with it', async () => {
      const p = await project({ id: 'a', name: 'apple', n: 'not a number', meta: { hits: 2, deep: 5 } });
      const inside = await store.transaction(p, async (uow) => {
        await uow.items.add({ id: 'a' }, { n: 3, 'meta.hits': 1, 'meta.deep.x': 4 });
        await uow.items.add({ id: 'a' }, { 'meta.hits': 10 });
        await uow.items.add({ id: 'b', name: 'banana', meta: {} }, { 'meta.hits': 1 });
        await uow.items.add({ id: 'b', name: 'ignored' }, { 'meta.hits': 1, n: -2 });
        return [await uow.items.get('a'), (await uow.items.findBy('group', null)).length, (await uow.items.query({ limit: 0 })).total];
      });
      const a = { id: 'a', name: 'apple', n: 3, meta: { hits: 13, deep: { x: 4 } } };
      expect(inside).toEqual([a, 2, 2]);
      expect(await read(p, async (uow) => [await uow.items.get('a'), await uow.items.get('b'), (await uow.items.query({ limit: 0 })).total])).toEqual([
        a,
        { id: 'b', name: 'banana', meta: { hits: 2 }, n: -2 },
        2,
      ]);
      const undone = store.transaction(p, async (uow) => {
        await uow.items.add({ id: 'a' }, { n: 100 });
        await uow.items.add({ id: 'c' }, { n: 1 });
        throw new Error('undo');
      });
      await expect(undone).rejects.toThrow('undo');
      expect(await read(p, async (uow) => [(await uow.items.get('a'))!.n, await uow.items.get('c'), (await uow.items.query({ limit: 0 })).total])).toEqual([3, undefined, 2]);
      await expect(store.read(p, (uow) => uow.items.add({ id: 'a' }, { n: 1 }))).rejects.toEqual(new WriteInRead('items'));
      await expect(store.append(p, (uow) => uow.items.add({ id: 'a' }, { n: 1 }))).rejects.toEqual(new ChangeInAppend('items', 'update'));
    });

    /** Adds one to a counter's value in an optimistic unit of work, which also reads the counter first. */
    const addOne = (s: TestStore, p: string) =>
      optimisticFirst(s, p, async (uow) => {
        await uow.counters.get('c');
        await settle();
        await uow.counters.add({ id: 'c', value: 0 }, { value: 1 });
      });
    const loop = async (s: TestStore, p: string, times: number) => {
      for (let i = 0; i < times; i++) await addOne(s, p);
    };

    test('when two loops add to one row 50 times each at once, in optimistic units of work, then every amount counts', async () => {
      const p = await project();
      await Promise.all([loop(store, p, 50), loop(store, p, 50)]);
      expect(await read(p, async (uow) => [await uow.counters.get('c'), (await uow.counters.query({ limit: 0 })).total])).toEqual([{ id: 'c', value: 100 }, 1]);
    }, 60_000);

    const acrossInstances = typeof factory.second === 'string' ? test.skip : test;
    acrossInstances('when two store instances add to one row 50 times each at once, then every amount counts, and the row is made once', async () => {
      const other = await (factory.second as () => Promise<TestStore>)();
      try {
        const p = await project();
        await Promise.all([loop(store, p, 50), loop(other, p, 50)]);
        expect(await read(p, async (uow) => [await uow.counters.get('c'), (await uow.counters.query({ limit: 0 })).total])).toEqual([{ id: 'c', value: 100 }, 1]);
      } finally {
        await other.close();
      }
    }, 60_000);
  });

  describe('claims', () => {
    const due = (now: number) => ({ where: and(eq('group', 'due'), compare('lte', 'n', now)), orderBy: { field: 'n' as const, direction: 'asc' as const } });
    /** Claims are across every project, so each test's rows carry a group of their own. */
    const claimable = (group: string) => ({ where: eq('group', group), orderBy: { field: 'n' as const, direction: 'asc' as const } });

    test('when due rows wait in several projects, then a claim takes the first `limit` of them in order across projects and leases them', async () => {
      const p = await project({ id: 'a', group: 'due', n: 30 }, { id: 'b', group: 'due', n: 10 }, { id: 'late', group: 'due', n: 99_999 });
      const q = await project({ id: 'a', group: 'due', n: 20 }, { id: 'c', group: 'other', n: 1 });
      // Rows of other tests' projects are in group 'due' too only if they say so; none does.
      const claimed = await store.claim('items', { ...due(1000), limit: 2, owner: 'me', now: 1000, leaseMs: 500 });
      expect(claimed.map(({ projectId, row }) => [projectId, row.id])).toEqual([
        [p, 'b'],
        [q, 'a'],
      ]);
      expect(claimed[0]!.row).toEqual({ id: 'b', group: 'due', n: 10, leased_by: 'me', lease_until: 1500 });
      expect(await read(p, (uow) => uow.items.get('b'))).toEqual({ id: 'b', group: 'due', n: 10, leased_by: 'me', lease_until: 1500 });
      // Leased rows are not claimed again while their lease runs; the next due one is.
      const next = await store.claim('items', { ...due(1200), limit: 5, owner: 'you', now: 1200, leaseMs: 500 });
      expect(next.map(({ projectId, row }) => [projectId, row.id])).toEqual([[p, 'a']]);
      // Once a lease lapses (its holder died), the row is claimable again.
      const lapsed = await store.claim('items', { ...due(1500), limit: 5, owner: 'you', now: 1500, leaseMs: 500 });
      expect(lapsed.map(({ row }) => [row.id, row.leased_by])).toEqual([
        ['b', 'you'],
        ['a', 'you'],
      ]);
    });

    test('when a claim gives a room per project, then it takes no more than that of any project, the default for those not named, and skips a project with none', async () => {
      const rows = (prefix: string) => Array.from({ length: 4 }, (_, i) => ({ id: `${prefix}${i}`, group: 'room', n: i }));
      const p = await project(...rows('p'));
      const q = await project(...rows('q'));
      const r = await project(...rows('r'));
      const claimed = await store.claim('items', { ...claimable('room'), limit: 100, owner: 'me', now: 0, leaseMs: 60_000, perProject: { default: 2, of: { [p]: 1, [r]: 0 } } });
      const taken = (projectId: string) => claimed.filter((each) => each.projectId === projectId).map(({ row }) => row.id);
      expect([taken(p), taken(q), taken(r)]).toEqual([['p0'], ['q0', 'q1'], []]);
      // In order across projects still, and the overall limit holds over the rooms.
      expect(claimed.map(({ row }) => row.n)).toEqual([0, 0, 1]);
      const more = await store.claim('items', { ...claimable('room'), limit: 2, owner: 'me', now: 0, leaseMs: 60_000, perProject: { default: 5 } });
      expect(more.map(({ row }) => row.id)).toEqual(expect.arrayContaining(['r0']));
      expect(more).toHaveLength(2);
    });

    test('when a holder writes its lease back to null in a unit of work, then the row is claimable again; a deleted row is never claimed', async () => {
      const p = await project({ id: 'x', group: 'release', n: 1 }, { id: 'y', group: 'release', n: 2 });
      const [first, second] = await store.claim('items', { ...claimable('release'), limit: 2, owner: 'me', now: 0, leaseMs: 60_000 });
      expect([first!.row.id, second!.row.id]).toEqual(['x', 'y']);
      await read(p, async (uow) => {
        await uow.items.update({ ...first!.row, leased_by: null, lease_until: null });
        await uow.items.delete('y');
      });
      expect((await store.claim('items', { ...claimable('release'), limit: 5, owner: 'you', now: 1, leaseMs: 1 })).map(({ row }) => row.id)).toEqual(['x']);
    });

    const claimers = typeof factory.second === 'string' ? 'one store instance' : 'two store instances';
    test(`when four claimers on ${claimers} claim the same due rows at once, again and again, then no row is ever claimed by both`, async () => {
      const other = typeof factory.second === 'string' ? store : await factory.second();
      try {
        const rows = 60;
        for (let project = 0; project < 4; project++) {
          const items = Array.from({ length: rows / 4 }, (_, i) => ({ id: `r${i}`, group: 'race', n: i * 4 + project }));
          await projectInOrder(items);
        }
        const taken = new Map<string, string>();
        let twice = 0;
        const claimer = async (s: TestStore, owner: string) => {
          for (;;) {
            const got = await s.claim('items', { ...claimable('race'), limit: 3, owner, now: 0, leaseMs: 60_000 });
            if (got.length === 0) return;
            for (const { projectId, row } of got) {
              const key = `${projectId}/${row.id}`;
              if (taken.has(key)) twice++;
              taken.set(key, owner);
              expect(row.leased_by).toBe(owner);
            }
            await settle();
          }
        };
        await Promise.all([claimer(store, 'A'), claimer(other, 'B'), claimer(store, 'C'), claimer(other, 'D')]);
        const counts = [...taken.values()].reduce<Record<string, number>>((all, owner) => ({ ...all, [owner]: (all[owner] ?? 0) + 1 }), {});
        console.log(`${factory.name}: ${rows} rows claimed by four claimers on ${claimers}: ${JSON.stringify(counts)}`);
        expect(twice).toBe(0);
        expect(taken.size).toBe(rows);
      } finally {
        if (other !== store) await other.close();
      }
    }, 60_000);

    test(`when a key is held, then exclusively on ${claimers} skips the work instead of waiting; once released, it runs`, async () => {
      const other = typeof factory.second === 'string' ? store : await factory.second();
      try {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let entered!: () => void;
        const inside = new Promise<void>((resolve) => (entered = resolve));
        const first = store.exclusively('settle:p', async () => {
          entered();
          await held;
          return 'first';
        });
        await inside;
        let ran = false;
        expect(await other.exclusively('settle:p', async () => (ran = true))).toEqual({ ran: false });
        expect(ran).toBe(false);
        // Another key is free meanwhile.
        expect(await other.exclusively('settle:q', async () => 'q')).toEqual({ ran: true, result: 'q' });
        release();
        expect(await first).toEqual({ ran: true, result: 'first' });
        expect(await other.exclusively('settle:p', async () => 'again')).toEqual({ ran: true, result: 'again' });
      } finally {
        if (other !== store) await other.close();
      }
    });
  });

  test('figures: inserting 2 000 rows, and a 10-row page over them', async () => {
    const p = await project();
    const started = performance.now();
    for (let batch = 0; batch < 20; batch++) {
      await read(p, async (uow) => {
        for (let i = 0; i < 100; i++) {
          const n = batch * 100 + i;
          await uow.items.insert({ id: `i${String(n).padStart(5, '0')}`, code: `C${n}`, group: `g${n % 10}`, n: (n * 7919) % 2000, name: `item ${n}` });
        }
      });
    }
    const inserted = performance.now() - started;
    const pageStarted = performance.now();
    let page;
    for (let i = 0; i < 20; i++) page = await read(p, (uow) => uow.items.query({ where: eq('group', 'g3'), orderBy: { field: 'n', direction: 'desc' }, limit: 10 }));
    const pageMs = (performance.now() - pageStarted) / 20;
    expect(page!.rows).toHaveLength(10);
    expect(page!.total).toBe(200);
    console.log(`${factory.name}: ${Math.round(2000 / (inserted / 1000))} rows/s inserting 2 000 rows (100 a unit of work); ${pageMs.toFixed(1)} ms for a 10-row page over them`);
  }, 120_000);
});

/**
 * What only the SQL store has: migrations, the check of declared indexes against the database, the use of
 * those indexes, the `as` readings against JavaScript's, and PGlite's directory. PostgreSQL cases run when
 * TEST_DATABASE_URL is set.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { eq } from '../../server/store/conditions.js';
import { MIGRATIONS } from '../../server/store/migrations/index.js';
import { table } from '../../server/store/schema.js';
import { stringLiteral } from '../../server/store/sql/compile.js';
import { pgDriver, pgliteDriver, type Session } from '../../server/store/sql/driver.js';
import { migrate } from '../../server/store/sql/migrator.js';
import { openPgliteStore, openSqlStore, SqlStore } from '../../server/store/sql/sql-store.js';
import { freshDatabase, testSchema, TEST_MIGRATIONS, type Item } from './store/factories.js';

const postgresUrl = process.env.TEST_DATABASE_URL;
const withPostgres = postgresUrl ? test : test.skip;
if (!postgresUrl) console.log('PostgreSQL cases skipped: TEST_DATABASE_URL is not set.');

/** Checks the `as` readings of one database against Date.parse and Number, in several time zones. */
async function checkReadings(sql: Session): Promise<void> {
  // A small seeded generator: the same strings every run.
  let seed = 18;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const two = (n: number) => String(next(n)).padStart(2, '0');
  const pick = <T>(values: readonly T[]) => values[next(values.length)]!;
  const times = ['2026-11-24T10:00:00.000Z', '2026-11-24', '2026-11-24T10:00:00.000+01:00', '0000-02-29', '9999-12-31T23:59:59.999Z', '2026-02-30'];
  // Wall-clock times in the hours that clocks skip or repeat in the zones below.
  times.push('2026-10-25T02:30', '2026-03-29T02:30', '2026-10-04T02:15', '2026-04-05T01:45', '2026-11-01T01:30', '2026-03-08T02:30');
  for (let i = 0; i < 600; i++) {
    let value = `${pick(['2026', '1970', '0400', String(next(10000)).padStart(4, '0')])}-${two(14)}-${two(33)}`;
    if (next(5) > 0) {
      value += `${pick(['T', 't', 'X'])}${two(26)}:${two(61)}`;
      if (next(3) > 0) value += `:${two(61)}${next(2) ? `.${String(next(100000)).slice(0, 1 + next(5))}` : ''}`;
      value += pick(['', 'Z', 'z', `+${two(25)}:${two(61)}`, `-${two(25)}${two(61)}`, '+01']);
    }
    times.push(value);
  }
  const numbers = ['12.5', '-0.5', '007', '1e3', '.5', '5.', '-', '', ' 5', '0.1', '123456789012345678901234567890.123456789', `1${'0'.repeat(299)}`];
  for (const zone of ['UTC', 'Europe/Berlin', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'America/New_York']) {
    // Date.parse in a process of that zone (a test cannot change its own process's zone).
    const script = `const times = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      console.log(JSON.stringify(times.map((t) => (/^\\d{4}-\\d{2}-\\d{2}/.test(t) && !Number.isNaN(Date.parse(t)) ? Date.parse(t) : null))));`;
    const expected = JSON.parse(execFileSync(process.execPath, ['-e', script], { input: JSON.stringify(times), env: { ...process.env, TZ: zone } }).toString()) as (number | null)[];
    const rows = await sql.query<{ ms: number | null }>('SELECT store_time_ms(to_jsonb(value), $2) AS ms FROM unnest($1::text[]) WITH ORDINALITY AS t(value, i) ORDER BY i', [times, zone]);
    expect(rows.flatMap((row, i) => (row.ms === expected[i] ? [] : [`${zone} ${times[i]}: ${row.ms} ≠ ${expected[i]}`]))).toEqual([]);
  }
  const read = await sql.query<{ value: string; n: number | null }>('SELECT value, store_number(to_jsonb(value)) AS n FROM unnest($1::text[]) AS value', [numbers]);
  expect(read.map((row) => row.n)).toEqual(numbers.map((value) => (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : null)));
}

describe('SQL store on PGlite in memory', () => {
  const statements: { sql: string; params: readonly unknown[] }[] = [];
  let store: SqlStore<typeof testSchema>;
  beforeAll(async () => {
    store = await openPgliteStore(testSchema, undefined, { migrations: TEST_MIGRATIONS, trace: (sql, params) => statements.push({ sql, params }) });
    await store.createProject('p');
  }, 120_000);
  afterAll(() => store?.close());

  test('when the migrations run again, then none runs twice', async () => {
    expect(await migrate(store.driver, TEST_MIGRATIONS)).toEqual([]);
    const ran = await store.driver.query<{ name: string }>('SELECT name FROM store_migrations ORDER BY name');
    expect(ran.map((row) => row.name)).toEqual(TEST_MIGRATIONS.map((migration) => migration.name));
  });

  test('when the schema declares an index no migration made, or drops a unique one, then the drift names it', async () => {
    expect(await store.indexDrift()).toEqual({ missing: [], unexpected: [] });
    const drifted = new SqlStore(
      { ...testSchema, items: table<Item>({ unique: ['code', 'name'], indexed: ['group', 'owner', 'flag'], sparse: ['owner'] }) },
      store.driver,
    );
    expect(await drifted.indexDrift()).toEqual({
      missing: ['items.name (unique): store_u_items_name', 'items.flag (indexed): store_i_items_flag'],
      unexpected: ['items: store_u_items_email'],
    });
    // A field made sparse is another index.
    const sparse = new SqlStore({ ...testSchema, items: table<Item>({ unique: ['code', 'email'], indexed: ['group', 'owner'], sparse: ['owner', 'group'] }) }, store.driver);
    expect((await sparse.indexDrift()).missing).toEqual(['items.group (indexed): store_s_items_group']);
  });

  test('when a store opens on a schema whose indexes no migration made, then it refuses', async () => {
    const schema = { ...testSchema, other: table<Item>({ unique: ['code'], indexed: [] }) };
    await expect(openSqlStore(schema, await pgliteDriver(), { migrations: TEST_MIGRATIONS })).rejects.toThrow(
      'Declared indexes that no migration creates: other.code (unique): store_u_other_code',
    );
  }, 60_000);

  test('when rows are looked up by declared fields, then the plan uses their indexes', async () => {
    await store.transaction('p', async (uow) => {
      for (let i = 0; i < 50; i++) await uow.items.insert({ id: `i${i}`, code: `c${i}`, group: `g${i % 5}`, owner: i % 2 ? `o${i}` : null });
    });
    const planOf = async (run: () => Promise<unknown>) => {
      statements.length = 0;
      await run();
      const { sql, params } = statements.at(-1)!;
      // With sequential scans priced out, only a matching index expression and predicate can serve the query.
      return store.driver.transaction(async (session: Session) => {
        await session.query('SET LOCAL enable_seqscan = off');
        const plan = await session.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
        return plan.map((line) => line['QUERY PLAN']).join('\n');
      });
    };
    expect(await planOf(() => store.transaction('p', (u) => u.items.getBy('code', 'c7')))).toContain('store_u_items_code');
    expect(await planOf(() => store.transaction('p', (u) => u.items.findBy('group', 'g1')))).toContain('store_i_items_group');
    expect(await planOf(() => store.transaction('p', (u) => u.items.countBy('owner', 'o3')))).toContain('store_s_items_owner');
    expect(await planOf(() => store.transaction('p', (u) => u.items.query({ where: eq('code', 'c9') })))).toContain('store_u_items_code');
    expect(await planOf(() => store.transaction('p', (u) => u.items.query({ index: { field: 'group', value: 'g2' }, limit: 3 })))).toContain('store_i_items_group');
    // A page in the order of a field declared ordered is read off its index, both ways, with no sort.
    for (const direction of ['asc', 'desc'] as const) {
      const plan = await planOf(() => store.transaction('p', (u) => u.items.query({ orderBy: { field: 'at', direction }, limit: 5 })));
      expect(plan).toContain('store_o_items_at');
      expect(plan).not.toMatch(/\bSort\b/);
    }
    // Look-ups gathered into one statement use the index too.
    expect(await planOf(() => store.transaction('p', (u) => Promise.all([u.items.findBy('group', 'g1'), u.items.findBy('group', 'g2')])))).toContain('store_i_items_group');
  });

  test('when a page is presented (look-ups and reads of one row at once), then they take one statement each kind', async () => {
    await store.transaction('p', async (uow) => {
      for (let i = 0; i < 10; i++) await uow.items.insert({ id: `page${i}`, group: `pg${i}` });
    });
    statements.length = 0;
    const found = await store.transaction('p', (uow) =>
      Promise.all(Array.from({ length: 10 }, async (_, i) => [await uow.counters.get('shared'), await uow.items.findBy('group', `pg${i}`)] as const)),
    );
    expect(found.map(([, rows]) => rows.map((row) => row.id))).toEqual(Array.from({ length: 10 }, (_, i) => [`page${i}`]));
    expect(statements.map(({ sql }) => /tbl = '(\w+)'/.exec(sql)?.[1])).toEqual(['counters', 'items']);
    // An empty first page needs no second statement to count.
    statements.length = 0;
    expect(await store.transaction('p', (uow) => uow.items.query({ index: { field: 'group', value: 'none' }, limit: 5 }))).toEqual({ rows: [], total: 0 });
    expect(statements).toHaveLength(1);
  });

  test('when a page spans a whole table, then its total is the kept count, exact through inserts, deletes, rollbacks and a dropped project', async () => {
    await store.createProject('counted');
    const total = () => store.read('counted', async (uow) => (await uow.items.query({ limit: 2 })).total);
    await store.transaction('counted', async (uow) => {
      for (let i = 0; i < 7; i++) await uow.items.insert({ id: `n${i}`, group: 'g' });
    });
    statements.length = 0;
    expect(await total()).toBe(7);
    // Read off the kept count, not by counting the table's rows.
    expect(statements).toHaveLength(1);
    expect(statements[0]!.sql).toContain('store_counts');
    expect(statements[0]!.sql).not.toContain('count(*)');
    // Within a unit of work, its own inserts and deletes count before it commits.
    await store.transaction('counted', async (uow) => {
      await uow.items.insert({ id: 'own', group: 'g' });
      expect((await uow.items.query({ limit: 1 })).total).toBe(8);
      await uow.items.delete('own');
      await uow.items.delete('nothing-here');
      expect((await uow.items.query({ limit: 1, offset: 100 })).total).toBe(7);
    });
    await store.transaction('counted', async (uow) => {
      await uow.items.delete('n0');
      await uow.items.insert({ id: 'n0', group: 'g' }).catch(() => undefined);
      await uow.items.insert({ id: 'n1', group: 'g' }).catch(() => undefined); // taken: inserts nothing
    });
    await expect(
      store.transaction('counted', async (uow) => {
        await uow.items.insert({ id: 'gone', group: 'g' });
        await uow.items.delete('n2');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await total()).toBe(7);
    // Past the last row, the count comes alone; a count without rows (limit 0) too.
    expect(await store.read('counted', (uow) => uow.items.query({ limit: 2, offset: 50 }))).toEqual({ rows: [], total: 7 });
    expect((await store.read('counted', (uow) => uow.items.query({ limit: 0 }))).total).toBe(7);
    await store.dropProject('counted');
    await store.createProject('counted');
    expect(await total()).toBe(0);
  });

  test('when the counts migration runs over rows already stored, then it counts them', async () => {
    const driver = await pgliteDriver();
    try {
      const before = MIGRATIONS.filter((migration) => migration.name < '0008');
      await migrate(driver, before);
      await driver.query(`INSERT INTO store_projects (id) VALUES ('old')`);
      await driver.query(`INSERT INTO store_rows (project_id, tbl, id, doc) SELECT 'old', 'items', 'r' || i, '{}'::jsonb FROM generate_series(1, 5) AS i`);
      const opened = await openSqlStore(testSchema, driver, { migrations: TEST_MIGRATIONS });
      expect(await opened.read('old', async (uow) => (await uow.items.query({ limit: 1 })).total)).toBe(5);
    } finally {
      await driver.close();
    }
  });

  test('when the migration that splits store_rows by table runs over rows already stored, then each table keeps its rows, their order and its indexes', async () => {
    const driver = await pgliteDriver();
    try {
      await migrate(driver, MIGRATIONS.filter((migration) => migration.name < '0012'));
      await driver.query(`INSERT INTO store_projects (id) VALUES ('old')`);
      // A table with declared indexes (customers: a unique source_id) and one without (counters), interleaved.
      for (let i = 0; i < 6; i++) {
        await driver.query(`INSERT INTO store_rows (project_id, tbl, id, doc) VALUES ('old', $1, $2, $3::jsonb)`, [i % 2 === 0 ? 'customers' : 'counters', `r${i}`, JSON.stringify({ id: `r${i}`, source_id: `s${i}` })]);
      }
      await migrate(driver, MIGRATIONS);
      const placed = await driver.query<{ partition: string; id: string }>(`SELECT tableoid::regclass::text AS partition, id FROM store_rows ORDER BY seq`);
      expect(placed).toEqual([0, 1, 2, 3, 4, 5].map((i) => ({ partition: i % 2 === 0 ? 'store_t_customers' : 'store_t_rest', id: `r${i}` })));
      // The customers' unique index now lives on their partition, and still refuses a taken source ID.
      await expect(driver.query(`INSERT INTO store_rows (project_id, tbl, id, doc) VALUES ('old', 'customers', 'again', '{"source_id": "s0"}')`)).rejects.toThrow(/store_u_customers_source_id/);
      // New rows are numbered after the old ones.
      await driver.query(`INSERT INTO store_rows (project_id, tbl, id, doc) VALUES ('old', 'counters', 'new', '{}')`);
      expect((await driver.query<{ id: string }>(`SELECT id FROM store_rows ORDER BY seq DESC LIMIT 1`))[0]!.id).toBe('new');
      const { SCHEMA } = await import('../../server/domain/schema.js');
      const { indexDrift } = await import('../../server/store/sql/indexes.js');
      expect(await indexDrift(driver, SCHEMA)).toEqual({ missing: [], unexpected: [] });
    } finally {
      await driver.close();
    }
  });

  test('as readings agree with Date.parse and Number, in several time zones', () => checkReadings(store.driver), 60_000);
});

test('when several in-memory PGlite stores are opened, then each starts empty and keeps its own data, whatever the others wrote', async () => {
  const stores = [];
  for (const name of ['one', 'two', 'three']) {
    const store = await openPgliteStore(testSchema, undefined, { migrations: TEST_MIGRATIONS });
    stores.push(store);
    // Each new store starts from the blank cluster, not from one the stores before it wrote to.
    expect(await store.projectIds()).toEqual([]);
    await store.createProject(name);
    await store.transaction(name, (uow) => uow.items.insert({ id: name, code: name.toUpperCase(), meta: { n: 1 } }));
  }
  try {
    for (const [index, store] of stores.entries()) {
      const name = ['one', 'two', 'three'][index]!;
      expect(await store.projectIds()).toEqual([name]);
      expect(await store.transaction(name, (uow) => uow.items.get(name))).toMatchObject({ id: name });
    }
  } finally {
    for (const store of stores) await store.close();
  }
});

test('when a PGlite store in a directory is closed and opened again, then its data is there', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'store-pglite-'));
  try {
    const first = await openPgliteStore(testSchema, dir, { migrations: TEST_MIGRATIONS });
    await first.createProject('kept');
    await first.transaction('kept', (uow) => uow.items.insert({ id: 'a', code: 'A', meta: { n: 1 } }));
    await first.close();
    const second = await openPgliteStore(testSchema, dir, { migrations: TEST_MIGRATIONS });
    try {
      expect(await second.projectIds()).toEqual(['kept']);
      expect(await second.transaction('kept', (uow) => uow.items.getBy('code', 'A'))).toEqual({ id: 'a', code: 'A', meta: { n: 1 } });
      expect(await migrate(second.driver, TEST_MIGRATIONS)).toEqual([]);
    } finally {
      await second.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);

withPostgres('when two servers migrate one empty PostgreSQL database at once, then the migrations run once', async () => {
  const database = await freshDatabase(postgresUrl!);
  const drivers = [pgDriver(database.url), pgDriver(database.url)];
  try {
    const ran = await Promise.all(drivers.map((driver) => migrate(driver, MIGRATIONS)));
    expect(ran.map((names) => names.length).sort()).toEqual([0, MIGRATIONS.length]);
    const rows = await drivers[0]!.query<{ name: string }>('SELECT name FROM store_migrations ORDER BY name');
    expect(rows.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
  } finally {
    await Promise.all(drivers.map((driver) => driver.close()));
    await database.drop();
  }
}, 60_000);

withPostgres('as readings on PostgreSQL agree with Date.parse and Number, in several time zones', async () => {
  const database = await freshDatabase(postgresUrl!);
  const driver = pgDriver(database.url);
  try {
    await migrate(driver, MIGRATIONS);
    await checkReadings(driver);
  } finally {
    await driver.close();
    await database.drop();
  }
}, 60_000);

withPostgres('when a unit of work reads by index again and again, then PostgreSQL runs the statement prepared, on a generic plan that uses the index', async () => {
  const database = await freshDatabase(postgresUrl!);
  // One connection, so every statement below meets the same connection's prepared statements.
  const driver = pgDriver(database.url, { max: 1 });
  const store = await openSqlStore(testSchema, driver, { migrations: TEST_MIGRATIONS });
  try {
    await store.createProject('p');
    await store.transaction('p', async (uow) => {
      for (let i = 0; i < 20; i++) await uow.items.insert({ id: `i${i}`, group: `g${i % 4}` });
    });
    for (let i = 0; i < 8; i++) expect((await store.read('p', (uow) => uow.items.findBy('group', `g${i % 4}`))).map((row) => row.id)).toHaveLength(5);
    const prepared = await driver.query<{ name: string; statement: string; generic_plans: string }>(
      "SELECT name, statement, generic_plans FROM pg_prepared_statements WHERE statement LIKE '%store_rows%' AND statement LIKE '%''group''%'",
    );
    expect(prepared).toHaveLength(1);
    // Past PostgreSQL's five custom plans, the statement is no longer planned for each run.
    expect(Number(prepared[0]!.generic_plans)).toBeGreaterThan(0);
    // The generic plan (parameters unknown) still reads the field's partial index: the table and field are literals.
    await driver.query('SET plan_cache_mode = force_generic_plan');
    const plan = await driver.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${prepared[0]!.name}('p', '"g1"')`);
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('store_i_items_group');
  } finally {
    await store.close();
    await database.drop();
  }
}, 60_000);

withPostgres('when a snapshot read ends, then its COMMIT goes with the next BEGIN on its connection, and an idle server holds no snapshot open', async () => {
  const database = await freshDatabase(postgresUrl!);
  // A read lingers longer here than the server's 20 ms, so that the check below never races it.
  const driver = pgDriver(database.url, { max: 2 }, { lingerMs: 400 });
  const store = await openSqlStore(testSchema, driver, { migrations: TEST_MIGRATIONS });
  const watcher = pgDriver(postgresUrl!, { max: 1 });
  const open = async () =>
    (
      await watcher.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state LIKE 'idle in transaction%'", [
        new URL(database.url).pathname.slice(1),
      ])
    )[0]!.n;
  try {
    await store.createProject('p');
    await store.transaction('p', (uow) => uow.items.insert({ id: 'a', group: 'g' }));
    expect(await open()).toBe(0);
    // Reads one after another take the connection the last one left, its COMMIT still to send: one stays open.
    for (let i = 0; i < 5; i++) expect(await store.read('p', (uow) => uow.items.get('a'))).toEqual({ id: 'a', group: 'g' });
    expect(await open()).toBe(1);
    // A write on that connection begins after the read's COMMIT, and a read after it sees it.
    await store.transaction('p', (uow) => uow.items.insert({ id: 'b', group: 'g' }));
    expect((await store.read('p', (uow) => uow.items.findBy('group', 'g'))).map((row) => row.id).sort()).toEqual(['a', 'b']);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await open()).toBe(0);
  } finally {
    await store.close();
    await watcher.close();
    await database.drop();
  }
}, 60_000);

test('string literals are spelled as pg spells them, and PostgreSQL reads back the string', async () => {
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const pieces = ["'", '\\', '"', 'a', 'é', '😀', ' ', '\n', "''", '\\\\', 'E', '$$'];
  const texts = ['', "'", '\\', JSON.stringify({ name: "O'Brien \\ \"q\" \n" })];
  for (let i = 0; i < 300; i++) texts.push(Array.from({ length: next(12) }, () => pieces[next(pieces.length)]).join(''));
  expect(texts.map(stringLiteral)).toEqual(texts.map((text) => pg.escapeLiteral(text)));
  const driver = await pgliteDriver();
  try {
    const rows = await driver.query<{ text: string }>(texts.map((text, i) => `SELECT ${i} AS i, ${stringLiteral(text)} AS text`).join(' UNION ALL ') + ' ORDER BY i');
    expect(rows.map((row) => row.text)).toEqual(texts);
  } finally {
    await driver.close();
  }
}, 60_000);

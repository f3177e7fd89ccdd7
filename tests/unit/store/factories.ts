/**
 * The stores the behaviour suite runs against, over a small schema of its own. Every factory opens a store
 * on empty data; `second` opens another store on the same data (another server process sharing the
 * database), or says why there cannot be one.
 */
import { freshDatabase } from '../../support/databases.js';

export { freshDatabase };
import { MIGRATIONS, type Migration } from '../../../server/store/migrations/index.js';
import { table } from '../../../server/store/schema.js';
import { createIndexes } from '../../../server/store/sql/indexes.js';
import { openPgliteStore, openPostgresStore, type SqlStoreOptions } from '../../../server/store/sql/sql-store.js';
import { MemoryStore } from '../../../server/store/memory.js';
import type { Store } from '../../../server/store/store.js';

export interface Item {
  id: string;
  code?: string | number | null;
  email?: string | null;
  group?: string | null;
  owner?: string | null;
  name?: string | null;
  n?: number | string | null;
  flag?: boolean | null;
  num?: unknown;
  at?: unknown;
  tags?: unknown;
  meta?: unknown;
  leased_by?: string | null;
  lease_until?: number | null;
}

export interface Counter {
  id: string;
  value: number;
}

const ITEM_INDEXES = { unique: ['code', 'email'], indexed: ['group', 'owner'], sparse: ['owner'], ordered: ['at'] } as const;

/** A row of a kept table (TableDeclaration.kept): a project's configuration. */
export interface Setting {
  id: string;
  key: string;
  scope?: string | null;
  value?: unknown;
}

const SETTING_INDEXES = { unique: ['key'], indexed: ['scope'] } as const;

/** A row of a table whose IDs are made fresh (TableDeclaration.freshIds): a log. */
export interface Entry {
  id: string;
  about?: string | null;
}

const ENTRY_INDEXES = { unique: [], indexed: ['about'] } as const;

export const testSchema = {
  items: table<Item>({ ...ITEM_INDEXES, kinds: { n: 'number', flag: 'boolean' } }),
  counters: table<Counter>({ unique: [], indexed: [] }),
  settings: table<Setting>({ ...SETTING_INDEXES, kept: true }),
  entries: table<Entry>({ ...ENTRY_INDEXES, freshIds: true }),
};
export type TestSchema = typeof testSchema;
export type TestStore = Store<TestSchema>;

/** The test schema's indexes, as the domain's come: a migration of their own after the store's. */
export const TEST_MIGRATIONS: readonly Migration[] = [...MIGRATIONS, { name: '9000-test-items', up: (sql) => createIndexes(sql, { items: ITEM_INDEXES, settings: SETTING_INDEXES, entries: ENTRY_INDEXES }) }];

export interface StoreFactory {
  readonly name: string;
  open(options?: SqlStoreOptions): Promise<TestStore>;
  /** Another store on the first one's data, or the reason there is none. */
  readonly second: ((options?: SqlStoreOptions) => Promise<TestStore>) | string;
  /** Whether units of work on two projects can run at once, or the reason they cannot. */
  readonly concurrentProjects: true | string;
  /** Whether a read runs while a unit of work holds its project, or the reason it waits. */
  readonly readsBesideWriters: true | string;
  /** Releases what `open` made beyond the store (a database). */
  cleanUp(): Promise<void>;
}

export function pgliteFactory(): StoreFactory {
  return {
    name: 'PGlite in memory',
    open: (options) => openPgliteStore(testSchema, undefined, { migrations: TEST_MIGRATIONS, ...options }),
    second: 'PGlite is one process\u2019s in-memory database: no second instance can share it',
    concurrentProjects: 'PGlite has one connection, so its units of work run one at a time whatever their project',
    readsBesideWriters: 'PGlite has one connection, so a read waits for the transaction before it',
    cleanUp: async () => {},
  };
}

export function postgresFactory(serverUrl: string): StoreFactory {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  return {
    name: 'PostgreSQL',
    async open(options) {
      database ??= await freshDatabase(serverUrl);
      return openPostgresStore(testSchema, database.url, { migrations: TEST_MIGRATIONS, ...options });
    },
    second: (options) => openPostgresStore(testSchema, database!.url, { migrations: TEST_MIGRATIONS, ...options }),
    concurrentProjects: true,
    readsBesideWriters: true,
    cleanUp: async () => database?.drop(),
  };
}

/** Every store the suite can run here; says which it cannot run and why. */
export function storeFactories(): StoreFactory[] {
  const factories = [pgliteFactory()];
  factories.push({
    name: 'memory',
    open: async () => new MemoryStore(testSchema),
    second: 'the memory store lives in one process: no second instance can share it',
    concurrentProjects: true,
    readsBesideWriters: 'a writer\'s changes are in the memory store\'s tables as it makes them, so a read waits for it',
    cleanUp: async () => {},
  });
  const url = process.env.TEST_DATABASE_URL;
  if (url) factories.push(postgresFactory(url));
  else console.log('PostgreSQL store cases skipped: TEST_DATABASE_URL is not set (make test starts a throwaway cluster and sets it).');
  return factories;
}

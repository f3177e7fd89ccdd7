/**
 * The store the server runs on, as the configuration says (server/config.ts `StorageConfig`): the memory
 * store by default, PostgreSQL with `DATABASE_URL`, an embedded PGlite directory with `DATA_DIR`. The SQL
 * store is loaded only when chosen, so a server on the memory store never loads a database driver. A PGlite
 * directory is one process's at a time (data-dir-lock.ts).
 */
import type { StorageConfig } from './config.js';
import { SCHEMA, type DomainSchema } from './domain/schema.js';
import { MemoryStore } from './store/memory.js';
import type { Store } from './store/store.js';
import { lockDataDir } from './store/sql/data-dir-lock.js';

export async function openStore(storage: StorageConfig): Promise<Store<DomainSchema>> {
  if (storage.kind === 'memory') return new MemoryStore(SCHEMA, { freezeRows: storage.freezeRows });
  const sql = await import('./store/sql/sql-store.js');
  if (storage.kind === 'postgres') return sql.openPostgresStore(SCHEMA, storage.url, { pool: { max: storage.poolSize } });
  // One process per directory (data-dir-lock.ts): taken before the database opens, given back when it closes.
  const release = lockDataDir(storage.dataDir);
  try {
    const store = await sql.openPgliteStore(SCHEMA, storage.dataDir);
    const close = store.close.bind(store);
    store.close = async () => {
      try {
        await close();
      } finally {
        release();
      }
    };
    return store;
  } catch (error) {
    release();
    throw error;
  }
}

/** Where the data lives, for the start banner (a database URL's password is not shown). */
export function describeStorage(storage: StorageConfig): string {
  if (storage.kind === 'memory') return 'in memory (lost when the server stops; set DATABASE_URL or DATA_DIR to keep it)';
  if (storage.kind === 'pglite') return `in the embedded PGlite directory ${storage.dataDir}`;
  const url = new URL(storage.url);
  if (url.password) url.password = '***';
  return `in PostgreSQL at ${url.toString()}`;
}

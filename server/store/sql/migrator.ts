/**
 * Runs the SQL store's migrations with umzug, recording each in the database's own `store_migrations` table,
 * all in one transaction under an advisory lock: servers starting at once against one empty database
 * migrate once (the others wait, then find nothing left to run), and a migration that fails leaves no half
 * of itself behind, since PostgreSQL's DDL is transactional.
 */
import { Umzug, type UmzugStorage } from 'umzug';
import type { Migration } from '../migrations/index.js';
import type { Driver, Session } from './driver.js';

/** The advisory lock of migrating (two-key form, so it never meets a project's one-key lock). */
const MIGRATING = [0x73746f72, 0x6d696772] as const; // 'stor', 'migr'

/** Runs the migrations not yet run on the database; returns their names. */
export async function migrate(driver: Driver, migrations: readonly Migration[]): Promise<string[]> {
  return driver.transaction(async (sql) => {
    // Before the storage table exists, so that two servers do not both create it.
    await sql.query('SELECT pg_advisory_xact_lock($1, $2)', [...MIGRATING]);
    await sql.query('CREATE TABLE IF NOT EXISTS store_migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())');
    const storage: UmzugStorage<Session> = {
      async executed() {
        return (await sql.query<{ name: string }>('SELECT name FROM store_migrations ORDER BY name')).map((row) => row.name);
      },
      async logMigration({ name }) {
        await sql.query('INSERT INTO store_migrations (name) VALUES ($1)', [name]);
      },
      async unlogMigration({ name }) {
        await sql.query('DELETE FROM store_migrations WHERE name = $1', [name]);
      },
    };
    const umzug = new Umzug<Session>({
      migrations: migrations.map((migration) => ({ name: migration.name, up: ({ context }) => migration.up(context) })),
      context: sql,
      storage,
      logger: undefined,
    });
    return (await umzug.up()).map((migration) => migration.name);
  });
}

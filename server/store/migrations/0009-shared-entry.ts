/**
 * The start of an append (Store.append): store_enter with the project's lock taken shared, so appends on one
 * project run beside each other, across every server process, and never beside a unit of work that holds the
 * lock alone (store_enter), which waits for them and which they wait for. PL/pgSQL for the reason store_enter
 * is: the existence check takes its snapshot after the lock is had.
 *
 * A fixed file: once released it never changes.
 */
import type { Migration } from './migration.js';

export const sharedEntry: Migration = {
  name: '0009-shared-entry',
  up: (sql) =>
    sql.exec(`
      CREATE FUNCTION store_enter_shared(project text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(hashtextextended(project, 0));
        RETURN EXISTS (SELECT 1 FROM store_projects WHERE id = project);
      END $$;
    `),
};

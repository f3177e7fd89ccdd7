/**
 * A version of each project's kept tables (TableDeclaration.kept: its configuration, such as its webhooks and
 * segments), which every unit of work that writes one of them moves on, in its own transaction. Each server
 * process keeps a copy of those tables as of a version (sql-store.ts `KeptCopies`), and every unit of work
 * learns the version with its entry into the project, in the round trip it already makes: a copy of the same
 * version is the same data, so reading a kept table then costs no statement.
 *
 * The version is said together with the project's `seq`, which a project made again under the same ID does
 * not share, so a copy of a dropped project is never taken for its successor's.
 *
 * `store_enter_kept` is store_enter (or store_enter_shared) answering with that pair instead of whether the
 * project exists (null when it does not); PL/pgSQL for the reason store_enter is: the look-up takes its
 * snapshot after the lock is had, so no writer of the project commits between the version and what is read.
 *
 * A fixed file: once released it never changes.
 */
import type { Migration } from './migration.js';

export const keptVersion: Migration = {
  name: '0010-kept-version',
  up: (sql) =>
    sql.exec(`
      ALTER TABLE store_projects ADD COLUMN kept_version bigint NOT NULL DEFAULT 0;

      CREATE FUNCTION store_enter_kept(project text, shared boolean) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        IF shared THEN
          PERFORM pg_advisory_xact_lock_shared(hashtextextended(project, 0));
        ELSE
          PERFORM pg_advisory_xact_lock(hashtextextended(project, 0));
        END IF;
        RETURN (SELECT seq || ':' || kept_version FROM store_projects WHERE id = project);
      END $$;
    `),
};

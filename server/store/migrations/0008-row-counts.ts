/**
 * How many rows each project's table holds, kept as rows change: a page's `total` over a whole table
 * (`GET /v1/vouchers?limit=10`) was a count of every one of the project's rows of that table with each page,
 * which on 20 000 vouchers was most of the database's time for the request (`make bench`).
 *
 * Statement triggers with transition tables keep the counts: one upsert per statement that inserts or deletes,
 * whatever the number of rows (a batch of generated vouchers, a dropped project). Each connection adds to a
 * shard of its own (its backend's process ID modulo 16), so units of work running at once on one project's
 * table never wait for each other's count row; a count is the sum of at most 16 rows. The counts are rows of
 * the same transactions as the rows they count, so a snapshot's count is that snapshot's: exact, never an
 * estimate. Updates never move a row between projects or tables, so they change no count.
 *
 * A fixed file: once released it never changes.
 */
import type { Migration } from './migration.js';

export const rowCounts: Migration = {
  name: '0008-row-counts',
  up: (sql) =>
    sql.exec(`
      CREATE TABLE store_counts (
        project_id text COLLATE "C" NOT NULL,
        tbl text COLLATE "C" NOT NULL,
        shard int NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (project_id, tbl, shard)
      );

      INSERT INTO store_counts (project_id, tbl, shard, n)
        SELECT project_id, tbl, 0, count(*) FROM store_rows GROUP BY project_id, tbl;

      CREATE FUNCTION store_count_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO store_counts AS c (project_id, tbl, shard, n)
          SELECT project_id, tbl, pg_backend_pid() % 16, count(*) FROM added GROUP BY project_id, tbl
          ON CONFLICT (project_id, tbl, shard) DO UPDATE SET n = c.n + excluded.n;
        RETURN NULL;
      END $$;

      CREATE FUNCTION store_count_removed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO store_counts AS c (project_id, tbl, shard, n)
          SELECT project_id, tbl, pg_backend_pid() % 16, -count(*) FROM removed GROUP BY project_id, tbl
          ON CONFLICT (project_id, tbl, shard) DO UPDATE SET n = c.n + excluded.n;
        RETURN NULL;
      END $$;

      CREATE TRIGGER store_rows_added AFTER INSERT ON store_rows
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION store_count_added();
      CREATE TRIGGER store_rows_removed AFTER DELETE ON store_rows
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION store_count_removed();
    `),
};

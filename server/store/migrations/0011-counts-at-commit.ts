/**
 * Row counts (0008-row-counts.ts) kept by the store at commit instead of by triggers. Under the triggers, each
 * insert added to its connection's shard row (`pg_backend_pid() % 16`) at once and held that row locked until
 * its transaction ended: two connections on one shard waited for each other's whole unit of work, and with a
 * pool of ten, most customer creations waited so (`make bench`: half the inserts sampled were waiting on a
 * transaction). Now a unit of work sums what it inserted and deleted per table and adds it in the round trip
 * of its COMMIT (sql-store.ts), through `store_count_add`, which takes any shard row of the table no other
 * transaction holds (SKIP LOCKED) and makes a new shard only when every one is held: no transaction ever waits
 * for another's count, and a table has at most as many shards as units of work once committed on it at once.
 *
 * The counts stay rows of the transactions that change the rows they count, so a snapshot's count is still
 * that snapshot's. The store is then the only writer of store_rows that counts, as it is the only writer.
 *
 * A fixed file: once released it never changes.
 */
import type { Migration } from './migration.js';

export const countsAtCommit: Migration = {
  name: '0011-counts-at-commit',
  up: (sql) =>
    sql.exec(`
      DROP TRIGGER store_rows_added ON store_rows;
      DROP TRIGGER store_rows_removed ON store_rows;
      DROP FUNCTION store_count_added();
      DROP FUNCTION store_count_removed();

      -- A new shard is numbered after the connection's process (unique among live connections), moved on by
      -- the largest process ID there can be while that number is taken: a shard row nobody holds was looked for
      -- first, so such a number is one another transaction holds or has just made.
      CREATE FUNCTION store_count_add(project text, tables text[], deltas bigint[]) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        i int;
        tries int;
        held int;
      BEGIN
        FOR i IN 1 .. coalesce(array_length(tables, 1), 0) LOOP
          CONTINUE WHEN deltas[i] = 0;
          tries := 0;
          LOOP
            SELECT shard INTO held FROM store_counts WHERE project_id = project AND tbl = tables[i] LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
              UPDATE store_counts SET n = n + deltas[i] WHERE project_id = project AND tbl = tables[i] AND shard = held;
              EXIT;
            END IF;
            INSERT INTO store_counts (project_id, tbl, shard, n) VALUES (project, tables[i], pg_backend_pid() + tries * 4194304, deltas[i])
              ON CONFLICT DO NOTHING;
            EXIT WHEN FOUND;
            tries := tries + 1;
            IF tries > 500 THEN RAISE EXCEPTION 'store_count_add: no shard free for %.%', project, tables[i]; END IF;
          END LOOP;
        END LOOP;
      END $$;
    `),
};

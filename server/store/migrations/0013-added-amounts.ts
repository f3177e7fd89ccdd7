/**
 * Amounts added to a row's numbers in the database (Table.add, amounts.ts): `store_added` is a document with
 * the amounts added, with the meaning amounts.ts gives them, and `store_add` adds them to a stored row, or
 * inserts the row given with them added (counting it, as the store counts its inserts) when there is none.
 * The SQL store sends `store_add` with a unit of work's COMMIT, so the row's lock is held only that long, and
 * units of work adding to one row (a campaign's counters of the hour) wait for each other only that long.
 *
 * A fixed file: once released it never changes.
 */
import type { Migration } from './migration.js';

export const addedAmounts: Migration = {
  name: '0013-added-amounts',
  up: (sql) =>
    sql.exec(`
      -- Each key of amounts is a path of keys joined by dots; a key along it that holds no object gets a new
      -- one, and a value that is missing or not a number counts as 0.
      CREATE FUNCTION store_added(doc jsonb, amounts jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
      DECLARE
        entry record;
        keys text[];
        i int;
        current jsonb;
      BEGIN
        FOR entry IN SELECT key, value FROM jsonb_each(amounts) LOOP
          keys := string_to_array(entry.key, '.');
          FOR i IN 1 .. array_length(keys, 1) - 1 LOOP
            IF jsonb_typeof(doc #> keys[1:i]) IS DISTINCT FROM 'object' THEN
              doc := jsonb_set(doc, keys[1:i], '{}'::jsonb, true);
            END IF;
          END LOOP;
          current := doc #> keys;
          doc := jsonb_set(doc, keys, to_jsonb(CASE WHEN jsonb_typeof(current) = 'number' THEN current::numeric ELSE 0 END + entry.value::numeric), true);
        END LOOP;
        RETURN doc;
      END $$;

      CREATE FUNCTION store_add(project text, tab text, row_id text, base jsonb, amounts jsonb) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        LOOP
          UPDATE store_rows SET doc = store_added(doc, amounts) WHERE project_id = project AND tbl = tab AND id = row_id;
          EXIT WHEN FOUND;
          INSERT INTO store_rows (project_id, tbl, id, doc) VALUES (project, tab, row_id, store_added(base, amounts)) ON CONFLICT DO NOTHING;
          IF FOUND THEN
            PERFORM store_count_add(project, ARRAY[tab], ARRAY[1::bigint]);
            EXIT;
          END IF;
          -- Another unit of work inserted the row meanwhile: add to it.
        END LOOP;
      END $$;
    `),
};

/**
 * `store_rows` split by table: one LIST partition per table that declares indexes, each holding only that
 * table's rows and indexes, and a default partition for the tables without any (migrations/0012-tables-apart.ts).
 *
 * Why: every row written to one table of 62 partial indexes had PostgreSQL open, lock and test all 62 of them.
 * A customer's insert (with the project's entry, in pgbench, 10 clients on this 2-core machine) ran at 5 773
 * transactions a second on the one table and at 9 739 with only the customer table's indexes. A statement that
 * names its table (the store's do, as a literal) now meets one partition and its few indexes, when planned
 * and when run.
 *
 * Index migrations made later create each index on its table's partition, which they make first when the
 * table has none, moving its rows out of the default partition.
 */
import pg from 'pg';
import type { Session } from './driver.js';
import { fittedName } from './identifiers.js';

/** The partition of a table's rows. Never change this: migrations made partitions under these names. */
export function partitionName(table: string): string {
  return fittedName(`store_t_${table}`);
}

/** The partition of tables that declare no index. */
export const DEFAULT_PARTITION = 'store_t_rest';

/** Whether store_rows is split by table yet (it is from migration 0012 on). */
export async function isPartitioned(sql: Session): Promise<boolean> {
  const [row] = await sql.query<{ kind: string }>("SELECT relkind::text AS kind FROM pg_class WHERE oid = 'store_rows'::regclass");
  return row?.kind === 'p';
}

/** The table's partition, made if there is none (its rows moved out of the default partition into it). */
export async function ensurePartition(sql: Session, table: string): Promise<string> {
  const name = partitionName(table);
  if ((await sql.query('SELECT 1 FROM pg_class WHERE relname = $1::text', [name])).length > 0) return name;
  const partition = pg.escapeIdentifier(name);
  const value = pg.escapeLiteral(table);
  const moving = pg.escapeIdentifier(`${name}_moving`);
  const rest = pg.escapeIdentifier(DEFAULT_PARTITION);
  await sql.exec(`
    CREATE TEMP TABLE ${moving} ON COMMIT DROP AS SELECT project_id, tbl, id, seq, doc FROM ${rest} WHERE tbl = ${value};
    DELETE FROM ${rest} WHERE tbl = ${value};
    CREATE TABLE ${partition} PARTITION OF store_rows FOR VALUES IN (${value});
    INSERT INTO store_rows (project_id, tbl, id, seq, doc) SELECT project_id, tbl, id, seq, doc FROM ${moving};
  `);
  return name;
}

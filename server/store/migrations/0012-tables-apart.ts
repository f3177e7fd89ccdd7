/**
 * store_rows split by table (sql/partitions.ts): a LIST partition per table that has declared indexes, holding
 * that table's rows and its indexes (the same names and definitions as before), and a default partition for
 * the rest. Before, every insert and update opened and tested all of the one table's partial indexes, and
 * every statement planned against them (see partitions.ts for the figures).
 *
 * The rows are copied with their `seq` (insertion order is kept), which a sequence of the store's own now
 * numbers: PostgreSQL 15 has no identity columns on a partitioned table. The copy rewrites the table once.
 *
 * A fixed file: once released it never changes.
 */
import pg from 'pg';
import { DEFAULT_PARTITION, partitionName } from '../sql/partitions.js';
import type { Migration } from './migration.js';

export const tablesApart: Migration = {
  name: '0012-tables-apart',
  async up(sql) {
    const ident = pg.escapeIdentifier;
    // The declared indexes as they stand, each partial on its table, read before the table is renamed.
    const indexes = await sql.query<{ name: string; definition: string; tbl: string | null }>(
      `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition,
              replace(substring(pg_get_expr(i.indpred, i.indrelid) FROM $$tbl = '((?:[^']|'')*)'$$), '''''', '''') AS tbl
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = 'store_rows'::regclass AND i.indpred IS NOT NULL
        ORDER BY c.relname`,
    );
    const onTable = indexes.filter((index): index is typeof index & { tbl: string } => index.tbl !== null);
    const tables = [...new Set(onTable.map((index) => index.tbl))].sort();
    await sql.exec(`
      ALTER TABLE store_rows RENAME TO store_rows_flat;
      ALTER INDEX store_rows_pkey RENAME TO store_rows_flat_pkey;
      ALTER INDEX store_rows_inserted RENAME TO store_rows_flat_inserted;
      ${indexes.map((index) => `DROP INDEX ${ident(index.name)};`).join('\n')}
      CREATE SEQUENCE store_rows_seq;
      SELECT setval('store_rows_seq', coalesce((SELECT max(seq) FROM store_rows_flat), 0) + 1, false);
      CREATE TABLE store_rows (
        project_id text COLLATE "C" NOT NULL,
        tbl text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        seq bigint NOT NULL DEFAULT nextval('store_rows_seq'),
        doc jsonb NOT NULL,
        PRIMARY KEY (project_id, tbl, id)
      ) PARTITION BY LIST (tbl);
      ALTER SEQUENCE store_rows_seq OWNED BY store_rows.seq;
      CREATE INDEX store_rows_inserted ON store_rows (project_id, tbl, seq);
      CREATE TABLE ${ident(DEFAULT_PARTITION)} PARTITION OF store_rows DEFAULT;
      ${tables.map((table) => `CREATE TABLE ${ident(partitionName(table))} PARTITION OF store_rows FOR VALUES IN (${pg.escapeLiteral(table)});`).join('\n')}
      INSERT INTO store_rows (project_id, tbl, id, seq, doc) SELECT project_id, tbl, id, seq, doc FROM store_rows_flat;
      DROP TABLE store_rows_flat;
    `);
    // Each index again, on its table's partition (after the copy: built once rather than row by row).
    for (const index of onTable) {
      const definition = index.definition.replace(/ ON (?:\S+\.)?store_rows USING /, ` ON ${ident(partitionName(index.tbl))} USING `);
      if (definition === index.definition) throw new Error(`0012-tables-apart: cannot read the definition of ${index.name}: ${index.definition}`);
      await sql.query(definition);
    }
  },
};

/**
 * The real indexes behind a schema's declarations. Every declared unique field is a unique index and every
 * indexed field an index, each partial on its table (`WHERE tbl = '…'`; on the table's own partition once
 * store_rows is split by table, sql/partitions.ts) and led by the project, over the
 * field's JSON value with JSON null read as SQL null (`nullif(doc -> 'f', 'null')`): so null and missing
 * values are exempt from uniqueness as in the memory store, a sparse index leaves them out, and queries that
 * read the field the same way (sql/compile.ts `fieldValue`) are served by it. An indexed field's index ends
 * with `seq`, so findBy reads its rows in insertion order without sorting.
 *
 * Migrations create them (a migration is a fixed file, so a new declaration needs a new migration), and
 * `indexDrift` tells a declaration that no migration made, which the store refuses to open with.
 */
import pg from 'pg';
import { jsonAt, textOrder } from './compile.js';
import type { Session } from './driver.js';
import { fittedName } from './identifiers.js';
import { ensurePartition, isPartitioned } from './partitions.js';

/** What an index migration is told of a table: a frozen copy of its declaration's index fields. */
export interface IndexDeclaration {
  readonly unique?: readonly string[];
  readonly indexed?: readonly string[];
  readonly sparse?: readonly string[];
  /**
   * Fields pages are ordered by (`ordered` in the schema): each read as text (its kind, if declared, must be
   * text) gets an index in the order a query sorts by (sql/compile.ts `sortKey`), so a page is read off the
   * index instead of sorting the whole table.
   */
  readonly ordered?: readonly string[];
  readonly kinds?: Readonly<Partial<Record<string, string>>>;
}

export interface IndexSpec {
  readonly name: string;
  readonly table: string;
  readonly field: string;
  readonly unique: boolean;
  readonly ddl: string;
}

/**
 * The index's name says what it indexes and how (u: unique, i: indexed, s: sparse), so a changed declaration
 * is a missing index. Never change this: released migrations made their indexes under these names.
 */
function indexName(kind: 'u' | 'i' | 's' | 'o', table: string, field: string): string {
  return fittedName(`store_${kind}_${table}_${field}`);
}

/** The indexes a set of declarations calls for. */
export function indexSpecs(declarations: { readonly [table: string]: IndexDeclaration }): IndexSpec[] {
  const { escapeIdentifier: ident, escapeLiteral: literal } = pg;
  const specs: IndexSpec[] = [];
  for (const [table, declaration] of Object.entries(declarations)) {
    const sparse = new Set(declaration.sparse ?? []);
    for (const field of declaration.unique ?? []) {
      const name = indexName('u', table, field);
      const value = jsonAt([literal(field)]);
      const ddl = `CREATE UNIQUE INDEX ${ident(name)} ON store_rows (project_id, (${value})) WHERE tbl = ${literal(table)}`;
      specs.push({ name, table, field, unique: true, ddl });
    }
    for (const field of declaration.indexed ?? []) {
      const name = indexName(sparse.has(field) ? 's' : 'i', table, field);
      const value = jsonAt([literal(field)]);
      const where = `tbl = ${literal(table)}${sparse.has(field) ? ` AND ${value} IS NOT NULL` : ''}`;
      const ddl = `CREATE INDEX ${ident(name)} ON store_rows (project_id, (${value}), seq) WHERE ${where}`;
      specs.push({ name, table, field, unique: false, ddl });
    }
    for (const field of declaration.ordered ?? []) {
      if ((declaration.kinds?.[field] ?? 'text') !== 'text') continue;
      const name = indexName('o', table, field);
      // Ascending with nulls first, then seq: a query's ascending order; its descending order (nulls last,
      // seq descending) is this index read backwards.
      const ddl = `CREATE INDEX ${ident(name)} ON store_rows (project_id, (${textOrder(literal(field))}) NULLS FIRST, seq) WHERE tbl = ${literal(table)}`;
      specs.push({ name, table, field, unique: false, ddl });
    }
  }
  return specs;
}

/**
 * Creates the indexes of a set of declarations: what an index migration does. Once store_rows is split by table
 * (sql/partitions.ts), each index is made on its table's partition, under the same name and definition.
 */
export async function createIndexes(sql: Session, declarations: { readonly [table: string]: IndexDeclaration }): Promise<void> {
  const split = await isPartitioned(sql);
  for (const spec of indexSpecs(declarations)) {
    if (!split) {
      await sql.query(spec.ddl);
      continue;
    }
    const partition = await ensurePartition(sql, spec.table);
    await sql.query(spec.ddl.replace(' ON store_rows (', ` ON ${pg.escapeIdentifier(partition)} (`));
  }
}

export interface IndexDrift {
  /** Declared, but no such index in the database: a declaration without a migration. */
  readonly missing: readonly string[];
  /**
   * Unique indexes in the database on a declared table that no declaration asks for: the database would
   * refuse rows the schema allows.
   */
  readonly unexpected: readonly string[];
}

/** Compares a schema's declarations with the indexes the database has. */
export async function indexDrift(sql: Session, declarations: { readonly [table: string]: IndexDeclaration }): Promise<IndexDrift> {
  const present = await sql.query<{ name: string; unique: boolean; tbl: string | null }>(
    `SELECT c.relname AS name, i.indisunique AS unique,
            substring(pg_get_expr(i.indpred, i.indrelid) FROM $$tbl = '((?:[^']|'')*)'$$) AS tbl
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = 'store_rows'::regclass
         OR i.indrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'store_rows'::regclass)`,
  );
  const byName = new Map(present.map((index) => [index.name, index]));
  const specs = indexSpecs(declarations);
  const describe = (spec: IndexSpec) => `${spec.table}.${spec.field} (${spec.unique ? 'unique' : spec.name.startsWith('store_o_') ? 'ordered' : 'indexed'}): ${spec.name}`;
  const missing = specs.filter((spec) => byName.get(spec.name)?.unique !== spec.unique).map(describe);
  const expected = new Set(specs.map((spec) => spec.name));
  const unexpected = present
    .filter((index) => index.unique && index.tbl !== null && Object.hasOwn(declarations, index.tbl.replaceAll("''", "'")) && !expected.has(index.name))
    .map((index) => `${index.tbl}: ${index.name}`);
  return { missing, unexpected };
}

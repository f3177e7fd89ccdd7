/**
 * What Store.claim reads, indexed: the PENDING webhook deliveries in the order they fall due, so that every
 * instance polling for due deliveries reads those (and only as many as its limit), never the whole table. The
 * expressions are those the SQL store compiles a claim of `status = 'PENDING'` ordered by `due_ms` to
 * (sql/compile.ts `fieldValue`, `sortKey`), which is what lets PostgreSQL use the index.
 *
 * A fixed file: once released it never changes.
 */
import type { Migration } from './migration.js';

export const claimIndexes: Migration = {
  name: '0003-claim-indexes',
  up: (sql) =>
    sql.exec(`
      CREATE INDEX store_claim_webhook_deliveries ON store_rows (
        (CASE WHEN jsonb_typeof(doc -> 'due_ms'::text) = 'number' THEN (doc -> 'due_ms'::text)::float8 END) NULLS FIRST, seq
      ) WHERE tbl = 'webhook_deliveries' AND nullif(doc -> 'status'::text, 'null'::jsonb) = '"PENDING"'::jsonb;
    `),
};

/**
 * A Store that keeps at most a given number of rows in some tables of each project: at the end of a unit of
 * work that left more, the oldest inserted are deleted in that same unit of work. Rows are read off
 * insertion order, so this costs about one row read per row dropped, however large the table.
 */
import type { Schema } from './schema.js';
import { withTransaction, type Row, type Store, type Table } from './store.js';

/** The most rows each named table keeps. */
export type Retention<S extends Schema> = Partial<Record<keyof S & string, number>>;

export function withRetention<S extends Schema>(store: Store<S>, retention: Retention<S>): Store<S> {
  const limits = Object.entries(retention) as [keyof S & string, number][];
  for (const [table, limit] of limits) {
    if (!(table in store.schema)) throw new Error(`There is no table ${table} to keep rows of`);
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`The retention of ${table} must be a whole number of rows of at least 1, got ${limit}`);
  }
  return withTransaction(store, (projectId, work) =>
    store.transaction(projectId, async (uow) => {
      const result = await work(uow);
      for (const [name, limit] of limits) {
        const table = uow[name] as Table<Row>;
        const { total } = await table.query({ limit: 0 });
        if (total <= limit) continue;
        const { rows: oldest } = await table.query({ limit: total - limit });
        for (const row of oldest) await table.delete(row.id);
      }
      return result;
    }),
  );
}

/**
 * A Store that keeps at most a given number of rows in some tables of each project: at the end of a unit of
 * work that left more, the oldest inserted are deleted in that same unit of work. Rows are read off
 * insertion order, so this costs about one row read per row dropped, however large the table.
 */
import type { Tables } from './tables.js';
import type { Row, Store, Table } from './store.js';

export type Retention = Partial<Record<keyof Tables, number>>;

export function withRetention(store: Store, retention: Retention): Store {
  const limits = Object.entries(retention) as [keyof Tables, number][];
  for (const [table, limit] of limits) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`The retention of ${table} must be a whole number of rows of at least 1, got ${limit}`);
  }
  return {
    createProject: (projectId) => store.createProject(projectId),
    hasProject: (projectId) => store.hasProject(projectId),
    dropProject: (projectId) => store.dropProject(projectId),
    projectIds: () => store.projectIds(),
    transaction: (projectId, work) =>
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
  };
}

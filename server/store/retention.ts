/**
 * A Store that keeps at most a given number of rows in some tables of each project: at the end of a unit of
 * work that inserted into such a table, the oldest rows past the limit are deleted in that same unit of work.
 * Rows are read off insertion order, so dropping costs about one row read per row dropped.
 *
 * Counting a table's rows is free in memory but a scan in SQL, so a table is counted only once a hundredth of
 * its limit has been inserted since the last count (every insert for limits under 200): between counts a
 * project may hold up to that many rows more, never more than 1% over.
 */
import type { Schema } from './schema.js';
import { lazyUnitOfWork, PassThroughTable, withTransaction, type Row, type Store, type Table, type UnitOfWork } from './store.js';

/** What one unit of work inserted into the tables kept to a limit, by table (made at its first such insert). */
interface Counting<S extends Schema> {
  uow: UnitOfWork<S>;
  inserted?: Map<string, number>;
}

/** A table kept to a limit: its inserts are counted for the end of the unit of work. */
class CountingTable extends PassThroughTable<Row> {
  constructor(
    inner: Table<Row>,
    private readonly name: string,
    private readonly counting: { inserted?: Map<string, number> },
  ) {
    super(inner);
  }

  override async insert(row: Row): Promise<Row> {
    const stored = await this.inner.insert(row);
    const inserted = (this.counting.inserted ??= new Map());
    inserted.set(this.name, (inserted.get(this.name) ?? 0) + 1);
    return stored;
  }
}

/** The most rows each named table keeps. */
export type Retention<S extends Schema> = Partial<Record<keyof S & string, number>>;

export function withRetention<S extends Schema>(store: Store<S>, retention: Retention<S>): Store<S> {
  const limits = Object.entries(retention) as [keyof S & string, number][];
  for (const [table, limit] of limits) {
    if (!(table in store.schema)) throw new Error(`There is no table ${table} to keep rows of`);
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`The retention of ${table} must be a whole number of rows of at least 1, got ${limit}`);
  }
  const retained = new Set<string>(limits.map(([name]) => name));
  /**
   * Rows inserted since each table was last counted, by project, in the order of `limits` (in this process). An
   * array per project rather than a Map keyed by project and table: that key was a new string to hash for every
   * unit of work that inserted (about 1.5 µs of a customer update in `make bench`'s profile).
   */
  const uncounted = new Map<string, number[]>();
  const counted = lazyUnitOfWork<S, Counting<S>>(store.schema, (counting, name) => {
    const table = counting.uow[name] as Table<Row>;
    return retained.has(name) ? new CountingTable(table, name, counting) : table;
  });
  return withTransaction(store, (run, projectId, work) =>
    run(projectId, async (uow) => {
      const counting: Counting<S> = { uow };
      const result = await work(counted(counting));
      const { inserted } = counting;
      if (inserted === undefined) return result;
      for (let place = 0; place < limits.length; place++) {
        const [name, limit] = limits[place]!;
        const added = inserted.get(name);
        if (!added) continue;
        let counts = uncounted.get(projectId);
        if (counts === undefined) uncounted.set(projectId, (counts = limits.map(() => 0)));
        const since = counts[place]! + added;
        if (since < Math.max(1, Math.floor(limit / 100))) {
          counts[place] = since;
          continue;
        }
        const table = uow[name] as Table<Row>;
        const { total } = await table.query({ limit: 0 });
        if (total > limit) {
          const { rows: oldest } = await table.query({ limit: total - limit });
          for (const row of oldest) await table.delete(row.id);
        }
        // Reset only once the count (and any deletion) went through: an append refuses the deletion
        // (ChangeInAppend) and runs again as a transaction, which must count and prune again.
        counts[place] = 0;
        if (counts.every((count) => count === 0)) uncounted.delete(projectId);
      }
      return result;
    }),
  );
}

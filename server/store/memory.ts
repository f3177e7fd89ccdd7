/**
 * In-memory Store. Rows are frozen copies, so nothing outside a unit of work can change stored state by
 * holding a reference. Each project has its own lock; a unit of work keeps an undo log and replays it
 * backwards when the work throws.
 */
import { Mutex } from 'async-mutex';
import { TABLE_SPECS, type TableSpec, type Tables } from './tables.js';
import {
  lazyUnitOfWork,
  UniqueViolation,
  UnknownProject,
  type Page,
  type Query,
  type Row,
  type Store,
  type Table,
  type UnitOfWork,
} from './store.js';

type Undo = () => void;

/** Pages that end within this many rows are selected in one pass rather than by sorting every match. */
const TOP_K_AT_MOST = 1000;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The position of the first ID in ascending `ids` that is not before `id` (`ids.length` when none). */
function firstAtLeast(ids: readonly string[], id: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle]! < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/**
 * Row IDs in insertion order, each with the sequence number it had when listed, so a page can be read
 * without sorting. An entry is live while its row still has that sequence number (it was not removed, or
 * not removed and inserted anew) and, in an index's list, still holds the indexed value. Dead entries are
 * skipped, and compacted away once they are the majority. A list that may miss entries or hold them out
 * of order is marked stale and rebuilt before it is next read.
 */
class InsertionOrder {
  ids: string[] = [];
  seqs: number[] = [];
  dead = 0;
  stale = false;

  push(id: string, seq: number): void {
    this.ids.push(id);
    this.seqs.push(seq);
  }

  reset(entries: [string, number][]): void {
    entries.sort((a, b) => a[1] - b[1]);
    this.ids = entries.map(([id]) => id);
    this.seqs = entries.map(([, seq]) => seq);
    this.dead = 0;
    this.stale = false;
  }
}

class MemoryTable<T extends Row> {
  readonly rows = new Map<string, T>();
  private readonly seq = new Map<string, number>();
  private nextSeq = 0;
  private readonly unique = new Map<string, Map<unknown, string>>();
  private readonly indexes = new Map<string, Map<unknown, Set<string>>>();
  private readonly inserted = new InsertionOrder();
  private readonly insertedByIndex = new Map<string, Map<unknown, InsertionOrder>>();
  /** For each `sortedById` field: per value, the IDs of its rows in ascending order. */
  private readonly sortedIds = new Map<string, Map<unknown, string[]>>();
  /** For each `ordered` field: whether its values have so far never decreased along insertion order. */
  private readonly followsInsertion = new Map<string, { holds: boolean; last?: unknown; seen: boolean }>();

  constructor(
    readonly name: string,
    readonly spec: TableSpec,
  ) {
    for (const field of spec.unique) this.unique.set(field, new Map());
    for (const field of spec.indexed) {
      this.indexes.set(field, new Map());
      this.insertedByIndex.set(field, new Map());
    }
    for (const field of spec.ordered ?? []) this.followsInsertion.set(field, { holds: true, seen: false });
    for (const field of spec.sortedById ?? []) {
      if (!spec.indexed.includes(field)) throw new Error(`${name}.${field} is sorted by ID but not indexed`);
      this.sortedIds.set(field, new Map());
    }
  }

  private field(row: T, field: string): unknown {
    return (row as unknown as Record<string, unknown>)[field];
  }

  checkUnique(row: T): void {
    for (const [field, index] of this.unique) {
      const value = this.field(row, field);
      if (value === null || value === undefined) continue;
      const holder = index.get(value);
      if (holder !== undefined && holder !== row.id) throw new UniqueViolation(this.name, field, value);
    }
  }

  put(row: T): void {
    const previous = this.rows.get(row.id);
    if (previous) this.unindex(previous);
    else {
      const seq = this.nextSeq++;
      this.seq.set(row.id, seq);
      this.inserted.push(row.id, seq);
    }
    this.rows.set(row.id, row);
    this.index(row);
    this.trackOrder(row, previous);
  }

  remove(id: string): T | undefined {
    const previous = this.rows.get(id);
    if (!previous) return undefined;
    this.unindex(previous);
    this.rows.delete(id);
    this.seq.delete(id);
    this.inserted.dead++;
    for (const field of this.indexes.keys()) {
      const list = this.insertedByIndex.get(field)?.get(this.field(previous, field));
      if (list) list.dead++;
    }
    return previous;
  }

  /** Puts a removed row back at its old position in insertion order. */
  restore(row: T, position: number): void {
    this.rows.set(row.id, row);
    this.seq.set(row.id, position);
    this.index(row);
    // Its entries may have been compacted away meanwhile.
    this.inserted.stale = true;
    for (const field of this.indexes.keys()) this.listOf(field, this.field(row, field)).stale = true;
  }

  private listOf(field: string, value: unknown): InsertionOrder {
    const lists = this.insertedByIndex.get(field)!;
    let list = lists.get(value);
    if (!list) lists.set(value, (list = new InsertionOrder()));
    return list;
  }

  /** Keeps the insertion-order lists of the indexes and the `ordered` fields' monotonicity up to date. */
  private trackOrder(row: T, previous: T | undefined): void {
    const seq = this.seq.get(row.id)!;
    for (const field of this.indexes.keys()) {
      const value = this.field(row, field);
      if (!previous) this.listOf(field, value).push(row.id, seq);
      else if (this.field(previous, field) !== value) {
        this.listOf(field, this.field(previous, field)).dead++;
        // The row joins this value's list out of insertion order (and may still have an entry there).
        this.listOf(field, value).stale = true;
      }
    }
    for (const [field, state] of this.followsInsertion) {
      const value = this.field(row, field);
      if (previous) {
        if (this.field(previous, field) !== value) state.holds = false;
        continue;
      }
      if (state.seen && compareValues(value, state.last) < 0) state.holds = false;
      state.seen = true;
      state.last = value;
    }
  }

  /** The list, rebuilt if stale and compacted if mostly dead. */
  private readable(list: InsertionOrder, index?: { field: string; value: unknown }): InsertionOrder {
    if (list.stale) {
      const ids = index ? [...(this.indexes.get(index.field)!.get(index.value) ?? [])] : [...this.rows.keys()];
      list.reset(ids.map((id) => [id, this.seq.get(id)!]));
    } else if (list.dead > 64 && list.dead * 2 > list.ids.length) {
      const live: [string, number][] = [];
      list.ids.forEach((id, i) => {
        if (this.isLive(id, list.seqs[i]!, index)) live.push([id, list.seqs[i]!]);
      });
      list.reset(live);
    }
    return list;
  }

  private isLive(id: string, seq: number, index?: { field: string; value: unknown }): boolean {
    if (this.seq.get(id) !== seq) return false;
    return !index || this.field(this.rows.get(id)!, index.field) === index.value;
  }

  /** A page read off insertion order, forwards or backwards, skipping dead entries. */
  private pageInOrder(index: { field: string; value: unknown } | undefined, descending: boolean, offset: number, limit: number): T[] {
    const list = this.readable(index ? this.listOf(index.field, index.value) : this.inserted, index);
    const rows: T[] = [];
    let skipped = 0;
    const count = list.ids.length;
    for (let step = 0; step < count && rows.length < limit; step++) {
      const i = descending ? count - 1 - step : step;
      const id = list.ids[i]!;
      if (!this.isLive(id, list.seqs[i]!, index)) continue;
      if (skipped < offset) skipped++;
      else rows.push(this.rows.get(id)!);
    }
    return rows;
  }

  position(id: string): number | undefined {
    return this.seq.get(id);
  }

  private index(row: T): void {
    for (const [field, index] of this.unique) {
      const value = this.field(row, field);
      if (value !== null && value !== undefined) index.set(value, row.id);
    }
    for (const [field, index] of this.indexes) {
      const value = this.field(row, field);
      let ids = index.get(value);
      if (!ids) index.set(value, (ids = new Set()));
      ids.add(row.id);
    }
    for (const [field, byValue] of this.sortedIds) {
      const value = this.field(row, field);
      let ids = byValue.get(value);
      if (!ids) byValue.set(value, (ids = []));
      const at = firstAtLeast(ids, row.id);
      if (ids[at] !== row.id) ids.splice(at, 0, row.id);
    }
  }

  private unindex(row: T): void {
    for (const [field, index] of this.unique) {
      const value = this.field(row, field);
      if (index.get(value) === row.id) index.delete(value);
    }
    for (const [field, index] of this.indexes) {
      const ids = index.get(this.field(row, field));
      ids?.delete(row.id);
      if (ids && ids.size === 0) index.delete(this.field(row, field));
    }
    for (const [field, byValue] of this.sortedIds) {
      const value = this.field(row, field);
      const ids = byValue.get(value);
      if (!ids) continue;
      const at = firstAtLeast(ids, row.id);
      if (ids[at] === row.id) ids.splice(at, 1);
      if (ids.length === 0) byValue.delete(value);
    }
  }

  lookupUnique(field: string, value: unknown): T | undefined {
    const index = this.unique.get(field);
    if (!index) throw new Error(`${this.name}.${field} is not a unique field`);
    const id = index.get(value);
    return id === undefined ? undefined : this.rows.get(id);
  }

  countIndexed(field: string, value: unknown): number {
    const index = this.indexes.get(field);
    if (!index) throw new Error(`${this.name}.${field} is not an indexed field`);
    return index.get(value)?.size ?? 0;
  }

  lookupIndexed(field: string, value: unknown): T[] {
    const index = this.indexes.get(field);
    if (!index) throw new Error(`${this.name}.${field} is not an indexed field`);
    const ids = [...(index.get(value) ?? [])];
    ids.sort((a, b) => (this.seq.get(a) ?? 0) - (this.seq.get(b) ?? 0));
    return ids.map((id) => this.rows.get(id) as T);
  }

  select(query: Query<T>): Page<T> {
    const seeked = this.seekById(query);
    if (seeked) return seeked;
    if (query.after !== undefined) {
      const order = query.orderBy;
      if (!order) throw new Error(`${this.name}: a query with \`after\` needs \`orderBy\``);
      // Otherwise the cursor is one more condition on the rows.
      const sign = order.direction === 'desc' ? -1 : 1;
      const { where, after } = query;
      const past = (row: T) => sign * compareValues(this.field(row, order.field), after) > 0;
      query = { ...query, after: undefined, where: where ? (row: T) => past(row) && where(row) : past };
    }
    const ordered = !query.orderBy || this.followsInsertion.get(query.orderBy.field)?.holds;
    if (!query.where && ordered) {
      const total = query.index ? this.countIndexed(query.index.field, query.index.value) : this.rows.size;
      const offset = query.offset ?? 0;
      const rows = this.pageInOrder(query.index, query.orderBy?.direction === 'desc', offset, query.limit ?? Infinity);
      return { rows, total };
    }
    const order = query.orderBy;
    const offset = query.offset ?? 0;
    const compare = order
      ? (a: T, b: T) => {
          const sign = order.direction === 'desc' ? -1 : 1;
          return sign * (compareValues(this.field(a, order.field), this.field(b, order.field)) || (this.seq.get(a.id) ?? 0) - (this.seq.get(b.id) ?? 0));
        }
      : undefined;
    if (compare && query.limit !== undefined && offset + query.limit <= TOP_K_AT_MOST) return this.selectTop(query, compare, offset + query.limit);
    let rows = query.index ? this.lookupIndexed(query.index.field, query.index.value) : [...this.rows.values()];
    if (query.where) rows = rows.filter(query.where);
    const total = rows.length;
    if (compare) rows.sort(compare);
    const end = query.limit === undefined ? undefined : offset + query.limit;
    return { rows: rows.slice(offset, end), total };
  }

  /**
   * A page in ID order on a `sortedById` index, from the start or after a cursor, read off the value's
   * sorted IDs; undefined when the query is not that.
   */
  private seekById(query: Query<T>): Page<T> | undefined {
    if (query.orderBy?.field !== 'id' || query.where || !query.index) return undefined;
    const byValue = this.sortedIds.get(query.index.field);
    if (!byValue) return undefined;
    const ids = byValue.get(query.index.value) ?? [];
    const after = query.after === undefined ? undefined : String(query.after);
    const offset = query.offset ?? 0;
    const limit = query.limit ?? Infinity;
    const rows: T[] = [];
    if (query.orderBy.direction === 'desc') {
      const end = after === undefined ? ids.length : firstAtLeast(ids, after);
      for (let i = end - 1 - offset; i >= 0 && rows.length < limit; i--) rows.push(this.rows.get(ids[i]!)!);
      return { rows, total: end };
    }
    let start = after === undefined ? 0 : firstAtLeast(ids, after);
    if (after !== undefined && ids[start] === after) start++;
    for (let i = start + offset; i < ids.length && rows.length < limit; i++) rows.push(this.rows.get(ids[i]!)!);
    return { rows, total: ids.length - start };
  }

  /**
   * A sorted page near the start without sorting every match: one pass keeps the first `keep` rows in order
   * (binary insertion), and counts the matches. A cursor page of 10 over 10,000 entries no longer sorts them all.
   */
  private selectTop(query: Query<T>, compare: (a: T, b: T) => number, keep: number): Page<T> {
    const index = query.index ? this.indexes.get(query.index.field) : undefined;
    if (query.index && !index) throw new Error(`${this.name}.${query.index.field} is not an indexed field`);
    const ids = query.index ? (index!.get(query.index.value) ?? new Set<string>()) : this.rows.keys();
    const best: T[] = [];
    let total = 0;
    for (const id of ids) {
      const row = this.rows.get(id) as T;
      if (query.where && !query.where(row)) continue;
      total++;
      if (keep === 0 || (best.length === keep && compare(row, best[keep - 1]!) >= 0)) continue;
      let low = 0;
      let high = best.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compare(best[middle]!, row) <= 0) low = middle + 1;
        else high = middle;
      }
      best.splice(low, 0, row);
      if (best.length > keep) best.pop();
    }
    return { rows: best.slice(query.offset ?? 0), total };
  }
}

type Partition = { [K in keyof Tables]: MemoryTable<Tables[K]> };

const memoryUnitOfWork = lazyUnitOfWork<{ tables: Partition; undo: Undo[] }>(
  ({ tables, undo }, name) => new MemoryUnitOfWorkTable(tables[name] as unknown as MemoryTable<Row>, undo),
);

class MemoryUnitOfWorkTable<T extends Row> implements Table<T> {
  constructor(
    private readonly table: MemoryTable<T>,
    private readonly undo: Undo[],
  ) {}

  async get(id: string) {
    return this.table.rows.get(id);
  }

  async getBy(field: keyof T & string, value: unknown) {
    return this.table.lookupUnique(field, value);
  }

  async findBy(field: keyof T & string, value: unknown) {
    return this.table.lookupIndexed(field, value);
  }

  async countBy(field: keyof T & string, value: unknown) {
    return this.table.countIndexed(field, value);
  }

  async insert(row: T) {
    if (this.table.rows.has(row.id)) throw new UniqueViolation(this.table.name, 'id', row.id);
    const stored = deepFreeze(structuredClone(row));
    this.table.checkUnique(stored);
    this.table.put(stored);
    this.undo.push(() => this.table.remove(stored.id));
    return stored;
  }

  async update(row: T) {
    const previous = this.table.rows.get(row.id);
    if (!previous) throw new Error(`${this.table.name} has no row ${row.id} to update`);
    const stored = deepFreeze(structuredClone(row));
    this.table.checkUnique(stored);
    this.table.put(stored);
    this.undo.push(() => this.table.put(previous));
    return stored;
  }

  async delete(id: string) {
    const position = this.table.position(id);
    const previous = this.table.remove(id);
    if (!previous || position === undefined) return false;
    this.undo.push(() => this.table.restore(previous, position));
    return true;
  }

  async query(query: Query<T>) {
    return this.table.select(query);
  }
}

export class MemoryStore implements Store {
  private readonly partitions = new Map<string, { tables: Partition; lock: Mutex }>();

  async createProject(projectId: string): Promise<void> {
    if (this.partitions.has(projectId)) return;
    const tables = Object.fromEntries(
      Object.entries(TABLE_SPECS).map(([name, spec]) => [name, new MemoryTable(name, spec)]),
    ) as unknown as Partition;
    this.partitions.set(projectId, { tables, lock: new Mutex() });
  }

  async hasProject(projectId: string): Promise<boolean> {
    return this.partitions.has(projectId);
  }

  async dropProject(projectId: string): Promise<void> {
    const partition = this.partitions.get(projectId);
    if (!partition) return;
    await partition.lock.runExclusive(() => {
      this.partitions.delete(projectId);
    });
  }

  async projectIds(): Promise<string[]> {
    return [...this.partitions.keys()];
  }

  async transaction<R>(projectId: string, work: (uow: UnitOfWork) => Promise<R>): Promise<R> {
    const partition = this.partitions.get(projectId);
    if (!partition) throw new UnknownProject(projectId);
    return partition.lock.runExclusive(async () => {
      const undo: Undo[] = [];
      const uow = memoryUnitOfWork({ tables: partition.tables, undo });
      try {
        return await work(uow);
      } catch (error) {
        for (const step of undo.reverse()) step();
        throw error;
      }
    });
  }
}

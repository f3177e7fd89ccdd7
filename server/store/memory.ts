/**
 * In-memory Store. A row written in a unit of work becomes the store's: the store keeps the very object it is
 * given, and hands out that object to whoever reads the row, so nobody may change it afterwards, neither the
 * writer nor a reader. With `freezeRows` (on unless told otherwise, and in every test) each row is deeply frozen
 * in place as it is stored, so that such a change throws where it is made instead of changing stored state behind
 * the unit of work's back. Each project has its own lock; a unit of work keeps an undo log and replays it
 * backwards when the work throws.
 */
import { Semaphore } from 'async-mutex';
import { predicate, type Predicate } from './evaluate.js';
import type { RowOf, Schema, TableDeclaration } from './schema.js';
import { and } from './conditions.js';
import {
  endOfRead,
  lazyUnitOfWork,
  claimRoom,
  leaseFree,
  refuseChange,
  refuseConflict,
  refuseWrite,
  type ReadAttempt,
  type ClaimRequest,
  type Claimed,
  UniqueViolation,
  UnknownProject,
  type Page,
  type Query,
  type Row,
  type Store,
  type Table,
  type UnitOfWork,
} from './store.js';
import { FRESH } from './fresh.js';
import { withAmounts, type Amounts } from './amounts.js';
import { keepFirst } from './keep-first.js';

type Undo = () => void;

/** Pages that end within this many rows are selected in one pass rather than by sorting every match. */
const TOP_K_AT_MOST = 1000;

/** Entries dead at the front of a list are dropped for good once there are this many and they are most of it. */
const TRIM_AT_LEAST = 1024;

/**
 * Freezes a row and every object and array within it, in place, frozen parts included (a part frozen by its
 * maker may hold parts that are not).
 *
 * Rows were once stored as deeply frozen copies. V8 (Node.js 20) copies a frozen object by its slow path, field
 * by field, and the domain copies stored rows whenever it changes or shows one: in `make bench`'s redemptions the
 * copies and what was then done with frozen rows cost about a sixth of the route's own CPU time (in-process A/B
 * runs: 259 against 211 µs a redemption), so by default a production server keeps rows as it is given them
 * (`FREEZE_ROWS`, server/config.ts) and the tests, which freeze them, catch any code that would change one.
 */
function frozenInPlace<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) frozenInPlace(value[i]);
  } else {
    // Own keys only, a key named `__proto__` (JSON.parse makes one) among them, as the row has them.
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) frozenInPlace(record[key]);
  }
  return Object.freeze(value);
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

type Liveness = (id: string, seq: number) => boolean;

/**
 * Row IDs in insertion order, each with the sequence number its row had when the entry was made, so that a
 * page or an index lookup is read without sorting. An entry is live while its row still has that sequence
 * number (it was not removed, or not removed and inserted anew) and, in an index's list, still holds the
 * indexed value; `live` counts those exactly. Dead entries are skipped, dropped from the front as reads
 * pass them, and compacted away once they are the majority. A row that joins the list out of order (its
 * indexed value changed, or its removal was undone) is put in its place by sequence number.
 */
class InsertionOrder {
  ids: string[] = [];
  seqs: number[] = [];
  /** Entries before this position are gone. */
  head = 0;
  live = 0;

  get size(): number {
    return this.ids.length - this.head;
  }

  /** Adds a live entry; an entry already there for the same row and sequence number counts as live again. */
  add(id: string, seq: number): void {
    this.live++;
    const { ids, seqs } = this;
    if (this.size === 0) {
      this.ids = [id];
      this.seqs = [seq];
      this.head = 0;
      return;
    }
    if (seqs[seqs.length - 1]! < seq) {
      ids.push(id);
      seqs.push(seq);
      return;
    }
    let low = this.head;
    let high = seqs.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (seqs[middle]! < seq) low = middle + 1;
      else high = middle;
    }
    if (seqs[low] === seq && ids[low] === id) return;
    if (low === this.head && this.head > 0) {
      this.head--;
      ids[this.head] = id;
      seqs[this.head] = seq;
      return;
    }
    ids.splice(low, 0, id);
    seqs.splice(low, 0, seq);
  }

  /** One live entry fewer (its row is already changed or gone); compacts when most entries are dead. */
  drop(isLive: Liveness): void {
    this.live--;
    const dead = this.size - this.live;
    if (dead > 64 && dead * 2 > this.size) this.compact(isLive);
  }

  /** Drops the dead entries at the front, and the space they took once that is most of the list. */
  trimFront(isLive: Liveness): void {
    while (this.head < this.ids.length && !isLive(this.ids[this.head]!, this.seqs[this.head]!)) this.head++;
    if (this.head >= TRIM_AT_LEAST && this.head * 2 > this.ids.length) {
      this.ids = this.ids.slice(this.head);
      this.seqs = this.seqs.slice(this.head);
      this.head = 0;
    }
  }

  private compact(isLive: Liveness): void {
    const ids: string[] = [];
    const seqs: number[] = [];
    for (let i = this.head; i < this.ids.length; i++) {
      if (!isLive(this.ids[i]!, this.seqs[i]!)) continue;
      ids.push(this.ids[i]!);
      seqs.push(this.seqs[i]!);
    }
    this.ids = ids;
    this.seqs = seqs;
    this.head = 0;
  }
}

/** A query as the memory table runs it: its condition compiled to a predicate. */
type Selection<T> = Omit<Query<T>, 'where'> & { where?: Predicate };

export class MemoryTable<T extends Row> {
  readonly rows = new Map<string, T>();
  private readonly seq = new Map<string, number>();
  private nextSeq = 0;
  private readonly unique = new Map<string, Map<unknown, string>>();
  /**
   * For each indexed field: per value, the rows holding it in insertion order; a value one row holds is that
   * row's ID instead (see `join`).
   */
  private readonly indexes = new Map<string, Map<unknown, InsertionOrder | string>>();
  private readonly sparse: ReadonlySet<string>;
  private readonly inserted = new InsertionOrder();
  private readonly isInserted: Liveness = (id, seq) => this.seq.get(id) === seq;
  /** For each `sortedById` field: per value, the IDs of its rows in ascending order. */
  private readonly sortedIds = new Map<string, Map<unknown, string[]>>();
  /** For each `ordered` field: whether its values have so far never decreased along insertion order. */
  private readonly followsInsertion = new Map<string, { holds: boolean; last?: unknown; seen: boolean }>();

  /** Whether rows are frozen as they are stored: the store's setting, or the table's declaration (`frozen`). */
  private readonly freezes: boolean;

  constructor(
    readonly name: string,
    readonly spec: TableDeclaration<T>,
    freezeRows: boolean,
  ) {
    // A SQL store hands out its copies of kept tables frozen: the memory store's rows of them are too.
    this.freezes = freezeRows || spec.frozen === true || spec.kept === true;
    for (const field of spec.unique) this.unique.set(field, new Map());
    for (const field of spec.indexed) this.indexes.set(field, new Map());
    this.sparse = new Set<string>(spec.sparse ?? []);
    const indexed = new Set<string>(spec.indexed);
    for (const field of this.sparse) if (!indexed.has(field)) throw new Error(`${name}.${field} is sparse but not indexed`);
    for (const field of spec.ordered ?? []) this.followsInsertion.set(field, { holds: true, seen: false });
    for (const field of spec.sortedById ?? []) {
      if (!spec.indexed.includes(field)) throw new Error(`${name}.${field} is sorted by ID but not indexed`);
      this.sortedIds.set(field, new Map());
    }
  }

  /** A missing field reads as null, as conditions and the SQL store read it: in indexes, ordering and cursors. */
  private field(row: T, field: string): unknown {
    return (row as unknown as Record<string, unknown>)[field] ?? null;
  }

  /** The row as it is kept: the object given, frozen in place when the table freezes rows. */
  kept(row: T): T {
    return this.freezes ? frozenInPlace(row) : row;
  }

  checkUnique(row: T): void {
    for (const [field, index] of this.unique) {
      const value = this.field(row, field);
      if (value === null || value === undefined) continue;
      const holder = index.get(value);
      if (holder !== undefined && holder !== row.id) throw new UniqueViolation(this.name, field, value);
    }
  }

  /** Whether a row with this value is left out of the field's index. */
  private unindexed(field: string, value: unknown): boolean {
    return (value === null || value === undefined) && this.sparse.has(field);
  }

  private liveness(field: string, value: unknown): Liveness {
    return (id, seq) => this.seq.get(id) === seq && this.field(this.rows.get(id)!, field) === value;
  }

  /**
   * The row (whose sequence number is `seq`) now holds the value of the field.
   *
   * A value no other row holds is entered as the row's ID alone, and becomes a list when a second row joins it:
   * most indexed values have one row (a redemption's parent, the voucher an event names), and a list of one was
   * an object and four arrays, about 170 bytes kept per entry. A redemption made four such entries; they were
   * 20 of the 55 objects it left on the heap, which every garbage collection then walks.
   */
  private join(field: string, value: unknown, id: string, seq: number): void {
    if (this.unindexed(field, value)) return;
    const lists = this.indexes.get(field)!;
    const entry = lists.get(value);
    if (entry === undefined) {
      lists.set(value, id);
      return;
    }
    if (typeof entry !== 'string') {
      entry.add(id, seq);
      return;
    }
    // The one row there is live (`leave` takes a lone row out), so its entry's sequence number is the row's.
    const list = new InsertionOrder();
    list.add(entry, this.seq.get(entry)!);
    list.add(id, seq);
    lists.set(value, list);
  }

  /** A row no longer holds the value of the field (the row is already changed or gone). */
  private leave(field: string, value: unknown): void {
    if (this.unindexed(field, value)) return;
    const lists = this.indexes.get(field)!;
    const entry = lists.get(value);
    if (entry === undefined) return;
    // A value no row holds any more takes no room.
    if (typeof entry === 'string' || entry.live <= 1) lists.delete(value);
    else entry.drop(this.liveness(field, value));
  }

  put(row: T): void {
    const previous = this.rows.get(row.id);
    if (previous) this.replaceRow(row, previous);
    else this.addRow(row);
  }

  /**
   * Stores a row whose ID no row has (the caller has looked: a lookup of a new ID in a table of 100 000s of rows
   * is a cache miss of a µs or so, and an insert made two).
   */
  addRow(row: T): void {
    this.rows.set(row.id, row);
    const seq = this.nextSeq++;
    this.seq.set(row.id, seq);
    this.inserted.add(row.id, seq);
    for (const field of this.indexes.keys()) this.join(field, this.field(row, field), row.id, seq);
    this.indexUnique(row);
    this.trackOrder(row, undefined);
  }

  /** Stores a row in place of `previous`, the row with its ID now (the caller has looked it up). */
  replaceRow(row: T, previous: T): void {
    this.unindexUnique(previous, row);
    this.rows.set(row.id, row);
    const seq = this.seq.get(row.id)!;
    for (const field of this.indexes.keys()) {
      const before = this.field(previous, field);
      const after = this.field(row, field);
      if (before === after) continue;
      this.leave(field, before);
      this.join(field, after, row.id, seq);
    }
    this.indexUnique(row, previous);
    this.trackOrder(row, previous);
  }

  remove(id: string): T | undefined {
    const previous = this.rows.get(id);
    if (!previous) return undefined;
    this.unindexUnique(previous);
    this.rows.delete(id);
    this.seq.delete(id);
    this.inserted.drop(this.isInserted);
    for (const field of this.indexes.keys()) this.leave(field, this.field(previous, field));
    return previous;
  }

  /** Puts a removed row back at its old position in insertion order. */
  restore(row: T, position: number): void {
    this.rows.set(row.id, row);
    this.seq.set(row.id, position);
    this.inserted.add(row.id, position);
    for (const field of this.indexes.keys()) this.join(field, this.field(row, field), row.id, position);
    this.indexUnique(row);
  }

  /** Keeps the `ordered` fields' monotonicity up to date. */
  private trackOrder(row: T, previous: T | undefined): void {
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

  /** What the index holds for a value: a list, the ID of the one row holding it, or undefined when none does. */
  private entryFor({ field, value }: { field: string; value: unknown }): InsertionOrder | string | undefined {
    const lists = this.indexes.get(field);
    if (!lists) throw new Error(`${this.name}.${field} is not an indexed field`);
    if (this.unindexed(field, value)) throw new Error(`${this.name}.${field} is not indexed for ${String(value)}`);
    return lists.get(value);
  }

  /** A page read off insertion order, forwards or backwards, skipping dead entries. */
  private pageInOrder(index: { field: string; value: unknown } | undefined, descending: boolean, offset: number, limit: number): T[] {
    let list = this.inserted;
    let isLive = this.isInserted;
    if (index) {
      const entry = this.entryFor(index);
      if (entry === undefined) return [];
      if (typeof entry === 'string') return offset === 0 && limit > 0 ? [this.rows.get(entry)!] : [];
      list = entry;
      isLive = this.liveness(index.field, index.value);
    }
    if (!descending) list.trimFront(isLive);
    const rows: T[] = [];
    const { ids, seqs, head } = list;
    const count = ids.length - head;
    // With no dead entry in the list, the page starts `offset` entries in: a deep page costs what a first one does.
    let skipped = 0;
    let first = 0;
    if (list.live === count) {
      first = offset;
      skipped = offset;
    }
    for (let step = first; step < count && rows.length < limit; step++) {
      const i = descending ? ids.length - 1 - step : head + step;
      const id = ids[i]!;
      if (!isLive(id, seqs[i]!)) continue;
      if (skipped < offset) skipped++;
      else rows.push(this.rows.get(id)!);
    }
    return rows;
  }

  position(id: string): number | undefined {
    return this.seq.get(id);
  }

  /**
   * Enters the row in the unique and sorted-ID indexes. With `previous` (the row it replaces, taken out by
   * unindexUnique with this row), a sorted list whose value is unchanged kept the ID where it was: moving an
   * ID within a long list (a program's pending points) costs two splices of the whole list.
   */
  private indexUnique(row: T, previous?: T): void {
    for (const [field, index] of this.unique) {
      const value = this.field(row, field);
      // Unchanged, the entry was kept (see unindexUnique).
      if (previous && this.field(previous, field) === value) continue;
      if (value !== null && value !== undefined) index.set(value, row.id);
    }
    for (const [field, byValue] of this.sortedIds) {
      const value = this.field(row, field);
      if (previous && this.field(previous, field) === value) continue;
      let ids = byValue.get(value);
      if (!ids) byValue.set(value, (ids = []));
      const at = firstAtLeast(ids, row.id);
      if (ids[at] !== row.id) ids.splice(at, 0, row.id);
    }
  }

  /** Takes the row out of the unique and sorted-ID indexes; with `next`, sorted lists whose value stays are left. */
  private unindexUnique(row: T, next?: T): void {
    for (const [field, index] of this.unique) {
      const value = this.field(row, field);
      // A value the next row keeps keeps its entry: deleting a key and setting it again makes V8's Map rebuild its
      // table every so often, which cost several µs of each update of a row in a table of 10 000 (a customer's
      // source_id), and was the largest single function in a profile of PUT /v1/customers/{id}.
      if (next && this.field(next, field) === value) continue;
      if (index.get(value) === row.id) index.delete(value);
    }
    for (const [field, byValue] of this.sortedIds) {
      const value = this.field(row, field);
      if (next && this.field(next, field) === value) continue;
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
    const entry = this.entryFor({ field, value });
    return entry === undefined ? 0 : typeof entry === 'string' ? 1 : entry.live;
  }

  lookupIndexed(field: string, value: unknown): T[] {
    return this.pageInOrder({ field, value }, false, 0, Infinity);
  }

  select({ where, ...rest }: Query<T>): Page<T> {
    return this.run({ ...FRESH, ...rest, ...(where && { where: predicate(where) }) });
  }

  private run(query: Selection<T>): Page<T> {
    const seeked = this.seekById(query);
    if (seeked) return seeked;
    if (query.after !== undefined) {
      const order = query.orderBy;
      if (!order) throw new Error(`${this.name}: a query with \`after\` needs \`orderBy\``);
      // Otherwise the cursor is one more condition on the rows.
      const sign = order.direction === 'desc' ? -1 : 1;
      const { where, after } = query;
      const past = (row: object) => sign * compareValues(this.field(row as T, order.field), after) > 0;
      query = { ...FRESH, ...query, after: undefined, where: where ? (row: object) => past(row) && where(row) : past };
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
    const candidates = query.index ? this.lookupIndexed(query.index.field, query.index.value) : this.rows.values();
    if (compare && query.limit !== undefined && offset + query.limit <= TOP_K_AT_MOST) return this.selectTop(candidates, query, compare, offset + query.limit);
    let rows = [...candidates];
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
  private seekById(query: Selection<T>): Page<T> | undefined {
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
  private selectTop(candidates: Iterable<T>, query: Selection<T>, compare: (a: T, b: T) => number, keep: number): Page<T> {
    const best: T[] = [];
    let total = 0;
    for (const row of candidates) {
      if (query.where && !query.where(row)) continue;
      total++;
      keepFirst(best, row, keep, compare);
    }
    return { rows: best.slice(query.offset ?? 0), total };
  }
}

type Partition = Record<string, MemoryTable<Row>>;

/**
 * What a unit of work has: its project's tables, its undo log, and when it is a read, what refuses its writes,
 * or when it is an append, what refuses its changes.
 */
interface UnitState {
  tables: Partition;
  undo: Undo[];
  reading: ReadAttempt | undefined;
  appending?: ReadAttempt;
  optimistic?: Optimistic;
}

/**
 * What an optimistic unit of work has: what refuses its changes, and the rows it read or wrote, by table and ID
 * (a row it updates must be one of them, as in a SQL store, which checks each against the version it read).
 */
interface Optimistic {
  readonly attempt: ReadAttempt;
  readonly seen: Set<string>;
}

class MemoryUnitOfWorkTable<T extends Row> implements Table<T> {
  constructor(
    private readonly table: MemoryTable<T>,
    private readonly undo: Undo[],
    private readonly reading: ReadAttempt | undefined,
    private readonly appending: ReadAttempt | undefined,
    private readonly optimistic: Optimistic | undefined,
  ) {}

  /** Notes the rows an optimistic unit of work read; returns what it is given. */
  private seen<R extends T | T[] | undefined>(read: R): R {
    if (this.optimistic === undefined || read === undefined) return read;
    for (const row of Array.isArray(read) ? read : [read]) this.optimistic.seen.add(`${this.table.name}\u0000${row.id}`);
    return read;
  }

  async get(id: string) {
    return this.seen(this.table.rows.get(id));
  }

  async getBy(field: keyof T & string, value: unknown) {
    return this.seen(this.table.lookupUnique(field, value));
  }

  async findBy(field: keyof T & string, value: unknown) {
    return this.seen(this.table.lookupIndexed(field, value));
  }

  async countBy(field: keyof T & string, value: unknown) {
    return this.table.countIndexed(field, value);
  }

  async insert(row: T) {
    if (this.reading) refuseWrite(this.reading, this.table.name);
    if (this.appending && this.table.spec.kept) refuseChange(this.appending, this.table.name, 'kept table');
    if (this.optimistic && this.table.spec.kept) refuseConflict(this.optimistic.attempt, this.table.name, 'kept table');
    try {
      if (this.table.rows.has(row.id)) throw new UniqueViolation(this.table.name, 'id', row.id);
      // Checked before it is kept: a row refused is left as its writer made it.
      this.table.checkUnique(row);
    } catch (error) {
      if (this.appending && error instanceof UniqueViolation) refuseChange(this.appending, this.table.name, 'taken value');
      if (this.optimistic && error instanceof UniqueViolation) refuseConflict(this.optimistic.attempt, this.table.name, 'taken value');
      throw error;
    }
    const stored = this.table.kept(row);
    this.table.addRow(stored);
    this.undo.push(() => this.table.remove(stored.id));
    return this.seen(stored);
  }

  async update(row: T) {
    if (this.reading) refuseWrite(this.reading, this.table.name);
    if (this.appending) refuseChange(this.appending, this.table.name, 'update');
    if (this.optimistic) {
      if (this.table.spec.kept) refuseConflict(this.optimistic.attempt, this.table.name, 'kept table');
      if (!this.optimistic.seen.has(`${this.table.name}\u0000${row.id}`)) refuseConflict(this.optimistic.attempt, this.table.name, 'unread');
    }
    const previous = this.table.rows.get(row.id);
    if (!previous) throw new Error(`${this.table.name} has no row ${row.id} to update`);
    try {
      this.table.checkUnique(row);
    } catch (error) {
      if (this.optimistic && error instanceof UniqueViolation) refuseConflict(this.optimistic.attempt, this.table.name, 'taken value');
      throw error;
    }
    const stored = this.table.kept(row);
    this.table.replaceRow(stored, previous);
    this.undo.push(() => this.table.put(previous));
    return stored;
  }

  async delete(id: string) {
    if (this.reading) refuseWrite(this.reading, this.table.name);
    if (this.appending) refuseChange(this.appending, this.table.name, 'delete');
    if (this.optimistic && this.table.spec.kept) refuseConflict(this.optimistic.attempt, this.table.name, 'kept table');
    const position = this.table.position(id);
    const previous = this.table.remove(id);
    if (!previous || position === undefined) return false;
    this.undo.push(() => this.table.restore(previous, position));
    return true;
  }

  async query(query: Query<T>) {
    const page = this.table.select(query);
    this.seen(page.rows);
    return page;
  }

  /** The matches are in hand already (the store is memory): handed out a page at a time. */
  async *walk(query: Pick<Query<T>, 'where' | 'index'>, size: number): AsyncIterable<T[]> {
    if (!Number.isSafeInteger(size) || size < 1) throw new Error(`${this.table.name}: a walk needs pages of at least one row`);
    const { rows } = this.table.select(query);
    for (let start = 0; start < rows.length; start += size) yield this.seen(rows.slice(start, start + size));
  }

  async add(row: T, amounts: Amounts) {
    if (this.reading) refuseWrite(this.reading, this.table.name);
    if (this.appending) refuseChange(this.appending, this.table.name, 'update');
    const previous = this.table.rows.get(row.id);
    if (!previous) {
      await this.insert(withAmounts(row, amounts));
      return;
    }
    if (this.optimistic && this.table.spec.kept) refuseConflict(this.optimistic.attempt, this.table.name, 'kept table');
    const stored = this.table.kept(withAmounts(previous, amounts));
    this.table.replaceRow(stored, previous);
    this.undo.push(() => this.table.put(previous));
    this.seen(stored);
  }
}

export interface MemoryStoreOptions {
  /**
   * Freeze each row, deeply and in place, as it is stored (default true), so that code that changes a stored row
   * or a row it has handed to the store throws a TypeError where it does so. Off, rows are kept as given, and such
   * code would change stored state unseen: no undo, stale indexes. Tables declared `frozen` are frozen either way.
   */
  freezeRows?: boolean;
}

export class MemoryStore<S extends Schema> implements Store<S> {
  /**
   * Each project's lock: a semaphore of one, which is a mutex. Units of work take it with `acquire`, a plain
   * promise; the library's `runExclusive` (and its Mutex's `acquire`) run through a generator-based `__awaiter`,
   * which allocated about 1.3 KB of each cheap read under `make bench`.
   */
  private readonly partitions = new Map<string, { tables: Partition; lock: Semaphore }>();
  private readonly unitOfWork: (state: UnitState) => UnitOfWork<S>;
  private readonly freezeRows: boolean;

  constructor(
    readonly schema: S,
    options: MemoryStoreOptions = {},
  ) {
    this.freezeRows = options.freezeRows ?? true;
    this.unitOfWork = lazyUnitOfWork<S, UnitState>(schema, ({ tables, undo, reading, appending, optimistic }, name) => new MemoryUnitOfWorkTable(tables[name]!, undo, reading, appending, optimistic));
  }

  async createProject(projectId: string): Promise<void> {
    if (this.partitions.has(projectId)) return;
    const tables: Partition = Object.fromEntries(Object.entries(this.schema).map(([name, declaration]) => [name, new MemoryTable<Row>(name, declaration, this.freezeRows)]));
    this.partitions.set(projectId, { tables, lock: new Semaphore(1) });
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

  async close(): Promise<void> {}

  readonly durable = false;

  /**
   * A scan of each project under its lock, then the first `limit` candidates in order across projects are
   * leased, each under its project's lock again after checking that it still qualifies (a unit of work may have
   * changed it in between): a claim never sees a unit of work half done, nor undoes one's writes.
   */
  async claim<K extends keyof S & string>(name: K, request: ClaimRequest<RowOf<S[K]>>): Promise<Claimed<RowOf<S[K]>>[]> {
    type T = RowOf<S[K]>;
    const condition = and(request.where, leaseFree(request.now));
    const qualifies = predicate(condition);
    const { field, direction } = request.orderBy;
    const sign = direction === 'desc' ? -1 : 1;
    const candidates: { projectId: string; order: number; position: number; row: T }[] = [];
    let order = 0;
    for (const [projectId, partition] of [...this.partitions]) {
      const projectOrder = order++;
      const room = claimRoom(request, projectId);
      if (room === 0) continue;
      await partition.lock.runExclusive(() => {
        const table = partition.tables[name] as unknown as MemoryTable<T>;
        const { rows } = table.select({ where: condition, orderBy: request.orderBy, limit: room, ...(request.index && { index: request.index }) });
        for (const row of rows) candidates.push({ projectId, order: projectOrder, position: table.position(row.id) ?? 0, row });
      });
    }
    const value = (row: T) => (row as unknown as Record<string, unknown>)[field] ?? null;
    candidates.sort((a, b) => sign * (compareValues(value(a.row), value(b.row)) || a.order - b.order || a.position - b.position));
    const claimed: Claimed<T>[] = [];
    for (const { projectId, row } of candidates.slice(0, request.limit)) {
      const partition = this.partitions.get(projectId);
      if (!partition) continue;
      await partition.lock.runExclusive(() => {
        const table = partition.tables[name] as unknown as MemoryTable<T>;
        const current = table.rows.get(row.id);
        if (!current || !qualifies(current)) return;
        const leased = table.kept({ ...FRESH, ...current, leased_by: request.owner, lease_until: request.now + request.leaseMs });
        table.put(leased);
        claimed.push({ projectId, row: leased });
      });
    }
    return claimed;
  }

  private readonly held = new Set<string>();

  async exclusively<R>(key: string, work: () => Promise<R>): Promise<{ ran: true; result: R } | { ran: false }> {
    if (this.held.has(key)) return { ran: false };
    this.held.add(key);
    try {
      return { ran: true, result: await work() };
    } finally {
      this.held.delete(key);
    }
  }

  /** The project's tables, once its lock is held, with what releases the lock. */
  private async enter(projectId: string): Promise<{ tables: Partition; release: () => void }> {
    const partition = this.partitions.get(projectId);
    if (!partition) throw new UnknownProject(projectId);
    const [, release] = await partition.lock.acquire();
    return { tables: partition.tables, release };
  }

  transaction<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    return this.unit(projectId, work, undefined);
  }

  /** A unit of work that writes: a transaction, or an append or an optimistic one when given what refuses its changes. */
  private async unit<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>, appending: ReadAttempt | undefined, optimistic?: Optimistic): Promise<R> {
    const { tables, release } = await this.enter(projectId);
    const undo: Undo[] = [];
    const uow = this.unitOfWork({ tables, undo, reading: undefined, ...(appending && { appending }), ...(optimistic && { optimistic }) });
    try {
      return await work(uow);
    } catch (error) {
      for (const step of undo.reverse()) step();
      throw error;
    } finally {
      release();
    }
  }

  /** An append takes the project's lock as a transaction does: units of work in memory run one at a time. */
  async append<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    const appending: ReadAttempt = { refused: undefined };
    return this.unit(projectId, (uow) => endOfRead(appending, work(uow)), appending);
  }

  /**
   * An optimistic unit of work takes the project's lock as a transaction does, so no row it read changes before
   * it ends; it refuses what a SQL store's would for any other reason than a row changed meanwhile.
   */
  async optimistic<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    const optimistic: Optimistic = { attempt: { refused: undefined }, seen: new Set() };
    return this.unit(projectId, (uow) => endOfRead(optimistic.attempt, work(uow)), undefined, optimistic);
  }

  /**
   * A read still takes the project's lock: a writer's changes are in the tables as it makes them, so reading
   * beside one would see what it may yet undo.
   */
  async read<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    const { tables, release } = await this.enter(projectId);
    const reading: ReadAttempt = { refused: undefined };
    try {
      return await endOfRead(reading, work(this.unitOfWork({ tables, undo: [], reading })));
    } finally {
      release();
    }
  }
}

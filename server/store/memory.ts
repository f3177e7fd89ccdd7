/**
 * In-memory Store. Rows are frozen copies, so nothing outside a unit of work can change stored state by
 * holding a reference. Each project has its own lock; a unit of work keeps an undo log and replays it
 * backwards when the work throws.
 */
import { Mutex } from 'async-mutex';
import { TABLE_SPECS, type TableSpec, type Tables } from './tables.js';
import {
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

class MemoryTable<T extends Row> {
  readonly rows = new Map<string, T>();
  private readonly seq = new Map<string, number>();
  private nextSeq = 0;
  private readonly unique = new Map<string, Map<unknown, string>>();
  private readonly indexes = new Map<string, Map<unknown, Set<string>>>();

  constructor(
    readonly name: string,
    readonly spec: TableSpec,
  ) {
    for (const field of spec.unique) this.unique.set(field, new Map());
    for (const field of spec.indexed) this.indexes.set(field, new Map());
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
    else this.seq.set(row.id, this.nextSeq++);
    this.rows.set(row.id, row);
    this.index(row);
  }

  remove(id: string): T | undefined {
    const previous = this.rows.get(id);
    if (!previous) return undefined;
    this.unindex(previous);
    this.rows.delete(id);
    this.seq.delete(id);
    return previous;
  }

  /** Puts a removed row back at its old position in insertion order. */
  restore(row: T, position: number): void {
    this.rows.set(row.id, row);
    this.seq.set(row.id, position);
    this.index(row);
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
    let rows = query.index ? this.lookupIndexed(query.index.field, query.index.value) : [...this.rows.values()];
    if (query.where) rows = rows.filter(query.where);
    const total = rows.length;
    const order = query.orderBy;
    if (order) {
      const sign = order.direction === 'desc' ? -1 : 1;
      rows.sort(
        (a, b) =>
          sign *
          (compareValues(this.field(a, order.field), this.field(b, order.field)) ||
            (this.seq.get(a.id) ?? 0) - (this.seq.get(b.id) ?? 0)),
      );
    }
    const offset = query.offset ?? 0;
    const end = query.limit === undefined ? undefined : offset + query.limit;
    return { rows: rows.slice(offset, end), total };
  }
}

type Partition = { [K in keyof Tables]: MemoryTable<Tables[K]> };

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
      const uow = Object.fromEntries(
        Object.entries(partition.tables).map(([name, table]) => [
          name,
          new MemoryUnitOfWorkTable(table as MemoryTable<Row>, undo),
        ]),
      ) as unknown as UnitOfWork;
      try {
        return await work(uow);
      } catch (error) {
        for (const step of undo.reverse()) step();
        throw error;
      }
    });
  }
}

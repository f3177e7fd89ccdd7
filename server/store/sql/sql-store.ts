/**
 * The SQL store: `Store<S>` over PostgreSQL or PGlite (sql/driver.ts). Every table of every project lives in
 * `store_rows` as JSON documents (migrations/0001-rows.ts), split by table into partitions (sql/partitions.ts),
 * declared fields are real indexes
 * (sql/indexes.ts), and queries are compiled to SQL (sql/compile.ts): no table comes back to JavaScript to be
 * filtered or sorted. A unit of work is one transaction holding its project's lock (store_enter_kept); an append
 * or an optimistic unit of work holds it shared, the latter checking each row it writes against the version it
 * read (`xmin`); a read is a snapshot that takes none. Either begins in one round trip with its entry into the project (driver.ts
 * `first`), which also says the version of the project's kept tables (migrations/0010-kept-version.ts): reads of
 * those come from this process's copy of that version (`KeptCopies`). Statements of fixed text are prepared
 * (driver.ts `statementName`), and the rows a unit of work added or removed are counted with its COMMIT
 * (migrations/0011-counts-at-commit.ts).
 */
import type { FieldKind, Row, Schema, TableDeclaration } from '../schema.js';
import { MemoryTable } from '../memory.js';
import { and, eq, type Scalar } from '../conditions.js';
import type { RowOf } from '../schema.js';
import { mergedAmounts, type Amounts } from '../amounts.js';
import {
  endOfRead,
  lazyUnitOfWork,
  leaseFree,
  refuseChange,
  refuseConflict,
  refuseWrite,
  UniqueViolation,
  UnknownProject,
  type ClaimRequest,
  type Claimed,
  type Page,
  type Query,
  type ReadAttempt,
  type Store,
  type Table,
  type UnitOfWork,
} from '../store.js';
import { MIGRATIONS, type Migration } from '../migrations/index.js';
import { compileCondition, cursorValue, jsonAt, Params, sortKey, sortKeyAt, stringLiteral } from './compile.js';
import { pgDriver, pgliteDriver, type Driver, type Session } from './driver.js';
import { indexDrift, type IndexDrift } from './indexes.js';
import { partitionName } from './partitions.js';
import { migrate } from './migrator.js';
import pg from 'pg';

export interface SqlStoreOptions {
  /** The migrations to run at open (default: the store's own); tests add their schema's indexes. */
  readonly migrations?: readonly Migration[];
  /** Sees each statement a unit of work runs, with its parameters (for tests and debugging). */
  readonly trace?: (sql: string, params: readonly unknown[]) => void;
}

interface UnitState {
  readonly sql: Session;
  readonly projectId: string;
  readonly trace: SqlStoreOptions['trace'];
  /** False once the transaction is over: a table kept past its unit of work must not reach another's connection. */
  open: boolean;
  /** When the unit of work is a read, what refuses its writes. */
  readonly reading: ReadAttempt | undefined;
  /** When the unit of work is an append, what refuses its changes. */
  readonly appending: ReadAttempt | undefined;
  /** When the unit of work is optimistic (Store.optimistic), what refuses its changes. */
  readonly optimistic: ReadAttempt | undefined;
  /**
   * In an optimistic unit of work, the version of each row it read (its `xmin`, which every update of the row
   * changes), by table and ID, or MINE once it wrote the row (and so holds its row lock to the end).
   */
  readonly versions: Map<string, string>;
  /**
   * Rows this unit of work has read by ID or written, by table and ID (null: known absent). The unit of work
   * holds its project's lock, or is a read of one snapshot, so nothing changes them meanwhile; presenting a
   * page of vouchers reads their campaign once, not once per voucher. (An optimistic one holds neither: a row
   * another unit changed since is found out by its version, when it is read again or written.)
   */
  readonly known: Map<string, unknown>;
  /** Reads by ID under way, by table and ID: reads of one row started at once share one statement. */
  readonly loading: Map<string, Promise<unknown>>;
  /** `findBy` look-ups gathered for one statement, by table and field, each with what sends it (see SqlTable.findBy). */
  readonly gathering: Map<string, { waiting: Map<string, Waiting>; send: () => void }>;
  /** The version of the project's kept tables this unit of work entered at (migrations/0010-kept-version.ts). */
  readonly keptVersion: string;
  /**
   * Inserts not sent yet (into `freshIds` tables, or any insert of an append or an optimistic unit of work),
   * spelled with literals: sent before this unit of work's next statement, or with its COMMIT.
   */
  readonly deferred: string[];
  /**
   * The tables an append or optimistic unit of work held inserts back for (in `deferred`), which a unique
   * index may refuse when they are sent.
   */
  readonly heldBack: Set<string>;
  /**
   * Amounts added (Table.add) and not sent yet, by table and ID, each with the row to insert when there is
   * none: sent before this unit of work's next statement on the table, or with its COMMIT.
   */
  readonly adding: Map<string, { readonly table: string; readonly base: Row; amounts: Amounts }>;
  /** Rows this unit of work added to each table, less those it removed: added to the table's count at commit. */
  readonly counted: Map<string, number>;
  /** The kept tables this unit of work wrote: it reads them from the database from then on. */
  readonly keptWritten: Set<string>;
  readonly copies: KeptCopies;
}

/**
 * This process's copies of projects' kept tables (TableDeclaration.kept), each project's as of one version:
 * the version a unit of work enters at names the data it would read, so a copy of that version is that data.
 * At most `projects` projects are kept, the least recently used left out first.
 */
export class KeptCopies {
  private readonly byProject = new Map<string, { version: string; tables: Map<string, MemoryTable<Row>> }>();

  constructor(private readonly projects = 1000) {}

  table(projectId: string, version: string, name: string): MemoryTable<Row> | undefined {
    const copy = this.byProject.get(projectId);
    if (copy?.version !== version) return undefined;
    const table = copy.tables.get(name);
    if (table) {
      this.byProject.delete(projectId);
      this.byProject.set(projectId, copy);
    }
    return table;
  }

  /** Keeps a table as read at a version; a copy of another version (older, or newer: either is over soon) gives way. */
  keep(projectId: string, version: string, name: string, table: MemoryTable<Row>): void {
    let copy = this.byProject.get(projectId);
    this.byProject.delete(projectId);
    if (copy?.version !== version) copy = { version, tables: new Map() };
    copy.tables.set(name, table);
    this.byProject.set(projectId, copy);
    if (this.byProject.size > this.projects) this.byProject.delete(this.byProject.keys().next().value!);
  }

  drop(projectId: string): void {
    this.byProject.delete(projectId);
  }
}

/**
 * What a unit of work sends with its COMMIT: the inserts it held back (`freshIds` tables), then what it changed
 * of its tables' row counts, as the statement that adds it (migrations/0011-counts-at-commit.ts); undefined
 * when there is neither (or the unit of work never began).
 */
function commitStatements(state: UnitState | undefined): string | undefined {
  if (state === undefined) return undefined;
  const statements = [...state.deferred.splice(0), ...takeAdds(state, undefined)];
  const changed = [...state.counted].filter(([, delta]) => delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (changed.length > 0) {
    const tables = changed.map(([name]) => literal(name)).join(', ');
    const deltas = changed.map(([, delta]) => String(delta)).join(', ');
    statements.push(`SELECT store_count_add(${stringLiteral(state.projectId)}, ARRAY[${tables}]::text[], ARRAY[${deltas}]::bigint[])`);
  }
  if (statements.length === 0) return undefined;
  const last = statements.join('; ');
  state.trace?.(last, []);
  return last;
}

type SharedReason = 'taken value' | 'kept table' | 'conflict';

/** Refuses what an append or an optimistic unit of work tried (nothing for a transaction or a read). */
function refuseShared(state: UnitState, table: string, reason: SharedReason): void {
  const { appending, optimistic } = state;
  if (appending) refuseChange(appending, table, reason);
  if (optimistic) refuseConflict(optimistic, table, reason === 'conflict' ? 'changed' : reason);
}

/**
 * Throws what an append's or an optimistic unit of work's held-back statements failing means (sent before a
 * later statement, or with the COMMIT): an insert held back found its value taken, or PostgreSQL broke a
 * deadlock between units of work running at once. The unit of work is refused, and runs again. Anything else,
 * or a failure of a transaction's, is thrown as it is.
 */
function throwShared(state: UnitState | undefined, error: unknown): never {
  const { code, table: relation } = error as { code?: string; table?: string };
  if (state !== undefined && (code === UNIQUE_VIOLATION || code === DEADLOCK)) {
    // The table told is the one whose partition refused the insert, when PostgreSQL names it.
    const held = [...state.heldBack];
    const table = held.find((name) => partitionName(name) === relation) ?? held[0] ?? 'store_rows';
    refuseShared(state, table, code === DEADLOCK ? 'conflict' : 'taken value');
  }
  throw error;
}

/** In UnitState.versions: a row this unit of work wrote. */
const MINE = 'mine';

/**
 * The statements of the amounts added and not sent yet, to one table (or to all), in order of table and ID, so
 * that two units of work never wait for each other's rows; they are then no longer pending. Each is `store_add`
 * (migrations/0013-added-amounts.ts).
 */
function takeAdds(state: UnitState, table: string | undefined): string[] {
  const taken: [string, string][] = [];
  const project = stringLiteral(state.projectId);
  for (const [key, { table: name, base, amounts }] of state.adding) {
    if (table !== undefined && name !== table) continue;
    state.adding.delete(key);
    taken.push([key, `SELECT store_add(${project}, ${literal(name)}, ${stringLiteral(base.id)}, ${stringLiteral(JSON.stringify(base))}::jsonb, ${stringLiteral(JSON.stringify(amounts))}::jsonb)`]);
  }
  return taken.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, statement]) => statement);
}

/** Sends every gathered look-up now. */
function sendGathered(state: UnitState): void {
  const batches = [...state.gathering.values()];
  state.gathering.clear();
  for (const batch of batches) batch.send();
}

/** The callers waiting for the rows of one value of a gathered look-up. */
interface Waiting {
  readonly value: unknown;
  readonly callers: { resolve: (rows: unknown[]) => void; reject: (error: unknown) => void }[];
}

/** A table's declaration, read with its fields as plain strings. */
interface Declaration {
  readonly unique: readonly string[];
  readonly indexed: readonly string[];
  readonly sparse?: readonly string[];
  readonly kinds?: Readonly<Partial<Record<string, FieldKind>>>;
  readonly kept?: boolean;
  readonly freshIds?: boolean;
}

/** Schema names (tables, declared fields) as SQL string literals, made once. */
const literals = new Map<string, string>();
function literal(name: string): string {
  let spelled = literals.get(name);
  if (spelled === undefined) literals.set(name, (spelled = stringLiteral(name)));
  return spelled;
}

/**
 * A top-level field of the schema's as its index reads it (sql/indexes.ts), the key spelled as a literal: a
 * statement that reads declared fields only has a fixed text, which is prepared (driver.ts `statementName`).
 */
function declaredValue(field: string): string {
  return jsonAt([literal(field)]);
}

class SqlTable<T extends Row> implements Table<T> {
  constructor(
    private readonly name: string,
    private readonly declaration: Declaration,
    private readonly state: UnitState,
  ) {}

  /**
   * Runs a statement. A `prepared` one has a fixed text (table and declared field names as literals, values as
   * parameters): every statement but a query's with a condition, whose text follows the condition.
   */
  private async run<R>(sql: string, params: readonly unknown[], prepared = true): Promise<R[]> {
    if (!this.state.open) throw new Error(`${this.name}: the unit of work is over`);
    // A write goes after the look-ups gathered before it, as it would had they run at once (see findBy).
    if (!sql.startsWith('SELECT') && this.state.gathering.size > 0) sendGathered(this.state);
    // Inserts held back go first, in the same order on the connection as had they been sent when made; then the
    // amounts added to this table, which the statement may read.
    const pending = this.state.deferred.splice(0);
    if (this.state.adding.size > 0) pending.push(...takeAdds(this.state, this.name));
    const held = pending.length > 0 ? pending.join('; ') : undefined;
    if (held !== undefined) this.state.trace?.(held, []);
    const sending = held === undefined ? undefined : this.state.sql.exec(held);
    this.state.trace?.(sql, params);
    const running = this.state.sql.query<R>(sql, params, prepared);
    if (sending) {
      // The statement after a failed one fails too (the transaction is aborted): the first failure is the one told.
      running.catch(() => undefined);
      await sending.catch((error: unknown) => throwShared(this.state, error));
    }
    if (!this.state.appending && !this.state.optimistic) return running;
    try {
      return await running;
    } catch (error) {
      // Appends (or optimistic units of work) running at once that each wait for a value (or a row) the other
      // holds: PostgreSQL breaks the deadlock by failing one, which runs again.
      if ((error as { code?: string }).code === DEADLOCK) this.refuseShared('conflict');
      throw error;
    }
  }

  /** What a statement reads of each row: its document, and in an optimistic unit of work its version too. */
  private get columns(): string {
    return this.state.optimistic ? 'doc, xmin::text AS v' : 'doc';
  }

  /**
   * Notes the versions of the rows an optimistic unit of work read. A row read again at another version was
   * changed by another unit of work in between (statements each see what is committed when they run): the unit
   * has seen two versions of it, and is refused.
   */
  private seen<R extends { doc: T; v?: string }>(rows: R[]): R[] {
    const { optimistic, versions } = this.state;
    if (optimistic === undefined) return rows;
    for (const { doc, v } of rows) {
      const key = this.key(doc.id);
      const known = versions.get(key);
      if (known === undefined) versions.set(key, v!);
      else if (known !== MINE && known !== v) refuseConflict(optimistic, this.name, 'changed');
    }
    return rows;
  }

  /**
   * In a unit of work that runs beside others of its project (an append, an optimistic one), refuses what
   * neither may meet: a taken value, a kept table, a deadlock PostgreSQL broke. Elsewhere, does nothing.
   */
  private refuseShared(reason: SharedReason): void {
    refuseShared(this.state, this.name, reason);
  }

  /** In an optimistic unit of work, notes a row it wrote (or locked): it holds the row's lock to its end. */
  private wrote(key: string): void {
    if (this.state.optimistic) this.state.versions.set(key, MINE);
  }

  /** The rows of this table in this project. */
  private scope(params: Params): string {
    return `project_id = ${params.add(this.state.projectId, 'text')} AND tbl = ${literal(this.name)}`;
  }

  /** The field equals the value, as an index lookup reads it (the memory store's Map: `'5'` is not `5`). */
  private matches(field: string, value: unknown, params: Params): string {
    if (!this.declaration.indexed.includes(field)) throw new Error(`${this.name}.${field} is not an indexed field`);
    if (value === null || value === undefined) {
      if (this.declaration.sparse?.includes(field)) throw new Error(`${this.name}.${field} is not indexed for ${String(value)}`);
      return `${declaredValue(field)} IS NULL`;
    }
    return `${declaredValue(field)} = ${params.add(JSON.stringify(value), 'jsonb')}`;
  }

  private key(id: string): string {
    return `${this.name}\u0000${id}`;
  }

  /**
   * This unit of work's copy of a kept table: the process's copy at the unit's version, else the table read
   * now (and kept for the units after). None for other tables, nor once this unit of work wrote the table.
   */
  private async copy(): Promise<MemoryTable<T> | undefined> {
    if (!this.declaration.kept || this.state.keptWritten.has(this.name)) return undefined;
    const { copies, projectId, keptVersion } = this.state;
    const kept = copies.table(projectId, keptVersion, this.name);
    if (kept) return kept as unknown as MemoryTable<T>;
    const params = new Params();
    const rows = await this.run<{ doc: T }>(`SELECT doc FROM store_rows WHERE ${this.scope(params)} ORDER BY seq`, params.values);
    const table = new MemoryTable<T>(this.name, this.declaration as unknown as TableDeclaration<T>, true);
    for (const { doc } of rows) table.addRow(table.kept(doc));
    // Read before any write of this unit of work (statements run in order): what the version names.
    copies.keep(projectId, keptVersion, this.name, table as unknown as MemoryTable<Row>);
    return table;
  }

  /**
   * Before a write to a kept table: the project's version moves on with this unit of work (once), and the unit
   * reads the table from the database from now on. An append may not: it runs beside other appends, which
   * would each move the version (and wait on each other for it).
   */
  private async keptWrite(): Promise<void> {
    if (!this.declaration.kept) return;
    this.refuseShared('kept table');
    const first = this.state.keptWritten.size === 0;
    this.state.keptWritten.add(this.name);
    if (first) await this.run('UPDATE store_projects SET kept_version = kept_version + 1 WHERE id = $1::text', [this.state.projectId]);
  }

  async get(id: string, options?: { forUpdate?: boolean }): Promise<T | undefined> {
    const copy = await this.copy();
    if (copy) return copy.rows.get(id);
    const key = this.key(id);
    if (options?.forUpdate === true && this.state.optimistic !== undefined && this.state.versions.get(key) !== MINE) {
      // A locking read goes to the database whatever this unit of work knows: it waits for a unit changing the
      // row, and reads it as that one left it (a version other than one read before refuses this unit).
      const row = await this.readById(id, true);
      this.state.known.set(key, row ?? null);
      if (row) this.wrote(key);
      return row;
    }
    const known = this.state.known.get(key);
    if (known !== undefined) return (known as T | null) ?? undefined;
    // Presenting a page reads each row's campaign at once: the first read's statement answers them all.
    const reading = this.state.loading.get(key);
    if (reading) return (await reading) as T | undefined;
    const read = (async () => {
      const row = await this.readById(id, false);
      // A write of this row sent after the read knows better than it.
      if (!this.state.known.has(key)) this.state.known.set(key, row ?? null);
      return row;
    })();
    this.state.loading.set(key, read);
    try {
      return await read;
    } finally {
      this.state.loading.delete(key);
    }
  }

  /** One row read from the database by ID (its version noted), locked when `locking`. */
  private async readById(id: string, locking: boolean): Promise<T | undefined> {
    const params = new Params();
    const sql = `SELECT ${this.columns} FROM store_rows WHERE ${this.scope(params)} AND id = ${params.add(id, 'text')}${locking ? ' FOR UPDATE' : ''}`;
    return this.seen(await this.run<{ doc: T; v?: string }>(sql, params.values))[0]?.doc;
  }

  async getBy(field: keyof T & string, value: unknown, options?: { forUpdate?: boolean }): Promise<T | undefined> {
    if (!this.declaration.unique.includes(field)) throw new Error(`${this.name}.${field} is not a unique field`);
    if (value === null || value === undefined) return undefined;
    const copy = await this.copy();
    if (copy) return copy.lookupUnique(field, value);
    const params = new Params();
    // Only an optimistic unit of work locks: a transaction holds its project alone, and a read cannot lock.
    const locking = options?.forUpdate === true && this.state.optimistic !== undefined;
    const sql = `SELECT ${this.columns} FROM store_rows WHERE ${this.scope(params)} AND ${declaredValue(field)} = ${params.add(JSON.stringify(value), 'jsonb')}${locking ? ' FOR UPDATE' : ''}`;
    const [row] = this.seen(await this.run<{ doc: T; v?: string }>(sql, params.values));
    // Locked, the row is this unit of work's to write until it ends, as one it wrote.
    if (locking && row) this.wrote(this.key(row.doc.id));
    return row?.doc;
  }

  /**
   * Look-ups of one field started at once (presenting a page reads each row's rule assignments) are gathered
   * into one statement: the first schedules it two microtask turns on, which callers running in step (the
   * presentations of a page under Promise.all) reach first; each caller then gets its own value's rows, in
   * insertion order. A look-up of null, and one alone, runs as it is.
   */
  async findBy(field: keyof T & string, value: unknown): Promise<T[]> {
    if (this.declaration.kept) {
      this.matches(field, value, new Params()); // refuses what the database would
      const copy = await this.copy();
      if (copy) return copy.lookupIndexed(field, value);
    }
    if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return this.findOne(field, value);
    this.matches(field, value, new Params()); // refuses a field that is not indexed, before anything waits
    const batchKey = `${this.name}\u0000${field}`;
    let batch = this.state.gathering.get(batchKey)?.waiting;
    if (!batch) {
      const gathered = new Map<string, Waiting>();
      batch = gathered;
      const entry = { waiting: gathered, send: () => void this.flush(field, gathered) };
      this.state.gathering.set(batchKey, entry);
      queueMicrotask(() =>
        queueMicrotask(() => {
          if (this.state.gathering.get(batchKey) !== entry) return; // a write sent it already
          this.state.gathering.delete(batchKey);
          entry.send();
        }),
      );
    }
    const json = JSON.stringify(value);
    let waiting = batch.get(json);
    if (!waiting) batch.set(json, (waiting = { value, callers: [] }));
    const { callers } = waiting;
    return new Promise<unknown[]>((resolve, reject) => callers.push({ resolve, reject })) as Promise<T[]>;
  }

  private async flush(field: keyof T & string, gathered: Map<string, Waiting>): Promise<void> {
    const all = [...gathered.values()];
    try {
      if (all.length === 1) {
        const rows = await this.findOne(field, all[0]!.value);
        for (const caller of all[0]!.callers) caller.resolve([...rows]);
        return;
      }
      const params = new Params();
      // Sorted here, not by the statement: ordered by seq, PostgreSQL would rather walk the project's whole
      // table in insertion order than read each value's index entries and sort them.
      const sql = `SELECT ${this.columns}, seq::float8 AS seq FROM store_rows WHERE ${this.scope(params)} AND ${declaredValue(field)} = ANY(${params.add([...gathered.keys()], 'jsonb[]')})`;
      const found = this.seen(await this.run<{ doc: T; seq: number; v?: string }>(sql, params.values));
      found.sort((a, b) => a.seq - b.seq);
      const byValue = new Map<string, T[]>();
      for (const { doc } of found) {
        const json = JSON.stringify((doc as unknown as Record<string, unknown>)[field]);
        const rows = byValue.get(json);
        if (rows) rows.push(doc);
        else byValue.set(json, [doc]);
      }
      for (const [json, { callers }] of gathered) for (const caller of callers) caller.resolve([...(byValue.get(json) ?? [])]);
    } catch (error) {
      for (const { callers } of all) for (const caller of callers) caller.reject(error);
    }
  }

  private async findOne(field: keyof T & string, value: unknown): Promise<T[]> {
    const params = new Params();
    const sql = `SELECT ${this.columns} FROM store_rows WHERE ${this.scope(params)} AND ${this.matches(field, value, params)} ORDER BY seq`;
    return this.seen(await this.run<{ doc: T; v?: string }>(sql, params.values)).map((row) => row.doc);
  }

  async countBy(field: keyof T & string, value: unknown): Promise<number> {
    const params = new Params();
    const condition = this.matches(field, value, params);
    const copy = await this.copy();
    if (copy) return copy.countIndexed(field, value);
    const sql = `SELECT count(*)::int AS n FROM store_rows WHERE ${this.scope(params)} AND ${condition}`;
    return (await this.run<{ n: number }>(sql, params.values))[0]!.n;
  }

  /** The row's non-null unique values, each read as its index reads it. */
  private uniqueValues(row: T, params: Params): { field: string; match: string }[] {
    const values: { field: string; match: string }[] = [];
    for (const field of this.declaration.unique) {
      const value = (row as unknown as Record<string, unknown>)[field];
      if (value !== null && value !== undefined) values.push({ field, match: `${declaredValue(field)} = ${params.add(JSON.stringify(value), 'jsonb')}` });
    }
    return values;
  }

  /**
   * After a write that did not happen: throws the UniqueViolation the memory store would (the id first, then
   * the unique fields in declared order), or says that the row is missing. A transaction runs alone on its
   * project, so nothing changed between the write and this look-up (an append or an optimistic unit of work
   * never gets here: it is refused first).
   */
  private async refusal(row: T, insert: boolean): Promise<never> {
    const params = new Params();
    const id = params.add(row.id, 'text');
    const taken = this.uniqueValues(row, params).map(
      ({ field, match }) => `SELECT ${params.add(field, 'text')} AS field FROM store_rows WHERE ${this.scope(params)} AND ${match} AND id <> ${id}`,
    );
    const sql = `SELECT EXISTS (SELECT 1 FROM store_rows WHERE ${this.scope(params)} AND id = ${id}) AS present,
      array(${taken.length > 0 ? taken.join(' UNION ALL ') : 'SELECT NULL::text WHERE false'}) AS taken`;
    const [{ present, taken: fields }] = (await this.run<{ present: boolean; taken: string[] }>(sql, params.values)) as [{ present: boolean; taken: string[] }];
    if (insert && present) throw new UniqueViolation(this.name, 'id', row.id);
    if (!insert && !present) throw new Error(`${this.name} has no row ${row.id} to update`);
    const field = this.declaration.unique.find((unique) => fields.includes(unique));
    if (field !== undefined) throw new UniqueViolation(this.name, field, (row as unknown as Record<string, unknown>)[field]);
    throw new Error(`${this.name}: row ${row.id} conflicts with a unique index the schema does not declare`);
  }

  /*
   * Writes never fail on a taken value: a failed statement would abort the whole PostgreSQL transaction, and
   * the domain may catch a UniqueViolation and go on in the same unit of work. An insert does nothing on a
   * conflict (with the primary key or any unique index), an update does nothing while another row holds one
   * of its unique values; either then finds out why (`refusal`).
   */

  async insert(row: T): Promise<T> {
    if (this.state.reading) refuseWrite(this.state.reading, this.name);
    await this.keptWrite();
    const params = new Params();
    const doc = JSON.stringify(row);
    const shared = this.state.appending !== undefined || this.state.optimistic !== undefined;
    if (!this.declaration.kept && (shared || (this.declaration.freshIds && this.declaration.unique.length === 0))) {
      // Nothing waits for its answer: it goes with the unit of work's next statement or its COMMIT, and costs no
      // round trip of its own. Either nothing can refuse it (no unique field, an ID nobody had), or the unit of
      // work runs beside others (an append, an optimistic one): a value taken (by a row committed since the unit
      // looked, or by a unit of work still running) then fails the statement it goes with, which refuses the
      // unit of work as an insert found taken at once does (`throwShared`), and it runs again as a transaction.
      const project = stringLiteral(this.state.projectId);
      if (shared) this.state.heldBack.add(this.name);
      this.state.deferred.push(`INSERT INTO store_rows (project_id, tbl, id, doc) VALUES (${project}, ${literal(this.name)}, ${stringLiteral(row.id)}, ${stringLiteral(doc)}::jsonb)`);
      this.count(1);
      this.wrote(this.key(row.id));
      return this.remember(JSON.parse(doc) as T);
    }
    const sql = `INSERT INTO store_rows (project_id, tbl, id, doc)
      VALUES (${params.add(this.state.projectId, 'text')}, ${params.add(this.name, 'text')}, ${params.add(row.id, 'text')}, ${params.add(doc, 'jsonb')})
      ON CONFLICT DO NOTHING RETURNING 1 AS written`;
    if ((await this.run(sql, params.values)).length === 0) {
      // Another append may hold the value without having committed it: only a transaction can tell.
      this.refuseShared('taken value');
      await this.refusal(row, true);
    }
    this.count(1);
    this.wrote(this.key(row.id));
    // What a later get returns: JSON's reading of the row (undefined fields gone), a plain object.
    return this.remember(JSON.parse(doc) as T);
  }

  private count(delta: number): void {
    this.state.counted.set(this.name, (this.state.counted.get(this.name) ?? 0) + delta);
  }

  async update(row: T): Promise<T> {
    if (this.state.reading) refuseWrite(this.state.reading, this.name);
    if (this.state.appending) refuseChange(this.state.appending, this.name, 'update');
    await this.keptWrite();
    const params = new Params();
    const doc = JSON.stringify(row);
    const id = params.add(row.id, 'text');
    const taken = this.uniqueValues(row, params).map(({ match }) => match);
    const free = taken.length === 0 ? '' : ` AND NOT EXISTS (SELECT 1 FROM store_rows WHERE ${this.scope(params)} AND id <> ${id} AND (${taken.join(' OR ')}))`;
    const sql = `UPDATE store_rows SET doc = ${params.add(doc, 'jsonb')} WHERE ${this.scope(params)} AND id = ${id}${this.asRead(row.id, params, true)}${free} RETURNING 1 AS written`;
    if ((await this.run(sql, params.values)).length === 0) await this.refusedUpdate(row);
    this.wrote(this.key(row.id));
    return this.remember(JSON.parse(doc) as T);
  }

  async delete(id: string): Promise<boolean> {
    if (this.state.reading) refuseWrite(this.state.reading, this.name);
    if (this.state.appending) refuseChange(this.state.appending, this.name, 'delete');
    await this.keptWrite();
    const params = new Params();
    const guarded = this.asRead(id, params, false);
    const sql = `DELETE FROM store_rows WHERE ${this.scope(params)} AND id = ${params.add(id, 'text')}${guarded} RETURNING 1 AS gone`;
    const gone = (await this.run(sql, params.values)).length > 0;
    // A row read, and since changed or deleted by another unit of work.
    if (!gone && guarded !== '') refuseConflict(this.state.optimistic!, this.name, 'changed');
    if (gone) this.count(-1);
    this.state.known.set(this.key(id), null);
    return gone;
  }

  /**
   * In an optimistic unit of work, what a write of a row adds to its statement's condition: that the row is
   * still the version this unit of work read (nothing once the unit wrote it, and holds its lock). An update
   * of a row it never read is refused; a delete of one is not guarded (it takes whatever is there).
   */
  private asRead(id: string, params: Params, update: boolean): string {
    const { optimistic, versions } = this.state;
    if (optimistic === undefined) return '';
    const version = versions.get(this.key(id));
    if (version === undefined && update) refuseConflict(optimistic, this.name, 'unread');
    if (version === undefined || version === MINE) return '';
    // PostgreSQL waits for a unit of work writing the row, then checks its new version against this one.
    return ` AND xmin = ${params.add(version, 'xid')}`;
  }

  /**
   * After an update that did not happen: what `refusal` finds, which in an optimistic unit of work refuses it,
   * for a value another row holds, or else for a row changed (or gone) since it was read.
   */
  private async refusedUpdate(row: T): Promise<never> {
    const { optimistic } = this.state;
    if (!optimistic) return this.refusal(row, false);
    try {
      return await this.refusal(row, false);
    } catch (error) {
      return refuseConflict(optimistic, this.name, error instanceof UniqueViolation ? 'taken value' : 'changed');
    }
  }

  /** Each page is one statement: the next `size` matches past the last row's place in insertion order (`seq`). */
  async *walk(query: Pick<Query<T>, 'where' | 'index'>, size: number): AsyncIterable<T[]> {
    if (!Number.isSafeInteger(size) || size < 1) throw new Error(`${this.name}: a walk needs pages of at least one row`);
    const copy = await this.copy();
    if (copy) {
      const { rows } = copy.select(query);
      for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
      return;
    }
    let after: string | undefined;
    for (;;) {
      const params = new Params();
      const filters = [this.scope(params)];
      if (after !== undefined) filters.push(`seq > ${params.add(after, 'bigint')}`);
      if (query.index) filters.push(this.matches(query.index.field, query.index.value, params));
      if (query.where) filters.push(compileCondition(query.where, params));
      // Named apart from the column, which ORDER BY would otherwise take it for.
      const sql = `SELECT ${this.columns}, seq::text AS place FROM store_rows WHERE ${filters.join(' AND ')} ORDER BY seq LIMIT ${size}`;
      const rows = this.seen(await this.run<{ doc: T; place: string; v?: string }>(sql, params.values, query.where === undefined));
      if (rows.length > 0) yield rows.map((row) => row.doc);
      if (rows.length < size) return;
      after = rows.at(-1)!.place;
    }
  }

  async add(row: T, amounts: Amounts): Promise<void> {
    if (this.state.reading) refuseWrite(this.state.reading, this.name);
    if (this.state.appending) refuseChange(this.state.appending, this.name, 'update');
    if (!this.state.open) throw new Error(`${this.name}: the unit of work is over`);
    await this.keptWrite();
    const key = this.key(row.id);
    const pending = this.state.adding.get(key);
    if (pending) pending.amounts = mergedAmounts(pending.amounts, amounts);
    else this.state.adding.set(key, { table: this.name, base: JSON.parse(JSON.stringify(row)) as Row, amounts: { ...amounts } });
    // What this unit of work read of the row no longer holds; the next read sends the amounts first. Once sent,
    // they hold the row's lock, so the row is this unit's to write, as one it wrote.
    this.state.known.delete(key);
    this.wrote(key);
  }

  private remember(row: T): T {
    this.state.known.set(this.key(row.id), row);
    return row;
  }

  async query(query: Query<T>): Promise<Page<T>> {
    const { orderBy, after } = query;
    if (after !== undefined && !orderBy) throw new Error(`${this.name}: a query with \`after\` needs \`orderBy\``);
    const copy = await this.copy();
    if (copy) return copy.select(query);
    const kind = orderBy ? (this.declaration.kinds?.[orderBy.field] ?? 'text') : undefined;
    const descending = orderBy?.direction === 'desc';
    // The rows the query matches: the page's and the count's statements each number their own parameters.
    const matching = (params: Params) => {
      const filters = [this.scope(params)];
      if (query.index) filters.push(this.matches(query.index.field, query.index.value, params));
      if (query.where) filters.push(compileCondition(query.where, params));
      if (orderBy && after !== undefined) {
        const key = sortKeyAt(literal(orderBy.field), kind!);
        const cursor = cursorValue(after, kind!, params);
        filters.push(descending ? `(${key} < ${cursor} OR ${key} IS NULL)` : `${key} > ${cursor}`);
      }
      return filters.join(' AND ');
    };
    const params = new Params();
    const where = matching(params);
    // Ties keep insertion order, reversed for descending; null sorts before every value, as in the memory store.
    const key = orderBy && sortKeyAt(literal(orderBy.field), kind!);
    const order = !key ? 'seq' : descending ? `${key} DESC NULLS LAST, seq DESC` : `${key} ASC NULLS FIRST, seq`;
    // The total rides along with the page as one sub-select; only an empty page past an offset, or a count
    // (limit 0), needs a second statement. A query over the whole table reads the table's kept count
    // (migrations/0008-row-counts.ts) instead of counting every row.
    const whole = !query.index && !query.where && after === undefined;
    const counted = (params: Params) =>
      whole
        ? `(SELECT coalesce(sum(n), 0)::int FROM store_counts WHERE project_id = ${params.add(this.state.projectId, 'text')} AND tbl = ${literal(this.name)})`
        : `(SELECT count(*)::int FROM store_rows WHERE ${matching(params)})`;
    let sql = `SELECT ${this.columns}, ${counted(params)} AS total FROM store_rows WHERE ${where} ORDER BY ${order}`;
    // A page's size is spelled in the text: as a parameter, PostgreSQL's generic plan of the prepared statement
    // guesses a tenth of the table, costs it above the custom plans, and so plans the page again on every run
    // (0.5 ms of planning to read ten rows, `make bench`). Page sizes are few (the API caps them), offsets not.
    if (query.limit !== undefined) sql += ` LIMIT ${Number.isSafeInteger(query.limit) && query.limit >= 0 ? String(query.limit) : params.add(query.limit, 'bigint')}`;
    if (query.offset) sql += ` OFFSET ${params.add(query.offset, 'bigint')}`;
    // Without a condition the text is fixed (the table, its fields, where the page starts): prepared.
    const prepared = query.where === undefined;
    const rows = this.seen(await this.run<{ doc: T; total: number; v?: string }>(sql, params.values, prepared));
    // The kept count has this unit of work's own inserts and deletes only once it commits.
    const pending = whole ? (this.state.counted.get(this.name) ?? 0) : 0;
    if (rows.length > 0) return { rows: rows.map((row) => row.doc), total: rows[0]!.total + pending };
    // Nothing skipped and room for rows, yet none: nothing matches.
    if (!query.offset && query.limit !== 0) return { rows: [], total: 0 };
    const countParams = new Params();
    const [count] = await this.run<{ total: number }>(`SELECT ${counted(countParams)} AS total`, countParams.values, prepared);
    return { rows: [], total: count!.total + pending };
  }
}

/** The kinds of unit of work that refuse some writes, by the UnitState field that holds what refuses them. */
type UnitKind = 'reading' | 'appending' | 'optimistic';

/** PostgreSQL's SQLSTATE for a deadlock it broke. */
const DEADLOCK = '40P01';
/** PostgreSQL's unique_violation: an insert held back (SqlTable.insert) met a value taken. */
const UNIQUE_VIOLATION = '23505';

/** One project's queue: how many units of work run, whether one of them runs alone, and who waits, in order. */
interface ProjectQueue {
  running: number;
  alone: boolean;
  readonly waiting: { readonly shared: boolean; readonly start: () => void }[];
}

/**
 * Per-project queues in this process, in front of the database's per-project lock: a unit of work waiting for
 * its project holds no connection, so a burst on one project cannot take every connection of the pool from
 * the other projects. Transactions run alone; appends run beside each other (the database's lock is then
 * shared). First come, first served: an append that comes after a waiting transaction waits for it.
 */
class ProjectQueues {
  private readonly queues = new Map<string, ProjectQueue>();

  async run<R>(projectId: string, work: () => Promise<R>, shared = false): Promise<R> {
    let queue = this.queues.get(projectId);
    if (!queue) this.queues.set(projectId, (queue = { running: 0, alone: false, waiting: [] }));
    const current = queue;
    const mayStart = () => !current.alone && (shared ? true : current.running === 0);
    if (current.waiting.length > 0 || !mayStart()) {
      await new Promise<void>((start) => current.waiting.push({ shared, start })); // `next` counts it in
    } else {
      current.running++;
      current.alone = !shared;
    }
    try {
      return await work();
    } finally {
      current.running--;
      current.alone = false;
      this.next(projectId, current);
    }
  }

  /** Starts who may start now, in order: a transaction once nothing runs, appends while no transaction does. */
  private next(projectId: string, queue: ProjectQueue): void {
    while (queue.waiting.length > 0) {
      const first = queue.waiting[0]!;
      if (queue.alone || (!first.shared && queue.running > 0)) return;
      queue.waiting.shift();
      // Counted in here, so that the next in line sees it before its own start runs.
      queue.running++;
      queue.alone = !first.shared;
      first.start();
    }
    if (queue.running === 0) this.queues.delete(projectId);
  }
}

/** The class of `exclusively`'s advisory locks: 'excl'. */
const EXCLUSIVE = 0x6578636c;

export class SqlStore<S extends Schema> implements Store<S> {
  private readonly queues = new ProjectQueues();
  private readonly copies = new KeptCopies();
  private readonly unitOfWork: (state: UnitState) => UnitOfWork<S>;

  constructor(
    readonly schema: S,
    readonly driver: Driver,
    private readonly options: SqlStoreOptions = {},
  ) {
    this.unitOfWork = lazyUnitOfWork<S, UnitState>(schema, (state, name) => new SqlTable(name, schema[name]!, state));
  }

  async createProject(projectId: string): Promise<void> {
    await this.driver.query('INSERT INTO store_projects (id) VALUES ($1::text) ON CONFLICT DO NOTHING', [projectId]);
  }

  async hasProject(projectId: string): Promise<boolean> {
    return (await this.driver.query('SELECT 1 FROM store_projects WHERE id = $1::text', [projectId])).length > 0;
  }

  async dropProject(projectId: string): Promise<void> {
    // Under the project's lock, so it waits for the units of work running on the project, here or elsewhere.
    await this.queues.run(projectId, () =>
      this.driver.transaction(async (sql) => {
        await sql.query('SELECT store_enter($1::text)', [projectId]);
        await sql.query('DELETE FROM store_rows WHERE project_id = $1::text', [projectId]);
        await sql.query('DELETE FROM store_projects WHERE id = $1::text', [projectId]);
        await sql.query('DELETE FROM store_counts WHERE project_id = $1::text', [projectId]);
      }),
    );
    this.copies.drop(projectId);
  }

  async projectIds(): Promise<string[]> {
    return (await this.driver.query<{ id: string }>('SELECT id FROM store_projects ORDER BY seq')).map((row) => row.id);
  }

  transaction<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    let state: UnitState | undefined;
    return this.queues.run(projectId, () =>
      this.driver.transaction(
        async (sql, [entered]) => {
          const version = entered!.version as string | null;
          if (version === null) throw new UnknownProject(projectId);
          const unit = (state = this.unitState(sql, projectId, version, {}));
          try {
            return await work(this.unitOfWork(unit));
          } finally {
            unit.open = false;
          }
        },
        { first: `SELECT store_enter_kept(${stringLiteral(projectId)}, false) AS version`, last: () => commitStatements(state) },
      ),
    );
  }

  private unitState(sql: Session, projectId: string, keptVersion: string, { reading, appending, optimistic }: Partial<Record<UnitKind, ReadAttempt>>): UnitState {
    return {
      sql,
      projectId,
      trace: this.options.trace,
      open: true,
      reading,
      appending,
      optimistic,
      versions: new Map(),
      known: new Map(),
      loading: new Map(),
      gathering: new Map(),
      deferred: [],
      heldBack: new Set(),
      adding: new Map(),
      counted: new Map(),
      keptVersion,
      keptWritten: new Set(),
      copies: this.copies,
    };
  }

  /**
   * A read's or an append's work, on the project's kept version (null: no such project), with what refuses
   * what it may not do.
   */
  private async attempt<R>(
    sql: Session,
    projectId: string,
    version: unknown,
    kind: UnitKind,
    work: (uow: UnitOfWork<S>) => Promise<R>,
    begun?: (state: UnitState) => void,
  ): Promise<R> {
    if (typeof version !== 'string') throw new UnknownProject(projectId);
    const attempt: ReadAttempt = { refused: undefined };
    const state = this.unitState(sql, projectId, version, { [kind]: attempt });
    begun?.(state);
    try {
      return await endOfRead(attempt, work(this.unitOfWork(state)));
    } finally {
      state.open = false;
    }
  }

  /**
   * An append holds its project's lock shared (store_enter_shared), beside the project's other appends and
   * never beside a transaction, which holds it alone; in READ COMMITTED, as a transaction. Appends only
   * insert, so what one reads is what the transactions before it left plus other appends' new rows, and
   * a new row can only matter to another append through a unique value, which the database's unique
   * indexes hold: the second insert of a value waits for the first's commit and is then refused.
   */
  append<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    return this.shared(projectId, 'appending', work);
  }

  /**
   * An optimistic unit of work holds its project's lock shared, as an append does, beside the project's appends
   * and other optimistic units of work and never beside a transaction; in READ COMMITTED. It reads each row with
   * its version (`xmin`, which every update of the row changes) and writes a row it read only while it is still
   * that version (`AND xmin = …`: PostgreSQL waits for a unit writing the row, then checks the row it left).
   * From its first write of a row to its end it holds the row's lock, so units of work changing different rows
   * (vouchers, customers) run at once, and two changing one row run as if one after the other, the second
   * refused and run again (optimisticFirst) if it read the row before the first wrote it.
   */
  optimistic<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    return this.shared(projectId, 'optimistic', work);
  }

  /** A unit of work beside others of its project: an append or an optimistic one (the project's lock shared). */
  private shared<R>(projectId: string, kind: 'appending' | 'optimistic', work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    let state: UnitState | undefined;
    let committing = false;
    return this.queues.run(
      projectId,
      () =>
        this.driver
          .transaction(
            (sql, [entered]) => this.attempt(sql, projectId, entered!.version, kind, work, (begun) => (state = begun)),
            {
              first: `SELECT store_enter_kept(${stringLiteral(projectId)}, true) AS version`,
              last: () => {
                committing = true;
                return commitStatements(state);
              },
            },
          )
          .catch((error: unknown) => {
            // The statements sent with the COMMIT (inserts held back) failed: the unit of work is refused.
            if (committing) throwShared(state, error);
            throw error;
          }),
      true,
    );
  }

  /**
   * A read takes neither the project's lock nor its place in this process's queue: it runs beside the project's
   * units of work, here and in other processes, on one snapshot of what they committed (REPEATABLE READ), read
   * only, so PostgreSQL refuses a write that got past the tables' own refusal. A read-only transaction at that
   * level never fails to serialize. On PGlite, with one connection, it still waits for the transaction before.
   */
  read<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
    return this.driver.transaction(
      (sql, [project]) => this.attempt(sql, projectId, project!.version, 'reading', work),
      { readOnly: true, first: `SELECT (SELECT seq || ':' || kept_version FROM store_projects WHERE id = ${stringLiteral(projectId)}) AS version` },
    );
  }

  /**
   * One statement: the rows to claim are picked and row-locked with SKIP LOCKED, so that claims running at once
   * (here or in another process) each pass over the rows another holds, and a row another claim leased and
   * committed meanwhile is checked again against the lease condition before it is locked (PostgreSQL re-reads
   * a row it locks). The project's lock is not taken: a claim writes only the lease fields, and must not wait
   * behind a busy project's units of work.
   */
  async claim<K extends keyof S & string>(name: K, request: ClaimRequest<RowOf<S[K]>>): Promise<Claimed<RowOf<S[K]>>[]> {
    // A claim writes outside any unit of work, so it cannot move a kept table's version.
    if ((this.schema[name] as Declaration).kept) throw new Error(`${name} is a kept table: its rows are not claimed`);
    const { field, direction } = request.orderBy;
    const kind = (this.schema[name] as Declaration).kinds?.[field] ?? 'text';
    const params = new Params();
    const condition = and(request.where, leaseFree(request.now), ...(request.index ? [eq(request.index.field, request.index.value as Scalar)] : []));
    const where = compileCondition(condition, params);
    const key = sortKey(field, kind, params);
    const order = direction === 'desc' ? `${key} DESC NULLS LAST, seq DESC` : `${key} ASC NULLS FIRST, seq`;
    const table = params.add(name, 'text');
    // With a room per project, the candidates are ranked within their project first (a window cannot be locked,
    // so the rows chosen are locked after, and those another claim holds skipped then). `ranked` has no `doc`
    // or `seq`, so the compiled expressions read the joined row's.
    const picked = request.perProject
      ? `ranked AS (
        SELECT project_id, tbl, id, row_number() OVER (PARTITION BY project_id ORDER BY ${order}) AS place
          FROM store_rows WHERE tbl = ${table} AND ${where}
      ), picked AS (
        SELECT r.project_id, r.tbl, r.id FROM store_rows r JOIN ranked USING (project_id, tbl, id)
         WHERE ranked.place <= coalesce((${params.add(JSON.stringify(request.perProject.of ?? {}), 'jsonb')} ->> project_id)::int, ${params.add(request.perProject.default, 'bigint')})
           AND ${compileCondition(condition, params)}
         ORDER BY ${sortKey(field, kind, params)} ${direction === 'desc' ? 'DESC NULLS LAST, seq DESC' : 'ASC NULLS FIRST, seq'}
         LIMIT ${params.add(request.limit, 'bigint')} FOR UPDATE OF r SKIP LOCKED
      )`
      : `picked AS (
        SELECT project_id, tbl, id FROM store_rows WHERE tbl = ${table} AND ${where}
        ORDER BY ${order} LIMIT ${params.add(request.limit, 'bigint')} FOR UPDATE SKIP LOCKED
      )`;
    const sql = `WITH ${picked}, claimed AS (
        UPDATE store_rows r
           SET doc = r.doc || jsonb_build_object('leased_by', ${params.add(request.owner, 'text')}, 'lease_until', ${params.add(request.now + request.leaseMs, 'float8')})
          FROM picked WHERE r.project_id = picked.project_id AND r.tbl = ${table} AND r.tbl = picked.tbl AND r.id = picked.id
        RETURNING r.project_id, r.doc, r.seq
      )
      SELECT project_id, doc FROM claimed ORDER BY ${order}`;
    this.options.trace?.(sql, params.values);
    const rows = await this.driver.query<{ project_id: string; doc: RowOf<S[K]> }>(sql, params.values);
    return rows.map((row) => ({ projectId: row.project_id, row: row.doc }));
  }

  private readonly held = new Set<string>();

  /**
   * On PostgreSQL, a transaction-scoped advisory lock (two-key form: class 'excl' and the key's hash, never a
   * project's one-key lock) held on a connection of its own while `work` runs on others. PGlite is one process's
   * database with one connection, which `work` needs: there, the lock is this process's.
   */
  async exclusively<R>(key: string, work: () => Promise<R>): Promise<{ ran: true; result: R } | { ran: false }> {
    if (this.held.has(key)) return { ran: false };
    this.held.add(key);
    try {
      if (!this.driver.concurrent) return { ran: true, result: await work() };
      return await this.driver.transaction(async (sql) => {
        const [lock] = await sql.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock($1::int4, hashtext($2::text)) AS got', [EXCLUSIVE, key]);
        if (!lock!.got) return { ran: false as const };
        return { ran: true as const, result: await work() };
      });
    } finally {
      this.held.delete(key);
    }
  }

  get durable(): boolean {
    return this.driver.durable;
  }

  /** How the database's indexes differ from the schema's declarations (see sql/indexes.ts). */
  indexDrift(): Promise<IndexDrift> {
    return indexDrift(this.driver, this.schema);
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}

/** Migrates, then opens the store; refuses a database whose indexes do not match the schema's declarations. */
export async function openSqlStore<S extends Schema>(schema: S, driver: Driver, options: SqlStoreOptions = {}): Promise<SqlStore<S>> {
  try {
    await migrate(driver, options.migrations ?? MIGRATIONS);
    const store = new SqlStore(schema, driver, options);
    const { missing, unexpected } = await store.indexDrift();
    if (missing.length > 0) throw new Error(`Declared indexes that no migration creates: ${missing.join('; ')}`);
    if (unexpected.length > 0) throw new Error(`Unique indexes that no declaration asks for: ${unexpected.join('; ')}`);
    return store;
  } catch (error) {
    await driver.close();
    throw error;
  }
}

/** The store on a PostgreSQL server (`DATABASE_URL=postgres://…`). */
export function openPostgresStore<S extends Schema>(schema: S, url: string, options: SqlStoreOptions & { pool?: pg.PoolConfig } = {}): Promise<SqlStore<S>> {
  return openSqlStore(schema, pgDriver(url, options.pool), options);
}

/** The store on PGlite: in memory without a directory, kept in the directory (`DATA_DIR`) with one. */
export async function openPgliteStore<S extends Schema>(schema: S, dataDir?: string, options: SqlStoreOptions = {}): Promise<SqlStore<S>> {
  return openSqlStore(schema, await pgliteDriver(dataDir), options);
}

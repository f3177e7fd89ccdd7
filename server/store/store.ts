/**
 * The storage boundary. Everything the engine keeps goes through `Store`, so that the in-memory
 * implementation can be swapped for a database one. All calls are asynchronous, and every write happens
 * inside one unit of work per project: it commits whole or not at all.
 */
import { compare, isNull, or, type Condition } from './conditions.js';
import type { Row, RowOf, Schema } from './schema.js';
import type { Amounts } from './amounts.js';

export type { Row } from './schema.js';

export interface Query<T> {
  /** Scan only the rows whose indexed field equals the value (a hint; a SQL store reads it as one more condition). */
  index?: { field: keyof T & string; value: unknown };
  /** Rows that do not meet the condition are left out (see conditions.ts for what each condition means). */
  where?: Condition;
  /** Sort key; ties keep insertion order (reversed for descending). Without it, insertion order. */
  orderBy?: { field: keyof T & string; direction: 'asc' | 'desc' };
  /**
   * With `orderBy`: only rows whose sort key comes strictly after this value in the query's direction (a
   * keyset cursor). `total` counts those rows.
   */
  after?: string | number;
  offset?: number;
  limit?: number;
}

export interface Page<T> {
  rows: T[];
  /** Every row matching `where`, ignoring offset and limit. */
  total: number;
}

export interface Table<T extends Row> {
  /** A row by ID; with `forUpdate`, an optimistic unit of work also takes the row's lock, as `getBy` does. */
  get(id: string, options?: { forUpdate?: boolean }): Promise<T | undefined>;
  /**
   * Looks a row up by a field declared unique for the table. With `forUpdate`, an optimistic unit of work
   * (Store.optimistic) also takes the row's lock, waiting for a unit of work that is changing it, and reads the
   * row as that one left it: a row that many units of work change at once (a public code's voucher) is then
   * changed by one after another, instead of sending all but one round again. Other units of work read as ever.
   */
  getBy(field: keyof T & string, value: unknown, options?: { forUpdate?: boolean }): Promise<T | undefined>;
  /** Rows whose indexed field equals the value, in insertion order. */
  findBy(field: keyof T & string, value: unknown): Promise<T[]>;
  /** How many rows have the indexed field equal to the value. */
  countBy(field: keyof T & string, value: unknown): Promise<number>;
  /** Throws UniqueViolation when the id or a unique field is taken. */
  insert(row: T): Promise<T>;
  /** Replaces the row with the same id. Throws UniqueViolation as insert does. */
  update(row: T): Promise<T>;
  delete(id: string): Promise<boolean>;
  query(query: Query<T>): Promise<Page<T>>;
  /**
   * Adds each amount to the number at its path in the row with `row`'s ID (amounts.ts), or inserts `row` with the
   * amounts added when there is none: running totals that many units of work move (a campaign's counters of the
   * hour). Amounts added to one row at once all count, since they commute: a SQL store adds them with the unit
   * of work's COMMIT (or before its next statement on the table), holding the row's lock only that long, and an
   * optimistic unit of work never conflicts on them. Refused in a read, and in an append as an update is.
   */
  add(row: T, amounts: Amounts): Promise<void>;
  /**
   * The rows that meet the query's condition, in insertion order, `size` at a time: a walk over a table that
   * holds no more than a page in hand, where a query would read every match at once. A SQL store reads each page
   * by the table's insertion-order index, after the last row of the page before (rows inserted meanwhile by
   * others may or may not come). Stop early by leaving the loop.
   */
  walk(query: Pick<Query<T>, 'where' | 'index'>, size: number): AsyncIterable<T[]>;
}

export type UnitOfWork<S extends Schema> = { readonly [K in keyof S]: Table<RowOf<S[K]>> };

/** The fields a claimable row carries: which claimer holds it, and until when (ms since the epoch). */
export interface Leased {
  leased_by?: string | null;
  lease_until?: number | null;
}

export interface ClaimRequest<T> {
  /** Which rows may be claimed (besides a lease that is free or lapsed). */
  where: Condition;
  /** The order rows are claimed in, across every project; ties keep insertion order. */
  orderBy: { field: keyof T & string; direction: 'asc' | 'desc' };
  limit: number;
  /** Who claims: written to `leased_by`. */
  owner: string;
  /** The claimer's time (ms since the epoch): a lease whose `lease_until` is at or before it has lapsed. */
  now: number;
  /** How long the lease runs from `now`. */
  leaseMs: number;
  /** Scan only the rows whose indexed field equals the value (a hint, as in Query; a SQL store reads it as a condition). */
  index?: { field: keyof T & string; value: unknown };
  /**
   * At most so many rows of one project: `of[projectId]`, or `default` for a project `of` does not name (a
   * claimer holding some of a project's rows already claims only what it has room for).
   */
  perProject?: { default: number; of?: Readonly<Record<string, number>> };
}

/** How many rows of a project a claim may take (ClaimRequest.perProject), at most `limit`. */
export function claimRoom(request: Pick<ClaimRequest<unknown>, 'limit' | 'perProject'>, projectId: string): number {
  if (!request.perProject) return request.limit;
  const room = Object.hasOwn(request.perProject.of ?? {}, projectId) ? request.perProject.of![projectId]! : request.perProject.default;
  return Math.max(0, Math.min(request.limit, room));
}

/** A row whose lease is free or lapsed at `now`: what a claim may take, besides its own condition. */
export function leaseFree(now: number): Condition {
  return or(isNull('lease_until'), compare('lte', 'lease_until', now));
}

export interface Claimed<T> {
  projectId: string;
  /** The row as claimed (its lease fields set). */
  row: T;
}

export interface Store<S extends Schema> {
  /** The tables this store keeps. */
  readonly schema: S;
  /** Adds an empty partition for a project. Idempotent. */
  createProject(projectId: string): Promise<void>;
  hasProject(projectId: string): Promise<boolean>;
  /** Removes a project's partition and all of its data, once no unit of work is running on it. */
  dropProject(projectId: string): Promise<void>;
  projectIds(): Promise<string[]>;
  /**
   * Runs `work` against one project's data. Units of work on the same project run one at a time; when
   * `work` throws, every write it made is undone before the error propagates.
   */
  transaction<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R>;
  /**
   * Runs `work`, which is meant only to read, against one project's data: a consistent view of what units of
   * work have committed, which a store may give without waiting for the project's writer (a database does;
   * the memory store, whose writes are visible as they are made, still waits). Every write in it is refused
   * with `WriteInRead`, and once one was, `read` rejects with `WriteInRead` whatever `work` did with the
   * refusal, having kept nothing. `readFirst` then runs the work again with `transaction`.
   */
  read<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R>;
  /**
   * Runs `work`, which is meant only to add rows (making a customer, with its events), against one project's
   * data: beside the project's other such units of work, which a store may run at once (a database does; the
   * memory store runs them one at a time), and never beside a transaction. Each sees what the others commit as
   * they commit it, so only an insert can tell one from another, and a taken unique value tells. An update, a
   * delete, an insert refused as taken (the UniqueViolation a transaction would see), an insert into a kept
   * table (TableDeclaration.kept), and a conflict the database breaks, are each refused with `ChangeInAppend`; once one was, `append` rejects with it whatever
   * `work` did with the refusal, having kept nothing. `appendFirst` then runs the work again with `transaction`,
   * which gives the answer a transaction gives.
   */
  append<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R>;
  /**
   * Runs `work`, which changes a few rows it has read (a redemption: its voucher and its customer), against one
   * project's data: beside the project's appends and other such units of work, which a store may run at once (a
   * database does; the memory store runs them one at a time), and never beside a transaction. Each update and
   * delete of a row it read must find the row as it read it, so no change of another unit is lost or written
   * over. Each row it reads must read the same every time. It is refused with `ChangeConflict` when a row it
   * read was changed by another unit of work since (or a deadlock was broken: 'changed'), when it updates a row
   * it never read ('unread'), meets a taken value ('taken value', as an append), or writes a kept table ('kept
   * table'); once one was, `optimistic` rejects with it whatever `work` did with the refusal, having kept
   * nothing. `optimisticFirst` then runs the work again. What it reads without changing may change meanwhile:
   * it guards the rows it changes, as a database's row locks would, not every row it looked at.
   */
  optimistic<R>(projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R>;
  /**
   * Claims, across every project, up to `limit` rows of a table that meet `where` and whose lease is free
   * (no `lease_until`) or lapsed, in `orderBy` order, and leases them to `owner` until `now + leaseMs`. A row
   * is never claimed by two callers at once, whichever store instances (server processes) they use. The claim
   * writes only the two lease fields; whoever holds a lease gives it up by writing them (null) in a unit of
   * work. A unit of work that writes a row it did not claim may overwrite a lease taken since it read the row.
   */
  claim<K extends keyof S & string>(table: K, request: ClaimRequest<RowOf<S[K]>>): Promise<Claimed<RowOf<S[K]>>[]>;
  /**
   * Runs `work` while holding the lock named `key`, shared by every store instance on the same data, unless
   * another caller holds it: then does not run it and returns `{ ran: false }`. For work that one instance at a
   * time should do (settling a project on a timer), where the others simply skip it.
   */
  exclusively<R>(key: string, work: () => Promise<R>): Promise<{ ran: true; result: R } | { ran: false }>;
  /** Whether the data outlives this process (a database), so that work left pending is taken up after a restart. */
  readonly durable: boolean;
  /** Releases what the store holds (connections, files). The store is not used afterwards. */
  close(): Promise<void>;
}

export class UniqueViolation extends Error {
  constructor(
    readonly table: string,
    readonly field: string,
    readonly value: unknown,
  ) {
    super(`${table}.${field} already holds ${JSON.stringify(value)}`);
    this.name = 'UniqueViolation';
  }
}

/** A write in a unit of work begun with `read`: refused, and what `read` then rejects with. */
export class WriteInRead extends Error {
  constructor(readonly table: string) {
    super(`${table}: a unit of work begun as a read cannot write`);
    this.name = 'WriteInRead';
  }
}

/** A change that a unit of work begun with `append` cannot make (see Store.append). */
export class ChangeInAppend extends Error {
  constructor(
    readonly table: string,
    readonly change: 'update' | 'delete' | 'taken value' | 'conflict' | 'kept table',
  ) {
    super(`${table}: a unit of work begun as an append cannot make this change (${change})`);
    this.name = 'ChangeInAppend';
  }
}

/** A change that a unit of work begun with `optimistic` cannot make (see Store.optimistic). */
export class ChangeConflict extends Error {
  constructor(
    readonly table: string,
    readonly reason: 'changed' | 'unread' | 'taken value' | 'kept table',
  ) {
    super(`${table}: a unit of work begun as optimistic cannot make this change (${reason})`);
    this.name = 'ChangeConflict';
  }
}

/** A unit of work begun with `read`, `append` or `optimistic`: the first write or change it tried, refused. */
export interface ReadAttempt {
  refused: WriteInRead | ChangeInAppend | ChangeConflict | undefined;
}

/** Refuses a write in a read, keeping the refusal. */
export function refuseWrite(attempt: ReadAttempt, table: string): never {
  throw (attempt.refused ??= new WriteInRead(table));
}

/** Refuses a change in an append, keeping the refusal. */
export function refuseChange(attempt: ReadAttempt, table: string, change: ChangeInAppend['change']): never {
  throw (attempt.refused ??= new ChangeInAppend(table, change));
}

/** Refuses a change in an optimistic unit of work, keeping the refusal. */
export function refuseConflict(attempt: ReadAttempt, table: string, reason: ChangeConflict['reason']): never {
  throw (attempt.refused ??= new ChangeConflict(table, reason));
}

/**
 * The end of a read: its result when it tried no write, else the refusal of its first, even when `work` caught
 * it and returned or threw something else.
 */
export async function endOfRead<R>(attempt: ReadAttempt, running: Promise<R>): Promise<R> {
  let result: R;
  try {
    result = await running;
  } catch (error) {
    throw attempt.refused ?? error;
  }
  if (attempt.refused) throw attempt.refused;
  return result;
}

/** Runs `work` with `first`, and again as a transaction when `first` refused one of its writes with `refusal`. */
async function orTransaction<S extends Schema, R>(
  store: Store<S>,
  first: Store<S>['read'],
  refusal: typeof WriteInRead | typeof ChangeInAppend,
  projectId: string,
  work: (uow: UnitOfWork<S>) => Promise<R>,
): Promise<R> {
  try {
    return await first(projectId, work);
  } catch (error) {
    if (!(error instanceof refusal)) throw error;
  }
  return store.transaction(projectId, work);
}

/**
 * Runs work that usually only reads (a GET) as a read, and again as a transaction when it turns out to write
 * (settling loyalty points that fell due, say). The work may run twice, so it must do nothing outside the
 * store before its first write.
 */
export function readFirst<S extends Schema, R>(store: Store<S>, projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
  return orTransaction(store, (id, run) => store.read(id, run), WriteInRead, projectId, work);
}

/**
 * Runs work that usually only adds rows (making a customer) as an append, beside the project's other appends,
 * and again as a transaction when it turns out to change a row or to meet a taken value. As with `readFirst`,
 * the work may run twice, so it must do nothing outside the store before its first write.
 */
export function appendFirst<S extends Schema, R>(store: Store<S>, projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
  return orTransaction(store, (id, run) => store.append(id, run), ChangeInAppend, projectId, work);
}

/** How many times `optimisticFirst` runs work as optimistic before it runs it as a transaction. */
export const OPTIMISTIC_TRIES = 3;

/**
 * Runs work that changes a few rows it reads (a redemption) as optimistic, beside the project's other such units
 * of work; again as optimistic when a row it read changed meanwhile (up to OPTIMISTIC_TRIES runs in all), and
 * as a transaction when it still does, or when it was refused for anything else (a taken value, a kept table,
 * a row it updates unread), which gives the answer a transaction gives. As with `readFirst`, the work may run
 * more than once, so it must do nothing outside the store before its first write.
 */
export async function optimisticFirst<S extends Schema, R>(store: Store<S>, projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>): Promise<R> {
  for (let run = 1; run <= OPTIMISTIC_TRIES; run++) {
    try {
      return await store.optimistic(projectId, work);
    } catch (error) {
      if (!(error instanceof ChangeConflict)) throw error;
      if (error.reason !== 'changed') break;
    }
  }
  return store.transaction(projectId, work);
}

export class UnknownProject extends Error {
  constructor(readonly projectId: string) {
    super(`No project ${projectId}`);
    this.name = 'UnknownProject';
  }
}

/**
 * A unit of work whose tables are made on first use. A request touches a handful of the project's tables,
 * and the layers over the store (the memory store's undo log, metadata checks, the outbox) each wrap the
 * tables of a unit of work: making all of them up front was a large share of the time a cheap read took
 * (`make bench`). The getters live on one prototype per layer, so a unit of work costs one small object.
 * `make` gets the state the layer gave this unit of work and the table's name.
 *
 * The tables made are kept in an array, not in a plain object filled in by name: each unit of work filled its
 * object in its own order, so the object's shape differed from request to request and every table access (four
 * layers deep) became a megamorphic property look-up. Once a server had served a mix of routes, that getter
 * was 7 to 11% of the CPU time of a validation, a redemption and a customer read or update in `make bench`'s
 * profiles; with a Map it was gone from their top functions.
 */
export function lazyUnitOfWork<S extends Schema, State>(schema: S, make: (state: State, name: keyof S & string) => Table<Row>): (state: State) => UnitOfWork<S> {
  interface Instance {
    state: State;
    /** The tables made, by their place among the schema's tables. */
    made: (Table<Row> | undefined)[];
  }
  const names = Object.keys(schema);
  const prototype = {};
  names.forEach((name, place) => {
    Object.defineProperty(prototype, name, {
      enumerable: true,
      get(this: Instance) {
        let table = this.made[place];
        if (table === undefined) this.made[place] = table = make(this.state, name);
        return table;
      },
    });
  });
  return (state) => {
    const instance = Object.create(prototype) as Instance;
    instance.state = state;
    // An array with a slot per table, read by a place each getter knows: the Map it replaces hashed the name on
    // every access (four layers deep) and grew as a request touched more tables (store.ts's getter was about
    // 1.5% of a customer update's CPU in `make bench`'s profile).
    instance.made = new Array(names.length);
    return instance as unknown as UnitOfWork<S>;
  };
}

/**
 * A table that passes every operation to `inner`: the layers over a store (retention, metadata checks, the
 * outbox) extend it and replace the operations they watch, keeping what they need in fields. The methods live
 * on the prototype, so wrapping a table costs one small object per unit of work; a closure per operation, as
 * the layers first made them, allocated more than the read they wrapped (heap sampling under `make bench`).
 */
export class PassThroughTable<T extends Row> implements Table<T> {
  constructor(protected readonly inner: Table<T>) {}

  get(id: string, options?: { forUpdate?: boolean }): Promise<T | undefined> {
    return this.inner.get(id, options);
  }

  getBy(field: keyof T & string, value: unknown, options?: { forUpdate?: boolean }): Promise<T | undefined> {
    return this.inner.getBy(field, value, options);
  }

  findBy(field: keyof T & string, value: unknown): Promise<T[]> {
    return this.inner.findBy(field, value);
  }

  countBy(field: keyof T & string, value: unknown): Promise<number> {
    return this.inner.countBy(field, value);
  }

  insert(row: T): Promise<T> {
    return this.inner.insert(row);
  }

  update(row: T): Promise<T> {
    return this.inner.update(row);
  }

  delete(id: string): Promise<boolean> {
    return this.inner.delete(id);
  }

  query(query: Query<T>): Promise<Page<T>> {
    return this.inner.query(query);
  }

  add(row: T, amounts: Amounts): Promise<void> {
    return this.inner.add(row, amounts);
  }

  walk(query: Pick<Query<T>, 'where' | 'index'>, size: number): AsyncIterable<T[]> {
    return this.inner.walk(query, size);
  }
}

/** How a layer over a store runs a unit of work that writes, given how the store below runs it (`transaction`, `append` or `optimistic`). */
export type UnitRunner<S extends Schema> = <R>(run: Store<S>['transaction'], projectId: string, work: (uow: UnitOfWork<S>) => Promise<R>) => Promise<R>;

/**
 * A store that runs each unit of work that writes (`transaction`, `append`, `optimistic`) through `runner` and leaves
 * everything else to `store`: the layers over a store (retention, the outbox, metadata checks) differ only in
 * how a unit of work runs. They watch writes only, and a read writes nothing, so reads go to `store` as they are.
 */
export function withTransaction<S extends Schema>(store: Store<S>, runner: UnitRunner<S>): Store<S> {
  const transaction: Store<S>['transaction'] = (projectId, work) => store.transaction(projectId, work);
  const append: Store<S>['transaction'] = (projectId, work) => store.append(projectId, work);
  const optimistic: Store<S>['transaction'] = (projectId, work) => store.optimistic(projectId, work);
  return {
    schema: store.schema,
    createProject: (projectId) => store.createProject(projectId),
    hasProject: (projectId) => store.hasProject(projectId),
    dropProject: (projectId) => store.dropProject(projectId),
    projectIds: () => store.projectIds(),
    claim: (table, request) => store.claim(table, request),
    exclusively: (key, work) => store.exclusively(key, work),
    durable: store.durable,
    close: () => store.close(),
    transaction: (projectId, work) => runner(transaction, projectId, work),
    append: (projectId, work) => runner(append, projectId, work),
    optimistic: (projectId, work) => runner(optimistic, projectId, work),
    read: (projectId, work) => store.read(projectId, work),
  };
}

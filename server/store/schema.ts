/**
 * What a store is told about the tables it keeps. The store knows nothing of the domain: each domain module
 * declares its own tables with `table<Row>()`, the domain gathers them into one schema, and whoever builds
 * the store (server/app.ts, the tests) hands that schema to it. Imports run domain → store, never back.
 */
export interface Row {
  id: string;
}

/** How a SQL store reads a field it orders or compares by; the memory store compares JavaScript values. */
export type FieldKind = 'text' | 'number' | 'boolean';

export interface TableDeclaration<T extends Row = Row> {
  /** Fields whose non-null values are unique within a project. Looked up with getBy. */
  readonly unique: readonly (keyof T & string)[];
  /** Fields looked up with findBy, countBy and a query's `index`. */
  readonly indexed: readonly (keyof T & string)[];
  /**
   * The kind of each top-level field that queries order by or compare in ranges. A SQL store orders and
   * compares such a field by that kind; undeclared fields are read as text.
   */
  readonly kinds?: Readonly<Partial<Record<keyof T & string, FieldKind>>>;
  /**
   * Fields whose values normally grow with insertion (creation timestamps). While they do, the memory store
   * reads a page ordered by one of them straight off insertion order, without sorting.
   */
  readonly ordered?: readonly (keyof T & string)[];
  /**
   * Indexed fields whose rows the memory store also keeps sorted by ID for each value, so that a page in ID
   * order after a cursor on that index is found by binary search.
   */
  readonly sortedById?: readonly (keyof T & string)[];
  /** Indexed fields whose null (or missing) values are left out of the index; never looked up by null. */
  readonly sparse?: readonly (keyof T & string)[];
  /**
   * The memory store keeps this table's rows deeply frozen whatever its setting (`freezeRows`): for rows whose
   * parts the domain keeps work by, keyed by the part itself (compiled filters), which holds only for parts that
   * cannot change. A SQL store reads a new object each time, so it has nothing to freeze.
   */
  readonly frozen?: boolean;
  /**
   * A project's configuration: few rows (bounded by what a project configures, not by its traffic), read by
   * most units of work, seldom written (a project's webhooks, segments, metadata schemas, its loyalty clock).
   * A SQL store keeps a copy of such a table in each process, as of a version of the project that every write
   * to one of its kept tables moves on, and serves reads from it while the version holds: they then cost no
   * statement. The copy is read as the memory store reads its tables, so its rows are frozen, as `frozen`'s.
   */
  readonly kept?: boolean;
  /**
   * Rows are inserted with IDs made for them (random, never reused) and the table has no unique field, so no
   * insert is ever refused: a SQL store may send an insert with the unit of work's next statement or its
   * commit, rather than wait for it (the event log). An insert of an ID taken would then fail the unit of work
   * at its end, not at the insert.
   */
  readonly freshIds?: boolean;
  /** Carries the row type; never set. */
  readonly row?: T;
}

/** Declares a table of rows of type T. */
export function table<T extends Row>(declaration: Omit<TableDeclaration<T>, 'row'>): TableDeclaration<T> {
  return declaration;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Schema = { readonly [name: string]: TableDeclaration<any> };

export type RowOf<D> = D extends TableDeclaration<infer T> ? T : never;

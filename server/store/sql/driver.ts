/**
 * The little the SQL store needs of a database client, so that one store runs over PostgreSQL (`pg`'s pool,
 * for `DATABASE_URL`) and over PGlite (PostgreSQL compiled to WebAssembly, in process: in memory for tests, a
 * directory for `DATA_DIR`). Both speak the same SQL; only how a connection is had and given back differs.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { FRESH } from '../fresh.js';

export interface Session {
  /**
   * One statement, with `$1`… parameters; the rows it returns. A `prepared` statement is one of the store's
   * fixed texts (only values vary): PostgreSQL parses and plans it once per connection (see `statementName`).
   */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], prepared?: boolean): Promise<R[]>;
  /** Several statements without parameters (a migration's script). */
  exec(sql: string): Promise<void>;
}

/** How a transaction begins. */
export interface Opening {
  /** A snapshot read: REPEATABLE READ, READ ONLY. */
  readonly readOnly?: boolean;
  /**
   * A statement without parameters (values spelled as literals) run in the same round trip as BEGIN, whose
   * rows `work` gets: the store's entry into a project, which every unit of work starts with, then costs no
   * round trip of its own.
   */
  readonly first?: string;
  /**
   * Statements without parameters, asked for once `work` has returned, run in the same round trip as COMMIT
   * (nothing when it gives undefined): the unit of work's last writes (inserts held back, its row counts),
   * which then cost no round trip of their own.
   */
  readonly last?: () => string | undefined;
}

export interface Driver extends Session {
  /** Runs `work` in one transaction on one connection: committed when it returns, rolled back when it throws. */
  transaction<R>(work: (session: Session, first: Record<string, unknown>[]) => Promise<R>, opening?: Opening): Promise<R>;
  /**
   * Whether transactions can run side by side. PGlite has one connection, so its transactions run one at a
   * time whatever project they are on.
   */
  readonly concurrent: boolean;
  /** Whether the data outlives the process (a server's database, a PGlite directory; not PGlite in memory). */
  readonly durable: boolean;
  close(): Promise<void>;
}

/** How many statement texts are named at most; past that, a new text runs unnamed (parsed and planned each time). */
const NAMED_AT_MOST = 4000;
const names = new Map<string, string>();

/**
 * The name a fixed statement text is prepared under on each connection, the same for the whole process. The
 * store's statements read one table of `store_rows`, whose many partial indexes (one per declared field, see
 * sql/indexes.ts) made planning most of the database's time for a short statement (`make bench`: 0.2 ms to
 * plan, 0.01 ms to run a read by ID). Prepared, a statement is planned again only while PostgreSQL's
 * plan cache still tries custom plans (its first five runs), then runs its generic plan, which the partial
 * indexes serve since the table and field names in those texts are literals. The texts named are bounded
 * by the schema (tables × fields × operations); the bound above only guards against a caller naming texts
 * made from requests, which PostgreSQL would otherwise keep on every connection for good.
 */
export function statementName(sql: string): string | undefined {
  const known = names.get(sql);
  if (known !== undefined || names.size >= NAMED_AT_MOST) return known;
  const name = `store_${names.size + 1}`;
  names.set(sql, name);
  return name;
}

/** How long a connection's read waits at most for its COMMIT to go with the connection's next BEGIN (see `lingering`). */
const LINGER_MS = 20;

export function pgDriver(url: string, options: pg.PoolConfig = {}, { lingerMs = LINGER_MS }: { lingerMs?: number } = {}): Driver {
  const pool = new pg.Pool({ connectionString: url, ...options });
  // An idle connection that fails (the server restarted) is dropped from the pool, which connects anew on the
  // next checkout; without a listener the error would end the process.
  pool.on('error', () => {});
  const session = (client: pg.Pool | pg.PoolClient): Session => ({
    query: async <R>(sql: string, params: readonly unknown[] = [], prepared = false) => {
      const name = prepared ? statementName(sql) : undefined;
      const result = name === undefined ? await client.query(sql, params as unknown[]) : await client.query({ name, text: sql, values: params as unknown[] });
      return result.rows as R[];
    },
    exec: async (sql) => {
      // Without parameters pg sends the simple protocol, which runs several statements.
      await client.query(sql);
    },
  });
  /**
   * A transaction's statements one after another: the domain may start several reads of one unit of work at
   * once (Promise.all), and a pg client runs one statement at a time (queuing them itself is deprecated).
   */
  const serial = (client: pg.PoolClient): Session => {
    const inner = session(client);
    let last: Promise<unknown> = Promise.resolve();
    const next = <T>(step: () => Promise<T>): Promise<T> => {
      const run = last.then(step, step);
      last = run.catch(() => undefined);
      return run;
    };
    return { query: (sql, params, prepared) => next(() => inner.query(sql, params, prepared)), exec: (sql) => next(() => inner.exec(sql)) };
  };
  /**
   * Connections whose snapshot read is over but not yet committed, the last one first. A read-only transaction's
   * COMMIT changes nothing, so it need not cost a round trip of its own: it goes with the next BEGIN on the same
   * connection (`COMMIT; BEGIN …` in one round trip), which takes a lingering connection before asking the pool.
   * Each lingers a moment at most, then commits and goes back to the pool, so an idle server holds no snapshot
   * open (one would hold back VACUUM's cleanup), and a read never lingers while anyone waits for the pool.
   */
  const lingering: { client: pg.PoolClient; timer: NodeJS.Timeout }[] = [];
  const settle = (client: pg.PoolClient) =>
    client.query('COMMIT').then(
      () => client.release(),
      (error: Error) => client.release(error),
    );
  const linger = (client: pg.PoolClient) => {
    const entry = {
      client,
      timer: setTimeout(() => {
        lingering.splice(lingering.indexOf(entry), 1);
        void settle(client);
      }, lingerMs),
    };
    lingering.push(entry);
  };
  let closed = false;
  return {
    ...FRESH,
    ...session(pool),
    concurrent: true,
    durable: true,
    async transaction(work, opening = {}) {
      const kept = lingering.pop();
      if (kept !== undefined) clearTimeout(kept.timer);
      const client = kept?.client ?? (await pool.connect());
      const ending = kept === undefined ? '' : 'COMMIT; ';
      let broken: Error | undefined;
      let lingers = false;
      try {
        const begin = `${ending}${opening.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY' : 'BEGIN'}`;
        let first: Record<string, unknown>[] = [];
        if (opening.first === undefined) await client.query(begin);
        else {
          // Without parameters pg sends the simple protocol, which runs the statements in one round trip and
          // answers with a result for each.
          const results = (await client.query(`${begin}; ${opening.first}`)) as unknown as pg.QueryResult[];
          first = results[results.length - 1]!.rows as Record<string, unknown>[];
        }
        const result = await work(serial(client), first);
        const last = opening.last?.();
        if (opening.readOnly && last === undefined && !closed && pool.waitingCount === 0) {
          lingers = true;
          linger(client);
          return result;
        }
        // Both in one round trip, as BEGIN with `first`: when `last` fails, PostgreSQL skips the COMMIT.
        await client.query(last === undefined ? 'COMMIT' : `${last}; COMMIT`);
        return result;
      } catch (error) {
        // A connection that cannot even roll back is destroyed rather than handed to the next unit of work.
        await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
        throw error;
      } finally {
        if (!lingers) client.release(broken);
      }
    },
    async close() {
      closed = true;
      const left = lingering.splice(0);
      for (const { timer } of left) clearTimeout(timer);
      await Promise.all(left.map(({ client }) => settle(client)));
      await pool.end();
    },
  };
}

/**
 * What a new in-memory cluster starts from: a copy of the first one this process made, taken before anything
 * was written to it. Every new cluster is the same one (initdb's output), and making it is most of the cost of
 * a new in-memory PGlite (about 2 s here, against about 0.5 s to load the copy), which tests pay per store.
 */
let blankCluster: Promise<Blob> | undefined;

async function newInMemoryCluster(): Promise<PGlite> {
  if (blankCluster === undefined) {
    const first = await PGlite.create();
    blankCluster = first.dumpDataDir('none');
    // A copy that could not be taken must not stay the answer for later clusters.
    blankCluster.catch(() => (blankCluster = undefined));
    await blankCluster.catch(() => undefined);
    return first;
  }
  try {
    return await PGlite.create({ loadDataDir: await blankCluster });
  } catch {
    return PGlite.create();
  }
}

export async function pgliteDriver(dataDir?: string): Promise<Driver> {
  const db = dataDir === undefined ? await newInMemoryCluster() : await PGlite.create({ dataDir });
  const session = (client: Pick<PGlite, 'query' | 'exec'>): Session => ({
    query: async <R>(sql: string, params: readonly unknown[] = []) => (await client.query<R>(sql, params as unknown[])).rows,
    exec: async (sql) => {
      await client.exec(sql);
    },
  });
  return {
    ...FRESH,
    ...session(db),
    concurrent: false,
    durable: dataDir !== undefined,
    transaction: (work, opening = {}) =>
      db.transaction(async (tx) => {
        if (opening.readOnly) await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const first = opening.first === undefined ? [] : (await tx.query<Record<string, unknown>>(opening.first)).rows;
        const result = await work(session(tx), first);
        const last = opening.last?.();
        if (last !== undefined) await tx.exec(last);
        return result;
      }),
    close: () => db.close(),
  };
}

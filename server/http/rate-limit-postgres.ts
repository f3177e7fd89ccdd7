/**
 * Rate-limit counters in PostgreSQL, for several server instances behind one load balancer: a limit counts every
 * request of a key or address whichever instance it reaches. The counting is rate-limiter-flexible's PostgreSQL
 * store (one upsert per hit, in a table of its own); express-rate-limit stays in front of it through this small
 * adapter, so the 429s keep exactly their `Retry-After`, `RateLimit` and `RateLimit-Policy` headers.
 *
 * The counters have a pool of their own, apart from the store's: a limit is checked before a request's unit of
 * work, and must not wait behind the units of work for a connection.
 */
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { CounterStores } from './rate-limit.js';

/** The table the counters live in (made at start when missing; rate-limiter-flexible's layout). */
const TABLE = 'rate_limits';

/** One limit's counters as express-rate-limit reads them, kept by rate-limiter-flexible. */
class FlexibleStore implements Store {
  readonly localKeys = false;
  private limiter: RateLimiterPostgres | undefined;

  constructor(
    private readonly pool: pg.Pool,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.limiter = new RateLimiterPostgres({
      storeClient: this.pool,
      tableName: TABLE,
      tableCreated: true,
      keyPrefix: this.prefix,
      points: options.limit as number,
      duration: Math.ceil(options.windowMs / 1000),
    });
  }

  private get counters(): RateLimiterPostgres {
    if (!this.limiter) throw new Error(`rate limit ${this.prefix}: the store was not initialised`);
    return this.limiter;
  }

  private static info(res: { consumedPoints: number; msBeforeNext: number }): ClientRateLimitInfo {
    return { totalHits: res.consumedPoints, resetTime: new Date(Date.now() + res.msBeforeNext) };
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const res = await this.counters.get(key);
    return res ? FlexibleStore.info(res) : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    // A penalty counts the hit without refusing it: whether it is over the limit is express-rate-limit's call.
    return FlexibleStore.info(await this.counters.penalty(key, 1));
  }

  async decrement(key: string): Promise<void> {
    await this.counters.reward(key, 1);
  }

  async resetKey(key: string): Promise<void> {
    await this.counters.delete(key);
  }
}

export interface SharedRateLimits {
  /** A store for the limit named `identifier`, for express-rate-limit's `store` option. */
  store: CounterStores;
  close(): Promise<void>;
}

/** Rate-limit counters in the PostgreSQL database at `url`; makes their table when missing. */
export async function postgresRateLimits(url: string, poolSize = 2): Promise<SharedRateLimits> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle connection that fails (the database restarted) is dropped; the pool connects anew on the next hit.
  pool.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    // Made only to create the table (rate-limiter-flexible tolerates two instances creating it at once).
    new RateLimiterPostgres({ storeClient: pool, tableName: TABLE, clearExpiredByTimeout: false, points: 1, duration: 1 }, (error?: unknown) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
    );
  });
  return { store: (identifier) => new FlexibleStore(pool, identifier), close: () => pool.end() };
}

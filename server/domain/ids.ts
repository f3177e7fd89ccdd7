import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the system's generator a page at a time: one call per ID cost more than the rest
 * of a cheap request's bookkeeping (`make bench`). Each byte is handed out once.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let used = POOL_SIZE;

/** `bytes` fresh random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  if (bytes > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} random bytes at a time`);
  if (used + bytes > POOL_SIZE) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

/** A new opaque ID with the type's prefix, e.g. `prod_0a9f9aeddb019a42db`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomHex(9)}`;
}

import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the system's generator a page at a time: one call per ID cost more than the rest
 * of a cheap request's bookkeeping (`make bench`). Each byte is handed out once.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let used = POOL_SIZE;

/** `bytes` fresh random bytes from the pool, written in the encoding given. */
function randomText(bytes: number, encoding: 'hex' | 'base64url'): string {
  if (bytes > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} random bytes at a time`);
  if (used + bytes > POOL_SIZE) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString(encoding, used, used + bytes);
  used += bytes;
  return text;
}

/** `bytes` fresh random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return randomText(bytes, 'hex');
}

/** `bytes` fresh random bytes in unpadded base64url (`A-Z`, `a-z`, `0-9`, `-` and `_`). */
export function randomBase64url(bytes: number): string {
  return randomText(bytes, 'base64url');
}

/** A new opaque ID with the type's prefix, e.g. `prod_0a9f9aeddb019a42db`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomHex(9)}`;
}

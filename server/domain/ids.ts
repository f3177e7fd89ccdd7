import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the system's generator a page at a time: one call per ID cost more than the rest
 * of a cheap request's bookkeeping (`make bench`). Each byte is handed out once.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let used = POOL_SIZE;

const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const BASE64URL_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `lead`, then the bytes from `from` to `to` as lowercase hex, as `Buffer#toString('hex', from, to)` writes them.
 * An ID is made in one piece, its prefix included, by one `join`, which writes one flat string: IDs are kept in
 * rows, and the chain of strings that adding pieces makes (the prefix added to Buffer's text, or pairs added one
 * by one) took more heap per ID (make bench's heap per voucher: 592 bytes with the prefix added, 678 with the
 * pairs added, 557 in one piece). It costs about as much CPU as Buffer's encoder in `make bench`'s profiles.
 */
export function hexOf(bytes: Uint8Array, from: number, to: number, lead = ''): string {
  const parts = [lead];
  for (let i = from; i < to; i++) parts.push(HEX_PAIRS[bytes[i]!]!);
  return parts.join('');
}

/** `lead`, then the bytes from `from` to `to` in unpadded base64url, as `Buffer#toString('base64url', from, to)` writes them; one flat string. */
export function base64urlOf(bytes: Uint8Array, from: number, to: number, lead = ''): string {
  const digit = BASE64URL_DIGITS;
  const parts = [lead];
  let i = from;
  for (; i + 2 < to; i += 3) {
    const group = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    parts.push(digit[group >> 18]!, digit[(group >> 12) & 63]!, digit[(group >> 6) & 63]!, digit[group & 63]!);
  }
  if (to - i === 1) {
    const group = bytes[i]! << 16;
    parts.push(digit[group >> 18]!, digit[(group >> 12) & 63]!);
  } else if (to - i === 2) {
    const group = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    parts.push(digit[group >> 18]!, digit[(group >> 12) & 63]!, digit[(group >> 6) & 63]!);
  }
  return parts.join('');
}

/** `bytes` fresh random bytes from the pool, written in the encoding given. */
function randomText(bytes: number, encoding: 'hex' | 'base64url', lead = ''): string {
  if (bytes > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} random bytes at a time`);
  if (used + bytes > POOL_SIZE) {
    randomFillSync(pool);
    used = 0;
  }
  const text = encoding === 'hex' ? hexOf(pool, used, used + bytes, lead) : base64urlOf(pool, used, used + bytes, lead);
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
  return randomText(9, 'hex', `${prefix}_`);
}

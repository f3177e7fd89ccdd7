/**
 * Values the server can keep as they were sent, on every store.
 *
 * Text: PostgreSQL (and so PGlite) cannot store a NUL character or an unpaired UTF-16 surrogate in text or
 * JSON, and answered such input with a 5xx (error 22P05) where the memory store took it. Every store now
 * refuses it alike, at the edge, with a 400 that names where it was: in a body (`invalid_payload`), a query
 * value or name (`invalid_query_params`) or a path (`invalid_payload`).
 *
 * Numbers: a JSON number past ±(2^53 − 1) cannot be held exactly (1.8e308 was taken as a gift amount, and a
 * balance of 2^53 did not move when 1 was added), so a body holding one is refused with a 400 naming it. The
 * amounts, points and counts of the API are integers well inside that range.
 */

/** A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const UNKEPT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string is one every store keeps as it is: well-formed UTF-16, without NUL. */
export function storable(text: string): boolean {
  return !UNKEPT.test(text);
}

export const UNSTORABLE = 'holds a NUL character or an unpaired surrogate, which no store keeps';
export const UNSAFE_NUMBER = `is past the largest number the API takes (±${Number.MAX_SAFE_INTEGER})`;

/** Where a value no store keeps is (a dotted path from `at`: `metadata.note`, `items[2].sku`) and why; undefined when there is none. */
export interface Unkept {
  where: string;
  why: string;
}

/**
 * The first value (or object key) in a parsed JSON value that the server cannot keep as sent: text no store
 * keeps, or, with `numbers`, a number past the safe integers. Other values are fine.
 */
export function unkeptValueIn(value: unknown, numbers: boolean, at = ''): Unkept | undefined {
  if (typeof value === 'string') return storable(value) ? undefined : { where: at || '(the value)', why: UNSTORABLE };
  if (typeof value === 'number') return !numbers || Math.abs(value) <= Number.MAX_SAFE_INTEGER ? undefined : { where: at || '(the value)', why: UNSAFE_NUMBER };
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = unkeptValueIn(value[index], numbers, `${at}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!storable(key)) return { where: `${at ? `${at}.` : ''}(a field name)`, why: UNSTORABLE };
    const found = unkeptValueIn((value as Record<string, unknown>)[key], numbers, at ? `${at}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Bounds on what one request can make the server hold, beyond what the contract's schemas say per field.
 * JSON Schema can bound a string's length or an array's items, not how deep a value nests or how large a
 * free-form map is once written out; these rules do, and the contract's descriptions state the same figures
 * (components/schemas/Metadata.yaml). Each is far above what an integration sends, and each is checked
 * without recursion, so a hostile value is refused before anything walks it recursively (the store's
 * structured clone overflowed the stack on metadata about 2 000 objects deep).
 */

/** Levels of objects and arrays a request body may nest, the body itself being the first. */
export const MAX_BODY_DEPTH = 32;

export const METADATA_LIMITS = {
  /** Levels of objects and arrays, the metadata object itself being the first. */
  depth: 6,
  /** Bytes of the metadata written as compact UTF-8 JSON. */
  bytes: 16 * 1024,
} as const;

/**
 * Whether a value nests objects and arrays more than `limit` levels deep (a scalar is 0 levels, `{}` 1).
 * Iterative, and it stops at the first branch past the limit, so its cost is bounded by the value's size.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, level] = next;
    if (current === null || typeof current !== 'object') continue;
    if (level > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (child !== null && typeof child === 'object') pending.push([child, level + 1]);
  }
  return false;
}

/** What makes one metadata value too large, or undefined when it is within the limits. */
export function metadataProblem(metadata: unknown): string | undefined {
  if (metadata === null || typeof metadata !== 'object') return undefined;
  if (nestsDeeperThan(metadata, METADATA_LIMITS.depth)) {
    return `nests objects and arrays more than ${METADATA_LIMITS.depth - 1} levels below the metadata`;
  }
  const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  if (bytes > METADATA_LIMITS.bytes) return `is ${bytes} bytes as JSON, more than the ${METADATA_LIMITS.bytes} allowed`;
  return undefined;
}

/**
 * Every `metadata` object in a request body with what is wrong with it, as `[path, problem]`; the first
 * found only. Every metadata field of the contract is named `metadata`, so the name finds them all, at any
 * depth, whatever the operation. Call only on a body already known to nest at most MAX_BODY_DEPTH levels.
 */
export function metadataProblemIn(body: unknown): [string, string] | undefined {
  const pending: [unknown, string][] = [[body, 'body']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, path] = next;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      current.forEach((child, index) => pending.push([child, `${path}/${index}`]));
      continue;
    }
    for (const [name, child] of Object.entries(current)) {
      if (name === 'metadata') {
        const problem = metadataProblem(child);
        // A metadata object's own contents are the integrator's: a key named `metadata` in it is data.
        if (problem) return [`${path}/metadata`, problem];
        continue;
      }
      pending.push([child, `${path}/${name}`]);
    }
  }
  return undefined;
}

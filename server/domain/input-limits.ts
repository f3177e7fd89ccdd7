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
  /** Keys at the top (the contract's `maxProperties`, checked here too for metadata the server merges). */
  keys: 100,
  /** Levels of objects and arrays, the metadata object itself being the first. */
  depth: 6,
  /** Bytes of the metadata written as compact UTF-8 JSON. */
  bytes: 16 * 1024,
} as const;

/**
 * Whether a value nests objects and arrays more than `limit` levels deep (a scalar is 0 levels, `{}` 1).
 * Iterative, and it stops at the first branch past the limit, so its cost is bounded by the value's size.
 * Parallel stacks and `for…in` keep it allocation-light: it runs on every body.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: object[] = [value];
  const levels: number[] = [1];
  while (values.length > 0) {
    const current = values.pop()!;
    const level = levels.pop()!;
    if (level > limit) return true;
    if (Array.isArray(current)) {
      for (const child of current) {
        if (child !== null && typeof child === 'object') {
          values.push(child as object);
          levels.push(level + 1);
        }
      }
    } else {
      for (const key in current) {
        const child = (current as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          levels.push(level + 1);
        }
      }
    }
  }
  return false;
}

/**
 * What makes one metadata value too large, or undefined when it is within the limits. The domain can hold
 * metadata it merges (a card's with a join's, a stored order's with a request's) to the same limits.
 */
export function metadataProblem(metadata: unknown): string | undefined {
  if (metadata === null || typeof metadata !== 'object') return undefined;
  const keys = Object.keys(metadata).length;
  if (keys > METADATA_LIMITS.keys) return `has ${keys} keys, more than the ${METADATA_LIMITS.keys} allowed`;
  if (nestsDeeperThan(metadata, METADATA_LIMITS.depth)) {
    return `nests objects and arrays more than ${METADATA_LIMITS.depth - 1} levels below the metadata`;
  }
  const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  if (bytes > METADATA_LIMITS.bytes) return `is ${bytes} bytes as JSON, more than the ${METADATA_LIMITS.bytes} allowed`;
  return undefined;
}

/**
 * The first `metadata` object in a request body that breaks its limits, as `[path, problem]`. Every
 * metadata field of the contract is named `metadata`, so the name finds them all, at any depth, whatever
 * the operation. Call only on a body already known to nest at most MAX_BODY_DEPTH levels. Paths are made
 * only for the one reported: each container keeps the index of its parent and its key.
 */
export function metadataProblemIn(body: unknown): [string, string] | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const parents: number[] = [-1];
  const keys: string[] = ['body'];
  const values: object[] = [body];
  const pending: number[] = [0];
  const push = (child: unknown, parent: number, key: string) => {
    if (child === null || typeof child !== 'object') return;
    values.push(child);
    parents.push(parent);
    keys.push(key);
    pending.push(values.length - 1);
  };
  const pathOf = (node: number): string => {
    const parts: string[] = [];
    for (let at = node; at >= 0; at = parents[at]!) parts.push(keys[at]!);
    return parts.reverse().join('/');
  };
  while (pending.length > 0) {
    const node = pending.pop()!;
    const current = values[node]!;
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) push(current[index], node, String(index));
      continue;
    }
    for (const name in current) {
      const child = (current as Record<string, unknown>)[name];
      if (name !== 'metadata') {
        push(child, node, name);
        continue;
      }
      // A metadata object's own contents are the integrator's: a key named `metadata` in it is data.
      const problem = metadataProblem(child);
      if (problem) return [`${pathOf(node)}/metadata`, problem];
    }
  }
  return undefined;
}

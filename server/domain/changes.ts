import { isDeepStrictEqual } from 'node:util';
import { FRESH } from '../store/fresh.js';

/**
 * Applies an update request: fields left out (undefined) keep their values, a null clears one, and the
 * update time moves. The fields come out in the row's order, then the new ones in the request's order (as
 * `{ ...row, ...given, updated_at }` gives them). Loops over the request's keys rather than filtering its
 * entries into a new object: those arrays were a few µs of each customer update in `make bench`'s profile.
 */
export function applyChanges<T extends { updated_at?: string | null }>(row: T, changes: Partial<T>, updatedAt: string): T {
  const updated: Record<string, unknown> = { ...FRESH, ...row };
  const given = changes as Record<string, unknown>;
  for (const field of Object.keys(given)) {
    const value = given[field];
    if (value === undefined) continue;
    // A `__proto__` field (JSON.parse makes one) stays a field, as the spread kept it, rather than setting the prototype.
    if (field === '__proto__') Object.defineProperty(updated, field, { value, writable: true, enumerable: true, configurable: true });
    else updated[field] = value;
  }
  updated.updated_at = updatedAt;
  return updated as T;
}

/**
 * Whether an update request would leave the row as it is. Such an update writes nothing and records no
 * event, and the update time stays: a client that sends the same object again and again (an upsert on
 * every visit) costs no memory.
 */
export function changesNothing<T extends object>(row: T, changes: Partial<T>): boolean {
  const given = changes as Record<string, unknown>;
  const stored = row as Record<string, unknown>;
  for (const field of Object.keys(given)) {
    const value = given[field];
    if (value !== undefined && value !== stored[field] && !isDeepStrictEqual(stored[field], value)) return false;
  }
  return true;
}

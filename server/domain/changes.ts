import { isDeepStrictEqual } from 'node:util';
import { FRESH } from '../store/fresh.js';

/**
 * Applies an update request: fields left out (undefined) keep their values, a null clears one, and the
 * update time moves.
 */
export function applyChanges<T extends { updated_at?: string | null }>(row: T, changes: Partial<T>, updatedAt: string): T {
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return { ...FRESH, ...row, ...given, updated_at: updatedAt };
}

/**
 * Whether an update request would leave the row as it is. Such an update writes nothing and records no
 * event, and the update time stays: a client that sends the same object again and again (an upsert on
 * every visit) costs no memory.
 */
export function changesNothing<T extends object>(row: T, changes: Partial<T>): boolean {
  return Object.entries(changes).every(([field, value]) => value === undefined || isDeepStrictEqual((row as Record<string, unknown>)[field], value));
}

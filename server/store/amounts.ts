/**
 * Amounts added to a row's numbers (Table.add): each amount is added to the number at its path, a path being
 * keys joined by dots (`'counters.redeemed'`). A value that is missing or not a number counts as 0, and a key
 * along the path that holds no object gets a new one. The SQL store's `store_added` (migrations/0013-added-
 * amounts.ts) gives the same meaning in the database, adding as exact decimals: amounts are meant to be whole
 * numbers (counts, amounts in cents), which both add alike.
 */
import type { Row } from './schema.js';

export type Amounts = Readonly<Record<string, number>>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of the row with the amounts added; the row itself (which may be frozen) is left as it is. */
export function withAmounts<T extends Row>(row: T, amounts: Amounts): T {
  const copy: Record<string, unknown> = { ...(row as unknown as Record<string, unknown>) };
  for (const [path, amount] of Object.entries(amounts)) {
    const keys = path.split('.');
    let at = copy;
    for (const key of keys.slice(0, -1)) {
      const inner = at[key];
      at = at[key] = isObject(inner) ? { ...inner } : {};
    }
    const last = keys.at(-1)!;
    const current = at[last];
    at[last] = (typeof current === 'number' ? current : 0) + amount;
  }
  return copy as T;
}

/** Amounts merged into one set: what adding both adds. */
export function mergedAmounts(first: Amounts, second: Amounts): Amounts {
  const merged: Record<string, number> = { ...first };
  for (const [path, amount] of Object.entries(second)) merged[path] = (merged[path] ?? 0) + amount;
  return merged;
}

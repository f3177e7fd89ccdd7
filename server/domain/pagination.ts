/** Page pagination: `page` starts at 1, `limit` defaults to 10. */
import { and, type Condition } from '../store/conditions.js';
import { timeBound } from './time-range.js';
export interface PageRequest {
  limit?: number;
  page?: number;
}

export const DEFAULT_LIMIT = 10;

export function pageWindow({ limit = DEFAULT_LIMIT, page = 1 }: PageRequest): { offset: number; limit: number } {
  return { offset: (page - 1) * limit, limit };
}

/**
 * The IDs of the walked rows that `holds` says yes to, in the walk's order. A page's rows are checked at once, so
 * that a SQL store reads what the checks need of a whole page (its orders, its campaigns) in one statement.
 */
export async function idsWhere<T extends { id: string }>(pages: AsyncIterable<T[]>, holds: (row: T) => Promise<boolean>): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of pages) {
    const held = await Promise.all(page.map(holds));
    page.forEach((row, place) => held[place] && ids.push(row.id));
  }
  return ids;
}

export type SortOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

/** Turns an `order` value such as `-created_at` into a field and a direction. */
export function parseOrder<F extends string>(order: F | `-${F}`): { field: F; direction: 'asc' | 'desc' } {
  return order.startsWith('-')
    ? { field: order.slice(1) as F, direction: 'desc' }
    : { field: order as F, direction: 'asc' };
}

export function parseTimestampOrder(order: SortOrder = 'created_at') {
  return parseOrder<'created_at' | 'updated_at'>(order);
}

/** Rows created within [start, end]; either bound may be absent, and without both there is no condition. */
export function createdBetween(start?: string, end?: string): Condition | undefined {
  if (!start && !end) return undefined;
  return and(start ? timeBound('gte', 'created_at', Date.parse(start)) : undefined, end ? timeBound('lte', 'created_at', Date.parse(end)) : undefined);
}

/** Cursor pagination over rows already in order: the page after `starting_after_id`, if given. */
export function cursorPage<T extends { id: string }>(
  rows: readonly T[],
  { limit = DEFAULT_LIMIT, starting_after_id }: { limit?: number; starting_after_id?: string },
): { rows: T[]; has_more: boolean; more_starting_after?: string } | undefined {
  let start = 0;
  if (starting_after_id !== undefined) {
    const index = rows.findIndex((row) => row.id === starting_after_id);
    if (index < 0) return undefined;
    start = index + 1;
  }
  const page = rows.slice(start, start + limit);
  const has_more = start + limit < rows.length;
  return { rows: page, has_more, ...(has_more && page.length > 0 && { more_starting_after: page[page.length - 1]!.id }) };
}

import { parseOrder } from '../pagination.js';
import type { CatalogOrder } from './types.js';

/**
 * The sort of a catalog list. Fields the objects lack (`code`, `campaign`, `category`, and `type` but for
 * collections) tie every object, which then keeps creation order, reversed for a descending sort.
 */
export function catalogOrder<F extends string>(order: CatalogOrder = 'created_at', fields: readonly F[]): { field: F | 'created_at'; direction: 'asc' | 'desc' } {
  const { field, direction } = parseOrder(order);
  return { field: (fields as readonly string[]).includes(field) ? (field as F) : 'created_at', direction };
}

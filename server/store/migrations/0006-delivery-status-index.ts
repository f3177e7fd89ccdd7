/**
 * Webhook deliveries by status, in insertion order: what the delivery log's retention reads (the oldest
 * DELIVERED and FAILED rows of a project, and how many there are) without reading the PENDING ones or the
 * whole table. A frozen copy of the declaration, as in 0002.
 */
import { createIndexes } from '../sql/indexes.js';
import type { Migration } from './migration.js';

const DECLARED = {
  webhook_deliveries: { indexed: ['status'] },
} as const;

export const deliveryStatusIndex: Migration = {
  name: '0006-delivery-status-index',
  up: (sql) => createIndexes(sql, DECLARED),
};

/**
 * Loyalty cards by the day their member's tier ends (`tier_expires_on`), which the daily settling looks up; cards
 * whose tier has no end are left out. A frozen copy of the declaration, as in 0002.
 */
import { createIndexes } from '../sql/indexes.js';
import type { Migration } from './migration.js';

const DECLARED = {
  loyalty_cards: { indexed: ['tier_expires_on'], sparse: ['tier_expires_on'] },
} as const;

export const tierExpiryIndex: Migration = {
  name: '0007-tier-expiry-index',
  up: (sql) => createIndexes(sql, DECLARED),
};

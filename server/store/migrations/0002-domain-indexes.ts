/**
 * The indexes the domain declares (each table's `unique`, `indexed` and `sparse` lists), as they stood when
 * the SQL store was introduced. A frozen copy, not an import: this migration must do the same thing forever,
 * so a declaration added or changed later gets a migration of its own (the store refuses to open while a
 * declaration has no index: sql/indexes.ts `indexDrift`).
 */
import { createIndexes } from '../sql/indexes.js';
import type { Migration } from './migration.js';

const DECLARED = {
  categories: { unique: ['name'] },
  customers: { unique: ['source_id'] },
  campaigns: { unique: ['name'] },
  vouchers: { unique: ['code'], indexed: ['campaign_id', 'holder_id', 'category_id'], sparse: ['campaign_id', 'holder_id', 'category_id'] },
  events: { indexed: ['counted_in', 'customer_id', 'voucher_id'], sparse: ['counted_in', 'customer_id', 'voucher_id'] },
  campaign_counters: { indexed: ['campaign_id'] },
  promotion_tiers: { indexed: ['campaign_id'] },
  redemptions: { indexed: ['parent_redemption_id', 'related_object_id'] },
  orders: { unique: ['source_id'], indexed: ['customer_id'] },
  validation_rule_assignments: { indexed: ['rule_id', 'related_object_id'] },
  products: { unique: ['source_id', 'name'] },
  skus: { unique: ['source_id', 'sku'], indexed: ['product_id'] },
  product_collections: { unique: ['name'], indexed: ['type'] },
  api_keys: { unique: ['app_id'], indexed: ['project_id'] },
  users: { unique: ['login'] },
  metadata_schemas: { unique: ['related_object'] },
  custom_event_schemas: { unique: ['name'] },
  webhook_deliveries: { indexed: ['webhook_id'] },
  loyalty_cards: { indexed: ['campaign_id', 'next_expiration_date'] },
  loyalty_transactions: { indexed: ['voucher_id', 'campaign_id'] },
  earning_rules: { indexed: ['campaign_id'] },
  pending_points: { indexed: ['campaign_id', 'voucher_id', 'activates_at'] },
  loyalty_tiers: { indexed: ['campaign_id'] },
  reward_assignments: { indexed: ['reward_id', 'related_object_id'] },
  session_locks: { indexed: ['voucher_id'] },
  promotion_stacks: { indexed: ['campaign_id'] },
  bin_entries: { unique: ['campaign_name'] },
  binned_vouchers: { unique: ['code'], indexed: ['bin_entry_id'] },
  campaign_templates: { unique: ['name'] },
  redeemable_holders: { indexed: ['redeemable_id', 'customer_id'] },
} as const;

export const domainIndexes: Migration = {
  name: '0002-domain-indexes',
  up: (sql) => createIndexes(sql, DECLARED),
};

/**
 * The domain's tables, gathered from the modules that declare them next to their row types, and the unit of
 * work and store types the domain works with. Whoever builds a store hands it this schema:
 * `new MemoryStore(SCHEMA)`. The store itself knows nothing of these tables.
 */
import type { Store, UnitOfWork } from '../store/store.js';
import type { RowOf, Schema } from '../store/schema.js';
import { CATEGORIES_TABLE } from './categories.js';
import { CUSTOMERS_TABLE } from './customers.js';
import { CAMPAIGNS_TABLE } from './campaigns.js';
import { VOUCHERS_TABLE } from './vouchers.js';
import { EVENTS_TABLE } from './events.js';
import { CAMPAIGN_COUNTERS_TABLE } from './campaign-counters.js';
import { ASYNC_ACTIONS_TABLE } from './async-actions.js';
import { VALIDATION_RULES_TABLE, VALIDATION_RULE_ASSIGNMENTS_TABLE } from './validation-rules.js';
import { PROMOTION_TIERS_TABLE } from './promotion-tiers.js';
import { REDEMPTIONS_TABLE } from './redemptions.js';
import { PUBLICATIONS_TABLE } from './publications.js';
import { ORDERS_TABLE } from './orders.js';
import { PRODUCTS_TABLE, SKUS_TABLE, PRODUCT_COLLECTIONS_TABLE } from './catalog/types.js';
import { PROJECTS_TABLE, API_KEYS_TABLE } from './management/projects.js';
import { USERS_TABLE } from './management/users.js';
import { BRANDS_TABLE } from './management/branding.js';
import { METADATA_SCHEMAS_TABLE, CUSTOM_EVENT_SCHEMAS_TABLE } from './management/schemas.js';
import { WEBHOOKS_TABLE, WEBHOOK_DELIVERIES_TABLE } from './management/webhooks.js';
import { LOYALTY_CARDS_TABLE, LOYALTY_TRANSACTIONS_TABLE, LOYALTY_CLOCK_TABLE, EARNING_RULES_TABLE, PENDING_POINTS_TABLE, LOYALTY_TIERS_TABLE, REWARDS_TABLE, REWARD_ASSIGNMENTS_TABLE } from './loyalty/types.js';
import { LOCATIONS_TABLE } from './locations.js';
import { SESSION_LOCKS_TABLE } from './sessions.js';
import { STACKING_RULES_TABLE } from './stacking-rules.js';
import { TEST_CLOCKS_TABLE } from './test-clock.js';
import { PROMOTION_STACKS_TABLE } from './promotion-stacks.js';
import { SEGMENTS_TABLE } from './segments.js';
import { EXPORTS_TABLE } from './exports/exports.js';
import { BIN_ENTRIES_TABLE, BINNED_VOUCHERS_TABLE } from './bin.js';
import { CAMPAIGN_TEMPLATES_TABLE } from './templates.js';
import { REDEEMABLE_HOLDERS_TABLE } from './redeemable-holders.js';
import { OAUTH_TOKENS_TABLE } from './management/oauth-tokens.js';
import { SERVER_SECRETS_TABLE } from './management/server-secrets.js';
import { BACKGROUND_JOBS_TABLE } from './background-jobs.js';
import { EXPORT_CHUNKS_TABLE } from './exports/chunks.js';
// Not a table: whoever builds a store with this schema gets the domain's listener slots set with it (hooks.ts).
import './hooks.js';

export const SCHEMA = {
  categories: CATEGORIES_TABLE,
  customers: CUSTOMERS_TABLE,
  campaigns: CAMPAIGNS_TABLE,
  vouchers: VOUCHERS_TABLE,
  events: EVENTS_TABLE,
  /** Campaign summary counters per campaign and hour. */
  campaign_counters: CAMPAIGN_COUNTERS_TABLE,
  async_actions: ASYNC_ACTIONS_TABLE,
  validation_rules: VALIDATION_RULES_TABLE,
  promotion_tiers: PROMOTION_TIERS_TABLE,
  redemptions: REDEMPTIONS_TABLE,
  publications: PUBLICATIONS_TABLE,
  orders: ORDERS_TABLE,
  validation_rule_assignments: VALIDATION_RULE_ASSIGNMENTS_TABLE,
  products: PRODUCTS_TABLE,
  skus: SKUS_TABLE,
  product_collections: PRODUCT_COLLECTIONS_TABLE,
  /** Organization tables, used only in the organization's partition (see ORGANIZATION). */
  projects: PROJECTS_TABLE,
  api_keys: API_KEYS_TABLE,
  users: USERS_TABLE,
  /** A project's configuration, written through the management API. */
  brands: BRANDS_TABLE,
  metadata_schemas: METADATA_SCHEMAS_TABLE,
  custom_event_schemas: CUSTOM_EVENT_SCHEMAS_TABLE,
  webhooks: WEBHOOKS_TABLE,
  webhook_deliveries: WEBHOOK_DELIVERIES_TABLE,
  loyalty_cards: LOYALTY_CARDS_TABLE,
  loyalty_transactions: LOYALTY_TRANSACTIONS_TABLE,
  loyalty_clock: LOYALTY_CLOCK_TABLE,
  /** A project's frozen time, while its test clock is frozen (see domain/test-clock.ts). */
  test_clocks: TEST_CLOCKS_TABLE,
  earning_rules: EARNING_RULES_TABLE,
  pending_points: PENDING_POINTS_TABLE,
  loyalty_tiers: LOYALTY_TIERS_TABLE,
  rewards: REWARDS_TABLE,
  reward_assignments: REWARD_ASSIGNMENTS_TABLE,
  locations: LOCATIONS_TABLE,
  /** What validation sessions hold of vouchers (see domain/sessions.ts). */
  session_locks: SESSION_LOCKS_TABLE,
  /** A project's stacking rules (none or one), written through the management API. */
  stacking_rules: STACKING_RULES_TABLE,
  promotion_stacks: PROMOTION_STACKS_TABLE,
  segments: SEGMENTS_TABLE,
  exports: EXPORTS_TABLE,
  /** The bin: entries, and the vouchers they keep (whose codes stay taken). */
  bin_entries: BIN_ENTRIES_TABLE,
  binned_vouchers: BINNED_VOUCHERS_TABLE,
  campaign_templates: CAMPAIGN_TEMPLATES_TABLE,
  /** Referral codes' referrers and referees. */
  redeemable_holders: REDEEMABLE_HOLDERS_TABLE,
  /** OAuth tokens (organization partition), by the hash of the token. */
  oauth_tokens: OAUTH_TOKENS_TABLE,
  /** The server's own secrets, in the organization's partition (see management/server-secrets.ts). */
  server_secrets: SERVER_SECRETS_TABLE,
  /** Leases and state of the jobs that run in the background (see domain/background-jobs.ts). */
  background_jobs: BACKGROUND_JOBS_TABLE,
  /** Export files, in pieces, on a store that outlives the process (see exports/files.ts). */
  export_chunks: EXPORT_CHUNKS_TABLE,
} as const satisfies Schema;

export type DomainSchema = typeof SCHEMA;
/** One project's tables within one unit of work, as the domain uses them. */
export type DomainUnitOfWork = UnitOfWork<DomainSchema>;
export type DomainStore = Store<DomainSchema>;
/** The row type of each table. */
export type Tables = { [K in keyof DomainSchema]: RowOf<DomainSchema[K]> };

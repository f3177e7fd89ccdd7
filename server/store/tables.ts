/** The tables of a project's partition, their row types and their unique and secondary indexes. */
import type { Product, ProductCollection, Sku } from '../domain/catalog/types.js';
import type { Category } from '../domain/categories.js';
import type { Customer } from '../domain/customers.js';
import type { AsyncActionRecord } from '../domain/async-actions.js';
import type { CampaignRecord } from '../domain/campaigns.js';
import type { CampaignCounterBucket } from '../domain/campaign-counters.js';
import type { EventRecord } from '../domain/events.js';
import type { ExportRecord } from '../domain/exports/exports.js';
import type { Location } from '../domain/locations.js';
import type { PromotionTierRecord } from '../domain/promotion-tiers.js';
import type { Redemption } from '../domain/redemptions.js';
import type { PromotionStackRecord } from '../domain/promotion-stacks.js';
import type { SegmentRecord } from '../domain/segments.js';
import type { StackingRulesRecord } from '../domain/stacking-rules.js';
import type { PublicationRecord } from '../domain/publications.js';
import type { SessionLock } from '../domain/sessions.js';
import type { Order } from '../domain/orders.js';
import type { ValidationRuleAssignment, ValidationRuleRecord } from '../domain/validation-rules.js';
import type { VoucherRecord } from '../domain/vouchers.js';
import type { BinEntryRecord, BinnedVoucher } from '../domain/bin.js';
import type { CampaignTemplateRecord } from '../domain/templates.js';
import type { HolderRecord } from '../domain/referrals.js';
import type { Brand } from '../domain/management/branding.js';
import type { ApiKeyRecord, Project } from '../domain/management/projects.js';
import type { CustomEventSchema, MetadataSchema } from '../domain/management/schemas.js';
import type { UserRecord } from '../domain/management/users.js';
import type { Webhook, WebhookDelivery } from '../domain/management/webhooks.js';
import type {
  CardState,
  CardTransaction,
  EarningRule,
  LoyaltyClock,
  LoyaltyTier,
  PendingPoints,
  Reward,
  RewardAssignment,
} from '../domain/loyalty/types.js';

export interface Tables {
  categories: Category;
  customers: Customer;
  campaigns: CampaignRecord;
  vouchers: VoucherRecord;
  events: EventRecord;
  /** Campaign summary counters per campaign and hour. */
  campaign_counters: CampaignCounterBucket;
  async_actions: AsyncActionRecord;
  validation_rules: ValidationRuleRecord;
  promotion_tiers: PromotionTierRecord;
  redemptions: Redemption;
  publications: PublicationRecord;
  orders: Order;
  validation_rule_assignments: ValidationRuleAssignment;
  products: Product;
  skus: Sku;
  product_collections: ProductCollection;
  /** Organization tables, used only in the organization's partition (see ORGANIZATION). */
  projects: Project;
  api_keys: ApiKeyRecord;
  users: UserRecord;
  /** A project's configuration, written through the management API. */
  brands: Brand;
  metadata_schemas: MetadataSchema;
  custom_event_schemas: CustomEventSchema;
  webhooks: Webhook;
  webhook_deliveries: WebhookDelivery;
  loyalty_cards: CardState;
  loyalty_transactions: CardTransaction;
  loyalty_clock: LoyaltyClock;
  earning_rules: EarningRule;
  pending_points: PendingPoints;
  loyalty_tiers: LoyaltyTier;
  rewards: Reward;
  reward_assignments: RewardAssignment;
  locations: Location;
  /** What validation sessions hold of vouchers (see domain/sessions.ts). */
  session_locks: SessionLock;
  /** A project's stacking rules (none or one), written through the management API. */
  stacking_rules: StackingRulesRecord;
  promotion_stacks: PromotionStackRecord;
  segments: SegmentRecord;
  exports: ExportRecord;
  /** The bin: entries, and the vouchers they keep (whose codes stay taken). */
  bin_entries: BinEntryRecord;
  binned_vouchers: BinnedVoucher;
  campaign_templates: CampaignTemplateRecord;
  /** Referral codes' referrers and referees. */
  redeemable_holders: HolderRecord;
}

export interface TableSpec {
  /** Fields whose non-null values are unique within the project. */
  unique: readonly string[];
  /** Fields looked up with findBy. */
  indexed: readonly string[];
  /**
   * Fields whose values normally grow with insertion (creation timestamps). While they do, a query
   * ordered by one of them and without a `where` reads its page straight off the insertion order,
   * without sorting, so a page costs the same at any table size.
   */
  ordered?: readonly string[];
  /**
   * Indexed fields whose rows are also kept sorted by ID for each value, so that a page in ID order
   * after a cursor (`orderBy: id` with `after`, on that index, without a `where`) is found by binary
   * search and costs the same however many rows share the value.
   */
  sortedById?: readonly string[];
  /**
   * Indexed fields whose null (or missing) values are left out of the index, so that rows without a value
   * cost the index nothing; such a field is never looked up by null.
   */
  sparse?: readonly string[];
}

export const TABLE_SPECS: { readonly [K in keyof Tables]: TableSpec } = {
  categories: { unique: ['name'], indexed: [] },
  customers: { unique: ['source_id'], indexed: [], ordered: ['created_at'] },
  campaigns: { unique: ['name'], indexed: [] },
  vouchers: { unique: ['code'], indexed: ['campaign_id', 'holder_id', 'category_id'], ordered: ['created_at'], sparse: ['campaign_id', 'holder_id', 'category_id'] },
  events: { unique: [], indexed: ['counted_in', 'customer_id', 'voucher_id'], sparse: ['counted_in', 'customer_id', 'voucher_id'] },
  campaign_counters: { unique: [], indexed: ['campaign_id'] },
  async_actions: { unique: [], indexed: [] },
  validation_rules: { unique: [], indexed: [] },
  promotion_tiers: { unique: [], indexed: ['campaign_id'] },
  redemptions: { unique: [], indexed: ['parent_redemption_id', 'related_object_id'] },
  publications: { unique: [], indexed: [] },
  orders: { unique: ['source_id'], indexed: ['customer_id'] },
  validation_rule_assignments: { unique: [], indexed: ['rule_id', 'related_object_id'] },
  products: { unique: ['source_id', 'name'], indexed: [] },
  skus: { unique: ['source_id', 'sku'], indexed: ['product_id'] },
  product_collections: { unique: ['name'], indexed: ['type'] },
  projects: { unique: [], indexed: [] },
  api_keys: { unique: ['app_id'], indexed: ['project_id'] },
  users: { unique: ['login'], indexed: [] },
  brands: { unique: [], indexed: [] },
  metadata_schemas: { unique: ['related_object'], indexed: [] },
  custom_event_schemas: { unique: ['name'], indexed: [] },
  webhooks: { unique: [], indexed: [] },
  webhook_deliveries: { unique: [], indexed: ['webhook_id'] },
  loyalty_cards: { unique: [], indexed: ['campaign_id', 'next_expiration_date'] },
  loyalty_transactions: { unique: [], indexed: ['voucher_id', 'campaign_id'] },
  loyalty_clock: { unique: [], indexed: [] },
  earning_rules: { unique: [], indexed: ['campaign_id'] },
  pending_points: { unique: [], indexed: ['campaign_id', 'voucher_id', 'activates_at'], sortedById: ['campaign_id', 'voucher_id'] },
  loyalty_tiers: { unique: [], indexed: ['campaign_id'] },
  rewards: { unique: [], indexed: [] },
  reward_assignments: { unique: [], indexed: ['reward_id', 'related_object_id'] },
  locations: { unique: [], indexed: [] },
  session_locks: { unique: [], indexed: ['voucher_id'] },
  stacking_rules: { unique: [], indexed: [] },
  promotion_stacks: { unique: [], indexed: ['campaign_id'], ordered: ['created_at'] },
  segments: { unique: [], indexed: [], ordered: ['created_at'] },
  exports: { unique: [], indexed: [], ordered: ['created_at'] },
  bin_entries: { unique: ['campaign_name'], indexed: [] },
  binned_vouchers: { unique: ['code'], indexed: ['bin_entry_id'] },
  campaign_templates: { unique: ['name'], indexed: [] },
  redeemable_holders: { unique: [], indexed: ['redeemable_id', 'customer_id'] },
};

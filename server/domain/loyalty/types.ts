/** Row types of the loyalty tables. */
import type { components } from '../../../generated/openapi.js';
import { table } from '../../store/schema.js';

type Schemas = components['schemas'];
/**
 * A stored rule has every field the contract leaves optional for other implementations, and its points in
 * the strict form a request must give them in (the contract's response form leaves `type` and `points` out).
 * It keeps no `automation_id`: responses add one made from the rule's ID (see earningRuleView).
 */
export type EarningRule = Omit<Schemas['EarningRule'], 'loyalty' | 'active' | 'automation_id'> & { loyalty: Schemas['EarningRuleLoyalty']; active: boolean } &
  Required<
    Pick<
      Schemas['EarningRule'],
      | 'campaign_id'
      | 'event'
      | 'custom_event'
      | 'loyalty_tier'
      | 'segment'
      | 'pending_points'
      | 'expiration_rules'
      | 'start_date'
      | 'expiration_date'
      | 'validity_timeframe'
      | 'validity_day_of_week'
      | 'validity_hours'
    >
  > & { source: Schemas['EarningRule']['source'] & { banner: string | null } };
export type PendingPoints = Schemas['LoyaltyPendingPoints'];
export type LoyaltyTier = Omit<Schemas['LoyaltyTier'], 'expiration'> & Required<Pick<Schemas['LoyaltyTier'], 'earning_rules' | 'rewards' | 'updated_at'>>;
/** A stored reward's parameters: the part for its type, with a COIN reward's ratios as numbers. */
export interface StoredRewardParameters {
  campaign?: NonNullable<Schemas['RewardParameters']['campaign']> & { id: string };
  coin?: { exchange_ratio: number; points_ratio: number };
  product?: NonNullable<Schemas['RewardParameters']['product']> & { id: string };
}
/** A stored reward: its metadata is always an object here (the contract lets it be null, as the public API shows some). */
export type Reward = Omit<Schemas['Reward'], 'parameters' | 'metadata'> & { parameters: StoredRewardParameters; metadata: Schemas['Metadata'] };
/** A stored assignment always has its cost (0 for COIN rewards). */
export type RewardAssignment = Omit<Schemas['RewardAssignment'], 'parameters'> & {
  parameters: { loyalty: { points: number; auto_redeem?: boolean | null } };
};
export type CardTransaction = Schemas['LoyaltyCardTransaction'];
export type TierMapping = Schemas['LoyaltyTierMapping'];

/** Points added together that expire together (`expires_on` null: never). */
export interface PointsBucket {
  points: number;
  expires_on: string | null;
  /** Set on buckets made since the points-expiration list exists (older rows get a derived ID when listed). */
  id?: string;
  created_at?: string;
  /** When points were last added to or taken from the bucket. */
  updated_at?: string;
}

/** What the service keeps about a loyalty card beyond the voucher: its tier and its points by expiry. */
export interface CardState {
  /** The card's voucher ID. */
  id: string;
  campaign_id: string | null;
  tier_id: string | null;
  tier_since: string | null;
  /** When the card was given to its holder; member activity starts there. */
  joined_at: string | null;
  buckets: PointsBucket[];
  /** The earliest `expires_on` of the buckets, indexed for the daily expiry. */
  next_expiration_date: string | null;
  /**
   * The day the member's tier ends at the start of, when the program's `loyalty_tiers_expiration` gives tiers an
   * end (tiers.ts); until then the tier is held even if the balance drops. Absent or null: the tier follows the
   * balance. Indexed for the daily settling.
   */
  tier_expires_on?: string | null;
}

/** The day up to which due pending points were activated and expired points removed. */
export interface LoyaltyClock {
  id: 'settled';
  through: string;
}

/** The loyalty tables: what the store keeps of each, declared next to its row type. */
export const EARNING_RULES_TABLE = table<EarningRule>({ unique: [], indexed: ['campaign_id'], kinds: { created_at: 'text', updated_at: 'text' } });
export const PENDING_POINTS_TABLE = table<PendingPoints>({ unique: [], indexed: ['campaign_id', 'voucher_id', 'activates_at'], sortedById: ['campaign_id', 'voucher_id'], kinds: { id: 'text' } });
export const LOYALTY_TIERS_TABLE = table<LoyaltyTier>({ unique: [], indexed: ['campaign_id'] });
export const REWARDS_TABLE = table<Reward>({ unique: [], indexed: [] });
export const REWARD_ASSIGNMENTS_TABLE = table<RewardAssignment>({ unique: [], indexed: ['reward_id', 'related_object_id'] });
export const LOYALTY_TRANSACTIONS_TABLE = table<CardTransaction>({ unique: [], indexed: ['voucher_id', 'campaign_id'], kinds: { created_at: 'text' } });
export const LOYALTY_CARDS_TABLE = table<CardState>({ unique: [], indexed: ['campaign_id', 'next_expiration_date', 'tier_expires_on'], sparse: ['tier_expires_on'] });
export const LOYALTY_CLOCK_TABLE = table<LoyaltyClock>({ unique: [], indexed: [], kept: true });

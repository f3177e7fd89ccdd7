/** Row types of the loyalty tables. */
import type { components } from '../../../generated/openapi.js';

type Schemas = components['schemas'];
export type EarningRule = Schemas['EarningRule'];
export type PendingPoints = Schemas['LoyaltyPendingPoints'];
export type LoyaltyTier = Omit<Schemas['LoyaltyTier'], 'expiration'>;
export type Reward = Schemas['Reward'];
export type RewardAssignment = Schemas['RewardAssignment'];
export type CardTransaction = Schemas['LoyaltyCardTransaction'];
export type TierMapping = Schemas['LoyaltyTierMapping'];

/** Points added together that expire together (`expires_on` null: never). */
export interface PointsBucket {
  points: number;
  expires_on: string | null;
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
}

/** The day up to which due pending points were activated and expired points removed. */
export interface LoyaltyClock {
  id: 'settled';
  through: string;
}

/** A card's points bucket as the API shows it: in the points-expiration list, and in the payload of its expiry. */
import { createHash } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import type { VoucherRecord } from '../vouchers.js';
import type { CardState, PointsBucket } from './types.js';

export type ShownBucket = components['schemas']['LoyaltyPointsBucket'];

/** A stable ID for a bucket kept before buckets had IDs: the card and the expiry day name it. */
function derivedBucketId(cardId: string, expiresOn: string): string {
  return `lopb_${createHash('sha256').update(`${cardId}:${expiresOn}`).digest('hex').slice(0, 18)}`;
}

/** A bucket with an expiry day; `status` is `ACTIVE` while its points can be spent, `EXPIRED` once they left the card. */
export function presentBucket(card: VoucherRecord, state: CardState, bucket: PointsBucket & { expires_on: string }, status: 'ACTIVE' | 'EXPIRED'): ShownBucket {
  return {
    id: bucket.id ?? derivedBucketId(card.id, bucket.expires_on),
    voucher_id: card.id,
    campaign_id: card.campaign_id!,
    bucket: { total_points: bucket.points },
    status,
    expires_at: bucket.expires_on,
    created_at: bucket.created_at ?? state.joined_at ?? card.created_at,
    ...(bucket.updated_at !== undefined && { updated_at: bucket.updated_at }),
    object: 'loyalty_points_bucket',
  };
}

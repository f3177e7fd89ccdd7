/**
 * The holder entries of referral codes as stored. Apart from referrals.ts, which converts referrals: deleting a
 * voucher or a campaign for good drops its entries, and referrals.ts builds on vouchers.
 */
import type { DomainContext } from './context.js';
import type { VoucherRecord } from './vouchers.js';
import { table } from '../store/schema.js';

/** A holder entry as stored, as the contract shows it. */
export interface HolderRecord {
  id: string;
  created_at: string;
  redeemable_id: string;
  redeemable_object: 'voucher';
  customer_id: string;
  holder_role: 'REFERRER' | 'REFEREE';
  campaign_id: string;
  campaign_type: 'REFERRAL_PROGRAM';
  voucher_type: VoucherRecord['type'];
  metadata: Record<string, unknown>;
  object: 'redeemable_holder';
}

export const REDEEMABLE_HOLDERS_TABLE = table<HolderRecord>({ unique: [], indexed: ['redeemable_id', 'customer_id'], kinds: { id: 'text' } });

/** Removes the holder entries of a referral code that is deleted for good. */
export async function dropHoldersOf(ctx: DomainContext, voucherId: string): Promise<void> {
  for (const holder of await ctx.uow.redeemable_holders.findBy('redeemable_id', voucherId)) await ctx.uow.redeemable_holders.delete(holder.id);
}

/**
 * What a customer holds: every voucher whose holder the customer is (published to them, or made for them
 * as a loyalty card or referral code), with the voucher as it stands and its status.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { matchesFilter } from './filters.js';
import { cursorPage } from './pagination.js';
import { listFilter } from './publications.js';
import { validityAt } from './validity.js';
import { presentVoucher, type VoucherRecord, type VoucherView } from './vouchers.js';
import { eq } from '../store/conditions.js';
import { FRESH } from '../store/fresh.js';

type Schemas = components['schemas'];
type Status = Schemas['CustomerRedeemable']['redeemable']['status'];

/** A holding as listed, with the voucher the domain shows (without the asset URLs the HTTP layer adds). */
export type CustomerRedeemableView = Omit<Schemas['CustomerRedeemable'], 'redeemable'> & {
  redeemable: Omit<Schemas['CustomerRedeemable']['redeemable'], 'voucher'> & { voucher: VoucherView };
};

export interface CustomerRedeemablesQuery {
  limit?: number;
  order?: 'id' | '-id';
  starting_after_id?: string;
  filters?: Record<string, unknown>;
}

/** The fields `filters` may name. */
const FILTER_FIELDS: ReadonlySet<string> = new Set(['id', 'created_at', 'redeemable_id', 'redeemable_object', 'holder_role', 'campaign_id', 'campaign_type', 'voucher_type']);

/**
 * A holding's ID. Holdings are not stored apart from the vouchers, so the ID is made from the customer and
 * the voucher: the same holding always has the same ID, and a cursor stays valid between pages.
 */
function holdingId(customerId: string, voucherId: string): string {
  return `rh_${createHash('sha256').update(`${customerId}:${voucherId}`).digest('hex').slice(0, 20)}`;
}

/** Where the voucher stands in its life: usable, or why not (its campaign's state counts as its own). */
async function statusOf(ctx: DomainContext, voucher: VoucherRecord): Promise<Status> {
  const now = ctx.clock.now();
  const campaign = voucher.campaign_id ? await ctx.uow.campaigns.get(voucher.campaign_id) : undefined;
  for (const verdict of [validityAt(voucher, now), campaign ? validityAt(campaign, now) : ({ valid: true } as const)]) {
    if (verdict.valid) continue;
    if (verdict.reason === 'disabled') return 'DISABLED';
    if (verdict.reason === 'not_started') return 'NOT_ACTIVE_YET';
    if (verdict.reason === 'expired') return 'EXPIRED';
    // Outside its hours, days or timeframe a voucher is still active: it only waits for its next window.
  }
  if (voucher.redemption.quantity !== null && voucher.redemption.redeemed_quantity >= voucher.redemption.quantity) return 'USED';
  if (voucher.gift && voucher.gift.balance <= 0) return 'NO_BALANCE';
  if (voucher.loyalty_card && voucher.loyalty_card.balance <= 0) return 'NO_BALANCE';
  return 'ACTIVE';
}

/**
 * The customer's holdings (the customer by ID or `source_id`; an unknown one is a 404), filtered, in holding
 * ID order, a page after the cursor.
 */
export async function listCustomerRedeemables(ctx: DomainContext, customerRef: string, query: CustomerRedeemablesQuery) {
  const customer = (await ctx.uow.customers.get(customerRef)) ?? (await ctx.uow.customers.getBy('source_id', customerRef));
  if (!customer) throw notFound('customer', customerRef);
  const filter = query.filters ? listFilter(query.filters, FILTER_FIELDS) : undefined;
  // When the customer came to hold each voucher: its latest publication to them, or else its creation.
  const publishedAt = new Map<string, string>();
  for (const publication of (await ctx.uow.publications.query({ where: eq('customer_id', customer.id) })).rows) {
    for (const voucherId of publication.vouchers_id) {
      const known = publishedAt.get(voucherId);
      if (!known || known < publication.created_at) publishedAt.set(voucherId, publication.created_at);
    }
  }
  const campaignTypes = new Map<string, Schemas['CampaignType'] | null>();
  const holdings: { id: string; voucher: VoucherRecord; fields: Omit<Schemas['CustomerRedeemable'], 'redeemable'> }[] = [];
  for (const voucher of await ctx.uow.vouchers.findBy('holder_id', customer.id)) {
    if (voucher.campaign_id && !campaignTypes.has(voucher.campaign_id)) {
      campaignTypes.set(voucher.campaign_id, (await ctx.uow.campaigns.get(voucher.campaign_id))?.campaign_type ?? null);
    }
    const fields = {
      id: holdingId(customer.id, voucher.id),
      created_at: publishedAt.get(voucher.id) ?? voucher.created_at,
      redeemable_id: voucher.id,
      redeemable_object: 'voucher',
      customer_id: customer.id,
      holder_role: 'OWNER' as const,
      campaign_id: voucher.campaign_id,
      campaign_type: voucher.campaign_id ? (campaignTypes.get(voucher.campaign_id) ?? null) : null,
      voucher_type: voucher.type,
    };
    if (filter && !matchesFilter(fields, filter)) continue;
    holdings.push({ id: fields.id, voucher, fields });
  }
  const descending = query.order === '-id';
  holdings.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (descending ? -1 : 1));
  const page = cursorPage(holdings, query);
  if (!page) throw invalid('invalid_query_params', 'Invalid query params', `starting_after_id ${query.starting_after_id} is not an entry of this list`);
  const data: CustomerRedeemableView[] = [];
  for (const holding of page.rows) {
    data.push({ ...FRESH, ...holding.fields, redeemable: { type: 'voucher', status: await statusOf(ctx, holding.voucher), voucher: await presentVoucher(ctx, holding.voucher) } });
  }
  return {
    object: 'list' as const,
    data_ref: 'data' as const,
    data,
    total: holdings.length,
    has_more: page.has_more,
    ...(page.more_starting_after !== undefined && { more_starting_after: page.more_starting_after }),
  };
}

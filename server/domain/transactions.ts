/**
 * Balance transactions of vouchers: a gift card's credits and a loyalty card's points, one entry per movement, in
 * the table loyalty cards keep theirs in (loyalty/cards.ts records the points, gift-transactions.ts the credits).
 */
import { findCampaign } from './campaign-lookup.js';
import type { DomainContext } from './context.js';
import { invalid } from './errors.js';
import { filterCondition } from './filters.js';
import { listTransactions, type TransactionQuery } from './loyalty/activity.js';
import { cursorPage } from './pagination.js';
import { normalizeFilters } from './list-filters.js';
import { findVoucher } from './vouchers.js';

/** A voucher's transactions: a gift card's credit movements or a loyalty card's points, newest first unless `order` is `id`. */
export async function listVoucherTransactions(ctx: DomainContext, code: string, query: TransactionQuery) {
  return listTransactions(ctx, await findVoucher(ctx, code), query);
}

const CAMPAIGN_FILTER_FIELDS: ReadonlySet<string> = new Set(['id', 'voucher_id']);

/** The transactions of every voucher of a campaign, newest first unless `order` is `id`, paged with a cursor. */
export async function listCampaignTransactions(ctx: DomainContext, campaignRef: string, query: TransactionQuery) {
  const campaign = await findCampaign(ctx, campaignRef);
  const filter = query.filters && Object.keys(query.filters).some((key) => key !== 'junction') ? normalizeFilters(query.filters, CAMPAIGN_FILTER_FIELDS) : undefined;
  // Transaction IDs are not in time order, so "by id" means in the order of recording, as the API's cursor does.
  const { rows } = await ctx.uow.loyalty_transactions.query({ index: { field: 'campaign_id', value: campaign.id }, ...(filter && { where: filterCondition(filter) }) });
  if (query.order !== 'id') rows.reverse();
  const page = cursorPage(rows, query);
  if (!page) throw invalid('invalid_query_params', 'Invalid query params', `starting_after_id ${query.starting_after_id} is not an entry of this list`);
  return page;
}

import { findProgram } from '../domain/loyalty/programs.js';
import { listCampaignTransactions, listVoucherTransactions } from '../domain/transactions.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type TransactionOperations = 'list-voucher-transactions' | 'list-campaign-transactions' | 'list-loyalty-campaign-transactions';

/** A cursor-paged list response. */
function cursorBody<T>(page: { rows: T[]; has_more: boolean; more_starting_after?: string }) {
  return {
    object: 'list' as const,
    data_ref: 'data' as const,
    data: page.rows,
    has_more: page.has_more,
    ...(page.more_starting_after !== undefined && { more_starting_after: page.more_starting_after }),
  };
}

export const transactionHandlers: HandlersOf<TransactionOperations> = {
  'list-voucher-transactions': async ({ path, query, context, services }) => ({
    status: 200,
    body: cursorBody(await inProject(services, context, (ctx) => listVoucherTransactions(ctx, path.code, query))),
  }),
  'list-campaign-transactions': async ({ path, query, context, services }) => ({
    status: 200,
    body: cursorBody(await inProject(services, context, (ctx) => listCampaignTransactions(ctx, path.campaignId, query))),
  }),
  // Deprecated: the campaign operation's engine, for a loyalty program only.
  'list-loyalty-campaign-transactions': async ({ path, query, context, services }) => ({
    status: 200,
    body: cursorBody(
      await inProject(services, context, async (ctx) => listCampaignTransactions(ctx, (await findProgram(ctx, path.campaignId)).id, query)),
    ),
  }),
};

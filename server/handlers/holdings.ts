import { listCustomerRedeemables, type CustomerRedeemablesQuery } from '../domain/customer-redeemables.js';
import { rollbackStacked } from '../domain/redemptions.js';
import { releaseSession } from '../domain/sessions.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';
import { withAssets } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

type HoldingOperations = 'release-validation-session' | 'rollback-stacked-redemptions' | 'list-customer-redeemables';

/** What is held and undone: validation sessions' holds, a customer's vouchers, a parent redemption's rollback. */
export const holdingHandlers: HandlersOf<HoldingOperations> = {
  'release-validation-session': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => releaseSession(ctx, path.code, path.sessionKey));
    return { status: 204 };
  },
  'rollback-stacked-redemptions': async ({ path, query, body, context, services }) => {
    const input = { ...FRESH, ...(query.reason !== undefined && { reason: query.reason }), ...body };
    // A refusal is recorded inside the unit of work, which commits; only then is it answered as an error.
    const outcome = await inProject(services, context, (ctx) => rollbackStacked(ctx, path.parentRedemptionId, input, context.apiKey.appId));
    if (!outcome.ok) throw outcome.error;
    const voucherAssets = <E extends { voucher?: Parameters<typeof withAssets>[2] }>(entry: E) => ({ ...FRESH, ...entry, ...(entry.voucher && { voucher: withAssets(services, context, entry.voucher) }) });
    return {
      status: 200,
      body: { rollbacks: outcome.rollbacks.map(voucherAssets), parent_rollback: voucherAssets(outcome.parent), ...(outcome.order && { order: outcome.order }) },
    };
  },
  'list-customer-redeemables': async ({ path, query, context, services }) => {
    const list = await inProject(services, context, (ctx) => listCustomerRedeemables(ctx, path.customerId, query as CustomerRedeemablesQuery));
    return {
      status: 200,
      body: { ...FRESH, ...list, data: list.data.map((entry) => ({ ...FRESH, ...entry, redeemable: { ...FRESH, ...entry.redeemable, voucher: withAssets(services, context, entry.redeemable.voucher) } })) },
    };
  },
};


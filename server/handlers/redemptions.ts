import { findRedemption, listRedemptions, redeem, rollback, voucherRedemptions, type EntryView } from '../domain/redemptions.js';
import type { HandlersOf, RequestContext, Services } from './types.js';
import { inProject } from './unit-of-work.js';
import { withAssets } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

type RedemptionOperations = 'list-redemptions' | 'redeem-stacked-discounts' | 'get-redemption' | 'rollback-redemption' | 'get-voucher-redemptions';

/** Adds the asset URLs of the embedded voucher, which depend on the address the caller used. */
function withVoucherAssets<E extends EntryView>(services: Services, context: RequestContext, entry: E) {
  return { ...FRESH, ...entry, ...(entry.voucher && { voucher: withAssets(services, context, entry.voucher) }) } as E & { voucher?: ReturnType<typeof withAssets> };
}

export const redemptionHandlers: HandlersOf<RedemptionOperations> = {
  'list-redemptions': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listRedemptions(ctx, query as Parameters<typeof listRedemptions>[1]));
    return {
      status: 200,
      body: { object: 'list', data_ref: 'redemptions', redemptions: page.rows.map((entry) => withVoucherAssets(services, context, entry)), total: page.total },
    };
  },
  'redeem-stacked-discounts': async ({ body, context, services }) => {
    // The failure is recorded inside the unit of work, which commits; only then is it answered as an error.
    const outcome = await inProject(services, context, (ctx) => redeem(ctx, body, context.apiKey.appId), { optimistic: true });
    if (!outcome.ok) throw outcome.error;
    return {
      status: 200,
      body: {
        redemptions: outcome.redemptions.map((entry) => withVoucherAssets(services, context, entry)),
        parent_redemption: withVoucherAssets(services, context, outcome.parent),
        order: outcome.order,
        ...(outcome.skipped.length > 0 && { skipped_redeemables: outcome.skipped }),
        ...(outcome.inapplicable.length > 0 && { inapplicable_redeemables: outcome.inapplicable }),
      },
    };
  },
  'get-redemption': async ({ path, context, services }) => ({
    status: 200,
    body: withVoucherAssets(services, context, await inProject(services, context, (ctx) => findRedemption(ctx, path.redemptionId))),
  }),
  'rollback-redemption': async ({ path, query, body, context, services }) => {
    const input = { ...FRESH, ...(query.reason !== undefined && { reason: query.reason }), ...body };
    const outcome = await inProject(services, context, (ctx) => rollback(ctx, path.redemptionId, input, context.apiKey.appId), { optimistic: true });
    if (!outcome.ok) throw outcome.error;
    return { status: 200, body: withVoucherAssets(services, context, outcome.rollback) };
  },
  'get-voucher-redemptions': async ({ path, context, services }) => {
    const list = await inProject(services, context, (ctx) => voucherRedemptions(ctx, path.code));
    return { status: 200, body: { ...FRESH, ...list, redemption_entries: list.redemption_entries.map((entry) => withVoucherAssets(services, context, entry)) } };
  },
};

import { findRedemption, listRedemptions, redeem, rollback, voucherRedemptions } from '../domain/redemptions.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type RedemptionOperations = 'list-redemptions' | 'redeem-stacked-discounts' | 'get-redemption' | 'rollback-redemption' | 'get-voucher-redemptions';

export const redemptionHandlers: HandlersOf<RedemptionOperations> = {
  'list-redemptions': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listRedemptions(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'redemptions', redemptions: page.rows, total: page.total } };
  },
  'redeem-stacked-discounts': async ({ body, context, services }) => {
    // The failure is recorded inside the unit of work, which commits; only then is it answered as an error.
    const outcome = await inProject(services, context, (ctx) => redeem(ctx, body, context.apiKey.appId));
    if (!outcome.ok) throw outcome.error;
    return { status: 200, body: { redemptions: outcome.redemptions, parent_redemption: outcome.parent, order: outcome.order } };
  },
  'get-redemption': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => findRedemption(ctx, path.redemptionId)),
  }),
  'rollback-redemption': async ({ path, query, body, context, services }) => {
    const input = { ...(query.reason !== undefined && { reason: query.reason }), ...body };
    const outcome = await inProject(services, context, (ctx) => rollback(ctx, path.redemptionId, input));
    if (!outcome.ok) throw outcome.error;
    return { status: 200, body: outcome.rollback };
  },
  'get-voucher-redemptions': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => voucherRedemptions(ctx, path.code)),
  }),
};

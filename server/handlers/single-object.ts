import { invalid } from '../domain/errors.js';
import { examineCampaigns, examineVouchers } from '../domain/examinations.js';
import type { RedemptionView } from '../domain/redemptions.js';
import {
  redeemPromotionTier,
  redeemVoucher,
  validatePromotions,
  validatePromotionTier,
  validateVoucher,
  voucherContextFromQuery,
} from '../domain/single-object.js';
import type { HandlersOf, RequestContext, Services } from './types.js';
import { inProject } from './unit-of-work.js';
import { withAssets } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

type SingleObjectOperations =
  | 'validate-voucher'
  | 'validate-voucher-client-side'
  | 'validate-promotions'
  | 'validate-promotion-tier'
  | 'redeem-voucher'
  | 'redeem-voucher-client-side'
  | 'redeem-promotion'
  | 'examine-vouchers-qualification'
  | 'examine-campaign-qualification';

/** The redemption with its voucher's asset URLs, which depend on the address the caller used. */
function withVoucherAssets(services: Services, context: RequestContext, redemption: RedemptionView) {
  return { ...FRESH, ...redemption, ...(redemption.voucher && { voucher: withAssets(services, context, redemption.voucher) }) };
}

/** The deprecated single-object validations, redemptions and qualifications, answered by their replacements' engine. */
export const singleObjectHandlers: HandlersOf<SingleObjectOperations> = {
  'validate-voucher': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => validateVoucher(ctx, path.code, body ?? {})),
  }),
  'validate-voucher-client-side': async ({ query, context, services }) => {
    const { code, body } = voucherContextFromQuery(query as Parameters<typeof voucherContextFromQuery>[0]);
    return { status: 200, body: await inProject(services, context, (ctx) => validateVoucher(ctx, code, body)) };
  },
  'validate-promotions': async ({ query, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => validatePromotions(ctx, body ?? {}, query.filters)),
  }),
  'validate-promotion-tier': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => validatePromotionTier(ctx, path.tierId, body ?? {})),
  }),
  'redeem-voucher': async ({ path, query, body, context, services }) => {
    // The failure is recorded inside the unit of work, which commits; only then is it answered as an error.
    const outcome = await inProject(services, context, (ctx) => redeemVoucher(ctx, path.code, body ?? {}, query.tracking_id, context.apiKey.appId));
    if (!outcome.ok) throw outcome.error;
    return { status: 200, body: withVoucherAssets(services, context, outcome.redemption) };
  },
  'redeem-voucher-client-side': async ({ query, body, context, services }) => {
    const code = query.code;
    if (!code) throw invalid('missing_code', 'Missing code', 'Give the voucher to redeem as `code`');
    const outcome = await inProject(services, context, (ctx) => redeemVoucher(ctx, code, body ?? {}, query.tracking_id, context.apiKey.appId));
    if (!outcome.ok) throw outcome.error;
    return { status: 200, body: withVoucherAssets(services, context, outcome.redemption) };
  },
  'redeem-promotion': async ({ path, body, context, services }) => {
    const outcome = await inProject(services, context, (ctx) => redeemPromotionTier(ctx, path.promotionTierId, body ?? {}, context.apiKey.appId));
    if (!outcome.ok) throw outcome.error;
    return { status: 200, body: withVoucherAssets(services, context, outcome.redemption) };
  },
  'examine-vouchers-qualification': async ({ query, body, context, services }) => {
    const list = await inProject(services, context, (ctx) => examineVouchers(ctx, body ?? {}, query));
    return { status: 200, body: { ...FRESH, ...list, data: list.data.map((voucher) => withAssets(services, context, voucher)) } };
  },
  'examine-campaign-qualification': async ({ query, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => examineCampaigns(ctx, body ?? {}, query)),
  }),
};

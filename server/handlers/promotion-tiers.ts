import {
  createPromotionTier,
  deletePromotionTier,
  findPromotionTier,
  listCampaignTiers,
  listPromotionTiers,
  presentPromotionTier,
  setPromotionTierActive,
  updatePromotionTier,
} from '../domain/promotion-tiers.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type TierOperations =
  | 'list-promotion-tiers-from-campaign'
  | 'add-promotion-tier-to-campaign'
  | 'list-promotion-tiers'
  | 'get-promotion-tier'
  | 'update-promotion-tier'
  | 'delete-promotion-tier'
  | 'enable-promotion-tier'
  | 'disable-promotion-tier';

export const promotionTierHandlers: HandlersOf<TierOperations> = {
  'list-promotion-tiers-from-campaign': async ({ path, context, services }) => {
    return { status: 200, body: await inProject(services, context, (ctx) => listCampaignTiers(ctx, path.campaignId)) };
  },
  'add-promotion-tier-to-campaign': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentPromotionTier(ctx, await createPromotionTier(ctx, path.campaignId, body))),
  }),
  'list-promotion-tiers': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listPromotionTiers(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'tiers', tiers: page.rows, total: page.total, has_more: page.has_more } };
  },
  'get-promotion-tier': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentPromotionTier(ctx, await findPromotionTier(ctx, path.promotionTierId))),
  }),
  'update-promotion-tier': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentPromotionTier(ctx, await updatePromotionTier(ctx, path.promotionTierId, body))),
  }),
  'delete-promotion-tier': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deletePromotionTier(ctx, path.promotionTierId));
    return { status: 204 };
  },
  'enable-promotion-tier': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentPromotionTier(ctx, await setPromotionTierActive(ctx, path.promotionTierId, true))),
  }),
  'disable-promotion-tier': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentPromotionTier(ctx, await setPromotionTierActive(ctx, path.promotionTierId, false))),
  }),
};

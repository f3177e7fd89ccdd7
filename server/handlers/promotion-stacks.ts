/** Promotion stacks: sets of a promotion campaign's tiers, validated and redeemed as one. */
import {
  createPromotionStack,
  deletePromotionStack,
  findPromotionStack,
  listAllStacks,
  listCampaignStacks,
  presentPromotionStack,
  updatePromotionStack,
} from '../domain/promotion-stacks.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type StackOperations =
  | 'list-all-promotion-stacks'
  | 'list-promotion-stacks-in-campaign'
  | 'create-promotion-stack'
  | 'get-promotion-stack'
  | 'update-promotion-stack'
  | 'delete-promotion-stack';

export const promotionStackHandlers: HandlersOf<StackOperations> = {
  'list-all-promotion-stacks': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listAllStacks(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'list-promotion-stacks-in-campaign': async ({ path, context, services }) => {
    const data = await inProject(services, context, (ctx) => listCampaignStacks(ctx, path.campaignId));
    return { status: 200, body: { object: 'list', data_ref: 'data', data, total: data.length } };
  },
  'create-promotion-stack': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentPromotionStack(ctx, await createPromotionStack(ctx, path.campaignId, body))),
  }),
  'get-promotion-stack': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentPromotionStack(ctx, await findPromotionStack(ctx, path.campaignId, path.stackId))),
  }),
  'update-promotion-stack': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) =>
      presentPromotionStack(ctx, await updatePromotionStack(ctx, path.campaignId, path.stackId, body)),
    ),
  }),
  'delete-promotion-stack': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deletePromotionStack(ctx, path.campaignId, path.stackId));
    return { status: 204 };
  },
};

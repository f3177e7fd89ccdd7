import { startAsyncAction } from '../domain/async-actions.js';
import { findCampaign } from '../domain/campaign-lookup.js';
import {
  campaignSummary,
  createCampaign,
  listCampaigns,
  presentCampaign,
  setCampaignActive,
  SYNC_GENERATION_LIMIT,
  updateCampaign,
} from '../domain/campaigns.js';
import { scheduleGeneration } from '../domain/generation.js';
import { createPromotionTier } from '../domain/promotion-tiers.js';
import { invalid } from '../domain/errors.js';
import { campaignForNewVouchers, createVoucher, generateCampaignVouchers } from '../domain/vouchers.js';
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from '../domain/context.js';
import type { HandlersOf, RequestContext, Services } from './types.js';
import { apiSource, inProject, jobClock } from './unit-of-work.js';
import { acceptCampaignDeletion, deleteCampaignInBackground } from '../domain/campaign-deletion.js';
import { voucherResponse } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

type CampaignsCreateRequestBody = components['schemas']['CampaignsCreateRequestBody'];

type CampaignOperations =
  | 'list-campaigns'
  | 'create-campaign'
  | 'get-campaign'
  | 'update-campaign'
  | 'delete-campaign'
  | 'enable-campaign'
  | 'disable-campaign'
  | 'add-vouchers-to-campaign'
  | 'add-voucher-with-specific-code-to-campaign'
  | 'get-campaign-summary';

/**
 * Creates a campaign and its first vouchers: up to SYNC_GENERATION_LIMIT before the response, more in a
 * background job followed by an async action. The request may be worked out inside the unit of work (a
 * campaign set up from a template makes its rules there first).
 */
export async function createCampaignWithVouchers(
  services: Services,
  context: RequestContext,
  request: CampaignsCreateRequestBody | ((ctx: DomainContext) => Promise<CampaignsCreateRequestBody>),
) {
  const { campaign, background, count } = await inProject(services, context, async (ctx) => {
    const body = typeof request === 'function' ? await request(ctx) : request;
    const count = body.vouchers_count ?? 0;
    const record = await createCampaign(ctx, body);
    for (const tier of body.promotion?.tiers ?? []) await createPromotionTier(ctx, record.id, tier);
    if (count === 0) return { campaign: await presentCampaign(ctx, record), background: undefined, count };
    if (count <= SYNC_GENERATION_LIMIT) {
      await generateCampaignVouchers(ctx, record, {}, count);
      return { campaign: await presentCampaign(ctx, record), background: undefined, count };
    }
    const action = await startAsyncAction(ctx, 'CAMPAIGN.VOUCHERS_GENERATE', context.requestId);
    await scheduleGeneration(ctx, services.leases.lease, { campaignId: record.id, asyncActionId: action.id, count, input: {} });
    return { campaign: await presentCampaign(ctx, record), background: action.id, count };
  });
  if (background) services.leases.generate(context.projectId, background);
  return { status: 200 as const, body: campaign };
}

export const campaignHandlers: HandlersOf<CampaignOperations> = {
  'list-campaigns': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listCampaigns(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'campaigns', campaigns: page.rows, total: page.total } };
  },
  'create-campaign': ({ body, context, services }) => createCampaignWithVouchers(services, context, body),
  'get-campaign': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentCampaign(ctx, await findCampaign(ctx, path.campaignId))),
  }),
  'update-campaign': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentCampaign(ctx, await updateCampaign(ctx, path.campaignId, body))),
  }),
  'delete-campaign': async ({ path, query, context, services }) => {
    const clock = await jobClock(services, context.projectId);
    const { campaignId, asyncActionId } = await inProject(services, context, (ctx) => acceptCampaignDeletion(ctx, path.campaignId, services.leases.lease, context.requestId));
    const scope = { store: services.store, clock, projectId: context.projectId, asyncActionId, source: apiSource(context.apiKey) };
    services.leases.run(context.projectId, asyncActionId, `CAMPAIGN.VOUCHERS_DELETE ${asyncActionId}`, () => deleteCampaignInBackground(scope, campaignId, { force: query.force }));
    return { status: 202, body: { async_action_id: asyncActionId } };
  },
  'enable-campaign': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentCampaign(ctx, await setCampaignActive(ctx, path.campaignId, true))),
  }),
  'disable-campaign': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentCampaign(ctx, await setCampaignActive(ctx, path.campaignId, false))),
  }),
  'add-vouchers-to-campaign': async ({ path, query, body, context, services }) => {
    const count = query.vouchers_count ?? 1;
    if (count === 1) {
      return voucherResponse(services, context, async (ctx) => {
        const campaign = await campaignForNewVouchers(ctx, path.campaignId);
        return createVoucher(ctx, body, campaign);
      });
    }
    if (body.code !== undefined && body.code !== null) {
      throw invalid('invalid_voucher', 'Invalid voucher', `A code names one voucher; vouchers_count is ${count}`);
    }
    const job = await inProject(services, context, async (ctx) => {
      const campaign = await campaignForNewVouchers(ctx, path.campaignId);
      const action = await startAsyncAction(ctx, 'CAMPAIGN.VOUCHERS_GENERATE', context.requestId);
      await ctx.uow.campaigns.update({ ...FRESH, ...campaign, vouchers_generation_status: 'IN_PROGRESS' });
      await scheduleGeneration(ctx, services.leases.lease, { campaignId: campaign.id, asyncActionId: action.id, count, input: body });
      return action.id;
    });
    services.leases.generate(context.projectId, job);
    return { status: 202, body: { async_action_id: job } };
  },
  'add-voucher-with-specific-code-to-campaign': ({ path, body, context, services }) =>
    voucherResponse(services, context, async (ctx) => {
      const campaign = await campaignForNewVouchers(ctx, path.campaignId);
      return createVoucher(ctx, { ...FRESH, ...body, code: path.code }, campaign);
    }),
  'get-campaign-summary': async ({ path, query, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => campaignSummary(ctx, path.campaignId, query)),
  }),
};

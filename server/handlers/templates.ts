import {
  campaignFromTemplate,
  createTemplate,
  deleteTemplate,
  findTemplate,
  insertTemplateCopy,
  listTemplates,
  presentTemplate,
  tierFromTemplate,
  updateTemplate,
} from '../domain/templates.js';
import { presentPromotionTier } from '../domain/promotion-tiers.js';
import type { components } from '../../generated/openapi.js';
import { createCampaignWithVouchers } from './campaigns.js';
import type { HandlersOf } from './types.js';
import { inManagedProject, inProject } from './unit-of-work.js';

type CreatedResource = components['schemas']['TemplateCreatedResource'];

type TemplateOperations =
  | 'list-campaign-templates'
  | 'create-campaign-template'
  | 'get-campaign-template'
  | 'update-campaign-template'
  | 'delete-campaign-template'
  | 'create-campaign-from-template'
  | 'add-tier-from-template'
  | 'management-list-campaign-templates'
  | 'management-copy-campaign-template';

/** A cursor page of templates; `total` only when asked for. */
function templatePage(page: Awaited<ReturnType<typeof listTemplates>>, includeTotal: boolean | undefined) {
  return {
    object: 'list' as const,
    data_ref: 'data' as const,
    data: page.rows,
    ...(includeTotal && { total: page.total }),
    has_more: page.has_more,
    ...(page.more_starting_after !== undefined && { more_starting_after: page.more_starting_after }),
  };
}

export const templateHandlers: HandlersOf<TemplateOperations> = {
  'list-campaign-templates': async ({ query, context, services }) => ({
    status: 200,
    body: templatePage(await inProject(services, context, (ctx) => listTemplates(ctx, query)), query.include_total),
  }),
  'create-campaign-template': async ({ body, context, services }) => ({
    status: 200,
    body: presentTemplate(await inProject(services, context, (ctx) => createTemplate(ctx, body))),
  }),
  'get-campaign-template': async ({ path, context, services }) => ({
    status: 200,
    body: presentTemplate(await inProject(services, context, (ctx) => findTemplate(ctx, path.campaignTemplateId))),
  }),
  'update-campaign-template': async ({ path, body, context, services }) => ({
    status: 200,
    body: presentTemplate(await inProject(services, context, (ctx) => updateTemplate(ctx, path.campaignTemplateId, body))),
  }),
  'delete-campaign-template': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteTemplate(ctx, path.campaignTemplateId));
    return { status: 204 };
  },
  'create-campaign-from-template': async ({ path, body, context, services }) => {
    let created: CreatedResource[] = [];
    const made = await createCampaignWithVouchers(services, context, async (ctx) => {
      const setup = await campaignFromTemplate(ctx, path.campaignTemplateId, body);
      created = setup.created;
      return setup.body;
    });
    return { status: 200, body: { created_resources: created, campaign: made.body, object: 'campaign_setup' } };
  },
  'add-tier-from-template': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => {
      const { tier, created } = await tierFromTemplate(ctx, path.campaignTemplateId, body);
      return { created_resources: created, promotion_tier: await presentPromotionTier(ctx, tier), object: 'promotion_tier_setup' as const };
    }),
  }),
  'management-list-campaign-templates': async ({ path, query, services }) => ({
    status: 200,
    body: templatePage(await inManagedProject(services, path.projectId, (ctx) => listTemplates(ctx, query)), query.include_total),
  }),
  'management-copy-campaign-template': async ({ path, body, services }) => {
    const original = await inManagedProject(services, path.projectId, (ctx) => findTemplate(ctx, path.campaignTemplateId));
    const copy = await inManagedProject(services, body.destination_project_id, (ctx) => insertTemplateCopy(ctx, original, body));
    return { status: 200, body: presentTemplate(copy) };
  },
};

/**
 * Campaign templates: a discount or gift card campaign's setup (or a promotion tier's discount) kept under a
 * name, to make new campaigns and promotion tiers like it. A template is a copy taken when it is made: its
 * validation rules are kept as definitions, and every campaign or tier set up from it gets rules of its own,
 * so a template can be copied to another project and work there.
 */
import type { components } from '../../generated/openapi.js';
import { findCampaign } from './campaign-lookup.js';
import type { CampaignRecord, CampaignVoucher } from './campaigns.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { newId } from './ids.js';
import { idOrderedPage, idOrderedQuery, listFilter, type IdCursorQuery } from './list-filters.js';
import { createPromotionTier, findPromotionTier, type PromotionTierRecord } from './promotion-tiers.js';
import { writeUnique } from './unique.js';
import { createValidationRule } from './validation-rules.js';
import { table } from '../store/schema.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type TemplateType = Schemas['CampaignTemplateType'];
type TemplateCreate = Schemas['TemplatesCampaignsCreateRequestBody'];
type TemplateUpdate = Schemas['TemplatesCampaignsUpdateRequestBody'];
type CampaignSetup = Schemas['TemplatesCampaignsCampaignSetupCreateRequestBody'];
type TierSetup = Schemas['TemplatesCampaignsTierSetupCreateRequestBody'];
type CampaignCreate = Schemas['CampaignsCreateRequestBody'];
type RuleCreate = Schemas['ValidationRulesCreateRequestBody'];
type CreatedResource = Schemas['TemplateCreatedResource'];

/** The settings a campaign made from the template starts with. */
export interface TemplateSetupFields {
  description: string | null;
  type: CampaignRecord['type'];
  auto_join: boolean;
  join_once: boolean;
  use_voucher_metadata_schema: boolean;
  start_date: string | null;
  expiration_date: string | null;
  validity_timeframe: CampaignRecord['validity_timeframe'];
  validity_day_of_week: CampaignRecord['validity_day_of_week'];
  validity_hours: CampaignRecord['validity_hours'];
  activity_duration_after_publishing: string | null;
  metadata: Record<string, unknown>;
  /** The category by ID, and by name for a project where that ID does not exist (a copy's). */
  category: { id: string; name: string } | null;
}

/** A template as stored: what the contract shows, and the setup it keeps. */
export interface CampaignTemplateRecord {
  id: string;
  name: string;
  description: string | null;
  campaign_type: TemplateType;
  created_at: string;
  updated_at: string | null;
  voucher: CampaignVoucher;
  setup: TemplateSetupFields;
  /** The validation rules to make for each campaign or tier set up from the template. */
  rules: RuleCreate[];
}

export const CAMPAIGN_TEMPLATES_TABLE = table<CampaignTemplateRecord>({ unique: ['name'], indexed: [], kinds: { id: 'text' } });

function templateError(details: string) {
  return invalid('invalid_template_params', 'Invalid template params', details);
}

export function presentTemplate(record: CampaignTemplateRecord): Schemas['CampaignTemplate'] {
  return {
    id: record.id,
    name: record.name,
    ...(record.description !== null && { description: record.description }),
    campaign_type: record.campaign_type,
    created_at: record.created_at,
    ...(record.updated_at !== null && { updated_at: record.updated_at }),
    object: 'campaign_template',
  };
}

export async function findTemplate({ uow }: DomainContext, id: string): Promise<CampaignTemplateRecord> {
  const template = await uow.campaign_templates.get(id);
  if (!template) throw notFound('campaign_template', id);
  return template;
}

/** The definitions of the rules assigned to an object, to be made again elsewhere. */
async function ruleDefinitions(ctx: DomainContext, objectId: string): Promise<RuleCreate[]> {
  const definitions: RuleCreate[] = [];
  for (const assignment of await ctx.uow.validation_rule_assignments.findBy('related_object_id', objectId)) {
    const rule = await ctx.uow.validation_rules.get(assignment.rule_id);
    if (!rule) continue;
    definitions.push({
      name: rule.name,
      rules: rule.rules,
      ...(rule.bundle_rules && { bundle_rules: rule.bundle_rules }),
      error: rule.error,
      applicable_to: rule.applicable_to,
      type: rule.type,
      context_type: rule.context_type,
    } as RuleCreate);
  }
  return definitions;
}

async function categoryOf(ctx: DomainContext, categoryId: string | null): Promise<TemplateSetupFields['category']> {
  const category = categoryId ? await ctx.uow.categories.get(categoryId) : undefined;
  return category ? { id: category.id, name: category.name } : null;
}

async function fromCampaign(ctx: DomainContext, ref: string) {
  const campaign = await findCampaign(ctx, ref);
  if ((campaign.campaign_type !== 'DISCOUNT_COUPONS' && campaign.campaign_type !== 'GIFT_VOUCHERS') || !campaign.voucher) {
    throw templateError(`Campaign ${campaign.name} is ${campaign.campaign_type}; templates are made from DISCOUNT_COUPONS and GIFT_VOUCHERS campaigns, and from promotion tiers`);
  }
  return {
    campaign_type: campaign.campaign_type as TemplateType,
    voucher: campaign.voucher,
    setup: {
      description: campaign.description,
      type: campaign.type,
      auto_join: campaign.auto_join,
      join_once: campaign.join_once,
      use_voucher_metadata_schema: campaign.use_voucher_metadata_schema,
      start_date: campaign.start_date,
      expiration_date: campaign.expiration_date,
      validity_timeframe: campaign.validity_timeframe,
      validity_day_of_week: campaign.validity_day_of_week,
      validity_hours: campaign.validity_hours,
      activity_duration_after_publishing: campaign.activity_duration_after_publishing ?? null,
      metadata: campaign.metadata,
      category: await categoryOf(ctx, campaign.category_id),
    },
    rules: await ruleDefinitions(ctx, campaign.id),
  };
}

async function fromTier(ctx: DomainContext, id: string) {
  const tier: PromotionTierRecord = await findPromotionTier(ctx, id);
  const discount = tier.action?.discount;
  if (!discount) throw templateError(`Promotion tier ${tier.id} gives no discount to make a template of`);
  return {
    campaign_type: 'DISCOUNT_COUPONS' as const,
    voucher: {
      type: 'DISCOUNT_VOUCHER' as const,
      discount,
      gift: null,
      loyalty_card: null,
      redemption: { quantity: null },
      code_config: { length: 8, charset: '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz' },
      is_referral_code: false,
    } as CampaignVoucher,
    setup: {
      description: tier.banner,
      type: 'AUTO_UPDATE' as const,
      auto_join: false,
      join_once: false,
      use_voucher_metadata_schema: true,
      start_date: tier.start_date,
      expiration_date: tier.expiration_date,
      validity_timeframe: tier.validity_timeframe,
      validity_day_of_week: tier.validity_day_of_week,
      validity_hours: tier.validity_hours,
      activity_duration_after_publishing: null,
      metadata: tier.metadata,
      category: await categoryOf(ctx, tier.category_id),
    },
    rules: await ruleDefinitions(ctx, tier.id),
  };
}

export async function createTemplate(ctx: DomainContext, input: TemplateCreate): Promise<CampaignTemplateRecord> {
  const campaignRef = input.campaign_id ?? undefined;
  const tierRef = input.promotion_tier_id ?? undefined;
  if ((campaignRef === undefined) === (tierRef === undefined)) throw templateError('Name exactly one of campaign_id and promotion_tier_id');
  const source = campaignRef !== undefined ? await fromCampaign(ctx, campaignRef) : await fromTier(ctx, tierRef!);
  return writeUnique('campaign_template', () =>
    ctx.uow.campaign_templates.insert({
      id: newId('camptpl'),
      name: input.name,
      description: input.description ?? null,
      created_at: isoNow(ctx.clock),
      updated_at: null,
      ...source,
    }),
  );
}

export async function updateTemplate(ctx: DomainContext, id: string, input: TemplateUpdate): Promise<CampaignTemplateRecord> {
  const template = await findTemplate(ctx, id);
  return writeUnique('campaign_template', () =>
    ctx.uow.campaign_templates.update({
      ...FRESH,
      ...template,
      ...(input.name !== undefined && { name: input.name }),
      ...(input.description !== undefined && { description: input.description }),
      updated_at: isoNow(ctx.clock),
    }),
  );
}

export async function deleteTemplate(ctx: DomainContext, id: string): Promise<void> {
  const template = await findTemplate(ctx, id);
  await ctx.uow.campaign_templates.delete(template.id);
}

const TEMPLATE_FILTER_FIELDS: ReadonlySet<string> = new Set(['id', 'name', 'campaign_type']);

export async function listTemplates(ctx: DomainContext, query: IdCursorQuery & { filters?: Record<string, unknown> }) {
  const filter = listFilter(query.filters, TEMPLATE_FILTER_FIELDS);
  const { rows } = await ctx.uow.campaign_templates.query(idOrderedQuery(filter, query));
  return idOrderedPage(rows.map(presentTemplate), query);
}

/**
 * A copy of a template for another project's store (or the same one): the same setup under a new name. The
 * copy keeps the category by name too, for a project where the ID means nothing.
 */
export async function insertTemplateCopy(ctx: DomainContext, original: CampaignTemplateRecord, input: { name: string; description?: string | null }) {
  return writeUnique('campaign_template', () =>
    ctx.uow.campaign_templates.insert({
      ...FRESH,
      ...original,
      id: newId('camptpl'),
      name: input.name,
      description: input.description === undefined ? original.description : input.description,
      created_at: isoNow(ctx.clock),
      updated_at: null,
    }),
  );
}

/** Makes the template's rules anew; their IDs are assigned to what is set up. */
async function makeRules(ctx: DomainContext, template: CampaignTemplateRecord): Promise<{ ids: string[]; created: CreatedResource[] }> {
  const ids: string[] = [];
  for (const definition of template.rules) ids.push((await createValidationRule(ctx, definition)).id);
  return { ids, created: ids.map((id) => ({ id, object: 'validation_rules' as const })) };
}

/** The category a setup names: the request's, else the template's (by ID, then by name), else none. */
async function setupCategory(ctx: DomainContext, request: { category?: string; category_id?: string }, kept: TemplateSetupFields['category']) {
  if (request.category_id !== undefined) return { category_id: request.category_id };
  if (request.category !== undefined) return { category: request.category };
  if (!kept) return {};
  if (await ctx.uow.categories.get(kept.id)) return { category_id: kept.id };
  if (await ctx.uow.categories.getBy('name', kept.name)) return { category: kept.name };
  return {};
}

/**
 * The campaign request a setup amounts to: the template's setup, with what the request changes, and the
 * rules made for it. The caller creates the campaign from it, as `POST /v1/campaigns` does.
 */
export async function campaignFromTemplate(ctx: DomainContext, id: string, input: CampaignSetup): Promise<{ body: CampaignCreate; created: CreatedResource[] }> {
  const template = await findTemplate(ctx, id);
  const { setup, voucher } = template;
  const rules = await makeRules(ctx, template);
  const codeConfig = input.voucher?.code_config ?? voucher.code_config;
  const quantity = input.voucher?.redemption?.quantity ?? voucher.redemption.quantity;
  const common = { redemption: { quantity }, code_config: codeConfig };
  const voucherRequest: NonNullable<CampaignCreate['voucher']> =
    voucher.type === 'GIFT_VOUCHER' && voucher.gift
      ? { type: 'GIFT_VOUCHER', gift: { amount: voucher.gift.amount, effect: voucher.gift.effect }, ...common }
      : { type: 'DISCOUNT_VOUCHER', discount: voucher.discount!, ...common };
  const body: CampaignCreate = {
    name: input.name,
    description: input.description ?? setup.description,
    campaign_type: template.campaign_type,
    type: input.type ?? setup.type,
    voucher: voucherRequest,
    vouchers_count: input.vouchers_count ?? 0,
    auto_join: input.auto_join ?? setup.auto_join,
    join_once: input.join_once ?? setup.join_once,
    use_voucher_metadata_schema: input.use_voucher_metadata_schema ?? setup.use_voucher_metadata_schema,
    start_date: input.start_date ?? setup.start_date,
    expiration_date: input.expiration_date ?? setup.expiration_date,
    validity_timeframe: input.validity_timeframe ?? setup.validity_timeframe,
    validity_day_of_week: input.validity_day_of_week ?? setup.validity_day_of_week,
    validity_hours: input.validity_hours ?? setup.validity_hours,
    activity_duration_after_publishing: input.activity_duration_after_publishing ?? setup.activity_duration_after_publishing,
    metadata: input.metadata ?? setup.metadata,
    ...(await setupCategory(ctx, input, setup.category)),
    validation_rules: rules.ids,
  };
  if (body.validity_timeframe && !body.start_date) throw invalid('invalid_campaign_params', 'Invalid campaign params', 'validity_timeframe requires start_date');
  return { body, created: rules.created };
}

/** Adds a promotion tier with the template's discount to a promotion campaign, with rules of its own. */
export async function tierFromTemplate(ctx: DomainContext, id: string, input: TierSetup): Promise<{ tier: PromotionTierRecord; created: CreatedResource[] }> {
  const template = await findTemplate(ctx, id);
  const discount = template.voucher.discount;
  if (template.campaign_type !== 'DISCOUNT_COUPONS' || !discount) {
    throw templateError(`Template ${template.name} is ${template.campaign_type}; only a discount template gives a promotion tier its discount`);
  }
  const campaign = await findCampaign(ctx, input.campaign_id);
  if (campaign.campaign_type !== 'PROMOTION') {
    throw invalid('invalid_campaign_params', 'Invalid campaign params', `Campaign ${campaign.name} is ${campaign.campaign_type}, not PROMOTION`);
  }
  const { setup } = template;
  const rules = await makeRules(ctx, template);
  const { campaign_id: _campaign, ...fields } = input;
  const tier = await createPromotionTier(ctx, campaign.id, {
    ...FRESH,
    ...fields,
    ...(input.metadata === undefined && { metadata: setup.metadata }),
    start_date: input.start_date ?? setup.start_date,
    expiration_date: input.expiration_date ?? setup.expiration_date,
    validity_timeframe: input.validity_timeframe ?? setup.validity_timeframe,
    validity_day_of_week: input.validity_day_of_week ?? setup.validity_day_of_week,
    validity_hours: input.validity_hours ?? setup.validity_hours,
    ...(await setupCategory(ctx, input, setup.category)),
    action: { discount },
    validation_rules: rules.ids,
  });
  return { tier, created: rules.created };
}

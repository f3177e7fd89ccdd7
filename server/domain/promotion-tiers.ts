import type { components } from '../../generated/openapi.js';
import { findCampaign } from './campaign-lookup.js';
import { categoryChange, categoryFields, resolveCategoryRef } from './categories.js';
import { applyChanges } from './changes.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { newId } from './ids.js';
import { idsWhere, pageWindow, parseOrder, type PageRequest } from './pagination.js';
import { forgetTierInStacks } from './promotion-stacks.js';
import { assignValidationRule, dropAssignmentsOf, findValidationRule } from './validation-rules.js';
import { timeframeWithoutStart, validityAt } from './validity.js';
import { table } from '../store/schema.js';
import { isIn, notIn } from '../store/conditions.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
/** A stored tier: every tier here belongs to a campaign (the contract lets `campaign_id` be null, as the public API shows some). */
export type PromotionTier = Schemas['PromotionTier'] & { campaign_id: string };
type TierCreate = Schemas['PromotionTiersCreateRequestBody'];
type TierUpdate = Schemas['PromotionTiersUpdateRequestBody'];
type Summary = Schemas['PromotionTierSummary'];

/** Every field of a type present (its nulls kept): the contract marks none required, and the server always sets them all. */
type Complete<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/**
 * A tier as stored; its campaign, assignments and categories are attached when it is read. Every field is
 * set, the summary's counters included, whatever the published contract leaves optional.
 */
export type PromotionTierRecord = Complete<Omit<PromotionTier, 'campaign' | 'validation_rule_assignments' | 'categories' | 'object' | 'summary'>> & {
  summary: { redemptions: Complete<NonNullable<Summary['redemptions']>>; orders: Complete<NonNullable<Summary['orders']>> };
};

export const PROMOTION_TIERS_TABLE = table<PromotionTierRecord>({ unique: [], indexed: ['campaign_id'], kinds: { hierarchy: 'number', created_at: 'text', updated_at: 'text' } });

export async function findPromotionTier({ uow }: DomainContext, id: string): Promise<PromotionTierRecord> {
  const tier = await uow.promotion_tiers.get(id);
  if (!tier) throw notFound('promotion_tier', id);
  return tier;
}

export async function presentPromotionTier(ctx: DomainContext, tier: PromotionTierRecord): Promise<PromotionTier> {
  const campaign = await ctx.uow.campaigns.get(tier.campaign_id);
  const assignments = await ctx.uow.validation_rule_assignments.findBy('related_object_id', tier.id);
  const { categories } = await categoryFields(ctx, tier.category_id);
  return {
    ...FRESH,
    ...tier,
    campaign: {
      id: tier.campaign_id,
      start_date: campaign?.start_date ?? null,
      expiration_date: campaign?.expiration_date ?? null,
      validity_timeframe: campaign?.validity_timeframe ?? null,
      validity_day_of_week: campaign?.validity_day_of_week ?? null,
      validity_hours: campaign?.validity_hours ?? null,
      active: campaign?.active ?? false,
      category_id: campaign?.category_id ?? null,
      object: 'campaign',
    },
    validation_rule_assignments: { object: 'list', data_ref: 'data', data: assignments, total: assignments.length },
    categories,
    object: 'promotion_tier',
  };
}

export async function createPromotionTier(ctx: DomainContext, campaignRef: string, input: TierCreate): Promise<PromotionTierRecord> {
  const campaign = await findCampaign(ctx, campaignRef);
  if (campaign.campaign_type !== 'PROMOTION') {
    throw invalid('invalid_campaign_params', 'Invalid campaign params', `Campaign ${campaign.name} is ${campaign.campaign_type}, not PROMOTION`);
  }
  if (input.validity_timeframe && !input.start_date) throw invalid('invalid_payload', 'Invalid payload', 'validity_timeframe requires start_date');
  for (const ruleId of input.validation_rules ?? []) await findValidationRule(ctx, ruleId);
  const siblings = await ctx.uow.promotion_tiers.findBy('campaign_id', campaign.id);
  const category = await resolveCategoryRef(ctx, input);
  const tier = await ctx.uow.promotion_tiers.insert({
    id: newId('promo'),
    created_at: isoNow(ctx.clock),
    updated_at: null,
    name: input.name,
    banner: input.banner ?? null,
    action: input.action ?? null,
    metadata: input.metadata ?? {},
    hierarchy: input.hierarchy ?? Math.max(0, ...siblings.map((sibling) => sibling.hierarchy)) + 1,
    promotion_id: campaign.id,
    campaign_id: campaign.id,
    active: input.active ?? true,
    start_date: input.start_date ?? null,
    expiration_date: input.expiration_date ?? null,
    validity_timeframe: input.validity_timeframe ?? null,
    validity_day_of_week: input.validity_day_of_week ?? null,
    validity_hours: input.validity_hours ?? null,
    summary: { redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } },
    category_id: category?.id ?? null,
  });
  for (const ruleId of input.validation_rules ?? []) {
    await assignValidationRule(ctx, ruleId, { related_object_type: 'promotion_tier', related_object_id: tier.id });
  }
  return tier;
}

/**
 * Fields left out keep their values; null clears one (`metadata` to `{}`). `validation_rule_assignments`, which
 * a tier sent back as GET returns it carries, is ignored: assignments change through their own operations.
 */
export async function updatePromotionTier(ctx: DomainContext, id: string, input: TierUpdate): Promise<PromotionTierRecord> {
  const tier = await findPromotionTier(ctx, id);
  if (timeframeWithoutStart(tier, input)) {
    throw invalid('invalid_payload', 'Invalid payload', 'validity_timeframe requires start_date');
  }
  const { validation_rule_assignments: _ignored, metadata, ...changes } = await categoryChange(ctx, input);
  const update = { ...FRESH, ...changes, ...(metadata !== undefined && { metadata: metadata ?? {} }) };
  return ctx.uow.promotion_tiers.update(applyChanges(tier, update, isoNow(ctx.clock)));
}

export async function setPromotionTierActive(ctx: DomainContext, id: string, active: boolean): Promise<PromotionTierRecord> {
  const tier = await findPromotionTier(ctx, id);
  return ctx.uow.promotion_tiers.update({ ...FRESH, ...tier, active, updated_at: isoNow(ctx.clock) });
}

export async function deletePromotionTier(ctx: DomainContext, id: string): Promise<void> {
  const tier = await findPromotionTier(ctx, id);
  await dropAssignmentsOf(ctx, tier.id);
  await forgetTierInStacks(ctx, tier.id, tier.campaign_id);
  await ctx.uow.promotion_tiers.delete(tier.id);
}

/** Tiers whose availability is worked out at a time. */
const TIERS_PAGE = 200;

/** Whether the tier can be used now: the tier and its campaign both active and in their windows. */
export async function tierAvailable(ctx: DomainContext, tier: PromotionTierRecord): Promise<boolean> {
  const now = ctx.clock.now();
  const campaign = await ctx.uow.campaigns.get(tier.campaign_id);
  return Boolean(campaign) && validityAt(campaign!, now).valid && validityAt(tier, now).valid;
}

/** All the tiers of a campaign, in `hierarchy` order, as one list (a campaign's `promotion`). */
export async function tiersOfCampaign(ctx: DomainContext, campaignId: string): Promise<components['schemas']['PromotionTiersListResponseBody']> {
  const records = await ctx.uow.promotion_tiers.findBy('campaign_id', campaignId);
  records.sort((a, b) => a.hierarchy - b.hierarchy);
  const tiers = await Promise.all(records.map((tier) => presentPromotionTier(ctx, tier)));
  return { object: 'list', data_ref: 'tiers', tiers, total: tiers.length, has_more: false };
}

export async function listCampaignTiers(ctx: DomainContext, campaignRef: string) {
  return tiersOfCampaign(ctx, (await findCampaign(ctx, campaignRef)).id);
}

export async function listPromotionTiers(
  ctx: DomainContext,
  query: PageRequest & { is_available?: boolean; order?: 'hierarchy' | '-hierarchy' | 'created_at' | '-created_at' | 'updated_at' | '-updated_at' },
) {
  // Availability is worked out tier by tier (it reads the campaign and the clock), a page of tiers at a time;
  // the query takes their IDs.
  const available = query.is_available === undefined ? undefined : await idsWhere(ctx.uow.promotion_tiers.walk({}, TIERS_PAGE), (tier) => tierAvailable(ctx, tier));
  const page = await ctx.uow.promotion_tiers.query({
    ...FRESH,
    ...(available && { where: query.is_available ? isIn('id', available) : notIn('id', available) }),
    orderBy: parseOrder<'hierarchy' | 'created_at' | 'updated_at'>(query.order ?? 'hierarchy'),
    ...pageWindow(query),
  });
  const { offset, limit } = pageWindow(query);
  return {
    rows: await Promise.all(page.rows.map((tier) => presentPromotionTier(ctx, tier))),
    total: page.total,
    has_more: offset + limit < page.total,
  };
}

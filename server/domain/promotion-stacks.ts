/**
 * Promotion stacks: fixed sets of tiers of one promotion campaign that validations and redemptions take as
 * one redeemable (`object: promotion_stack`). The engine expands a stack into its tiers (see engine.ts).
 */
import type { components } from '../../generated/openapi.js';
import { findCampaign } from './campaign-lookup.js';
import { categoryFields, findCategory } from './categories.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { newId } from './ids.js';
import { pageWindow, parseOrder, type PageRequest } from './pagination.js';
import { withinRange, type TimeRange } from './time-range.js';
import { table } from '../store/schema.js';
import { and } from '../store/conditions.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type PromotionStack = Schemas['PromotionStack'];
type StackCreate = Schemas['PromotionStacksCreateRequestBody'];
type StackUpdate = Schemas['PromotionStacksUpdateRequestBody'];

/** A stack as stored; its categories are attached when it is read. */
export interface PromotionStackRecord {
  id: string;
  name: string;
  /** `hierarchy_mode` only once a request sent it: the public API echoes it then and leaves it out otherwise. */
  tiers: { ids: string[]; hierarchy_mode?: 'MANUAL' };
  campaign_id: string;
  category_id: string | null;
  created_at: string;
  updated_at?: string;
}

export const PROMOTION_STACKS_TABLE = table<PromotionStackRecord>({ unique: [], indexed: ['campaign_id'], ordered: ['created_at'], kinds: { created_at: 'text', updated_at: 'text', name: 'text' } });

export async function presentPromotionStack<Row extends PromotionStackRecord>(ctx: DomainContext, stack: Row): Promise<PromotionStack & Pick<Row, 'updated_at'>> {
  const { categories } = await categoryFields(ctx, stack.category_id);
  return { ...FRESH, ...stack, tiers: { ids: [...stack.tiers.ids], ...(stack.tiers.hierarchy_mode && { hierarchy_mode: stack.tiers.hierarchy_mode }) }, object: 'promotion_stack', categories };
}

async function promotionCampaign(ctx: DomainContext, ref: string) {
  const campaign = await findCampaign(ctx, ref);
  if (campaign.campaign_type !== 'PROMOTION') {
    throw invalid('invalid_campaign_params', 'Invalid campaign params', `Campaign ${campaign.name} is ${campaign.campaign_type}, not PROMOTION`);
  }
  return campaign;
}

/** Checks that every tier exists, is the campaign's, and is listed once. */
async function checkTiers(ctx: DomainContext, campaignId: string, ids: readonly string[]): Promise<string[]> {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw invalid('invalid_promotion_stack', 'Invalid promotion stack', `tiers.ids lists promotion tier ${id} twice`);
    seen.add(id);
    const tier = await ctx.uow.promotion_tiers.get(id);
    if (!tier) throw notFound('promotion_tier', id);
    if (tier.campaign_id !== campaignId) {
      throw invalid('invalid_promotion_stack', 'Invalid promotion stack', `Promotion tier ${id} belongs to campaign ${tier.campaign_id}, not to ${campaignId}`);
    }
  }
  return [...ids];
}

async function categoryIdOf(ctx: DomainContext, ref: string | null | undefined): Promise<string | null | undefined> {
  if (ref === undefined) return undefined;
  return ref === null ? null : (await findCategory(ctx, ref)).id;
}

export async function createPromotionStack(ctx: DomainContext, campaignRef: string, input: StackCreate): Promise<PromotionStackRecord> {
  const campaign = await promotionCampaign(ctx, campaignRef);
  const ids = await checkTiers(ctx, campaign.id, input.tiers.ids);
  return ctx.uow.promotion_stacks.insert({
    id: newId('stack'),
    name: input.name,
    tiers: { ids, ...(input.tiers.hierarchy_mode && { hierarchy_mode: input.tiers.hierarchy_mode }) },
    campaign_id: campaign.id,
    category_id: (await categoryIdOf(ctx, input.category_id)) ?? null,
    created_at: isoNow(ctx.clock),
  });
}

/** The stack of the campaign; 404 when there is no such stack, or it is another campaign's. */
export async function findPromotionStack(ctx: DomainContext, campaignRef: string, stackId: string): Promise<PromotionStackRecord> {
  const campaign = await findCampaign(ctx, campaignRef);
  const stack = await ctx.uow.promotion_stacks.get(stackId);
  if (!stack || stack.campaign_id !== campaign.id) throw notFound('promotion_stack', stackId);
  return stack;
}

export async function updatePromotionStack(
  ctx: DomainContext,
  campaignRef: string,
  stackId: string,
  input: StackUpdate,
): Promise<PromotionStackRecord & { updated_at: string }> {
  const stack = await findPromotionStack(ctx, campaignRef, stackId);
  const ids = input.tiers?.ids !== undefined ? await checkTiers(ctx, stack.campaign_id, input.tiers.ids) : stack.tiers.ids;
  const categoryId = await categoryIdOf(ctx, input.category_id);
  const mode = input.tiers?.hierarchy_mode ?? stack.tiers.hierarchy_mode;
  const updated = {
    ...FRESH,
    ...stack,
    ...(input.name !== undefined && { name: input.name }),
    tiers: { ids, ...(mode && { hierarchy_mode: mode }) },
    ...(categoryId !== undefined && { category_id: categoryId }),
    updated_at: isoNow(ctx.clock),
  };
  await ctx.uow.promotion_stacks.update(updated);
  return updated;
}

export async function deletePromotionStack(ctx: DomainContext, campaignRef: string, stackId: string): Promise<void> {
  const stack = await findPromotionStack(ctx, campaignRef, stackId);
  await ctx.uow.promotion_stacks.delete(stack.id);
}

export async function listCampaignStacks(ctx: DomainContext, campaignRef: string): Promise<PromotionStack[]> {
  const campaign = await findCampaign(ctx, campaignRef);
  const stacks = await ctx.uow.promotion_stacks.findBy('campaign_id', campaign.id);
  return Promise.all(stacks.map((stack) => presentPromotionStack(ctx, stack)));
}

export interface StackListQuery extends PageRequest {
  order?: 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'name' | '-name';
  created_at?: TimeRange;
  updated_at?: TimeRange;
}

export async function listAllStacks(ctx: DomainContext, query: StackListQuery): Promise<{ rows: PromotionStack[]; total: number }> {
  const ranges = [withinRange('created_at', query.created_at), withinRange('updated_at', query.updated_at)].filter((range) => range !== undefined);
  // Without a range, the page is read straight off creation order.
  const page = await ctx.uow.promotion_stacks.query({
    ...FRESH,
    ...(ranges.length > 0 && { where: and(...ranges) }),
    orderBy: parseOrder<'created_at' | 'updated_at' | 'name'>(query.order ?? 'created_at'),
    ...pageWindow(query),
  });
  return { rows: await Promise.all(page.rows.map((stack) => presentPromotionStack(ctx, stack))), total: page.total };
}

/**
 * Keeps stacks whole when a tier goes: the tier leaves every stack that held it, and a stack left with no
 * tier goes with it (a stack has at least one).
 */
export async function forgetTierInStacks(ctx: DomainContext, tierId: string, campaignId: string): Promise<void> {
  for (const stack of await ctx.uow.promotion_stacks.findBy('campaign_id', campaignId)) {
    if (!stack.tiers.ids.includes(tierId)) continue;
    const ids = stack.tiers.ids.filter((id) => id !== tierId);
    if (ids.length === 0) await ctx.uow.promotion_stacks.delete(stack.id);
    else await ctx.uow.promotion_stacks.update({ ...FRESH, ...stack, tiers: { ...FRESH, ...stack.tiers, ids } });
  }
}

import type { components } from '../../generated/openapi.js';
import { categoryChange, categoryFields, resolveCategoryRef } from './categories.js';
import { findCampaign } from './campaign-lookup.js';
import { campaignCounters, dropCampaignCounters } from './campaign-counters.js';
import { applyChanges } from './changes.js';
import { resolveCodeConfig, capacity, type ResolvedCodeConfig } from './codes.js';
import type { DomainContext } from './context.js';
import { invalid } from './errors.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from './pagination.js';
import { tiersOfCampaign } from './promotion-tiers.js';
import { instant } from './time-range.js';
import { writeUnique } from './unique.js';
import { dropProgramData } from './loyalty/programs.js';
import { dropAssignmentsOf, findValidationRule } from './validation-rules.js';
import { assignmentsList, assignRules, wholeAmount, type VoucherRecord } from './vouchers.js';
import { binCampaign, ensureCampaignNameFree } from './bin.js';
import { dropHoldersOf } from './redeemable-holders.js';
import { campaignFilter } from './campaign-filters.js';
import { timeframeWithoutStart } from './validity.js';
import { table } from '../store/schema.js';
import { and, eq, not } from '../store/conditions.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
export type Campaign = Schemas['Campaign'];
type CampaignType = Schemas['CampaignType'];
type CampaignCreate = Schemas['CampaignsCreateRequestBody'];
type CampaignUpdate = Schemas['CampaignsUpdateRequestBody'];
type TemplateRequest = NonNullable<CampaignCreate['voucher']>;
type ReferralProgram = Schemas['ReferralProgram'];
type CampaignFilters = Schemas['CampaignFilters'];

/** The template a campaign makes its vouchers from, as stored. */
export interface CampaignVoucher {
  type: Schemas['VoucherType'];
  discount: Schemas['Discount'] | null;
  gift: { amount: number; effect: NonNullable<Schemas['GiftRequest']['effect']> } | null;
  loyalty_card: { points: number; expiration_rules?: Schemas['LoyaltyExpirationRules'] } | null;
  redemption: { quantity: number | null };
  code_config: ResolvedCodeConfig & { initial_count?: number };
  is_referral_code: boolean;
}

/**
 * A campaign as stored. The contract leaves many of a campaign's fields optional (as the API does); the
 * server always keeps these. Counts, category names, tiers and rule assignments are derived when it is
 * read.
 */
export interface CampaignRecord {
  id: string;
  name: string;
  description: string | null;
  campaign_type: CampaignType;
  type: Schemas['CampaignVouchersMode'];
  voucher: CampaignVoucher | null;
  auto_join: boolean;
  join_once: boolean;
  use_voucher_metadata_schema: boolean;
  start_date: string | null;
  expiration_date: string | null;
  validity_timeframe: Schemas['ValidityTimeframe'];
  validity_day_of_week: Schemas['ValidityDayOfWeek'];
  validity_hours: Schemas['ValidityHours'];
  activity_duration_after_publishing?: string;
  active: boolean;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
  category_id: string | null;
  creation_status: Schemas['GenerationStatus'];
  vouchers_generation_status: Schemas['GenerationStatus'];
  protected: boolean;
  referral_program?: ReferralProgram;
  loyalty_tiers_expiration?: Schemas['CampaignLoyaltyTiersExpiration'];
}

export const CAMPAIGNS_TABLE = table<CampaignRecord>({ unique: ['name'], indexed: [], kinds: { created_at: 'text', updated_at: 'text', start_date: 'text', expiration_date: 'text' } });

/** Up to this many vouchers are generated before the response; more go to the background. */
export const SYNC_GENERATION_LIMIT = 1000;

const VOUCHER_TYPE_OF: Record<CampaignType, CampaignVoucher['type'] | null> = {
  DISCOUNT_COUPONS: 'DISCOUNT_VOUCHER',
  REFERRAL_PROGRAM: 'DISCOUNT_VOUCHER',
  GIFT_VOUCHERS: 'GIFT_VOUCHER',
  LOYALTY_PROGRAM: 'LOYALTY_CARD',
  PROMOTION: null,
};

const CAMPAIGN_TYPE_OF: Record<CampaignVoucher['type'], CampaignType> = {
  DISCOUNT_VOUCHER: 'DISCOUNT_COUPONS',
  GIFT_VOUCHER: 'GIFT_VOUCHERS',
  LOYALTY_CARD: 'LOYALTY_PROGRAM',
};

function campaignError(details: string) {
  return invalid('invalid_campaign_params', 'Invalid campaign params', details);
}

/** The template as responses show it: a gift's starting balance, and the redemptions of every voucher. */
async function presentTemplate(ctx: DomainContext, campaignId: string, template: CampaignVoucher) {
  let redeemed = 0;
  for (const voucher of await ctx.uow.vouchers.findBy('campaign_id', campaignId)) redeemed += voucher.redemption.redeemed_quantity;
  return {
    ...FRESH,
    ...template,
    gift: template.gift && { amount: template.gift.amount, balance: template.gift.amount, subtracted_amount: 0, effect: template.gift.effect },
    redemption: { quantity: template.redemption.quantity, redeemed_quantity: redeemed },
  };
}

export async function presentCampaign(ctx: DomainContext, record: CampaignRecord): Promise<Campaign> {
  return {
    ...FRESH,
    ...record,
    is_referral_code: record.voucher?.is_referral_code ?? false,
    voucher: record.voucher && (await presentTemplate(ctx, record.id, record.voucher)),
    vouchers_count: await ctx.uow.vouchers.countBy('campaign_id', record.id),
    ...(await categoryFields(ctx, record.category_id)),
    ...(record.campaign_type === 'PROMOTION' && { promotion: await tiersOfCampaign(ctx, record.id) }),
    validation_rules_assignments: await assignmentsList(ctx, record.id),
    object: 'campaign',
  };
}

/**
 * The campaign type a request means: the one it names, or else the one its promotion, referral program or
 * template implies. Parts that contradict each other, or a request from which no type follows, are refused.
 */
export function campaignTypeOf(input: Pick<CampaignCreate, 'campaign_type' | 'voucher' | 'promotion' | 'referral_program'>): CampaignType {
  if (input.campaign_type) return input.campaign_type;
  const implied = new Set<CampaignType>();
  if (input.promotion) implied.add('PROMOTION');
  if (input.referral_program) implied.add('REFERRAL_PROGRAM');
  const voucher = input.voucher;
  if (voucher) {
    const referral = voucher.type === 'DISCOUNT_VOUCHER' && voucher.is_referral_code === true;
    implied.add(referral || (input.referral_program && voucher.type === 'DISCOUNT_VOUCHER') ? 'REFERRAL_PROGRAM' : CAMPAIGN_TYPE_OF[voucher.type]);
  }
  const [only, ...others] = implied;
  if (!only) throw campaignError('campaign_type is missing, and neither voucher.type, referral_program nor promotion tells it');
  if (others.length > 0) throw campaignError(`campaign_type is missing, and the request implies several: ${[...implied].join(', ')}`);
  return only;
}

function template(campaignType: CampaignType, input: CampaignCreate): CampaignVoucher | null {
  const expected = VOUCHER_TYPE_OF[campaignType];
  if (input.promotion && expected !== null) throw campaignError(`A ${campaignType} campaign has no promotion tiers`);
  if (expected === null) {
    if (input.voucher) throw campaignError('A PROMOTION campaign has promotion tiers, not a voucher template');
    return null;
  }
  const voucher: TemplateRequest | null | undefined = input.voucher;
  if (!voucher) throw campaignError(`A ${campaignType} campaign needs a voucher template of type ${expected}`);
  if (voucher.type !== expected) {
    throw campaignError(`A ${campaignType} campaign holds ${expected}s, not ${voucher.type}s`);
  }
  const loyalty = voucher.type === 'LOYALTY_CARD' ? voucher.loyalty_card : null;
  const rules = loyalty?.expiration_rules;
  const initialCount = voucher.code_config?.initial_count;
  return {
    type: voucher.type,
    discount: voucher.type === 'DISCOUNT_VOUCHER' ? voucher.discount : null,
    gift: voucher.type === 'GIFT_VOUCHER' ? { amount: wholeAmount(voucher.gift.amount), effect: voucher.gift.effect ?? 'APPLY_TO_ORDER' } : null,
    // Only the template's own settings: the counters a card request may carry are the server's.
    loyalty_card: loyalty ? { points: loyalty.points, ...(rules && { expiration_rules: { ...FRESH, ...rules, period_value: rules.period_value ?? 1 } }) } : null,
    redemption: { quantity: voucher.redemption?.quantity ?? null },
    code_config: { ...FRESH, ...resolveCodeConfig(voucher.code_config), ...(initialCount !== undefined && { initial_count: initialCount }) },
    is_referral_code: campaignType === 'REFERRAL_PROGRAM',
  };
}

/**
 * A referral program as stored: the custom event's ID and name completed from the project's custom event
 * schemas, and the referee reward's campaign name from its ID.
 */
async function referralProgram(ctx: DomainContext, input: ReferralProgram): Promise<ReferralProgram> {
  const conversion = input.conversion_event_type ?? 'redemption';
  let customEvent = input.custom_event;
  if (conversion === 'custom_event') {
    const byName = customEvent?.name ? await ctx.uow.custom_event_schemas.getBy('name', customEvent.name) : undefined;
    const byId = !byName && customEvent?.id ? await ctx.uow.custom_event_schemas.get(customEvent.id) : undefined;
    const schema = byName ?? byId;
    const name = customEvent?.name ?? schema?.name;
    if (!name) throw campaignError('A custom_event conversion needs referral_program.custom_event with a name, or the id of a custom event schema');
    customEvent = { ...FRESH, ...(schema ? { id: schema.id } : customEvent?.id !== undefined && { id: customEvent.id }), name };
  }
  let reward = input.referee_reward;
  const parentId = reward?.related_object_parent?.id;
  if (reward && parentId !== undefined) {
    const parent = (await ctx.uow.campaigns.get(parentId)) ?? (await ctx.uow.campaigns.getBy('name', parentId));
    if (parent) reward = { ...FRESH, ...reward, related_object_parent: { ...FRESH, ...reward.related_object_parent, id: parent.id, name: parent.name, object: 'CAMPAIGN' } };
  }
  return { conversion_event_type: conversion, ...(customEvent && { custom_event: customEvent }), ...(reward && { referee_reward: reward }) };
}

/**
 * Creates the campaign record and assigns the validation rules the request names; generating its vouchers
 * (and making its promotion tiers) is the caller's next step.
 */
export async function createCampaign(ctx: DomainContext, input: CampaignCreate): Promise<CampaignRecord> {
  if (!input.name) throw campaignError('A campaign needs a name');
  const campaignType = campaignTypeOf(input);
  const voucher = template(campaignType, input);
  if (input.referral_program && campaignType !== 'REFERRAL_PROGRAM') throw campaignError('Only a REFERRAL_PROGRAM campaign has referral_program');
  const count = input.vouchers_count ?? 0;
  if (count > 0) {
    if (!voucher) throw campaignError('A PROMOTION campaign cannot generate vouchers');
    const space = capacity(resolveCodeConfig(voucher.code_config));
    if (space < count) {
      throw invalid('invalid_code_config', 'Invalid code config', `The code config can make ${space} distinct codes, fewer than the ${count} requested`);
    }
  }
  const ruleIds = [...new Set(input.validation_rules ?? [])];
  for (const ruleId of ruleIds) await findValidationRule(ctx, ruleId);
  await ensureCampaignNameFree(ctx, input.name);
  const category = await resolveCategoryRef(ctx, input);
  const status = count > SYNC_GENERATION_LIMIT ? 'IN_PROGRESS' : 'DONE';
  const record: CampaignRecord = {
    id: newId('camp'),
    name: input.name,
    description: input.description ?? null,
    campaign_type: campaignType,
    type: input.type ?? 'AUTO_UPDATE',
    voucher,
    auto_join: input.auto_join ?? false,
    join_once: input.join_once ?? false,
    use_voucher_metadata_schema: input.use_voucher_metadata_schema ?? true,
    start_date: input.start_date ?? null,
    expiration_date: input.expiration_date ?? null,
    validity_timeframe: input.validity_timeframe ?? null,
    validity_day_of_week: input.validity_day_of_week ?? null,
    validity_hours: input.validity_hours ?? null,
    ...(input.activity_duration_after_publishing && { activity_duration_after_publishing: input.activity_duration_after_publishing }),
    active: true,
    metadata: input.metadata ?? {},
    created_at: isoNow(ctx.clock),
    updated_at: null,
    category_id: category?.id ?? null,
    creation_status: status,
    vouchers_generation_status: status,
    protected: false,
    ...(campaignType === 'REFERRAL_PROGRAM' && { referral_program: await referralProgram(ctx, input.referral_program ?? {}) }),
  };
  const created = await writeUnique('campaign', () => ctx.uow.campaigns.insert(record));
  await recordEvent(ctx, 'campaign.created', { campaign_id: created.id }, { campaign: { id: created.id, name: created.name } });
  await assignRules(ctx, ruleIds, { related_object_type: 'campaign', related_object_id: created.id });
  return created;
}

export async function setGenerationStatus(ctx: DomainContext, campaignId: string, status: CampaignRecord['vouchers_generation_status']) {
  const campaign = await ctx.uow.campaigns.get(campaignId);
  if (!campaign) return;
  await ctx.uow.campaigns.update({
    ...FRESH,
    ...campaign,
    vouchers_generation_status: status,
    creation_status: campaign.creation_status === 'DONE' ? 'DONE' : status,
  });
}

/** Metadata after an update: replaced when given (null keeps it), then without the keys to unset. */
function updatedMetadata(current: Record<string, unknown>, input: Pick<CampaignUpdate, 'metadata' | 'unset_metadata_fields'>) {
  const metadata = { ...(input.metadata ?? current) };
  for (const key of input.unset_metadata_fields ?? []) delete metadata[key];
  return metadata;
}

/**
 * Applies an update. The template's discount replaces that of every voucher of the campaign too; a
 * template's gift applies to cards made from now on. Nulls on what a campaign cannot go without keep the
 * current value; nulls elsewhere clear.
 */
export async function updateCampaign(ctx: DomainContext, ref: string, input: CampaignUpdate): Promise<CampaignRecord> {
  const campaign = await findCampaign(ctx, ref);
  if (timeframeWithoutStart(campaign, input)) throw campaignError('validity_timeframe requires start_date');
  const {
    metadata,
    unset_metadata_fields,
    discount,
    gift,
    referral_program,
    loyalty_tiers_expiration,
    activity_duration_after_publishing,
    options: _options,
    access_settings: _access,
    ...rest
  } = input;
  const expected = VOUCHER_TYPE_OF[campaign.campaign_type];
  if (discount && expected !== 'DISCOUNT_VOUCHER') throw campaignError(`A ${campaign.campaign_type} campaign has no discount`);
  if (gift && expected !== 'GIFT_VOUCHER') throw campaignError(`A ${campaign.campaign_type} campaign has no gift`);
  if (referral_program && campaign.campaign_type !== 'REFERRAL_PROGRAM') throw campaignError('Only a REFERRAL_PROGRAM campaign has referral_program');
  if (loyalty_tiers_expiration && campaign.campaign_type !== 'LOYALTY_PROGRAM') throw campaignError('Only a LOYALTY_PROGRAM campaign has loyalty_tiers_expiration');
  const now = isoNow(ctx.clock);
  let voucher = campaign.voucher;
  if (voucher && discount) voucher = { ...FRESH, ...voucher, discount };
  if (voucher && gift) voucher = { ...FRESH, ...voucher, gift: { amount: wholeAmount(gift.amount), effect: gift.effect ?? voucher.gift?.effect ?? 'APPLY_TO_ORDER' } };
  const updated = applyChanges(
    campaign,
    {
      ...FRESH,
      ...(await categoryChange(ctx, rest)),
      voucher,
      metadata: updatedMetadata(campaign.metadata, { metadata, unset_metadata_fields }),
      ...(activity_duration_after_publishing && { activity_duration_after_publishing }),
      ...(referral_program && { referral_program: await referralProgram(ctx, referral_program) }),
      ...(loyalty_tiers_expiration && { loyalty_tiers_expiration }),
    },
    now,
  );
  await ctx.uow.campaigns.update(updated);
  if (discount) {
    for (const each of await ctx.uow.vouchers.findBy('campaign_id', campaign.id)) await ctx.uow.vouchers.update({ ...FRESH, ...each, discount, updated_at: now });
  }
  await recordEvent(ctx, 'campaign.updated', { campaign_id: campaign.id }, { campaign: { id: campaign.id, name: campaign.name } });
  return updated;
}

export async function setCampaignActive(ctx: DomainContext, ref: string, active: boolean): Promise<CampaignRecord> {
  const campaign = await findCampaign(ctx, ref);
  const updated = { ...FRESH, ...campaign, active, updated_at: isoNow(ctx.clock) };
  await ctx.uow.campaigns.update(updated);
  await recordEvent(ctx, active ? 'campaign.enabled' : 'campaign.disabled', { campaign_id: campaign.id }, { campaign: { id: campaign.id } });
  return updated;
}

/**
 * Deletes the campaign and all its vouchers; each voucher deletion is recorded once. Without `force` the
 * campaign and its vouchers go to the bin, which keeps their name and codes taken. Returns how many vouchers went.
 */
export async function deleteCampaign(ctx: DomainContext, ref: string, options: { force?: boolean } = {}): Promise<number> {
  const campaign = await findCampaign(ctx, ref);
  const vouchers: VoucherRecord[] = await ctx.uow.vouchers.findBy('campaign_id', campaign.id);
  for (const voucher of vouchers) {
    await dropAssignmentsOf(ctx, voucher.id);
    if (options.force) await dropHoldersOf(ctx, voucher.id);
    await ctx.uow.vouchers.delete(voucher.id);
    await recordEvent(ctx, 'voucher.deleted', { campaign_id: campaign.id, voucher_id: voucher.id }, { voucher: { id: voucher.id, code: voucher.code } });
  }
  for (const tier of await ctx.uow.promotion_tiers.findBy('campaign_id', campaign.id)) {
    await dropAssignmentsOf(ctx, tier.id);
    await ctx.uow.promotion_tiers.delete(tier.id);
  }
  for (const stack of await ctx.uow.promotion_stacks.findBy('campaign_id', campaign.id)) await ctx.uow.promotion_stacks.delete(stack.id);
  await dropAssignmentsOf(ctx, campaign.id);
  if (campaign.campaign_type === 'LOYALTY_PROGRAM') await dropProgramData(ctx, campaign.id);
  await ctx.uow.campaigns.delete(campaign.id);
  if (!options.force) await binCampaign(ctx, campaign, vouchers);
  await recordEvent(ctx, 'campaign.deleted', { campaign_id: campaign.id }, { campaign: { id: campaign.id, name: campaign.name } });
  await dropCampaignCounters(ctx, campaign.id);
  return vouchers.length;
}

export interface CampaignListQuery extends PageRequest {
  order?: SortOrder;
  campaign_type?: CampaignType;
  campaign_status?: CampaignRecord['creation_status'];
  is_referral_code?: boolean;
  filters?: CampaignFilters;
}

export async function listCampaigns(ctx: DomainContext, query: CampaignListQuery) {
  const conditions = [
    query.campaign_type ? eq('campaign_type', query.campaign_type) : undefined,
    query.campaign_status ? eq('creation_status', query.campaign_status) : undefined,
    // A campaign without voucher settings makes no referral codes.
    query.is_referral_code === undefined ? undefined : query.is_referral_code ? eq(['voucher', 'is_referral_code'], true) : not(eq(['voucher', 'is_referral_code'], true)),
    await campaignFilter(ctx, query.filters),
  ].filter((condition) => condition !== undefined);
  const page = await ctx.uow.campaigns.query({
    ...FRESH,
    ...(conditions.length > 0 && { where: and(...conditions) }),
    orderBy: parseTimestampOrder(query.order),
    ...pageWindow(query),
  });
  return { rows: await Promise.all(page.rows.map((row) => presentCampaign(ctx, row))), total: page.total };
}

/** A date as an end bound covers its whole day. */
function endInstant(value: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? instant(value) + 86_400_000 - 1 : instant(value);
}

/** The campaign's counters (see campaign-counters.ts), optionally within [start, end]. */
export async function campaignSummary(ctx: DomainContext, ref: string, window: { start_date?: string; end_date?: string }) {
  const campaign = await findCampaign(ctx, ref);
  const from = window.start_date ? instant(window.start_date) : -Infinity;
  const to = window.end_date ? endInstant(window.end_date) : Infinity;
  const counters = await campaignCounters(ctx, campaign.id, from, to);
  return { campaign: await presentCampaign(ctx, campaign), ...counters, object: 'campaign_summary' as const };
}

import type { components } from '../../generated/openapi.js';
import { categoryChange, categoryFields, resolveCategoryRef } from './categories.js';
import { applyChanges } from './changes.js';
import { resolveCodeConfig, capacity } from './codes.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { recordEvent, type EventType } from './events.js';
import { newId } from './ids.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from './pagination.js';
import { tiersOfCampaign } from './promotion-tiers.js';
import { instant } from './time-range.js';
import { writeUnique } from './unique.js';
import { dropProgramData } from './loyalty/programs.js';
import { dropAssignmentsOf } from './validation-rules.js';
import { timeframeWithoutStart } from './validity.js';

type Schemas = components['schemas'];
export type Campaign = Schemas['Campaign'];
type CampaignCreate = Schemas['CampaignsCreateRequestBody'];
type CampaignUpdate = Schemas['CampaignsUpdateRequestBody'];
export type CampaignVoucher = Schemas['CampaignVoucher'];

/** A campaign as stored; counts and category names are derived when it is read. */
export type CampaignRecord = Omit<Campaign, 'vouchers_count' | 'category' | 'categories' | 'object'>;

/** Up to this many vouchers are generated before the response; more go to the background. */
export const SYNC_GENERATION_LIMIT = 1000;

const VOUCHER_TYPE_OF: Record<Campaign['campaign_type'], CampaignVoucher['type'] | null> = {
  DISCOUNT_COUPONS: 'DISCOUNT_VOUCHER',
  REFERRAL_PROGRAM: 'DISCOUNT_VOUCHER',
  GIFT_VOUCHERS: 'GIFT_VOUCHER',
  LOYALTY_PROGRAM: 'LOYALTY_CARD',
  PROMOTION: null,
};

function campaignError(details: string) {
  return invalid('invalid_campaign_params', 'Invalid campaign params', details);
}

/** Finds a campaign by ID, then by name. */
export async function findCampaign({ uow }: DomainContext, ref: string): Promise<CampaignRecord> {
  const campaign = (await uow.campaigns.get(ref)) ?? (await uow.campaigns.getBy('name', ref));
  if (!campaign) throw notFound('campaign', ref);
  return campaign;
}

export async function presentCampaign(ctx: DomainContext, record: CampaignRecord): Promise<Campaign> {
  return {
    ...record,
    vouchers_count: await ctx.uow.vouchers.countBy('campaign_id', record.id),
    ...(await categoryFields(ctx, record.category_id)),
    ...(record.campaign_type === 'PROMOTION' && { promotion: await tiersOfCampaign(ctx, record.id) }),
    object: 'campaign',
  };
}

function template(input: CampaignCreate): CampaignVoucher | null {
  const expected = VOUCHER_TYPE_OF[input.campaign_type];
  if (input.promotion && expected !== null) throw campaignError(`A ${input.campaign_type} campaign has no promotion tiers`);
  if (expected === null) {
    if (input.voucher) throw campaignError('A PROMOTION campaign has promotion tiers, not a voucher template');
    return null;
  }
  if (!input.voucher) throw campaignError(`A ${input.campaign_type} campaign needs a voucher template of type ${expected}`);
  const voucher = input.voucher;
  if (voucher.type !== expected) {
    throw campaignError(`A ${input.campaign_type} campaign holds ${expected}s, not ${voucher.type}s`);
  }
  return {
    type: voucher.type,
    discount: voucher.type === 'DISCOUNT_VOUCHER' ? voucher.discount : null,
    gift: voucher.type === 'GIFT_VOUCHER' ? { effect: 'APPLY_TO_ORDER', ...voucher.gift } : null,
    loyalty_card: voucher.type === 'LOYALTY_CARD' ? voucher.loyalty_card : null,
    redemption: { quantity: voucher.redemption?.quantity ?? null },
    code_config: resolveCodeConfig(voucher.code_config),
    is_referral_code: input.campaign_type === 'REFERRAL_PROGRAM',
  };
}

/** Creates the campaign record; generating its vouchers is the caller's next step. */
export async function createCampaign(ctx: DomainContext, input: CampaignCreate): Promise<CampaignRecord> {
  const voucher = template(input);
  if (input.referral_program && input.campaign_type !== 'REFERRAL_PROGRAM') throw campaignError('Only a REFERRAL_PROGRAM campaign has referral_program');
  if (input.referral_program?.conversion_event_type === 'custom_event' && !input.referral_program.custom_event) {
    throw campaignError('A custom_event conversion needs referral_program.custom_event');
  }
  const count = input.vouchers_count ?? 0;
  if (count > 0) {
    if (!voucher) throw campaignError('A PROMOTION campaign cannot generate vouchers');
    const space = capacity(resolveCodeConfig(voucher.code_config));
    if (space < count) {
      throw invalid('invalid_code_config', 'Invalid code config', `The code config can make ${space} distinct codes, fewer than the ${count} requested`);
    }
  }
  const category = await resolveCategoryRef(ctx, input);
  const status = count > SYNC_GENERATION_LIMIT ? 'IN_PROGRESS' : 'DONE';
  const record: CampaignRecord = {
    id: newId('camp'),
    name: input.name,
    description: input.description ?? null,
    campaign_type: input.campaign_type,
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
    active: true,
    metadata: input.metadata ?? {},
    created_at: ctx.clock.now().toISOString(),
    updated_at: null,
    category_id: category?.id ?? null,
    creation_status: status,
    vouchers_generation_status: status,
    protected: false,
    ...(input.campaign_type === 'REFERRAL_PROGRAM' && { referral_program: input.referral_program ?? { conversion_event_type: 'redemption' } }),
  };
  const created = await writeUnique('campaign', () => ctx.uow.campaigns.insert(record));
  await recordEvent(ctx, 'campaign.created', { campaign_id: created.id }, { campaign: { id: created.id, name: created.name } });
  return created;
}

export async function setGenerationStatus(ctx: DomainContext, campaignId: string, status: Campaign['vouchers_generation_status']) {
  const campaign = await ctx.uow.campaigns.get(campaignId);
  if (!campaign) return;
  await ctx.uow.campaigns.update({
    ...campaign,
    vouchers_generation_status: status,
    creation_status: campaign.creation_status === 'DONE' ? 'DONE' : status,
  });
}

export async function updateCampaign(ctx: DomainContext, ref: string, input: CampaignUpdate): Promise<CampaignRecord> {
  const campaign = await findCampaign(ctx, ref);
  if (timeframeWithoutStart(campaign, input)) throw campaignError('validity_timeframe requires start_date');
  const updated = applyChanges(campaign, await categoryChange(ctx, input), ctx.clock.now().toISOString());
  await ctx.uow.campaigns.update(updated);
  await recordEvent(ctx, 'campaign.updated', { campaign_id: campaign.id }, { campaign: { id: campaign.id, name: campaign.name } });
  return updated;
}

export async function setCampaignActive(ctx: DomainContext, ref: string, active: boolean): Promise<CampaignRecord> {
  const campaign = await findCampaign(ctx, ref);
  const updated = { ...campaign, active, updated_at: ctx.clock.now().toISOString() };
  await ctx.uow.campaigns.update(updated);
  await recordEvent(ctx, active ? 'campaign.enabled' : 'campaign.disabled', { campaign_id: campaign.id }, { campaign: { id: campaign.id } });
  return updated;
}

/** Deletes the campaign and all its vouchers; each voucher deletion is recorded once. */
export async function deleteCampaign(ctx: DomainContext, ref: string): Promise<void> {
  const campaign = await findCampaign(ctx, ref);
  for (const voucher of await ctx.uow.vouchers.findBy('campaign_id', campaign.id)) {
    await dropAssignmentsOf(ctx, voucher.id);
    await ctx.uow.vouchers.delete(voucher.id);
    await recordEvent(ctx, 'voucher.deleted', { campaign_id: campaign.id, voucher_id: voucher.id }, { voucher: { id: voucher.id, code: voucher.code } });
  }
  for (const tier of await ctx.uow.promotion_tiers.findBy('campaign_id', campaign.id)) {
    await dropAssignmentsOf(ctx, tier.id);
    await ctx.uow.promotion_tiers.delete(tier.id);
  }
  await dropAssignmentsOf(ctx, campaign.id);
  if (campaign.campaign_type === 'LOYALTY_PROGRAM') await dropProgramData(ctx, campaign.id);
  await ctx.uow.campaigns.delete(campaign.id);
  await recordEvent(ctx, 'campaign.deleted', { campaign_id: campaign.id }, { campaign: { id: campaign.id, name: campaign.name } });
}

export async function listCampaigns(ctx: DomainContext, query: PageRequest & { order?: SortOrder; campaign_type?: Campaign['campaign_type'] }) {
  const page = await ctx.uow.campaigns.query({
    ...(query.campaign_type && { where: (campaign: CampaignRecord) => campaign.campaign_type === query.campaign_type }),
    orderBy: parseTimestampOrder(query.order),
    ...pageWindow(query),
  });
  return { rows: await Promise.all(page.rows.map((row) => presentCampaign(ctx, row))), total: page.total };
}

const COUNTED = [
  'redemptions',
  'redemptions_succeeded',
  'redemptions_failed',
  'rollbacks',
  'rollbacks_succeeded',
  'rollbacks_failed',
  'validations',
  'validations_succeeded',
  'validations_failed',
  'publications',
  'publications_succeeded',
  'publications_failed',
  'vouchers_created',
  'vouchers_deleted',
  'orders_amount',
  'orders_rolledback_amount',
  'discounted_amount',
  'rolledback_discounted_amount',
] as const;
type Counters = Record<Counter, number>;

type Counter = (typeof COUNTED)[number];
const one = () => 1;
const field = (name: string) => (data: Record<string, unknown>) => Number(data[name] ?? 0);

/** Which summary counters each recorded event moves, and by how much. */
const SUMMARY_COUNTS: Partial<Record<EventType, [Counter, (data: Record<string, unknown>) => number][]>> = {
  'voucher.created': [['vouchers_created', one]],
  'campaign.vouchers.generation.completed': [['vouchers_created', field('count')]],
  'voucher.deleted': [['vouchers_deleted', one]],
  'validation.succeeded': [['validations', one], ['validations_succeeded', one]],
  'validation.failed': [['validations', one], ['validations_failed', one]],
  'redemption.succeeded': [
    ['redemptions', one],
    ['redemptions_succeeded', one],
    ['orders_amount', field('order_amount')],
    ['discounted_amount', field('discount_amount')],
  ],
  'redemption.failed': [['redemptions', one], ['redemptions_failed', one]],
  'redemption.rollback.succeeded': [
    ['rollbacks', one],
    ['rollbacks_succeeded', one],
    ['orders_rolledback_amount', field('order_amount')],
    ['rolledback_discounted_amount', field('discount_amount')],
  ],
  'redemption.rollback.failed': [['rollbacks', one], ['rollbacks_failed', one]],
  'publication.succeeded': [['publications', one], ['publications_succeeded', one]],
  'publication.failed': [['publications', one], ['publications_failed', one]],
};

/** A date as an end bound covers its whole day. */
function endInstant(value: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? instant(value) + 86_400_000 - 1 : instant(value);
}

/** Counts the campaign's recorded events, optionally within [start, end]. */
export async function campaignSummary(ctx: DomainContext, ref: string, window: { start_date?: string; end_date?: string }) {
  const campaign = await findCampaign(ctx, ref);
  const from = window.start_date ? instant(window.start_date) : -Infinity;
  const to = window.end_date ? endInstant(window.end_date) : Infinity;
  const counters = Object.fromEntries(COUNTED.map((name) => [name, 0])) as Counters;
  for (const event of await ctx.uow.events.findBy('campaign_id', campaign.id)) {
    const at = Date.parse(event.created_at);
    if (at < from || at > to) continue;
    for (const [counter, amount] of SUMMARY_COUNTS[event.type] ?? []) counters[counter] += amount(event.data);
  }
  return { campaign: await presentCampaign(ctx, campaign), ...counters, object: 'campaign_summary' as const };
}

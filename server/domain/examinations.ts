/**
 * The deprecated qualification examinations: which of a customer's vouchers, and which campaigns, would
 * apply to an order. Each candidate is checked on its own by the engine's `evaluate`, as
 * `POST /v1/qualifications` checks its candidates; nothing is changed or counted.
 */
import type { components } from '../../generated/openapi.js';
import { presentCampaign, type CampaignRecord } from './campaigns.js';
import type { DomainContext } from './context.js';
import { evaluate } from './engine.js';
import { engineOrder, namedEngineCustomer } from './single-object.js';
import { presentVoucher, type VoucherRecord, type VoucherView } from './vouchers.js';
import { isIn, isNull } from '../store/conditions.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type Request = Schemas['ValidationsValidateRequestBody'];

export interface ExaminationQuery {
  limit?: number;
  order?: string;
}

const DEFAULT_LIMIT = 10;

/** Sorts by the field `order` names (`-` for descending), ties in the order found. */
function sortBy<T>(rows: T[], order: string | undefined, value: (row: T, field: string) => string | null | undefined): T[] {
  const descending = order?.startsWith('-') ?? false;
  const field = (order ?? 'created_at').replace(/^-/, '');
  return [...rows].sort((a, b) => {
    const left = value(a, field) ?? '';
    const right = value(b, field) ?? '';
    const compared = left < right ? -1 : left > right ? 1 : 0;
    return descending ? -compared : compared;
  });
}

/**
 * The vouchers the customer holds that would apply to the order (a loyalty card paying through the
 * `reward` given), up to `limit`, in the order asked for. Without a customer there is nothing to examine.
 */
export async function examineVouchers(ctx: DomainContext, body: Schemas['VouchersQualificationExamineRequestBody'], query: ExaminationQuery) {
  const { customer, ref } = await namedEngineCustomer(ctx, body);
  const order = engineOrder(body.order);
  const rewardId = body.reward?.id ?? body.reward?.assignment_id;
  const qualifying: VoucherRecord[] = [];
  for (const voucher of customer ? await ctx.uow.vouchers.findBy('holder_id', customer.id) : []) {
    const redeemable: Request['redeemables'][number] = {
      object: 'voucher',
      id: voucher.code,
      ...(voucher.type === 'LOYALTY_CARD' && rewardId !== undefined && { reward: { id: rewardId, ...(body.reward?.points !== undefined && { points: body.reward.points }) } }),
    };
    const evaluation = await evaluate(ctx, { redeemables: [redeemable], ...(order && { order }), ...(ref && { customer: ref }) });
    if (evaluation.valid && evaluation.applied.length > 0) qualifying.push(voucher);
  }
  const sorted = sortBy(qualifying, query.order, (voucher, field) => (field === 'code' ? voucher.code : field === 'updated_at' ? (voucher.updated_at ?? voucher.created_at) : voucher.created_at));
  const data: VoucherView[] = [];
  for (const voucher of sorted.slice(0, query.limit ?? DEFAULT_LIMIT)) data.push(await presentVoucher(ctx, voucher));
  const base = await evaluate(ctx, { redeemables: [], ...(ref && { customer: ref }) });
  return { object: 'list' as const, data_ref: 'data' as const, data, total: qualifying.length, created_at: isoNow(ctx.clock), tracking_id: base.trackingId };
}

/** The campaign types whose vouchers a customer can be given, and so the ones examined. */
const EXAMINED_TYPES: ReadonlySet<string> = new Set(['GIFT_VOUCHERS', 'DISCOUNT_COUPONS', 'REFERRAL_PROGRAM']);

/** A campaign in the older shape: its category as one object, its template without the fields that shape lacks. */
async function qualifiedCampaign(ctx: DomainContext, record: CampaignRecord): Promise<Schemas['QualifiedCampaign']> {
  const campaign = await presentCampaign(ctx, record);
  const template = campaign.voucher;
  return {
    id: campaign.id,
    name: campaign.name,
    description: campaign.description,
    campaign_type: campaign.campaign_type,
    type: campaign.type,
    voucher: template
      ? {
          type: template.type,
          discount: template.discount,
          gift: template.gift,
          loyalty_card: template.loyalty_card,
          redemption: template.redemption,
          code_config: template.code_config,
          ...(template.is_referral_code !== undefined && { is_referral_code: template.is_referral_code }),
        }
      : null,
    auto_join: campaign.auto_join,
    join_once: campaign.join_once,
    use_voucher_metadata_schema: campaign.use_voucher_metadata_schema,
    vouchers_count: campaign.vouchers_count,
    start_date: campaign.start_date,
    expiration_date: campaign.expiration_date,
    validity_timeframe: campaign.validity_timeframe,
    validity_day_of_week: campaign.validity_day_of_week,
    validity_hours: campaign.validity_hours,
    ...(campaign.activity_duration_after_publishing !== undefined && { activity_duration_after_publishing: campaign.activity_duration_after_publishing }),
    active: campaign.active,
    metadata: campaign.metadata,
    created_at: campaign.created_at,
    updated_at: campaign.updated_at,
    category: campaign.category,
    category_id: campaign.category_id,
    categories: campaign.categories?.[0] ?? null,
    creation_status: campaign.creation_status,
    vouchers_generation_status: campaign.vouchers_generation_status,
    protected: campaign.protected,
    ...(campaign.referral_program && { referral_program: campaign.referral_program }),
    validation_rules_assignments: campaign.validation_rules_assignments,
    object: 'campaign',
  } as Schemas['QualifiedCampaign'];
}

/**
 * The gift card, discount coupon and referral campaigns whose vouchers would apply: a campaign qualifies
 * when one of its vouchers that nobody holds yet (the one a publication would give) passes the engine.
 */
export async function examineCampaigns(ctx: DomainContext, body: Schemas['CampaignsQualificationExamineRequestBody'], query: ExaminationQuery) {
  const { ref } = await namedEngineCustomer(ctx, body);
  const order = engineOrder(body.order);
  const qualifying: CampaignRecord[] = [];
  for (const campaign of (await ctx.uow.campaigns.query({ where: isIn('campaign_type', [...EXAMINED_TYPES]) })).rows) {
    const [free] = (await ctx.uow.vouchers.query({ index: { field: 'campaign_id', value: campaign.id }, where: isNull('holder_id'), limit: 1 })).rows;
    if (!free) continue;
    const evaluation = await evaluate(ctx, { redeemables: [{ object: 'voucher', id: free.code }], ...(order && { order }), ...(ref && { customer: ref }) });
    if (evaluation.valid && evaluation.applied.length > 0) qualifying.push(campaign);
  }
  const categoryNames = new Map<string, string>();
  for (const campaign of qualifying) {
    if (campaign.category_id && !categoryNames.has(campaign.category_id)) categoryNames.set(campaign.category_id, (await ctx.uow.categories.get(campaign.category_id))?.name ?? '');
  }
  const sorted = sortBy(qualifying, query.order, (campaign, field) => {
    if (field === 'type') return campaign.campaign_type;
    if (field === 'code' || field === 'campaign') return campaign.name;
    if (field === 'category') return campaign.category_id ? categoryNames.get(campaign.category_id) : null;
    if (field === 'updated_at') return campaign.updated_at ?? campaign.created_at;
    return campaign.created_at;
  });
  const data: Schemas['QualifiedCampaign'][] = [];
  for (const campaign of sorted.slice(0, query.limit ?? DEFAULT_LIMIT)) data.push(await qualifiedCampaign(ctx, campaign));
  const base = await evaluate(ctx, { redeemables: [], ...(ref && { customer: ref }) });
  return { object: 'list' as const, data_ref: 'data' as const, data, total: qualifying.length, created_at: isoNow(ctx.clock), tracking_id: base.trackingId };
}

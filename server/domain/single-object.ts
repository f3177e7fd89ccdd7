/**
 * The deprecated single-object operations: validating or redeeming one voucher or one promotion tier, and
 * validating every promotion tier at once. Each one builds the request its replacement takes, runs it
 * through the same functions (`validation`, `redeem`, the engine's `evaluate`), and answers in the older
 * shape. No rule lives here.
 */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { namedCustomer } from './customers.js';
import { evaluate, type Evaluation, type Verdict } from './engine.js';
import { invalid } from './errors.js';
import { matchesFilter, type FilterDefinition } from './filters.js';
import { findPromotionTier, type PromotionTierRecord } from './promotion-tiers.js';
import { listFilter } from './publications.js';
import { redeem, type RedeemOutcome } from './redemptions.js';
import { validation } from './validations.js';
import { findVoucher, type VoucherRecord } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

type Schemas = components['schemas'];
type Request = Schemas['ValidationsValidateRequestBody'];
type LegacyOrder = Schemas['LegacyOrderRequest'];
type VoucherContext = Schemas['VouchersValidateRequestBody'];
type RedeemContext = Schemas['VouchersRedeemRequestBody'];
type TierContext = Schemas['PromotionTiersRedeemRequestBody'];
type VoucherVerdict = Schemas['VouchersValidateResponseBody'];
type TierVerdict = Schemas['PromotionTierValidation'];

/** The order as the engine takes it: an amount given as text becomes a number; the buyer moves to the request. */
export function engineOrder(order: LegacyOrder | null | undefined): Request['order'] {
  if (!order) return order;
  const { created_at: _created, customer: _customer, customer_id: _customerId, referrer: _referrer, referrer_id: _referrerId, amount, ...rest } = order;
  return { ...FRESH, ...rest, ...(amount !== undefined && { amount: Number(amount) }) };
}

/** The request's customer, or else the order's buyer. */
export function engineCustomer(body: { customer?: Request['customer']; order?: LegacyOrder | null }): Request['customer'] {
  if (body.customer) return body.customer;
  if (body.order?.customer) return body.order.customer;
  if (body.order?.customer_id) return { id: body.order.customer_id };
  return body.customer;
}

/**
 * The request's customer (or the order's buyer), created when new as qualifications create it, and the
 * reference the engine then takes for it: by ID, so rules see it, with metadata given kept for this request.
 */
export async function namedEngineCustomer(ctx: DomainContext, body: { customer?: Request['customer']; order?: LegacyOrder | null }) {
  const given = engineCustomer(body);
  const customer = await namedCustomer(ctx, given);
  const ref = customer ? { id: customer.id, ...(given?.metadata && { metadata: given.metadata }) } : undefined;
  return { customer, ref };
}

/** The voucher as the one redeemable of a request, with the credit or reward it pays with. */
function voucherRedeemable(voucher: VoucherRecord, body: VoucherContext | RedeemContext): Request['redeemables'][number] {
  const rewardId = body.reward?.id ?? body.reward?.assignment_id;
  return {
    object: 'voucher',
    id: voucher.code,
    ...(body.gift?.credits !== undefined && { gift: { credits: body.gift.credits } }),
    ...(rewardId !== undefined && { reward: { id: rewardId, ...(body.reward?.points !== undefined && { points: body.reward.points }) } }),
  };
}

/** The verdict's error in the older shape; a skipped redeemable (which cannot happen alone) says why it was skipped. */
function failureOf(verdict: Verdict): Schemas['ValidationFailure'] {
  const error = verdict.result.error;
  if (!error) {
    const details = verdict.result.details;
    return { code: 400, key: details?.key ?? 'invalid', message: details?.message ?? 'Not applicable', details: details?.message ?? 'Not applicable', resource_id: verdict.id, resource_type: verdict.object };
  }
  const { request_id: _requestId, ...rest } = error;
  return rest;
}

/** The one verdict of a single-redeemable evaluation: applicable, or the inapplicable one. */
function onlyVerdict(evaluation: Evaluation): Verdict {
  return evaluation.inapplicable[0] ?? evaluation.redeemables[0]!;
}

/**
 * Validates one voucher as `POST /v1/validations` would with it as the only redeemable (the verdict is
 * counted, and a `LOCK` session holds what it found), answering in the older shape. An unknown code is a 404.
 */
export async function validateVoucher(ctx: DomainContext, code: string, body: VoucherContext): Promise<Schemas['VouchersCodeValidateResponseBody']> {
  const voucher = await findVoucher(ctx, code);
  const { response, evaluation } = await validation(ctx, {
    redeemables: [voucherRedeemable(voucher, body)],
    order: engineOrder(body.order),
    customer: engineCustomer(body),
    ...(body.session && { session: body.session }),
    ...(body.tracking_id !== undefined && { tracking_id: body.tracking_id }),
    metadata: body.metadata ?? null,
    ...(body.options && { options: body.options }),
  });
  const campaign = voucher.campaign_id ? await ctx.uow.campaigns.get(voucher.campaign_id) : undefined;
  const verdict = onlyVerdict(evaluation);
  if (!evaluation.valid || verdict.status !== 'APPLICABLE') {
    const error = failureOf(verdict);
    return {
      valid: false,
      code: voucher.code,
      reason: error.details ?? error.message ?? 'Not applicable',
      error,
      tracking_id: response.tracking_id!,
      ...(evaluation.customerId !== null && { customer_id: evaluation.customerId }),
      metadata: voucher.metadata,
    };
  }
  const applied = evaluation.applied[0]!;
  const { result } = verdict;
  return {
    valid: true,
    code: voucher.code,
    campaign: campaign?.name ?? null,
    campaign_id: voucher.campaign_id,
    ...(voucher.discount && { discount: voucher.discount }),
    ...(voucher.gift && {
      gift: { amount: voucher.gift.amount, subtracted_amount: voucher.gift.subtracted_amount ?? 0, balance: voucher.gift.balance, effect: voucher.gift.effect },
    }),
    ...(result.loyalty_card && {
      loyalty: { points_cost: result.loyalty_card.points },
      reward: { id: applied.reward!.id, assignment_id: applied.reward!.assignment_id ?? null, points: result.loyalty_card.points },
    }),
    order: response.order!,
    ...(response.session && { session: response.session }),
    start_date: voucher.start_date,
    expiration_date: voucher.expiration_date,
    tracking_id: response.tracking_id!,
    metadata: voucher.metadata,
  };
}

/** A tier's fields as the older tier validations show them, with its campaign in short. */
async function tierFields(ctx: DomainContext, tier: PromotionTierRecord, expandCategory: boolean) {
  const campaign = await ctx.uow.campaigns.get(tier.campaign_id);
  const category = tier.category_id ? await ctx.uow.categories.get(tier.category_id) : undefined;
  const campaignCategory = campaign?.category_id ? await ctx.uow.categories.get(campaign.category_id) : undefined;
  return {
    id: tier.id,
    object: 'promotion_tier' as const,
    name: tier.name,
    banner: tier.banner,
    ...(tier.action?.discount && { discount: tier.action.discount }),
    start_date: tier.start_date,
    expiration_date: tier.expiration_date,
    campaign: {
      id: tier.campaign_id,
      start_date: campaign?.start_date ?? null,
      expiration_date: campaign?.expiration_date ?? null,
      active: campaign?.active ?? false,
      ...(expandCategory && { categories: campaignCategory ?? null }),
      object: 'campaign' as const,
    },
    hierarchy: tier.hierarchy,
    metadata: tier.metadata,
    category_id: tier.category_id,
    ...(expandCategory && { categories: category ?? null }),
  };
}

/** A tier's verdict in the older shape: what it takes off the order alone, or why it does not apply. */
async function tierVerdict(ctx: DomainContext, tier: PromotionTierRecord, evaluation: Evaluation, expandCategory: boolean): Promise<TierVerdict> {
  const fields = await tierFields(ctx, tier, expandCategory);
  const verdict = onlyVerdict(evaluation);
  if (!evaluation.valid || verdict.status !== 'APPLICABLE') {
    const error = failureOf(verdict);
    return { valid: false, ...fields, tracking_id: evaluation.trackingId, reason: error.details ?? error.message ?? 'Not applicable', error };
  }
  const off = verdict.result.discount_amount ?? 0;
  return { valid: true, ...fields, tracking_id: evaluation.trackingId, order: evaluation.order, discount_amount: off, applied_discount_amount: off };
}

/**
 * Validates one promotion tier as `POST /v1/validations` would with it as the only redeemable (the verdict is
 * counted), answering in the older shape. An unknown tier is a 404.
 */
export async function validatePromotionTier(ctx: DomainContext, tierId: string, body: TierContext): Promise<TierVerdict> {
  const tier = await findPromotionTier(ctx, tierId);
  const { evaluation } = await validation(ctx, {
    redeemables: [{ object: 'promotion_tier', id: tier.id }],
    order: engineOrder(body.order),
    customer: engineCustomer(body),
    metadata: body.metadata ?? null,
  });
  return tierVerdict(ctx, tier, evaluation, false);
}

/** The fields `filters[promotion_id]` may name. */
const PROMOTION_FILTER_FIELDS: ReadonlySet<string> = new Set(['promotion_id']);

/**
 * Checks every promotion tier (those `filters` names), by hierarchy, each on its own against the order and
 * customer as the qualifications do, and lists those that apply. A customer not seen before is created;
 * nothing else is changed or counted.
 */
export async function validatePromotions(
  ctx: DomainContext,
  body: Schemas['PromotionsValidateRequestBody'],
  filters: Schemas['PromotionsValidateFilters'] | undefined,
): Promise<Schemas['PromotionsValidateResponseBody']> {
  const idFilter: FilterDefinition | undefined = filters?.promotion_id ? listFilter({ promotion_id: filters.promotion_id }, PROMOTION_FILTER_FIELDS) : undefined;
  const wantedMetadata = Object.entries(filters?.metadata ?? {});
  const { ref: customerRef } = await namedEngineCustomer(ctx, body);
  const order = engineOrder(body.order);
  const expandCategory = (body.options?.expand ?? []).includes('category');
  const promotions: TierVerdict[] = [];
  for (const tier of (await ctx.uow.promotion_tiers.query({ orderBy: { field: 'hierarchy', direction: 'asc' } })).rows) {
    if (idFilter && !matchesFilter({ promotion_id: tier.id }, idFilter)) continue;
    if (wantedMetadata.some(([key, value]) => String(tier.metadata[key]) !== String(value))) continue;
    const evaluation = await evaluate(ctx, { redeemables: [{ object: 'promotion_tier', id: tier.id }], ...(order && { order }), ...(customerRef && { customer: customerRef }) });
    if (evaluation.valid && evaluation.applied.length > 0) promotions.push(await tierVerdict(ctx, tier, evaluation, expandCategory));
  }
  // With nothing to apply, the engine identifies the customer (or makes up an anonymous tracking ID).
  const base = await evaluate(ctx, { redeemables: [], ...(customerRef && { customer: customerRef }) });
  return { valid: promotions.length > 0, tracking_id: base.trackingId, promotions };
}

/** The redemption of the only redeemable, or the refusal. */
function onlyRedemption(outcome: RedeemOutcome) {
  if (!outcome.ok) return outcome;
  return { ok: true as const, redemption: outcome.redemptions[0]! };
}

/**
 * Redeems one voucher as `POST /v1/redemptions` would with it as the only redeemable, and answers with its
 * redemption. A refusal is returned, not thrown, so the failure's record is kept. An unknown code is a 404.
 */
export async function redeemVoucher(ctx: DomainContext, code: string, body: RedeemContext, trackingId: string | undefined, channelId: string) {
  const voucher = await findVoucher(ctx, code);
  return onlyRedemption(
    await redeem(
      ctx,
      {
        redeemables: [voucherRedeemable(voucher, body)],
        order: engineOrder(body.order),
        customer: engineCustomer(body),
        ...(body.session && { session: body.session }),
        ...(trackingId !== undefined && { tracking_id: trackingId }),
        metadata: body.metadata ?? null,
        ...(body.options && { options: body.options }),
      },
      channelId,
    ),
  );
}

/** Redeems one promotion tier as `POST /v1/redemptions` would, as `redeemVoucher` does a voucher. */
export async function redeemPromotionTier(ctx: DomainContext, tierId: string, body: TierContext, channelId: string) {
  const tier = await findPromotionTier(ctx, tierId);
  return onlyRedemption(
    await redeem(ctx, { redeemables: [{ object: 'promotion_tier', id: tier.id }], order: engineOrder(body.order), customer: engineCustomer(body), metadata: body.metadata ?? null }, channelId),
  );
}

type ClientQuery = {
  code?: string;
  tracking_id?: string;
  amount?: string;
  item?: Schemas['ClientValidateQueryItems'];
  customer?: string | Record<string, unknown>;
  order?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  session_type?: 'LOCK';
  session_key?: string;
  session_ttl?: number;
  session_ttl_unit?: NonNullable<Schemas['RedemptionSession']['ttl_unit']>;
};

/** Lines given in the query: an array, or an object keyed by index; whole numbers come as text. */
function queryLines(items: Schemas['ClientValidateQueryItems'] | undefined): Schemas['OrderItemRequest'][] | undefined {
  if (!items) return undefined;
  const lines = Array.isArray(items) ? items : Object.entries(items).sort(([a], [b]) => Number(a) - Number(b)).map(([, line]) => line);
  return lines.map(({ quantity, price, amount, ...rest }) => ({
    ...FRESH,
    ...rest,
    ...(quantity !== undefined && { quantity: Number(quantity) }),
    ...(price !== undefined && { price: Number(price) }),
    ...(amount !== undefined && { amount: Number(amount) }),
  }));
}

/**
 * The client-side validation's query as the body of a voucher validation: the order from `order[...]` (or
 * `amount` and `item[...]`), the customer from `customer[...]` (or a `source_id` as plain `customer`), the
 * session from `session_*`. Without a code there is nothing to validate.
 */
export function voucherContextFromQuery(query: ClientQuery): { code: string; body: VoucherContext } {
  if (!query.code) throw invalid('missing_code', 'Missing code', 'Give the voucher to validate as `code`');
  const order = query.order as LegacyOrder | undefined;
  const lines = queryLines((order?.items as Schemas['ClientValidateQueryItems'] | undefined) ?? query.item);
  const amount = order?.amount ?? query.amount;
  const wantsSession = query.session_type !== undefined || query.session_key !== undefined || query.session_ttl !== undefined || query.session_ttl_unit !== undefined;
  const customer = typeof query.customer === 'string' ? { source_id: query.customer } : (query.customer as Schemas['CustomerReference'] | undefined);
  return {
    code: query.code,
    body: {
      ...FRESH,
      ...((order || lines || amount !== undefined) && {
        order: { ...FRESH, ...order, ...(amount !== undefined && { amount: Number(amount) }), ...(lines && { items: lines }) },
      }),
      ...(customer && { customer }),
      ...(query.metadata && { metadata: query.metadata }),
      ...(query.tracking_id !== undefined && { tracking_id: query.tracking_id }),
      ...(wantsSession && {
        session: {
          type: 'LOCK' as const,
          ...(query.session_key !== undefined && { key: query.session_key }),
          ...(query.session_ttl !== undefined && { ttl: Number(query.session_ttl) }),
          ...(query.session_ttl_unit !== undefined && { ttl_unit: query.session_ttl_unit }),
        },
      }),
    },
  };
}

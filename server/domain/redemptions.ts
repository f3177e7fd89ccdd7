import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { namesCustomer, upsertNamedCustomer } from './customers.js';
import { DomainError, invalid, notFound } from './errors.js';
import { evaluate, simpleCustomer, type Evaluation, type RewardSnapshot, type Verdict } from './engine.js';
import { filterCondition, rowField, type FieldSource } from './filters.js';
import { movePoints } from './loyalty/cards.js';
import { recordGiftMovement } from './gift-transactions.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import { noteRedemption, orderForRedemption } from './orders.js';
import { pageWindow, parseOrder, type PageRequest } from './pagination.js';
import { presentPromotionTier } from './promotion-tiers.js';
import { useHolds } from './sessions.js';
import { effectiveStackingRules } from './stacking-rules.js';
import { listFilter } from './publications.js';
import { withinRange, type TimeRange } from './time-range.js';
import { findVoucher, presentVoucher, type VoucherView } from './vouchers.js';
import { referralCodeRedeemed } from './referrals.js';
import { table } from '../store/schema.js';
import { and, eq } from '../store/conditions.js';
import { campaignNameSource } from './campaign-lookup.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type Request = Schemas['ValidationsValidateRequestBody'];
type Calculated = Schemas['OrderCalculated'];

/** What every entry of the redemptions table has, a redemption or a rollback. */
interface EntryFields {
  id: string;
  date: string;
  customer_id: string | null;
  customer: Schemas['SimpleCustomer'] | null;
  tracking_id: string;
  metadata: Record<string, unknown>;
  amount: number;
  gift_amount: number;
  gift?: { amount: number };
  loyalty_card?: { points: number };
  order: Calculated | null;
  channel: Schemas['RedemptionChannel'];
  related_object_type: 'voucher' | 'promotion_tier' | 'redemption';
  related_object_id: string;
  voucher_code?: string;
  campaign_id: string | null;
}

/** A redemption as stored. The voucher and promotion tier are attached when it is read. */
export interface RedemptionRecord extends EntryFields {
  object: 'redemption';
  result: 'SUCCESS' | 'FAILURE';
  status: 'SUCCEEDED' | 'FAILED' | 'ROLLED_BACK';
  failure_code?: string;
  failure_message?: string;
  /** The parent, for a child; null for a parent or a failure. `redemption` says the same, as the public API names it. */
  parent_redemption_id: string | null;
  redemption: string | null;
  session?: { key: string };
  reward?: RewardSnapshot;
  related_redemptions?: { rollbacks: { id: string; date: string; rollback_order_mode: 'WITH_ORDER' | 'WITHOUT_ORDER' }[] };
}

/** A rollback as stored, in the same table, so that it is listed and found with the redemptions. */
export interface RollbackRecord extends EntryFields {
  object: 'redemption_rollback';
  result: 'SUCCESS';
  status: 'SUCCEEDED';
  redemption: string;
  reason: string | null;
  parent_rollback_id: string | null;
  /** Rollbacks have no parent redemption (they are found by `parent_rollback_id`). */
  parent_redemption_id?: null;
  /** For a parent's rollback: the children rolled back with it. */
  rollbacks?: string[];
  reward?: RewardSnapshot;
}

/** A row of the redemptions table. */
export type Redemption = RedemptionRecord | RollbackRecord;

export const REDEMPTIONS_TABLE = table<Redemption>({ unique: [], indexed: ['parent_redemption_id', 'related_object_id'], kinds: { date: 'text', id: 'text', voucher_code: 'text', tracking_id: 'text', customer_id: 'text' } });

/** The fields this server always sends on an entry, which the contract leaves optional for the public API's payloads. */
type AlwaysSent = 'customer_id' | 'tracking_id' | 'redemption' | 'result' | 'order' | 'channel' | 'customer' | 'related_object_type' | 'related_object_id';

/** An entry as the domain returns it: the voucher without its asset URLs, which depend on the server address. */
export type RedemptionView = Omit<Schemas['Redemption'], 'voucher'> & Required<Pick<Schemas['Redemption'], AlwaysSent>> & { voucher?: VoucherView };
export type RollbackView = Omit<Schemas['RedemptionRollback'], 'voucher'> & Required<Pick<Schemas['RedemptionRollback'], AlwaysSent>> & { voucher?: VoucherView };
export type EntryView = RedemptionView | RollbackView;

export type RedeemOutcome =
  | { ok: true; redemptions: RedemptionView[]; parent: RedemptionView; order: Calculated; skipped: Verdict[]; inapplicable: Verdict[] }
  | { ok: false; error: DomainError };

type CustomerSummary = NonNullable<Schemas['Customer']['summary']>;

async function updateCustomerSummary(ctx: DomainContext, customerId: string | null, change: (summary: CustomerSummary) => CustomerSummary) {
  if (!customerId) return;
  const customer = await ctx.uow.customers.get(customerId);
  if (customer) await ctx.uow.customers.update({ ...FRESH, ...customer, summary: change(customer.summary) });
}

/** The entry as the contract shows it, with the voucher or promotion tier as they stand now. */
export async function presentEntry(ctx: DomainContext, entry: Redemption): Promise<EntryView> {
  // Begun from FRESH: the copy gains a field below (server/store/fresh.ts).
  const view = { ...FRESH, ...entry } as EntryView;
  if (entry.related_object_type === 'voucher') {
    const voucher = await ctx.uow.vouchers.get(entry.related_object_id);
    if (voucher) view.voucher = await presentVoucher(ctx, voucher);
  } else if (entry.related_object_type === 'promotion_tier') {
    const tier = await ctx.uow.promotion_tiers.get(entry.related_object_id);
    if (tier) view.promotion_tier = await presentPromotionTier(ctx, tier);
  }
  return view;
}

async function presentRedemption(ctx: DomainContext, entry: RedemptionRecord): Promise<RedemptionView> {
  return (await presentEntry(ctx, entry)) as RedemptionView;
}

/** The fields every redemption of one request shares. */
function commonFields(evaluation: Evaluation, request: Request, channelId: string, date: string, order: Calculated | null) {
  return {
    date,
    customer_id: evaluation.customerId,
    customer: evaluation.customer ? simpleCustomer(evaluation.customer) : null,
    tracking_id: evaluation.trackingId,
    metadata: request.metadata ?? {},
    order,
    channel: { channel_id: channelId, channel_type: 'API' as const },
    ...(request.session?.key !== undefined && { session: { key: request.session.key } }),
    object: 'redemption' as const,
  };
}

/** Records a refused request: a failed redemption for each voucher or tier that did not apply. */
async function recordFailure(ctx: DomainContext, evaluation: Evaluation, request: Request, channelId: string): Promise<DomainError> {
  const now = isoNow(ctx.clock);
  for (const { verdict, voucher, tier } of evaluation.failures) {
    const subject = voucher ?? tier;
    const error = verdict.result.error!;
    if (subject) {
      await ctx.uow.redemptions.insert({
        ...FRESH,
        ...commonFields(evaluation, request, channelId, now, evaluation.order),
        id: newId('r'),
        amount: 0,
        gift_amount: 0,
        result: 'FAILURE',
        status: 'FAILED',
        failure_code: error.key ?? 'invalid',
        failure_message: error.error?.message ?? error.details ?? error.message,
        related_object_type: voucher ? 'voucher' : 'promotion_tier',
        related_object_id: subject.id,
        ...(voucher && { voucher_code: voucher.code }),
        parent_redemption_id: null,
        redemption: null,
        campaign_id: verdict.campaign_id ?? null,
      });
    }
    if (verdict.campaign_id) {
      await recordEvent(ctx, 'redemption.failed', { campaign_id: verdict.campaign_id, customer_id: evaluation.customerId }, { redeemable: { id: verdict.id, object: verdict.object }, error: error.key });
    }
  }
  await updateCustomerSummary(ctx, evaluation.customerId, (summary) => ({
    ...FRESH,
    ...summary,
    redemptions: { ...FRESH, ...summary.redemptions, total_redeemed: summary.redemptions.total_redeemed + 1, total_failed: summary.redemptions.total_failed + 1 },
  }));
  const first = evaluation.inapplicable[0]!;
  const error = first.result.error!;
  // A rule's custom message is the error's own `error.message`, as the public API answers a refused redemption.
  return new DomainError(error.code === 404 ? 'not_found' : 'invalid', error.key ?? 'invalid', error.message, error.details ?? error.message, first.id, first.object, error.error?.message);
}

/**
 * The request with the customer it names made real: the public API upserts the customer a redeem call names.
 * A customer named by `source_id` is created with the details given, or, when one has that `source_id`, given
 * the details that differ (as `POST /v1/customers` upserts); one named by details alone (`name`, `email` or
 * `phone`) is created. Either way the engine is then handed the customer's ID, so the redemption, its order and
 * its events belong to that customer. A customer named by `id` is the engine's to look up (an unknown ID redeems
 * without a customer). It runs first in the unit of work, so a refused redemption (which commits its record)
 * keeps the customer too; validations never write one.
 */
async function withNamedCustomer(ctx: DomainContext, request: Request): Promise<Request> {
  const ref = request.customer;
  if (!ref || ref.id || !namesCustomer(ref)) return request;
  const customer = await upsertNamedCustomer(ctx, ref);
  return { ...FRESH, ...request, customer: { ...FRESH, ...ref, id: customer.id } };
}

/**
 * Redeems every redeemable or none. A refusal is returned, not thrown, so the unit of work still
 * commits the record of the failure.
 */
export async function redeem(ctx: DomainContext, given: Request, channelId: string): Promise<RedeemOutcome> {
  const request = await withNamedCustomer(ctx, given);
  const evaluation = await evaluate(ctx, request);
  if (!evaluation.valid) return { ok: false, error: await recordFailure(ctx, evaluation, request, channelId) };
  const now = isoNow(ctx.clock);
  const { totals } = evaluation;
  // The IDs come first, so that the order is written once, with its note of this redemption in it.
  const parentId = newId('r');
  const childIds = evaluation.applied.map(() => newId('r'));
  const stored = await orderForRedemption(
    ctx,
    request.order,
    { amount: totals.amount, initial_amount: totals.initialAmount, discount_amount: totals.orderDiscount, items_discount_amount: totals.itemsDiscount, items: [] },
    evaluation.customerId,
    evaluation.lines,
    evaluation.storedOrderId !== null,
    { parentId, entry: { date: now, related_object_type: 'redemption', related_object_id: parentId, stacked: childIds } },
  );
  const sameLines = stored.items.length === evaluation.order.items?.length;
  const calculated: Calculated = {
    ...FRESH,
    ...evaluation.order,
    id: stored.id,
    source_id: stored.source_id,
    status: stored.status,
    items: (evaluation.order.items ?? []).map((item, index) => ({ ...FRESH, ...item, ...(sameLines && { id: stored.items[index]!.id }) })),
    ...(stored.customer_id !== null && { customer_id: stored.customer_id, customer: { id: stored.customer_id, object: 'customer' as const } }),
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  };
  const base = commonFields(evaluation, request, channelId, now, calculated);
  const parent: RedemptionRecord = {
    ...FRESH,
    ...base,
    id: parentId,
    amount: totals.orderDiscount + totals.itemsDiscount,
    gift_amount: totals.gift,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    related_object_type: 'redemption',
    related_object_id: parentId,
    parent_redemption_id: null,
    redemption: null,
    campaign_id: null,
  };
  // The children show the order, metadata, channel and customer the parent shows: they are given the parent's
  // stored copies, which the store then shares instead of copying them into each child (the order alone is
  // about a third of a redemption's row).
  const shown = await ctx.uow.redemptions.insert(parent);
  const childBase = { ...FRESH, ...base, order: shown.order, metadata: shown.metadata, channel: shown.channel, customer: shown.customer };
  const children: RedemptionRecord[] = [];
  for (let index = 0; index < evaluation.applied.length; index++) {
    const applied = evaluation.applied[index]!;
    const child: RedemptionRecord = {
      ...FRESH,
      ...childBase,
      id: childIds[index]!,
      // A gift card's redemption is for the credit it paid, as the public API reports it; others for their discount.
      amount: applied.voucher?.gift ? applied.giftCredits : applied.discount,
      gift_amount: applied.giftCredits,
      ...(applied.voucher?.gift && { gift: { amount: applied.giftCredits } }),
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      related_object_type: applied.voucher ? 'voucher' : 'promotion_tier',
      related_object_id: (applied.voucher ?? applied.tier)!.id,
      ...(applied.voucher && { voucher_code: applied.voucher.code }),
      ...(applied.points > 0 && { loyalty_card: { points: applied.points } }),
      ...(applied.reward && { reward: applied.reward }),
      parent_redemption_id: parentId,
      redemption: parentId,
      campaign_id: applied.campaignId,
    };
    await ctx.uow.redemptions.insert(child);
    children.push(child);
    if (applied.voucher) {
      const voucher = (await ctx.uow.vouchers.get(applied.voucher.id))!;
      const counted = await ctx.uow.vouchers.update({
        ...FRESH,
        ...voucher,
        redemption: {
          ...FRESH,
          ...voucher.redemption,
          redeemed_quantity: voucher.redemption.redeemed_quantity + 1,
          redeemed_points: voucher.redemption.redeemed_points + applied.points,
        },
        ...(voucher.gift && { gift: { ...FRESH, ...voucher.gift, balance: voucher.gift.balance - applied.giftCredits } }),
      });
      if (counted.gift && applied.giftCredits > 0) {
        await recordGiftMovement(ctx, counted, {
          type: 'CREDITS_REDEMPTION',
          amount: -applied.giftCredits,
          operation: 'MANUAL',
          details: { order: { id: stored.id, source_id: stored.source_id }, redemption: { id: child.id } },
        });
      }
      if (applied.points > 0) {
        await movePoints(ctx, counted, { points: -applied.points, type: 'POINTS_REDEMPTION', operation: 'MANUAL', details: { redemption: { id: child.id } } });
      }
      if (counted.is_referral_code) await referralCodeRedeemed(ctx, counted.id, evaluation.customerId, { id: child.id, type: 'redemption', date: now });
    } else if (applied.tier) {
      const tier = (await ctx.uow.promotion_tiers.get(applied.tier.id))!;
      await ctx.uow.promotion_tiers.update({
        ...FRESH,
        ...tier,
        summary: {
          redemptions: { total_redeemed: tier.summary.redemptions.total_redeemed + 1 },
          orders: {
            total_amount: tier.summary.orders.total_amount + totals.amount,
            total_discount_amount: tier.summary.orders.total_discount_amount + applied.discount,
          },
        },
      });
    }
    if (applied.campaignId) {
      await recordEvent(ctx, 'redemption.succeeded', { campaign_id: applied.campaignId, customer_id: evaluation.customerId, voucher_id: applied.voucher?.id ?? null }, {
        redemption: { id: child.id },
        order_amount: totals.amount,
        discount_amount: applied.discount,
        // Points a loyalty card paid with: the event is then also the card's member activity.
        ...(applied.points > 0 && { points: applied.points }),
      });
    }
  }
  // A validation session named by the request has done its work for the vouchers redeemed: its holds end.
  if (request.session?.key !== undefined) {
    await useHolds(ctx, request.session.key, evaluation.applied.flatMap((applied) => (applied.voucher ? [applied.voucher.id] : [])));
  }
  await updateCustomerSummary(ctx, evaluation.customerId, (summary) => ({
    ...FRESH,
    ...summary,
    redemptions: {
      ...FRESH,
      ...summary.redemptions,
      total_redeemed: summary.redemptions.total_redeemed + 1,
      total_succeeded: summary.redemptions.total_succeeded + 1,
      gift: { ...FRESH, ...summary.redemptions.gift, redeemed_amount: summary.redemptions.gift.redeemed_amount + totals.gift },
      loyalty_card: {
        ...FRESH,
        ...summary.redemptions.loyalty_card,
        redeemed_points: summary.redemptions.loyalty_card.redeemed_points + evaluation.applied.reduce((sum, applied) => sum + applied.points, 0),
      },
    },
  }));
  return {
    ok: true,
    redemptions: await Promise.all(children.map((child) => presentRedemption(ctx, child))),
    parent: await presentRedemption(ctx, parent),
    order: calculated,
    skipped: evaluation.skipped,
    // Only in the stacking rules' PARTIAL mode does a redemption go through with inapplicable redeemables.
    inapplicable: evaluation.inapplicable,
  };
}

async function findEntry({ uow }: DomainContext, id: string): Promise<Redemption> {
  const entry = await uow.redemptions.get(id);
  if (!entry) throw notFound('redemption', id);
  return entry;
}

export async function findRedemption(ctx: DomainContext, id: string): Promise<EntryView> {
  return presentEntry(ctx, await findEntry(ctx, id));
}

export type RollbackOutcome = { ok: true; rollback: RollbackView; children: RollbackView[] } | { ok: false; error: DomainError };

/**
 * Undoes a redemption and, for a parent, its children: each gets a rollback entry, and the parent's is
 * returned. A refusal is recorded and returned, not thrown.
 */
export async function rollback(ctx: DomainContext, id: string, input: Schemas['RedemptionsRollbackRequestBody'], channelId: string): Promise<RollbackOutcome> {
  const found = await findEntry(ctx, id);
  if (found.object !== 'redemption') {
    return { ok: false, error: invalid('invalid_rollback_params', 'Invalid rollback params', `${found.id} is a rollback, not a redemption`) };
  }
  const redemption = found;
  const isParent = redemption.related_object_type === 'redemption';
  const targets = isParent ? ((await ctx.uow.redemptions.findBy('parent_redemption_id', redemption.id)) as RedemptionRecord[]) : [redemption];
  const refuse = async (key: string, details: string): Promise<RollbackOutcome> => {
    for (const target of targets) {
      if (target.campaign_id) await recordEvent(ctx, 'redemption.rollback.failed', { campaign_id: target.campaign_id, customer_id: target.customer_id }, { redemption: { id: target.id }, error: key });
    }
    await updateCustomerSummary(ctx, redemption.customer_id, (summary) => ({
      ...FRESH,
      ...summary,
      redemptions: { ...FRESH, ...summary.redemptions, total_rolled_back: summary.redemptions.total_rolled_back + 1, total_rollback_failed: summary.redemptions.total_rollback_failed + 1 },
    }));
    return { ok: false, error: invalid(key, key === 'already_rolled_back' ? 'Already rolled back' : 'Invalid rollback params', details) };
  };
  if (redemption.status === 'ROLLED_BACK') return refuse('already_rolled_back', `Redemption ${redemption.id} was already rolled back`);
  if (redemption.result !== 'SUCCESS') return refuse('invalid_rollback_params', `Redemption ${redemption.id} did not succeed`);
  const now = isoNow(ctx.clock);
  const reason = input.reason ?? null;
  const metadata = input.metadata ?? {};
  const channel = { channel_id: channelId, channel_type: 'API' as const };
  const parentRollbackId = newId('rr');
  const orderMode = (await effectiveStackingRules(ctx)).redeemables_rollback_order_mode;
  /** The rollback entry of one redemption; the entry is stored and the redemption marked rolled back. */
  const rollBack = async (
    target: RedemptionRecord,
    rollbackId: string,
    amounts: { amount: number; gift: number; points: number },
    parentRollback: string | null,
    rolledBack?: string[],
  ): Promise<RollbackRecord> => {
    const entry: RollbackRecord = {
      id: rollbackId,
      date: now,
      customer_id: target.customer_id,
      customer: target.customer,
      tracking_id: target.tracking_id,
      metadata,
      amount: amounts.amount,
      gift_amount: amounts.gift,
      ...(target.gift && { gift: { amount: amounts.gift } }),
      ...(amounts.points > 0 && { loyalty_card: { points: amounts.points } }),
      ...(target.reward && { reward: target.reward }),
      order: target.order,
      channel,
      related_object_type: target.related_object_type,
      related_object_id: target.related_object_id,
      ...(target.voucher_code !== undefined && { voucher_code: target.voucher_code }),
      campaign_id: target.campaign_id,
      object: 'redemption_rollback',
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      redemption: target.id,
      reason,
      parent_rollback_id: parentRollback,
      ...(rolledBack && { rollbacks: rolledBack }),
    };
    await ctx.uow.redemptions.insert(entry);
    await ctx.uow.redemptions.update({
      ...FRESH,
      ...target,
      status: 'ROLLED_BACK',
      related_redemptions: { rollbacks: [...(target.related_redemptions?.rollbacks ?? []), { id: rollbackId, date: now, rollback_order_mode: orderMode }] },
    });
    return entry;
  };
  let amount = 0;
  let giftAmount = 0;
  let pointsBack = 0;
  const childRollbacks: string[] = [];
  const childEntries: RollbackRecord[] = [];
  let single: RollbackRecord | undefined;
  for (const target of targets) {
    if (target.status === 'ROLLED_BACK') continue;
    // What the redemption took off the order (a gift card's own `amount` is the credit it paid, not a discount).
    const discounted = target.gift ? 0 : target.amount;
    amount += discounted;
    giftAmount += target.gift_amount;
    const points = target.loyalty_card?.points ?? 0;
    pointsBack += points;
    const entry = await rollBack(target, isParent ? newId('rr') : parentRollbackId, { amount: target.amount, gift: target.gift_amount, points }, isParent ? parentRollbackId : null);
    childRollbacks.push(entry.id);
    if (isParent) childEntries.push(entry);
    else single = entry;
    if (target.related_object_type === 'voucher') {
      const voucher = await ctx.uow.vouchers.get(target.related_object_id);
      if (voucher) {
        const restored = await ctx.uow.vouchers.update({
          ...FRESH,
          ...voucher,
          redemption: {
            ...FRESH,
            ...voucher.redemption,
            redeemed_quantity: Math.max(0, voucher.redemption.redeemed_quantity - 1),
            redeemed_points: Math.max(0, voucher.redemption.redeemed_points - points),
          },
          ...(voucher.gift && { gift: { ...FRESH, ...voucher.gift, balance: voucher.gift.balance + target.gift_amount } }),
        });
        if (restored.gift && target.gift_amount > 0) {
          await recordGiftMovement(ctx, restored, {
            type: 'CREDITS_REFUND',
            amount: target.gift_amount,
            operation: 'AUTOMATIC',
            details: {
              ...FRESH,
              ...(target.order?.id && { order: { id: target.order.id, source_id: target.order.source_id ?? null } }),
              redemption: { id: target.id },
              rollback: { id: entry.id },
            },
          });
        }
        if (points > 0) {
          await movePoints(ctx, restored, { points, type: 'POINTS_REFUND', operation: 'AUTOMATIC', details: { redemption: { id: target.id } } });
        }
      }
    } else if (target.related_object_type === 'promotion_tier') {
      const tier = await ctx.uow.promotion_tiers.get(target.related_object_id);
      if (tier) {
        await ctx.uow.promotion_tiers.update({
          ...FRESH,
          ...tier,
          // A rollback takes back all its redemption counted: the redemption, its order amount and its discount.
          summary: {
            redemptions: { total_redeemed: Math.max(0, tier.summary.redemptions.total_redeemed - 1) },
            orders: {
              total_amount: Math.max(0, tier.summary.orders.total_amount - (target.order?.amount ?? 0)),
              total_discount_amount: Math.max(0, tier.summary.orders.total_discount_amount - discounted),
            },
          },
        });
      }
    }
    if (target.campaign_id) {
      const voucherId = target.related_object_type === 'voucher' ? target.related_object_id : null;
      await recordEvent(ctx, 'redemption.rollback.succeeded', { campaign_id: target.campaign_id, customer_id: target.customer_id, voucher_id: voucherId }, {
        redemption: { id: target.id },
        order_amount: target.order?.amount,
        discount_amount: discounted,
        ...(points > 0 && { points }),
      });
    }
  }
  const result = isParent
    ? await rollBack(redemption, parentRollbackId, { amount, gift: giftAmount, points: pointsBack }, null, targets.map((target) => target.id))
    : single!;
  const orderId = redemption.order?.id;
  if (orderId) {
    const parentOfOrder = isParent ? redemption.id : redemption.parent_redemption_id;
    if (parentOfOrder) {
      await noteRedemption(ctx, orderId, parentOfOrder, {
        ...FRESH,
        ...(isParent && { rollback_id: parentRollbackId, rollback_date: now }),
        rollback_stacked: isParent ? childRollbacks : [result.id],
      });
    }
    // The project's stacking rules may say a rollback cancels the order too.
    const order = orderMode === 'WITH_ORDER' ? await ctx.uow.orders.get(orderId) : undefined;
    if (order && order.status !== 'CANCELED') await ctx.uow.orders.update({ ...FRESH, ...order, status: 'CANCELED', updated_at: now });
  }
  await updateCustomerSummary(ctx, redemption.customer_id, (summary) => ({
    ...FRESH,
    ...summary,
    redemptions: {
      ...FRESH,
      ...summary.redemptions,
      total_rolled_back: summary.redemptions.total_rolled_back + 1,
      total_rollback_succeeded: summary.redemptions.total_rollback_succeeded + 1,
      gift: { ...FRESH, ...summary.redemptions.gift, redeemed_amount: Math.max(0, summary.redemptions.gift.redeemed_amount - giftAmount) },
    },
  }));
  return {
    ok: true,
    rollback: (await presentEntry(ctx, result)) as RollbackView,
    children: (await Promise.all(childEntries.map((entry) => presentEntry(ctx, entry)))) as RollbackView[],
  };
}

export type StackedRollbackOutcome =
  | { ok: true; rollbacks: RollbackView[]; parent: RollbackView; order: Calculated | null }
  | { ok: false; error: DomainError };

/**
 * Rolls back a parent redemption as `rollback` does, and answers with every child's rollback besides the
 * parent's. A redemption that is not a parent is refused (returned, not thrown, like every refusal here).
 */
export async function rollbackStacked(ctx: DomainContext, id: string, input: Schemas['RedemptionsRollbackRequestBody'], channelId: string): Promise<StackedRollbackOutcome> {
  const found = await findEntry(ctx, id);
  if (found.object !== 'redemption' || found.related_object_type !== 'redemption') {
    return { ok: false, error: invalid('invalid_rollback_params', 'Invalid rollback params', `${found.id} is not a parent redemption; roll it back with POST /v1/redemptions/${found.id}/rollback`) };
  }
  const outcome = await rollback(ctx, id, input, channelId);
  if (!outcome.ok) return outcome;
  return { ok: true, rollbacks: outcome.children, parent: outcome.rollback, order: outcome.rollback.order ?? null };
}

/** The fields a redemption list's `filters` may name. */
const REDEMPTION_FILTER_FIELDS: ReadonlySet<string> = new Set([
  'voucher_code', 'related_object_id', 'related_object_parent_id', 'parent_redemption_id', 'failure_code', 'result', 'object', 'customer_id', 'campaign_name', 'user_login',
]);

type RedemptionSortField = 'created_at' | 'id' | 'voucher_code' | 'tracking_id' | 'customer_id';

export interface RedemptionListQuery extends PageRequest {
  result?: 'SUCCESS' | 'FAILURE';
  campaign?: string;
  customer?: string;
  order?: RedemptionSortField | `-${RedemptionSortField}`;
  created_at?: TimeRange;
  filters?: Record<string, unknown>;
}

/**
 * Where a redemption filter's field (as the list and the export name them) comes from; `campaignName` is where
 * `campaign_name` does (a condition on the entry's campaign, campaign-lookup.ts).
 */
export function redemptionFilterSource(field: string, campaignName: FieldSource): FieldSource {
  switch (field) {
    case 'created_at':
      return 'date';
    case 'campaign':
    case 'related_object_parent_id':
      return 'campaign_id';
    case 'customer':
      return 'customer_id';
    case 'voucher':
      return 'voucher_code';
    case 'related_object':
      return 'related_object_type';
    case 'campaign_name':
      return campaignName;
    case 'user_login':
      // Every entry here came through the API, so none has a dashboard user.
      return { constant: null };
    default:
      // A rollback has neither `parent_redemption_id` nor `failure_code`: both read as null.
      return rowField(field);
  }
}

export async function listRedemptions(ctx: DomainContext, query: RedemptionListQuery) {
  let campaignId: string | undefined;
  if (query.campaign) campaignId = ((await ctx.uow.campaigns.get(query.campaign)) ?? (await ctx.uow.campaigns.getBy('name', query.campaign)))?.id ?? '\u0000';
  let customerId: string | undefined;
  if (query.customer) customerId = ((await ctx.uow.customers.get(query.customer)) ?? (await ctx.uow.customers.getBy('source_id', query.customer)))?.id ?? '\u0000';
  const filter = query.filters ? listFilter(query.filters, REDEMPTION_FILTER_FIELDS) : undefined;
  // The campaigns whose names decide the filter, asked of the store: never every campaign.
  const clause = filter?.campaign_name;
  const campaignName: FieldSource = typeof clause === 'object' ? await campaignNameSource(ctx, clause.conditions) : { constant: null };
  const order = parseOrder<RedemptionSortField>(query.order ?? '-created_at');
  const page = await ctx.uow.redemptions.query({
    where: and(
      query.result === undefined ? undefined : eq('result', query.result),
      campaignId === undefined ? undefined : eq('campaign_id', campaignId),
      customerId === undefined ? undefined : eq('customer_id', customerId),
      withinRange('date', query.created_at),
      filter && filterCondition(filter, (field) => redemptionFilterSource(field, campaignName)),
    ),
    orderBy: { field: order.field === 'created_at' ? 'date' : order.field, direction: order.direction },
    ...pageWindow(query),
  });
  return { rows: await Promise.all(page.rows.map((entry) => presentEntry(ctx, entry))), total: page.total };
}

/** A voucher's counters and every redemption and rollback of it, newest first (what its `redemption.url` names). */
export async function voucherRedemptions(ctx: DomainContext, code: string) {
  const voucher = await findVoucher(ctx, code);
  const { rows: entries } = await ctx.uow.redemptions.query({ index: { field: 'related_object_id', value: voucher.id }, orderBy: { field: 'date', direction: 'desc' } });
  return {
    object: 'list' as const,
    data_ref: 'redemption_entries' as const,
    quantity: voucher.redemption.quantity,
    redeemed_quantity: voucher.redemption.redeemed_quantity,
    ...(voucher.type === 'LOYALTY_CARD' && { redeemed_points: voucher.redemption.redeemed_points }),
    url: `/v1/vouchers/${encodeURIComponent(voucher.code)}/redemption`,
    redemption_entries: await Promise.all(entries.map((entry) => presentEntry(ctx, entry))),
    total: entries.length,
  };
}

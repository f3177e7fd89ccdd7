import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { DomainError, invalid, notFound } from './errors.js';
import { evaluate } from './engine.js';
import { movePoints } from './loyalty/cards.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import { orderForRedemption } from './orders.js';
import { pageWindow, type PageRequest } from './pagination.js';
import { findVoucher } from './vouchers.js';

type Schemas = components['schemas'];
export type Redemption = Schemas['Redemption'];
type Request = Schemas['ValidationsValidateRequestBody'];

export type RedeemOutcome =
  | { ok: true; redemptions: Redemption[]; parent: Redemption; order: Schemas['OrderCalculated'] }
  | { ok: false; error: DomainError };

type CustomerSummary = Schemas['Customer']['summary'];

async function updateCustomerSummary(ctx: DomainContext, customerId: string | null, change: (summary: CustomerSummary) => CustomerSummary) {
  if (!customerId) return;
  const customer = await ctx.uow.customers.get(customerId);
  if (customer) await ctx.uow.customers.update({ ...customer, summary: change(customer.summary) });
}

/**
 * Redeems every redeemable or none. A refusal is returned, not thrown, so the unit of work still
 * commits the record of the failure.
 */
export async function redeem(ctx: DomainContext, request: Request, channelId: string): Promise<RedeemOutcome> {
  const evaluation = await evaluate(ctx, request);
  const now = ctx.clock.now().toISOString();
  if (!evaluation.valid) {
    const first = evaluation.inapplicable[0]!;
    for (const verdict of evaluation.inapplicable) {
      if (verdict.campaign_id) {
        await recordEvent(ctx, 'redemption.failed', { campaign_id: verdict.campaign_id, customer_id: evaluation.customerId }, { redeemable: { id: verdict.id, object: verdict.object }, error: verdict.result.error?.key });
      }
    }
    await updateCustomerSummary(ctx, evaluation.customerId, (summary) => ({
      ...summary,
      redemptions: { ...summary.redemptions, total_redeemed: summary.redemptions.total_redeemed + 1, total_failed: summary.redemptions.total_failed + 1 },
    }));
    const error = first.result.error!;
    return {
      ok: false,
      error: new DomainError(
        error.code === 404 ? 'not_found' : 'invalid',
        error.key,
        error.message,
        error.error?.message ?? error.details,
        first.id,
        first.object,
      ),
    };
  }
  const order = await orderForRedemption(ctx, request.order, evaluation.order, evaluation.customerId);
  const calculated = { ...evaluation.order, id: order.id, source_id: order.source_id };
  const base = {
    date: now,
    customer_id: evaluation.customerId,
    tracking_id: evaluation.trackingId,
    order: calculated,
    result: 'SUCCESS' as const,
    status: 'SUCCEEDED' as const,
    channel: { channel_id: channelId, channel_type: 'API' as const },
    metadata: request.metadata ?? {},
    object: 'redemption' as const,
  };
  const parentId = newId('r');
  const parent: Redemption = {
    ...base,
    id: parentId,
    amount: evaluation.order.discount_amount,
    gift_amount: evaluation.order.gift_amount,
    related_object_type: 'redemption',
    related_object_id: parentId,
    parent_redemption_id: null,
    campaign_id: null,
  };
  await ctx.uow.redemptions.insert(parent);
  const children: Redemption[] = [];
  for (const applied of evaluation.applied) {
    const child: Redemption = {
      ...base,
      id: newId('r'),
      amount: applied.discount,
      gift_amount: applied.giftCredits,
      related_object_type: applied.voucher ? 'voucher' : 'promotion_tier',
      related_object_id: (applied.voucher ?? applied.tier)!.id,
      ...(applied.voucher && { voucher_code: applied.voucher.code }),
      ...(applied.points > 0 && { loyalty_card: { points: applied.points } }),
      parent_redemption_id: parentId,
      campaign_id: applied.campaignId,
    };
    await ctx.uow.redemptions.insert(child);
    children.push(child);
    if (applied.voucher) {
      const voucher = (await ctx.uow.vouchers.get(applied.voucher.id))!;
      const counted = await ctx.uow.vouchers.update({
        ...voucher,
        redemption: {
          ...voucher.redemption,
          redeemed_quantity: voucher.redemption.redeemed_quantity + 1,
          redeemed_points: voucher.redemption.redeemed_points + applied.points,
        },
        ...(voucher.gift && { gift: { ...voucher.gift, balance: voucher.gift.balance - applied.giftCredits } }),
      });
      if (applied.points > 0) {
        await movePoints(ctx, counted, { points: -applied.points, type: 'POINTS_REDEMPTION', operation: 'MANUAL', details: { redemption: { id: child.id } } });
      }
    } else if (applied.tier) {
      const tier = (await ctx.uow.promotion_tiers.get(applied.tier.id))!;
      await ctx.uow.promotion_tiers.update({
        ...tier,
        summary: {
          redemptions: { total_redeemed: tier.summary.redemptions.total_redeemed + 1 },
          orders: {
            total_amount: tier.summary.orders.total_amount + evaluation.order.amount,
            total_discount_amount: tier.summary.orders.total_discount_amount + applied.discount,
          },
        },
      });
    }
    if (applied.campaignId) {
      await recordEvent(ctx, 'redemption.succeeded', { campaign_id: applied.campaignId, customer_id: evaluation.customerId, voucher_id: applied.voucher?.id ?? null }, {
        redemption: { id: child.id },
        order_amount: evaluation.order.amount,
        discount_amount: applied.discount,
        // Points a loyalty card paid with: the event is then also the card's member activity.
        ...(applied.points > 0 && { points: applied.points }),
      });
    }
  }
  await updateCustomerSummary(ctx, evaluation.customerId, (summary) => ({
    ...summary,
    redemptions: {
      ...summary.redemptions,
      total_redeemed: summary.redemptions.total_redeemed + 1,
      total_succeeded: summary.redemptions.total_succeeded + 1,
      gift: { ...summary.redemptions.gift, redeemed_amount: summary.redemptions.gift.redeemed_amount + evaluation.order.gift_amount },
      loyalty_card: {
        ...summary.redemptions.loyalty_card,
        redeemed_points: summary.redemptions.loyalty_card.redeemed_points + evaluation.applied.reduce((sum, applied) => sum + applied.points, 0),
      },
    },
  }));
  return { ok: true, redemptions: children, parent, order: calculated };
}

export async function findRedemption({ uow }: DomainContext, id: string): Promise<Redemption> {
  const redemption = await uow.redemptions.get(id);
  if (!redemption) throw notFound('redemption', id);
  return redemption;
}

export type RollbackOutcome = { ok: true; rollback: Schemas['RedemptionRollback'] } | { ok: false; error: DomainError };

/** Undoes a redemption and, for a parent, its children. A refusal is recorded and returned, not thrown. */
export async function rollback(ctx: DomainContext, id: string, input: Schemas['RedemptionsRollbackRequestBody']): Promise<RollbackOutcome> {
  const redemption = await findRedemption(ctx, id);
  const targets = redemption.related_object_type === 'redemption' ? await ctx.uow.redemptions.findBy('parent_redemption_id', redemption.id) : [redemption];
  const refuse = async (key: string, details: string): Promise<RollbackOutcome> => {
    for (const target of targets) {
      if (target.campaign_id) await recordEvent(ctx, 'redemption.rollback.failed', { campaign_id: target.campaign_id, customer_id: target.customer_id }, { redemption: { id: target.id }, error: key });
    }
    await updateCustomerSummary(ctx, redemption.customer_id, (summary) => ({
      ...summary,
      redemptions: { ...summary.redemptions, total_rolled_back: summary.redemptions.total_rolled_back + 1, total_rollback_failed: summary.redemptions.total_rollback_failed + 1 },
    }));
    return { ok: false, error: invalid(key, key === 'already_rolled_back' ? 'Already rolled back' : 'Invalid rollback params', details) };
  };
  if (redemption.status === 'ROLLED_BACK') return refuse('already_rolled_back', `Redemption ${redemption.id} was already rolled back`);
  if (redemption.result !== 'SUCCESS') return refuse('invalid_rollback_params', `Redemption ${redemption.id} did not succeed`);
  const now = ctx.clock.now().toISOString();
  let amount = 0;
  let giftAmount = 0;
  for (const target of targets) {
    if (target.status === 'ROLLED_BACK') continue;
    await ctx.uow.redemptions.update({ ...target, status: 'ROLLED_BACK' });
    amount += target.amount;
    giftAmount += target.gift_amount;
    if (target.related_object_type === 'voucher') {
      const voucher = await ctx.uow.vouchers.get(target.related_object_id);
      if (voucher) {
        const points = target.loyalty_card?.points ?? 0;
        const restored = await ctx.uow.vouchers.update({
          ...voucher,
          redemption: {
            ...voucher.redemption,
            redeemed_quantity: Math.max(0, voucher.redemption.redeemed_quantity - 1),
            redeemed_points: Math.max(0, voucher.redemption.redeemed_points - points),
          },
          ...(voucher.gift && { gift: { ...voucher.gift, balance: voucher.gift.balance + target.gift_amount } }),
        });
        if (points > 0) {
          await movePoints(ctx, restored, { points, type: 'POINTS_REFUND', operation: 'AUTOMATIC', details: { redemption: { id: target.id } } });
        }
      }
    } else if (target.related_object_type === 'promotion_tier') {
      const tier = await ctx.uow.promotion_tiers.get(target.related_object_id);
      if (tier) {
        await ctx.uow.promotion_tiers.update({
          ...tier,
          // A rollback takes back all its redemption counted: the redemption, its order amount and its discount.
          summary: {
            redemptions: { total_redeemed: Math.max(0, tier.summary.redemptions.total_redeemed - 1) },
            orders: {
              total_amount: Math.max(0, tier.summary.orders.total_amount - (target.order.amount ?? 0)),
              total_discount_amount: Math.max(0, tier.summary.orders.total_discount_amount - target.amount),
            },
          },
        });
      }
    }
    if (target.campaign_id) {
      const voucherId = target.related_object_type === 'voucher' ? target.related_object_id : null;
      const points = target.loyalty_card?.points ?? 0;
      await recordEvent(ctx, 'redemption.rollback.succeeded', { campaign_id: target.campaign_id, customer_id: target.customer_id, voucher_id: voucherId }, {
        redemption: { id: target.id },
        order_amount: target.order.amount,
        discount_amount: target.amount,
        ...(points > 0 && { points }),
      });
    }
  }
  if (redemption.related_object_type === 'redemption') await ctx.uow.redemptions.update({ ...redemption, status: 'ROLLED_BACK' });
  await updateCustomerSummary(ctx, redemption.customer_id, (summary) => ({
    ...summary,
    redemptions: {
      ...summary.redemptions,
      total_rolled_back: summary.redemptions.total_rolled_back + 1,
      total_rollback_succeeded: summary.redemptions.total_rollback_succeeded + 1,
      gift: { ...summary.redemptions.gift, redeemed_amount: Math.max(0, summary.redemptions.gift.redeemed_amount - giftAmount) },
    },
  }));
  return {
    ok: true,
    rollback: {
      id: newId('rr'),
      date: now,
      redemption: redemption.id,
      reason: input.reason ?? null,
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      amount,
      gift_amount: giftAmount,
      rollbacks: targets.map((target) => target.id),
      object: 'redemption_rollback',
    },
  };
}

export async function listRedemptions(
  ctx: DomainContext,
  query: PageRequest & { result?: 'SUCCESS' | 'FAILURE'; campaign?: string; customer?: string; order?: 'created_at' | '-created_at' },
) {
  let campaignId: string | undefined;
  if (query.campaign) campaignId = ((await ctx.uow.campaigns.get(query.campaign)) ?? (await ctx.uow.campaigns.getBy('name', query.campaign)))?.id ?? '\u0000';
  let customerId: string | undefined;
  if (query.customer) customerId = ((await ctx.uow.customers.get(query.customer)) ?? (await ctx.uow.customers.getBy('source_id', query.customer)))?.id ?? '\u0000';
  return ctx.uow.redemptions.query({
    where: (redemption) =>
      (query.result === undefined || redemption.result === query.result) &&
      (campaignId === undefined || redemption.campaign_id === campaignId) &&
      (customerId === undefined || redemption.customer_id === customerId),
    orderBy: { field: 'date', direction: (query.order ?? '-created_at') === '-created_at' ? 'desc' : 'asc' },
    ...pageWindow(query),
  });
}

/** A voucher's counters and every redemption of it, newest first (what its `redemption.url` names). */
export async function voucherRedemptions(ctx: DomainContext, code: string): Promise<Schemas['VoucherRedemptionsResponseBody']> {
  const voucher = await findVoucher(ctx, code);
  const { rows: entries } = await ctx.uow.redemptions.query({ index: { field: 'related_object_id', value: voucher.id }, orderBy: { field: 'date', direction: 'desc' } });
  return {
    object: 'list',
    data_ref: 'redemption_entries',
    quantity: voucher.redemption.quantity,
    redeemed_quantity: voucher.redemption.redeemed_quantity,
    ...(voucher.type === 'LOYALTY_CARD' && { redeemed_points: voucher.redemption.redeemed_points }),
    url: `/v1/vouchers/${encodeURIComponent(voucher.code)}/redemption`,
    redemption_entries: entries,
    total: entries.length,
  };
}

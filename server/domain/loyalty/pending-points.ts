/** Pending points: points earned on a card that wait for their `activates_at` day. */
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import type { EventRecord } from '../events.js';
import { newId } from '../ids.js';
import type { Order } from '../orders.js';
import type { VoucherRecord } from '../vouchers.js';
import { balanceError, movePoints, recordCardEvent, type LoyaltyCardBalance } from './cards.js';
import { dayBefore, noteDueDay } from './settle-clock.js';
import type { EarningRule, LoyaltyTier, PendingPoints } from './types.js';

export interface PendingEarning {
  rule: EarningRule;
  trigger: EventRecord;
  tier: LoyaltyTier | undefined;
  points: number;
  activatesAt: string;
  order?: Order;
}

export async function addPending(ctx: DomainContext, card: VoucherRecord, earning: PendingEarning): Promise<PendingPoints> {
  const { rule, trigger, tier, order } = earning;
  const entry = await ctx.uow.pending_points.insert({
    id: newId('lopp'),
    voucher_id: card.id,
    campaign_id: card.campaign_id!,
    customer_id: card.holder_id!,
    order_id: order?.id ?? null,
    points: earning.points,
    activates_at: earning.activatesAt,
    created_at: ctx.clock.now().toISOString(),
    details: {
      holder_loyalty_tier: tier ? { id: tier.id, name: tier.name } : null,
      event: {
        id: trigger.id,
        type: trigger.type,
        group_id: trigger.group_id,
        entity_id: trigger.customer_id ?? card.holder_id!,
        created_at: trigger.created_at,
        category: 'EFFECT',
        event_source: trigger.event_source,
      },
      earning_rule: { id: rule.id, source: { banner: rule.source.banner } },
      order: order ? { id: order.id, source_id: order.source_id } : null,
    },
  });
  await noteDueDay(ctx, dayBefore(entry.activates_at));
  await recordCardEvent(ctx, 'customer.loyalty.card.pending_points.added', card, { pending_points: entry, points: entry.points });
  return entry;
}

export async function findPending(ctx: DomainContext, card: VoucherRecord, pendingId: string): Promise<PendingPoints> {
  const entry = await ctx.uow.pending_points.get(pendingId);
  if (!entry || entry.voucher_id !== card.id) throw notFound('pending_points', pendingId);
  return entry;
}

/** Adds the entry's points to its card and removes the entry. */
export async function activatePending(ctx: DomainContext, entry: PendingPoints, operation: LoyaltyCardBalance['operation_type']): Promise<LoyaltyCardBalance | undefined> {
  await ctx.uow.pending_points.delete(entry.id);
  const card = await ctx.uow.vouchers.get(entry.voucher_id);
  if (!card?.loyalty_card) return undefined;
  if (entry.points === 0) {
    await recordCardEvent(ctx, 'customer.loyalty.card.pending_points.activated', card, { pending_points: entry, points: 0 });
    return {
      points: 0,
      total: card.loyalty_card.points,
      balance: card.loyalty_card.balance,
      type: 'loyalty_card',
      object: 'balance',
      operation_type: operation,
      related_object: { type: 'voucher', id: card.id },
    };
  }
  const moved = await movePoints(ctx, card, {
    points: entry.points,
    type: 'POINTS_ACCRUAL',
    operation,
    details: {
      pending_points: { id: entry.id },
      earning_rule: { id: entry.details.earning_rule.id },
      ...(entry.details.order && { order: entry.details.order }),
    },
  });
  await recordCardEvent(ctx, 'customer.loyalty.card.pending_points.activated', moved.card, { pending_points: entry, points: entry.points, balance: moved.balance.balance });
  return moved.balance;
}

export async function cancelPending(ctx: DomainContext, card: VoucherRecord, pendingId: string): Promise<void> {
  const entry = await findPending(ctx, card, pendingId);
  await ctx.uow.pending_points.delete(entry.id);
  await recordCardEvent(ctx, 'customer.loyalty.card.pending_points.canceled', card, { pending_points: entry, points: entry.points });
}

export async function adjustPending(ctx: DomainContext, card: VoucherRecord, pendingId: string, points: number): Promise<PendingPoints> {
  const entry = await findPending(ctx, card, pendingId);
  if (entry.points + points < 0) throw balanceError(`Taking ${-points} points from pending entry ${entry.id} would leave ${entry.points + points}`);
  return ctx.uow.pending_points.update({ ...entry, points: entry.points + points });
}

export interface PendingQuery {
  limit?: number;
  order?: 'id' | '-id';
  starting_after_id?: string;
}

/** A cursor page in ID order: the entries after `starting_after_id`, whether or not it still exists. */
export async function pendingPage(ctx: DomainContext, scope: { field: 'campaign_id' | 'voucher_id'; value: string }, query: PendingQuery) {
  const descending = query.order === '-id';
  const after = query.starting_after_id;
  const limit = query.limit ?? 10;
  const page = await ctx.uow.pending_points.query({
    index: scope,
    orderBy: { field: 'id', direction: descending ? 'desc' : 'asc' },
    ...(after !== undefined && { after }),
    limit,
  });
  const has_more = page.total > page.rows.length;
  return { rows: page.rows, has_more, ...(has_more && { more_starting_after: page.rows.at(-1)!.id }) };
}

/** Pending points: points earned on a card (earning.ts adds them) that wait for their `activates_at` day. */
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import type { VoucherRecord } from '../vouchers.js';
import { recordCardEvent } from './card-events.js';
import { balanceError, movePoints, type LoyaltyCardBalance } from './cards.js';
import { earnedExpiry } from './expiration.js';
import type { PendingPoints } from './types.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

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
  const rule = await ctx.uow.earning_rules.get(entry.details.earning_rule.id);
  const moved = await movePoints(ctx, card, {
    points: entry.points,
    type: 'PENDING_POINTS_ACTIVATION',
    operation,
    ...(rule && { expiresOn: earnedExpiry(rule, ctx.clock.now()) }),
    details: {
      pending_points: entry,
      earning_rule: entry.details.earning_rule,
      ...(entry.details.event.id && entry.details.event.type && { event: { id: entry.details.event.id, type: entry.details.event.type } }),
      ...(entry.details.holder_loyalty_tier && { holder_loyalty_tier: entry.details.holder_loyalty_tier }),
      ...(entry.details.loyalty_tier && { loyalty_tier: entry.details.loyalty_tier }),
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

/** Changes the entry's points; answers with the change, the entry's new points and the card's balance. */
export async function adjustPending(ctx: DomainContext, card: VoucherRecord, pendingId: string, points = 0): Promise<PendingBalance> {
  const entry = await findPending(ctx, card, pendingId);
  if (entry.points + points < 0) throw balanceError(`Taking ${-points} points from pending entry ${entry.id} would leave ${entry.points + points}`);
  const updated = points === 0 ? entry : await ctx.uow.pending_points.update({ ...FRESH, ...entry, points: entry.points + points, updated_at: isoNow(ctx.clock) });
  return {
    points,
    total: updated.points,
    balance: card.loyalty_card?.balance ?? 0,
    type: 'loyalty_card',
    object: 'balance',
    operation_type: 'MANUAL',
    related_object: { type: 'voucher', id: card.id },
  };
}

type PendingBalance = components['schemas']['LoyaltyPendingPointsBalance'];

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

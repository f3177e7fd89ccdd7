/**
 * Time-driven loyalty work: pending points whose day has come are added to their cards, points past
 * their expiry leave them, and tiers whose end has come follow the balance again. It runs at the start of every unit of work and on a timer, so an entry
 * activates on its day without any call, and nothing is ever listed past its time.
 */
import type { DomainContext } from '../context.js';
import { newId } from '../ids.js';
import { activatePending } from './pending-points.js';
import { presentBucket } from './buckets.js';
import { recordCardEvent } from './card-events.js';
import { movePoints } from './cards.js';
import { expireTier } from './tiers.js';
import type { PointsBucket } from './types.js';
import { dayAfter, dayBefore, setSettledThrough, settledThrough, today } from './settle-clock.js';

/**
 * Takes the points of every bucket that expired before `day` off the card: one transaction and one event per
 * bucket, soonest first (the daily settling leaves at most one a day), the event naming the bucket it emptied.
 */
async function expireCard(ctx: DomainContext, cardId: string, day: string): Promise<void> {
  const state = await ctx.uow.loyalty_cards.get(cardId);
  let card = await ctx.uow.vouchers.get(cardId);
  if (!state || !card) return;
  const due = state.buckets
    .filter((bucket): bucket is PointsBucket & { expires_on: string } => bucket.expires_on !== null && bucket.expires_on < day && bucket.points > 0)
    .sort((a, b) => a.expires_on.localeCompare(b.expires_on));
  for (const bucket of due) {
    const moved = await movePoints(ctx, card, { points: -bucket.points, type: 'POINTS_EXPIRATION', operation: 'AUTOMATIC', expireBefore: dayAfter(bucket.expires_on) });
    card = moved.card;
    await recordCardEvent(ctx, 'customer.loyalty.card.points_expired', card, {
      points: bucket.points,
      balance: moved.balance.balance,
      buckets: [presentBucket(card, state, bucket, 'EXPIRED')],
    });
  }
}

/** Runs the due work; what it records has the service itself as its source, whoever's call came first. */
export async function settleLoyalty(caller: DomainContext): Promise<void> {
  const now = today(caller);
  const through = await settledThrough(caller);
  if (through >= now) return;
  // Settled today already is the case of nearly every call: its own context (and group of events) only for work.
  const ctx: DomainContext = { uow: caller.uow, clock: caller.clock, groupId: newId('grp') };
  for (let day = dayAfter(through); day <= now; day = dayAfter(day)) {
    for (const entry of await ctx.uow.pending_points.findBy('activates_at', day)) {
      await activatePending(ctx, entry, 'AUTOMATIC');
    }
    for (const state of await ctx.uow.loyalty_cards.findBy('next_expiration_date', dayBefore(day))) {
      await expireCard(ctx, state.id, day);
    }
    // After the day's points moves, so that a tier ending today follows the balance they leave.
    for (const state of await ctx.uow.loyalty_cards.findBy('tier_expires_on', day)) {
      await expireTier(ctx, state.id);
    }
  }
  await setSettledThrough(ctx, now);
}

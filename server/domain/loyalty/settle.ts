/**
 * Time-driven loyalty work: pending points whose day has come are added to their cards, points past
 * their expiry leave them, and tiers whose end has come follow the balance again. It runs at the start of every unit of work and on a timer, so an entry
 * activates on its day without any call, and nothing is ever listed past its time.
 */
import type { DomainContext } from '../context.js';
import { newId } from '../ids.js';
import { activatePending } from './pending-points.js';
import { recordCardEvent } from './card-events.js';
import { movePoints } from './cards.js';
import { expireTier } from './tiers.js';
import { dayAfter, dayBefore, setSettledThrough, settledThrough, today } from './settle-clock.js';

async function expireCard(ctx: DomainContext, cardId: string, day: string): Promise<void> {
  const state = await ctx.uow.loyalty_cards.get(cardId);
  const card = await ctx.uow.vouchers.get(cardId);
  if (!state || !card) return;
  const expired = state.buckets.filter((bucket) => bucket.expires_on !== null && bucket.expires_on < day).reduce((sum, bucket) => sum + bucket.points, 0);
  if (expired === 0) return;
  const moved = await movePoints(ctx, card, { points: -expired, type: 'POINTS_EXPIRATION', operation: 'AUTOMATIC', expireBefore: day });
  await recordCardEvent(ctx, 'customer.loyalty.card.points_expired', moved.card, { points: expired, balance: moved.balance.balance });
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

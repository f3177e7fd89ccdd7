/** Loyalty tiers: balance ranges of a program. A member's tier follows their card's balance. */
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { listenerSlot } from '../listener-slot.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from '../pagination.js';
import type { VoucherRecord } from '../vouchers.js';
import { recordCardEvent } from './card-events.js';
import { findProgram } from './programs.js';
import type { LoyaltyTier, TierMapping } from './types.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';
import { DateTime, Duration } from 'luxon';
import { dayBefore, noteDueDay } from './settle-clock.js';

type TierRequest = components['schemas']['LoyaltyTierRequest'];

function tierError(details: string) {
  return invalid('invalid_loyalty_tier', 'Invalid loyalty tier', details);
}

/** The program's tiers, lowest range first. */
export async function tiersOf(ctx: DomainContext, campaignId: string): Promise<LoyaltyTier[]> {
  return (await ctx.uow.loyalty_tiers.findBy('campaign_id', campaignId)).sort((a, b) => (a.points.from ?? 0) - (b.points.from ?? 0));
}

export async function findTier(ctx: DomainContext, campaignId: string, tierId: string): Promise<LoyaltyTier> {
  const tier = await ctx.uow.loyalty_tiers.get(tierId);
  if (!tier || tier.campaign_id !== campaignId) throw notFound('loyalty_tier', tierId);
  return tier;
}

/** Applies a tier's mapping to points earned or a reward's cost. */
export function mapped(points: number, mapping: TierMapping | undefined): number {
  if (!mapping) return points;
  if (mapping.type === 'MULTIPLY' && mapping.multiplier !== undefined) return Math.floor(points * mapping.multiplier);
  if (mapping.type === 'CUSTOM' && mapping.points !== undefined) return mapping.points;
  return points;
}

/** A mapping needs its type and the number that type uses; the schema leaves both optional, as the API does. */
function checkMapping(tierName: string, kind: string, id: string, mapping: TierMapping): void {
  const needs = mapping.type === 'MULTIPLY' ? 'multiplier' : mapping.type === 'CUSTOM' ? 'points' : undefined;
  if (!needs) throw tierError(`Tier ${tierName}: ${kind}.${id} needs a type, MULTIPLY or CUSTOM`);
  if (mapping[needs] === undefined) throw tierError(`Tier ${tierName}: ${kind}.${id} of type ${mapping.type} needs ${needs}`);
}

/**
 * Whether a tier's `points` give a range at all. The public API takes a tier with `points: {}`: it has no
 * range, so it overlaps no tier and no balance puts a member in it.
 */
function ranged(points: TierRequest['points']): boolean {
  return points.from !== undefined || points.to !== undefined;
}

function covers(tier: LoyaltyTier, balance: number): boolean {
  if (!ranged(tier.points)) return false;
  return balance >= (tier.points.from ?? 0) && (tier.points.to === null || tier.points.to === undefined || balance <= tier.points.to);
}

function overlap(a: TierRequest['points'], b: TierRequest['points']): boolean {
  if (!ranged(a) || !ranged(b)) return false;
  const aTo = a.to ?? Infinity;
  const bTo = b.to ?? Infinity;
  return (a.from ?? 0) <= bTo && (b.from ?? 0) <= aTo;
}

export async function createTiers(ctx: DomainContext, campaignRef: string, input: TierRequest[]): Promise<LoyaltyTier[]> {
  const program = await findProgram(ctx, campaignRef);
  const existing = await tiersOf(ctx, program.id);
  const all: Pick<TierRequest, 'name' | 'points'>[] = [...existing];
  const created: LoyaltyTier[] = [];
  for (const request of input) {
    const to = request.points.to ?? null;
    const from = request.points.from ?? 0;
    if (to !== null && to < from) throw tierError(`Tier ${request.name}: points.to ${to} is below points.from ${from}`);
    for (const [id, mapping] of Object.entries(request.earning_rules ?? {})) checkMapping(request.name, 'earning_rules', id, mapping);
    for (const [id, mapping] of Object.entries(request.rewards ?? {})) checkMapping(request.name, 'rewards', id, mapping);
    if (all.some((other) => other.name === request.name)) throw tierError(`The program already has a tier named ${request.name}`);
    const clash = all.find((other) => overlap(other.points, request.points));
    if (clash) throw tierError(`Tier ${request.name} overlaps tier ${clash.name}`);
    for (const ruleId of Object.keys(request.earning_rules ?? {})) {
      const rule = await ctx.uow.earning_rules.get(ruleId);
      if (!rule || rule.campaign_id !== program.id) throw notFound('earning_rule', ruleId);
    }
    for (const assignmentId of Object.keys(request.rewards ?? {})) {
      const assignment = await ctx.uow.reward_assignments.get(assignmentId);
      if (!assignment || assignment.related_object_id !== program.id) throw notFound('reward_assignment', assignmentId);
    }
    all.push(request);
    const points = ranged(request.points) ? { from, to } : {};
    created.push(
      await ctx.uow.loyalty_tiers.insert({
        id: newId('ltr'),
        name: request.name,
        campaign_id: program.id,
        points,
        config: { points },
        earning_rules: request.earning_rules ?? {},
        rewards: request.rewards ?? {},
        metadata: request.metadata ?? {},
        created_at: isoNow(ctx.clock),
        updated_at: null,
        object: 'loyalty_tier',
      }),
    );
  }
  for (const card of await ctx.uow.vouchers.findBy('campaign_id', program.id)) {
    if (card.holder_id) await followTier(ctx, card);
  }
  return created;
}

export async function listTiers(ctx: DomainContext, campaignRef: string, query: PageRequest & { order?: SortOrder }) {
  const program = await findProgram(ctx, campaignRef);
  const tiers = await tiersOf(ctx, program.id);
  if (query.order !== undefined) {
    const { field, direction } = parseTimestampOrder(query.order);
    const sign = direction === 'desc' ? -1 : 1;
    // Never-updated tiers (null) sort first ascending and last descending, as the other lists do.
    tiers.sort((a, b) => sign * ((a[field] ?? '').localeCompare(b[field] ?? '')));
  }
  const { offset, limit } = pageWindow(query);
  return { rows: tiers.slice(offset, offset + limit), total: tiers.length };
}

/**
 * What follows a member entering a tier: the points of the program's tier-joined rules (earning.ts, which
 * imports this module; hooks.ts sets it).
 */
export const tierJoined = listenerSlot<[ctx: DomainContext, card: VoucherRecord, tier: LoyaltyTier]>('a member joining a tier');

type TiersExpiration = components['schemas']['CampaignLoyaltyTiersExpiration'];

const PERIOD_MONTHS = { MONTH: 1, QUARTER: 3, HALF_YEAR: 6, YEAR: 12 } as const;

/**
 * The day a tier reached on `day` ends at the start of, under the program's tier expiration; null when tiers have
 * no end (no setting, or `BALANCE_DROP`: the tier follows the balance). `CUSTOM` ends `extend` after the day it
 * started; `END_OF_PERIOD` and `END_OF_NEXT_PERIOD` with the end of this or the next qualification period
 * (calendar periods in UTC; a month when the program names none). `rounding` is not applied.
 */
export function tierEndDay(expiration: TiersExpiration | undefined, day: string): string | null {
  const type = expiration?.expiration_date?.type;
  const start = DateTime.fromISO(day, { zone: 'utc' });
  if (type === 'CUSTOM') {
    const extend = Duration.fromISO(expiration!.expiration_date.extend ?? '');
    if (!extend.isValid || extend.as('milliseconds') <= 0) return null;
    // At least the next day: settling looks at each day once, and today's is done.
    return DateTime.max(start.plus(extend).startOf('day'), start.plus({ days: 1 })).toISODate();
  }
  if (type !== 'END_OF_PERIOD' && type !== 'END_OF_NEXT_PERIOD') return null;
  const months = PERIOD_MONTHS[expiration!.qualification_period ?? 'MONTH'];
  const periodStart = start.startOf('year').plus({ months: Math.floor((start.month - 1) / months) * months });
  return periodStart.plus({ months: months * (type === 'END_OF_PERIOD' ? 1 : 2) }).toISODate();
}

async function tiersExpiration(ctx: DomainContext, campaignId: string): Promise<TiersExpiration | undefined> {
  return (await ctx.uow.campaigns.get(campaignId))?.loyalty_tiers_expiration ?? undefined;
}

/**
 * Puts the member in the tier that covers their balance; records joined, upgraded, downgraded or left. A tier
 * that has an end (`tier_expires_on`, from the program's `loyalty_tiers_expiration`) is held until then: a lower
 * balance moves the member down only when it ends (`expireTier`); a higher one moves them up at once.
 */
export async function followTier(ctx: DomainContext, card: VoucherRecord, ending = false): Promise<void> {
  if (!card.campaign_id || !card.holder_id || !card.loyalty_card) return;
  const state = await ctx.uow.loyalty_cards.get(card.id);
  if (!state) return;
  const tiers = await tiersOf(ctx, card.campaign_id);
  const target = tiers.find((tier) => covers(tier, card.loyalty_card!.balance)) ?? null;
  if ((target?.id ?? null) === state.tier_id && !ending) return;
  const from = state.tier_id ? ((await ctx.uow.loyalty_tiers.get(state.tier_id)) ?? null) : null;
  const down = from !== null && (target === null || (target.points.from ?? 0) < (from.points.from ?? 0));
  if (down && !ending && state.tier_expires_on) return;
  const now = isoNow(ctx.clock);
  const expiresOn = target ? tierEndDay(await tiersExpiration(ctx, card.campaign_id), now.slice(0, 10)) : null;
  const same = (target?.id ?? null) === state.tier_id;
  await ctx.uow.loyalty_cards.update({ ...FRESH, ...state, tier_id: target?.id ?? null, tier_since: same ? state.tier_since : target ? now : null, tier_expires_on: expiresOn });
  if (expiresOn) await noteDueDay(ctx, dayBefore(expiresOn));
  // A tier that ends and starts again at once (the balance still covers it) is held on with a new end, without an event.
  if (same) return;
  const type = !from ? 'customer.loyalty.tier.joined' : !target ? 'customer.loyalty.tier.left' : (target.points.from ?? 0) > (from.points.from ?? 0) ? 'customer.loyalty.tier.upgraded' : 'customer.loyalty.tier.downgraded';
  await recordCardEvent(ctx, type, card, { loyalty_tier_from: from, loyalty_tier_to: target });
  if (target) await tierJoined.call(ctx, card, target);
}

/** The member's tier ends (its `tier_expires_on` has come): they move to the tier their balance covers now. */
export async function expireTier(ctx: DomainContext, cardId: string): Promise<void> {
  const card = await ctx.uow.vouchers.get(cardId);
  if (card) await followTier(ctx, card, true);
}

/** The member's current tier, with since when; empty when no tier covers the balance. */
export async function memberTiers(ctx: DomainContext, card: VoucherRecord) {
  const state = await ctx.uow.loyalty_cards.get(card.id);
  const tier = state?.tier_id ? await ctx.uow.loyalty_tiers.get(state.tier_id) : undefined;
  if (!tier || !state?.tier_since || !card.holder_id) return [];
  return [
    {
      ...FRESH,
      ...tier,
      expiration: {
        customer_id: card.holder_id,
        campaign_id: tier.campaign_id,
        tier_id: tier.id,
        start_date: state.tier_since.slice(0, 10),
        expiration_date: state.tier_expires_on ?? null,
        created_at: state.tier_since,
        updated_at: null,
      },
    },
  ];
}

/** The member's tier now, if any. */
export async function currentTier(ctx: DomainContext, cardId: string): Promise<LoyaltyTier | undefined> {
  const state = await ctx.uow.loyalty_cards.get(cardId);
  return state?.tier_id ? ctx.uow.loyalty_tiers.get(state.tier_id) : undefined;
}

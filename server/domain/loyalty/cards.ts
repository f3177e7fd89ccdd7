/**
 * Points on loyalty cards. Every change of a card's points goes through `movePoints`, which keeps the
 * card's buckets (points by expiry date), its `points`/`balance`/`next_expiration_*` fields, its
 * transactions and its tier in step, in the caller's unit of work.
 */
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { VoucherRecord } from '../vouchers.js';
import { recordCardEvent } from './card-events.js';
import { expiryFor, type ExpirationRules } from './expiration.js';
import { noteDueDay } from './settle-clock.js';
import { followTier } from './tiers.js';
import type { CardState, CardTransaction, PointsBucket } from './types.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

type Schemas = components['schemas'];
/** A balance change as the engine makes it: always with the change, the card type and the operation. */
export type LoyaltyCardBalance = Schemas['LoyaltyCardBalance'] & Required<Pick<Schemas['LoyaltyCardBalance'], 'points' | 'type' | 'operation_type'>>;
type TransactionType = CardTransaction['type'];
type TransactionDetails = Omit<CardTransaction['details'], 'balance'>;

export function balanceError(details: string) {
  return invalid('invalid_add_balance_params', 'Invalid add balance params', details);
}

/** The card's state row, made on first use from the voucher's current balance. */
export async function cardState(ctx: DomainContext, card: VoucherRecord): Promise<CardState> {
  const existing = await ctx.uow.loyalty_cards.get(card.id);
  if (existing) return existing;
  const balance = card.loyalty_card?.balance ?? 0;
  return ctx.uow.loyalty_cards.insert({
    id: card.id,
    campaign_id: card.campaign_id,
    tier_id: null,
    tier_since: null,
    joined_at: card.holder_id ? isoNow(ctx.clock) : null,
    buckets: balance > 0 ? [{ points: balance, expires_on: null }] : [],
    next_expiration_date: null,
  });
}

/** Sorted soonest-expiring first; points that never expire last. */
function bySoonest(a: PointsBucket, b: PointsBucket): number {
  if (a.expires_on === b.expires_on) return 0;
  if (a.expires_on === null) return 1;
  if (b.expires_on === null) return -1;
  return a.expires_on.localeCompare(b.expires_on);
}

function nextExpiration(buckets: PointsBucket[]): { date: string | null; points: number | null } {
  const dated = buckets.filter((bucket) => bucket.expires_on !== null && bucket.points > 0);
  if (dated.length === 0) return { date: null, points: null };
  const date = dated.map((bucket) => bucket.expires_on!).sort()[0]!;
  return { date, points: dated.filter((bucket) => bucket.expires_on === date).reduce((sum, bucket) => sum + bucket.points, 0) };
}

/** Takes `points` out of the buckets, soonest-expiring first. */
function withdraw(buckets: PointsBucket[], points: number, now: string): PointsBucket[] {
  let left = points;
  const result: PointsBucket[] = [];
  for (const bucket of [...buckets].sort(bySoonest)) {
    const taken = Math.min(left, bucket.points);
    left -= taken;
    if (bucket.points - taken > 0) result.push(taken > 0 ? { ...FRESH, ...bucket, points: bucket.points - taken, updated_at: now } : bucket);
  }
  return result;
}

async function rulesOf(ctx: DomainContext, card: VoucherRecord): Promise<ExpirationRules | undefined> {
  if (!card.campaign_id) return undefined;
  const campaign = await ctx.uow.campaigns.get(card.campaign_id);
  return campaign?.voucher?.loyalty_card?.expiration_rules;
}

export interface PointsMove {
  /** Positive adds, negative takes. */
  points: number;
  type: TransactionType;
  operation: LoyaltyCardBalance['operation_type'];
  reason?: string | null;
  sourceId?: string | null;
  details?: TransactionDetails;
  relatedTransactionId?: string | null;
  /** For expiry: take exactly the buckets that expired before this day. */
  expireBefore?: string;
  /** For points added: the last day they can be spent (null: never expire); undefined follows the program's rules. */
  expiresOn?: string | null;
}

export interface Moved {
  card: VoucherRecord;
  balance: LoyaltyCardBalance;
  transaction: CardTransaction;
}

/**
 * Adds or takes points, records the transaction and moves the holder's tier. Taking more than the
 * balance is refused and changes nothing.
 */
export async function movePoints(ctx: DomainContext, card: VoucherRecord, move: PointsMove): Promise<Moved> {
  if (!card.loyalty_card) throw balanceError(`Voucher ${card.code} is a ${card.type}; only loyalty cards take points`);
  const state = await cardState(ctx, card);
  const today = isoNow(ctx.clock).slice(0, 10);
  const current = card.loyalty_card;
  if (current.balance + move.points < 0) {
    throw balanceError(`Taking ${-move.points} points from card ${card.code} would leave a balance of ${current.balance + move.points}`);
  }
  // Points are exact below 2^53 only: a move that would take the card's points past that is refused, not rounded.
  if (!Number.isSafeInteger(current.points + Math.max(0, move.points))) {
    throw balanceError(`Adding ${move.points} points to card ${card.code} would take its points past ${Number.MAX_SAFE_INTEGER}, the largest number kept exactly`);
  }
  let buckets: PointsBucket[];
  if (move.expireBefore !== undefined) {
    const day = move.expireBefore;
    buckets = state.buckets.filter((bucket) => bucket.expires_on === null || bucket.expires_on >= day);
  }
  else if (move.points >= 0) {
    const expires = move.expiresOn !== undefined ? move.expiresOn : expiryFor(await rulesOf(ctx, card), today);
    const same = state.buckets.find((bucket) => bucket.expires_on === expires);
    const now = isoNow(ctx.clock);
    buckets = same
      ? state.buckets.map((bucket) => (bucket === same ? { ...FRESH, ...bucket, points: bucket.points + move.points, updated_at: now } : bucket))
      : [...state.buckets, { points: move.points, expires_on: expires, id: newId('lopb'), created_at: now }];
  } else buckets = withdraw(state.buckets, -move.points, isoNow(ctx.clock));
  const next = nextExpiration(buckets);
  if (next.date) await noteDueDay(ctx, next.date);
  await ctx.uow.loyalty_cards.update({ ...FRESH, ...state, buckets: buckets.filter((bucket) => bucket.points > 0), next_expiration_date: next.date });
  const loyalty = {
    points: current.points + Math.max(0, move.points),
    balance: current.balance + move.points,
    next_expiration_date: next.date,
    next_expiration_points: next.points,
  };
  const updated = await ctx.uow.vouchers.update({ ...FRESH, ...card, loyalty_card: loyalty, updated_at: isoNow(ctx.clock) });
  const balance: LoyaltyCardBalance = {
    points: move.points,
    total: loyalty.points,
    balance: loyalty.balance,
    type: 'loyalty_card',
    object: 'balance',
    operation_type: move.operation,
    related_object: { type: 'voucher', id: card.id },
  };
  const transaction = await ctx.uow.loyalty_transactions.insert({
    id: newId('vtx'),
    source_id: move.sourceId ?? null,
    voucher_id: card.id,
    campaign_id: card.campaign_id,
    source: move.operation === 'MANUAL' ? (ctx.channel ?? 'API') : null,
    reason: move.reason ?? null,
    type: move.type,
    details: { ...FRESH, ...move.details, balance },
    related_transaction_id: move.relatedTransactionId ?? null,
    created_at: isoNow(ctx.clock),
  });
  await followTier(ctx, updated);
  return { card: (await ctx.uow.vouchers.get(card.id)) ?? updated, balance, transaction };
}

export interface PointsChange {
  points: number;
  reason?: string;
  source_id?: string;
  expiration_type?: 'PROGRAM_RULES' | 'CUSTOM_DATE' | 'NON_EXPIRING';
  expiration_date?: string;
}

/**
 * When manually added points expire: the program's rules, a given moment (spendable through its UTC day),
 * or never. A `CUSTOM_DATE` needs a moment that has not passed.
 */
function manualExpiry(ctx: DomainContext, input: PointsChange): string | null | undefined {
  const type = input.expiration_type ?? (input.expiration_date !== undefined ? 'CUSTOM_DATE' : 'PROGRAM_RULES');
  if (type === 'NON_EXPIRING') return null;
  if (type === 'PROGRAM_RULES') return undefined;
  if (input.expiration_date === undefined) throw balanceError('expiration_type CUSTOM_DATE needs expiration_date');
  if (Date.parse(input.expiration_date) <= ctx.clock.now().getTime()) throw balanceError(`expiration_date ${input.expiration_date} has passed`);
  return new Date(input.expiration_date).toISOString().slice(0, 10);
}

/** A manual change from the API: the balance operation of the public API. */
export async function changeCardPoints(ctx: DomainContext, card: VoucherRecord, input: PointsChange): Promise<Moved> {
  const moved = await movePoints(ctx, card, {
    points: input.points,
    type: input.points > 0 ? 'POINTS_ADDITION' : 'POINTS_REMOVAL',
    operation: 'MANUAL',
    reason: input.reason ?? null,
    sourceId: input.source_id ?? null,
    ...(input.points > 0 && { expiresOn: manualExpiry(ctx, input) }),
  });
  await recordCardEvent(ctx, input.points > 0 ? 'voucher.loyalty_card.points_added' : 'customer.loyalty.card.points_removed', moved.card, {
    points: input.points,
    balance: moved.balance.balance,
  });
  return moved;
}

/** The card as a transfer's other side shows it, as it is now. */
export async function transactionVoucher(ctx: DomainContext, card: VoucherRecord) {
  const campaign = card.campaign_id ? await ctx.uow.campaigns.get(card.campaign_id) : undefined;
  return {
    id: card.id,
    code: card.code,
    type: card.type,
    campaign: campaign?.name ?? null,
    campaign_id: card.campaign_id,
    holder_id: card.holder_id,
    category_id: card.category_id,
    active: card.active,
    loyalty_card: card.loyalty_card,
    start_date: card.start_date,
    expiration_date: card.expiration_date,
    metadata: card.metadata,
    created_at: card.created_at,
    updated_at: card.updated_at,
    object: 'voucher' as const,
  };
}

export function notLoyaltyCard(code: string) {
  return notFound('loyalty_card', code);
}

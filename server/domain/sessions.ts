/**
 * Validation sessions. A valid validation with a `LOCK` session holds what it found of each voucher that
 * applied (one redemption, the gift credit it pays, the points it pays) until the session's lifetime ends.
 * Every other request sees the held part as unavailable; a request naming the session's key is not held
 * back by its own hold. A redemption with the key uses the hold and ends it; a release ends it too.
 *
 * Holds are rows of `session_locks`, one per session and voucher. A hold past its expiry counts for
 * nothing, and is deleted the next time the voucher's holds are read.
 */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import type { Applied } from './engine.js';
import { notFound } from './errors.js';
import { randomHex } from './ids.js';
import { table } from '../store/schema.js';
import { isoNow, isoTime } from './clock.js';

type Session = components['schemas']['RedemptionSession'];
type TtlUnit = NonNullable<Session['ttl_unit']>;

/** What one session holds of one voucher. */
export interface SessionLock {
  /** The session key and the voucher, so that a session holds each voucher once. */
  id: string;
  key: string;
  voucher_id: string;
  /** Redemptions held: 1 while the hold lasts. */
  quantity: number;
  /** Gift credit held, ×100. */
  credits: number;
  /** Loyalty points held. */
  points: number;
  created_at: string;
  expires_at: string;
}

export const SESSION_LOCKS_TABLE = table<SessionLock>({ unique: [], indexed: ['voucher_id'] });

/** What other sessions hold of a voucher. */
export interface Held {
  quantity: number;
  credits: number;
  points: number;
}

const NOTHING_HELD: Held = { quantity: 0, credits: 0, points: 0 };

const MS_PER_UNIT: Record<TtlUnit, number> = {
  DAYS: 86_400_000,
  HOURS: 3_600_000,
  MINUTES: 60_000,
  SECONDS: 1000,
  MILLISECONDS: 1,
  MICROSECONDS: 0.001,
  NANOSECONDS: 0.000001,
};

/** A lifetime beyond dates a timestamp can hold is cut to a century, which no session outlives in practice. */
const MAX_LIFETIME_MS = 100 * 365 * 86_400_000;

/** The public API's defaults for a session: a new key, seven days. */
const DEFAULT_TTL = 7;
const DEFAULT_TTL_UNIT: TtlUnit = 'DAYS';

/** The session a validation runs under and answers with: the one asked for, with defaults filled in. */
export function sessionOf(given: Session | undefined): Required<Session> | undefined {
  if (!given) return undefined;
  return { key: given.key ?? `ssn_${randomHex(16)}`, type: 'LOCK', ttl: given.ttl ?? DEFAULT_TTL, ttl_unit: given.ttl_unit ?? DEFAULT_TTL_UNIT };
}

function lockId(key: string, voucherId: string): string {
  return `${voucherId}:${key}`;
}

/** The voucher's holds that have not lapsed; lapsed ones are deleted on the way. */
async function liveLocks(ctx: DomainContext, voucherId: string): Promise<SessionLock[]> {
  const locks = await ctx.uow.session_locks.findBy('voucher_id', voucherId);
  // Nearly every voucher has no hold: the time (formatting it was a few µs of each validation) is read only for one that has.
  if (locks.length === 0) return locks;
  const now = isoNow(ctx.clock);
  const live: SessionLock[] = [];
  for (const lock of locks) {
    if (lock.expires_at > now) live.push(lock);
    else await ctx.uow.session_locks.delete(lock.id);
  }
  return live;
}

/** What sessions other than `ownKey` hold of the voucher. */
export async function heldByOthers(ctx: DomainContext, voucherId: string, ownKey: string | undefined): Promise<Held> {
  const held = { ...NOTHING_HELD };
  for (const lock of await liveLocks(ctx, voucherId)) {
    if (lock.key === ownKey) continue;
    held.quantity += lock.quantity;
    held.credits += lock.credits;
    held.points += lock.points;
  }
  return held;
}

/**
 * Holds, under the session, what a valid validation found of each voucher that applied; a hold the
 * session already had on a voucher is replaced, with a new lifetime. Promotion tiers hold nothing.
 */
export async function holdApplied(ctx: DomainContext, session: Required<Session>, applied: readonly Applied[]): Promise<Map<string, SessionLock>> {
  const now = ctx.clock.now();
  const lifetime = Math.min(MAX_LIFETIME_MS, Math.max(1, Math.ceil(session.ttl * MS_PER_UNIT[session.ttl_unit])));
  const expiresAt = new Date(now.getTime() + lifetime).toISOString();
  const held = new Map<string, SessionLock>();
  for (const entry of applied) {
    if (!entry.voucher) continue;
    const lock: SessionLock = {
      id: lockId(session.key, entry.voucher.id),
      key: session.key,
      voucher_id: entry.voucher.id,
      quantity: 1,
      credits: entry.giftCredits,
      points: entry.points,
      created_at: isoTime(now),
      expires_at: expiresAt,
    };
    if (await ctx.uow.session_locks.get(lock.id)) await ctx.uow.session_locks.update(lock);
    else await ctx.uow.session_locks.insert(lock);
    held.set(entry.voucher.id, lock);
  }
  return held;
}

/** Ends the session's holds on the vouchers a redemption with its key redeemed. */
export async function useHolds(ctx: DomainContext, key: string, voucherIds: readonly string[]): Promise<void> {
  for (const voucherId of voucherIds) await ctx.uow.session_locks.delete(lockId(key, voucherId));
}

/** Ends a session's hold on a voucher. A voucher or a live hold the project does not have is a 404. */
export async function releaseSession(ctx: DomainContext, code: string, key: string): Promise<void> {
  const voucher = await ctx.uow.vouchers.getBy('code', code);
  if (!voucher) throw notFound('voucher', code);
  const lock = (await liveLocks(ctx, voucher.id)).find((candidate) => candidate.key === key);
  if (!lock) throw notFound('session', key);
  await ctx.uow.session_locks.delete(lock.id);
}

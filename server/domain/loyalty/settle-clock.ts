/**
 * The project's loyalty clock: the day through which due pending points were activated and expired
 * points removed. Every pending entry activates after it and every bucket expires on or after it; writes
 * that would break that move it back, so the next settling sees them.
 */
import { DateTime } from 'luxon';
import type { DomainContext } from '../context.js';

export function today(ctx: DomainContext): string {
  return utcDayOf(ctx.clock.now().getTime());
}

const DAY_MS = 86_400_000;
/** The UTC day last asked for, with its bounds in ms since the epoch: nearly every request of a day asks for it again. */
let lastDay = { from: 0, to: 0, day: '' };

/**
 * The UTC day (YYYY-MM-DD) of a moment in ms since the epoch. Formatting a Date for it was a few µs of every
 * request that settles loyalty (`make bench`), so the last day is kept and a moment within it answered at once.
 */
export function utcDayOf(ms: number): string {
  if (ms >= lastDay.from && ms < lastDay.to) return lastDay.day;
  const day = new Date(ms).toISOString().slice(0, 10);
  const from = Math.floor(ms / DAY_MS) * DAY_MS;
  lastDay = { from, to: from + DAY_MS, day };
  return day;
}

export function dayBefore(day: string): string {
  return DateTime.fromISO(day, { zone: 'utc' }).minus({ days: 1 }).toISODate()!;
}

export function dayAfter(day: string): string {
  return DateTime.fromISO(day, { zone: 'utc' }).plus({ days: 1 }).toISODate()!;
}

export async function settledThrough(ctx: DomainContext): Promise<string> {
  const row = await ctx.uow.loyalty_clock.get('settled');
  if (row) return row.through;
  const day = today(ctx);
  await ctx.uow.loyalty_clock.insert({ id: 'settled', through: day });
  return day;
}

export async function setSettledThrough(ctx: DomainContext, through: string): Promise<void> {
  await settledThrough(ctx);
  await ctx.uow.loyalty_clock.update({ id: 'settled', through });
}

/**
 * Something falls due at the end of `day` (points expiring) or on the day after it (pending points
 * activating on `day + 1`): make sure settling will look at it.
 */
export async function noteDueDay(ctx: DomainContext, day: string): Promise<void> {
  if (day < (await settledThrough(ctx))) await setSettledThrough(ctx, day);
}

/**
 * Test clocks, an extension of the reference server (not the public API's): a project's time can be frozen and
 * moved on by hand, so that an integrator sees points activate and expire, vouchers lapse and tiers end without
 * waiting for them. The frozen time is a row of the project's own, so every instance on one database reads it.
 *
 * While a project's clock is frozen, everything of that project runs at the frozen time: each unit of work on it
 * is given the project's clock (`projectClock`) instead of the server's, and the timer that settles due loyalty
 * work settles it only up to the frozen time. Advancing runs the work that fell due in between day by day, in
 * the order the timer would have run it, each day's at the start of that day (UTC), then stops at the new time.
 */
import { Duration } from 'luxon';
import type { Clock } from './clock.js';
import type { DomainContext } from './context.js';
import { invalid } from './errors.js';
import { newId } from './ids.js';
import type { DomainUnitOfWork } from './schema.js';
import { settleLoyalty } from './loyalty/settle.js';
import { dayAfter, noteDueDay, settledThrough, today } from './loyalty/settle-clock.js';
import { FRESH } from '../store/fresh.js';
import { table } from '../store/schema.js';

export interface TestClockRow {
  id: 'clock';
  /** The project's time while frozen (ISO 8601, UTC). */
  frozen_time: string;
  /** When the clock was first frozen, in the project's time then. */
  created_at: string;
  updated_at: string | null;
}

export const TEST_CLOCKS_TABLE = table<TestClockRow>({ unique: [], indexed: [], kept: true });

/** How far one call may move a clock: every day in between is settled, so the span is bounded. */
export const MAX_ADVANCE_DAYS = 366;
const DAY_MS = 86_400_000;

/** A clock that always reads one moment. */
export function fixedClock(at: string | Date): Clock {
  const ms = new Date(at).getTime();
  return { now: () => new Date(ms) };
}

/** The project's clock: its frozen time when it has one, the server's clock otherwise. */
export async function projectClock(uow: DomainUnitOfWork, server: Clock): Promise<Clock> {
  const row = await uow.test_clocks.get('clock');
  return row ? fixedClock(row.frozen_time) : server;
}

export interface TestClockView {
  object: 'test_clock';
  frozen: boolean;
  time: string;
  frozen_since: string | null;
  updated_at: string | null;
}

function view(row: TestClockRow | undefined, now: Date): TestClockView {
  return {
    object: 'test_clock',
    frozen: row !== undefined,
    time: row?.frozen_time ?? now.toISOString(),
    frozen_since: row?.created_at ?? null,
    updated_at: row?.updated_at ?? null,
  };
}

/** `ctx.clock` is the project's clock (the frozen time, or the server's when not frozen). */
export async function getTestClock(ctx: DomainContext): Promise<TestClockView> {
  return view(await ctx.uow.test_clocks.get('clock'), ctx.clock.now());
}

function clockError(details: string) {
  return invalid('invalid_test_clock', 'Invalid test clock', details);
}

/** The target of a move: `time` given, or `by` (an ISO 8601 duration) after the project's time now. */
function targetOf(now: Date, input: { time?: string; by?: string }): Date {
  if (input.time !== undefined && input.by !== undefined) throw clockError('Give time or by, not both');
  if (input.by !== undefined) {
    const duration = Duration.fromISO(input.by);
    if (!duration.isValid) throw clockError(`by ${input.by} is not an ISO 8601 duration (P2D, PT36H, P1M)`);
    const ms = now.getTime() + duration.as('milliseconds');
    if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw clockError(`by ${input.by} moves the clock out of range`);
    return new Date(ms);
  }
  return input.time !== undefined ? new Date(input.time) : now;
}

/**
 * Moves the project's clock from `from` (its time now) to `to`, running what falls due on each day in between
 * at that day's start, in order; then the clock stands at `to`. The clock never goes back.
 */
async function moveTo(ctx: DomainContext, row: TestClockRow | undefined, to: Date, from: Date): Promise<TestClockView> {
  if (Number.isNaN(to.getTime())) throw clockError('The time is not a valid date-time');
  if (to.getTime() < from.getTime()) throw clockError(`The clock never goes back: ${to.toISOString()} is before the project's time ${from.toISOString()}`);
  if (to.getTime() - from.getTime() > MAX_ADVANCE_DAYS * DAY_MS) throw clockError(`One call moves the clock at most ${MAX_ADVANCE_DAYS} days; move it in steps`);
  const target = to.toISOString();
  // Settled up to the project's time now, so that what follows is only what falls due in between.
  await settleLoyalty({ uow: ctx.uow, clock: fixedClock(from) });
  for (let day = dayAfter(await settledThrough({ uow: ctx.uow, clock: fixedClock(from) })); day <= target.slice(0, 10); day = dayAfter(day)) {
    const start = `${day}T00:00:00.000Z`;
    await settleLoyalty({ uow: ctx.uow, clock: fixedClock(start < target ? start : target), groupId: newId('grp') });
  }
  const moved: TestClockRow = row ? { ...FRESH, ...row, frozen_time: target, updated_at: target } : { id: 'clock', frozen_time: target, created_at: target, updated_at: null };
  if (row) await ctx.uow.test_clocks.update(moved);
  else await ctx.uow.test_clocks.insert(moved);
  return view(moved, to);
}

/** Freezes the project's clock at `time` (its time now when absent); a frozen clock is moved there. */
export async function freezeTestClock(ctx: DomainContext, input: { time?: string }): Promise<TestClockView> {
  const row = await ctx.uow.test_clocks.get('clock');
  // One reading of the time, for the target and the start: a running clock read twice could tick in between,
  // and freezing at "now" would then be refused as going back.
  const now = ctx.clock.now();
  return moveTo(ctx, row, targetOf(now, input), now);
}

/** Moves a frozen clock on to `time`, or by `by`. */
export async function advanceTestClock(ctx: DomainContext, input: { time?: string; by?: string }): Promise<TestClockView> {
  const row = await ctx.uow.test_clocks.get('clock');
  if (!row) throw clockError('The project clock is not frozen: freeze it first (POST /v1/test-clock)');
  if (input.time === undefined && input.by === undefined) throw clockError('Give time or by');
  const now = ctx.clock.now();
  return moveTo(ctx, row, targetOf(now, input), now);
}

/**
 * Lets the project's clock run with the server's again. Work already done at a frozen time ahead of the server's
 * stays done; what falls due later runs when the server's time reaches it.
 */
export async function releaseTestClock(ctx: DomainContext, server: Clock): Promise<TestClockView> {
  const row = await ctx.uow.test_clocks.get('clock');
  if (row) {
    await ctx.uow.test_clocks.delete('clock');
    // Settled ahead of the server's day: settling goes back to it, so that what falls due from then on is seen.
    await noteDueDay({ uow: ctx.uow, clock: server }, today({ uow: ctx.uow, clock: server }));
  }
  return view(undefined, server.now());
}

/**
 * When a voucher, campaign or promotion tier may be used. Every validation and redemption asks this
 * one function, so the rules live in one place. Times are UTC.
 */
import { DateTime, Duration } from 'luxon';
import type { components } from '../../generated/openapi.js';

type Schemas = components['schemas'];
type Timeframe = NonNullable<Schemas['ValidityTimeframe']>;
type Hours = NonNullable<Schemas['ValidityHours']>;

/**
 * What decides when an object may be used. The contract leaves every part of a timeframe and of hours
 * optional (as the API does), so missing parts are read here: see `inTimeframe` and `inHours`.
 */
export interface ValiditySettings {
  active?: boolean | null;
  start_date?: string | null;
  expiration_date?: string | null;
  validity_timeframe?: Timeframe | null;
  validity_day_of_week?: number[] | null;
  validity_hours?: Hours | null;
}

export type ValidityVerdict =
  | { valid: true }
  | { valid: false; reason: 'disabled' | 'not_started' | 'expired' | 'outside_timeframe' | 'wrong_day' | 'outside_hours' };

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

/** A timeframe without `duration` describes no window, so it sets no limit. */
function inTimeframe(start: string, timeframe: Timeframe, now: Date): boolean {
  if (!timeframe.duration) return true;
  const from = DateTime.fromISO(start, { zone: 'utc' });
  const at = DateTime.fromJSDate(now, { zone: 'utc' });
  if (at < from) return false;
  const duration = Duration.fromISO(timeframe.duration);
  if (!timeframe.interval) return at < from.plus(duration);
  const interval = Duration.fromISO(timeframe.interval);
  // Step through the windows; calendar-aware, so `P1M` windows open on the same day each month.
  let opening = from;
  const approx = interval.as('milliseconds');
  if (approx <= 0) return false;
  const skip = Math.max(0, Math.floor(at.diff(from).as('milliseconds') / approx) - 2);
  opening = from.plus(interval.mapUnits((value) => value * skip));
  while (opening <= at) {
    if (at < opening.plus(duration)) return true;
    opening = opening.plus(interval);
  }
  return false;
}

const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];
const MIDNIGHT = 24 * 60;

/**
 * Hours without windows set no limit. A window without `days_of_week` opens every day, one without
 * `start_time` at midnight, one without `expiration_time` closes at the end of the day.
 */
function inHours(hours: Hours, now: Date): boolean {
  if (!hours.daily || hours.daily.length === 0) return true;
  const day = now.getUTCDay();
  const minute = now.getUTCHours() * 60 + now.getUTCMinutes();
  return hours.daily.some((window) => {
    const days = window.days_of_week ?? EVERY_DAY;
    const start = window.start_time === undefined ? 0 : minutesOf(window.start_time);
    const end = window.expiration_time === undefined ? MIDNIGHT : minutesOf(window.expiration_time);
    if (start < end) return days.includes(day) && minute >= start && minute < end;
    // A window past midnight belongs to the day it opens on.
    const yesterday = (day + 6) % 7;
    return (days.includes(day) && minute >= start) || (days.includes(yesterday) && minute < end);
  });
}

export function validityAt(settings: ValiditySettings, now: Date): ValidityVerdict {
  if (settings.active === false) return { valid: false, reason: 'disabled' };
  if (settings.start_date && now < new Date(settings.start_date)) return { valid: false, reason: 'not_started' };
  if (settings.expiration_date && now > new Date(settings.expiration_date)) return { valid: false, reason: 'expired' };
  if (settings.validity_timeframe && settings.start_date && !inTimeframe(settings.start_date, settings.validity_timeframe, now)) {
    return { valid: false, reason: 'outside_timeframe' };
  }
  if (settings.validity_day_of_week && !settings.validity_day_of_week.includes(now.getUTCDay())) {
    return { valid: false, reason: 'wrong_day' };
  }
  if (settings.validity_hours && !inHours(settings.validity_hours, now)) return { valid: false, reason: 'outside_hours' };
  return { valid: true };
}

type Window = Pick<ValiditySettings, 'start_date' | 'validity_timeframe'>;

/** Whether an update would leave a validity timeframe without the start date it counts from. */
export function timeframeWithoutStart(current: Window, changes: Partial<Window>): boolean {
  const start = changes.start_date !== undefined ? changes.start_date : current.start_date;
  const timeframe = changes.validity_timeframe !== undefined ? changes.validity_timeframe : current.validity_timeframe;
  return Boolean(timeframe) && !start;
}

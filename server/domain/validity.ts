/**
 * When a voucher, campaign or promotion tier may be used. Every validation and redemption asks this
 * one function, so the rules live in one place. Times are UTC.
 */
import { DateTime, Duration } from 'luxon';

export interface ValiditySettings {
  active: boolean;
  start_date: string | null;
  expiration_date: string | null;
  validity_timeframe: { interval?: string; duration: string } | null;
  validity_day_of_week: number[] | null;
  validity_hours: { daily: { start_time: string; expiration_time: string; days_of_week: number[] }[] } | null;
}

export type ValidityVerdict =
  | { valid: true }
  | { valid: false; reason: 'disabled' | 'not_started' | 'expired' | 'outside_timeframe' | 'wrong_day' | 'outside_hours' };

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

function inTimeframe(start: string, timeframe: NonNullable<ValiditySettings['validity_timeframe']>, now: Date): boolean {
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

function inHours(hours: NonNullable<ValiditySettings['validity_hours']>, now: Date): boolean {
  const day = now.getUTCDay();
  const minute = now.getUTCHours() * 60 + now.getUTCMinutes();
  return hours.daily.some((window) => {
    const start = minutesOf(window.start_time);
    const end = minutesOf(window.expiration_time);
    if (start < end) return window.days_of_week.includes(day) && minute >= start && minute < end;
    // A window past midnight belongs to the day it opens on.
    const yesterday = (day + 6) % 7;
    return (window.days_of_week.includes(day) && minute >= start) || (window.days_of_week.includes(yesterday) && minute < end);
  });
}

export function validityAt(settings: ValiditySettings, now: Date): ValidityVerdict {
  if (!settings.active) return { valid: false, reason: 'disabled' };
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

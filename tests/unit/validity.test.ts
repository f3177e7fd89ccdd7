import { describe, expect, test } from '@jest/globals';
import { validityAt, type ValiditySettings } from '../../server/domain/validity.js';

const base: ValiditySettings = {
  active: true,
  start_date: null,
  expiration_date: null,
  validity_timeframe: null,
  validity_day_of_week: null,
  validity_hours: null,
};
const at = (iso: string) => new Date(iso);

describe('validityAt', () => {
  test('active flag and date window', () => {
    expect(validityAt({ ...base, active: false }, at('2026-05-01T00:00:00Z'))).toEqual({ valid: false, reason: 'disabled' });
    const window = { ...base, start_date: '2026-05-01T00:00:00Z', expiration_date: '2026-05-31T23:59:59Z' };
    expect(validityAt(window, at('2026-04-30T23:59:59Z'))).toEqual({ valid: false, reason: 'not_started' });
    expect(validityAt(window, at('2026-05-15T12:00:00Z'))).toEqual({ valid: true });
    expect(validityAt(window, at('2026-06-01T00:00:00Z'))).toEqual({ valid: false, reason: 'expired' });
  });

  test('a timeframe repeats windows of `duration` every `interval` from the start', () => {
    const weekly = { ...base, start_date: '2026-01-05T10:00:00Z', validity_timeframe: { interval: 'P1W', duration: 'PT2H' } };
    expect(validityAt(weekly, at('2026-01-05T11:59:00Z')).valid).toBe(true);
    expect(validityAt(weekly, at('2026-01-05T12:00:00Z'))).toEqual({ valid: false, reason: 'outside_timeframe' });
    expect(validityAt(weekly, at('2026-03-02T10:30:00Z')).valid).toBe(true);
    expect(validityAt(weekly, at('2026-03-03T10:30:00Z')).valid).toBe(false);
    const once = { ...base, start_date: '2026-01-05T10:00:00Z', validity_timeframe: { duration: 'P1D' } };
    expect(validityAt(once, at('2026-01-06T09:59:00Z')).valid).toBe(true);
    expect(validityAt(once, at('2026-01-06T10:00:00Z')).valid).toBe(false);
  });

  test('days of the week are UTC days, 0 Sunday', () => {
    const weekdays = { ...base, validity_day_of_week: [1, 2, 3, 4, 5] };
    expect(validityAt(weekdays, at('2026-11-23T12:00:00Z')).valid).toBe(true); // Monday
    expect(validityAt(weekdays, at('2026-11-22T12:00:00Z'))).toEqual({ valid: false, reason: 'wrong_day' }); // Sunday
  });

  test('hours windows, including one past midnight', () => {
    const happy = { ...base, validity_hours: { daily: [{ start_time: '16:00', expiration_time: '18:00', days_of_week: [5] }] } };
    expect(validityAt(happy, at('2026-11-27T16:00:00Z')).valid).toBe(true); // Friday
    expect(validityAt(happy, at('2026-11-27T18:00:00Z'))).toEqual({ valid: false, reason: 'outside_hours' });
    expect(validityAt(happy, at('2026-11-26T17:00:00Z')).valid).toBe(false); // Thursday
    const late = { ...base, validity_hours: { daily: [{ start_time: '22:00', expiration_time: '02:00', days_of_week: [6] }] } };
    expect(validityAt(late, at('2026-11-28T23:00:00Z')).valid).toBe(true); // Saturday night
    expect(validityAt(late, at('2026-11-29T01:00:00Z')).valid).toBe(true); // early Sunday, Saturday's window
    expect(validityAt(late, at('2026-11-29T23:00:00Z')).valid).toBe(false);
  });
});

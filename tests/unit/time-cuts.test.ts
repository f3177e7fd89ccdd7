/**
 * The timestamps the server writes (the second kept from the moment formatted before) and the day and hour cuts
 * the engine makes of a moment: the UTC day that settles loyalty (answered from the day asked before when the
 * moment falls in it) and the hour a counted event goes to (cut from the server's own timestamps as text). Each
 * must give what formatting a Date gives, for any moment and in any order.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { hourOf } from '../../server/domain/campaign-counters.js';
import { isoTime } from '../../server/domain/clock.js';
import { utcDayOf } from '../../server/domain/loyalty/settle-clock.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Moments from 1970 to the end of year 9999, the range `toISOString` writes with four digits. */
const moment = fc.integer({ min: 0, max: 253_402_300_799_999 });

describe('the UTC day of a moment', () => {
  test('when moments come in any order, including either side of midnight, then each gets the day a Date formats', () => {
    const nearMidnight = moment.chain((ms) => fc.constantFrom(-1, 0, 1).map((shift) => Math.max(0, Math.floor(ms / DAY_MS) * DAY_MS + shift)));
    fc.assert(
      fc.property(fc.array(fc.oneof(moment, nearMidnight), { minLength: 1, maxLength: 20 }), (moments) => {
        for (const ms of moments) expect([ms, utcDayOf(ms)]).toEqual([ms, new Date(ms).toISOString().slice(0, 10)]);
      }),
    );
  });

  test('when the same day is asked again and the next moment is the next day, then the answer moves with it', () => {
    const midnight = Date.UTC(2026, 10, 29);
    expect([utcDayOf(midnight - 1), utcDayOf(midnight - 1), utcDayOf(midnight), utcDayOf(midnight + DAY_MS - 1), utcDayOf(midnight + DAY_MS)]).toEqual([
      '2026-11-28',
      '2026-11-28',
      '2026-11-29',
      '2026-11-29',
      '2026-11-30',
    ]);
  });

  test('when the moment is not a time, then it is refused as a Date refuses it', () => {
    expect(() => utcDayOf(Number.NaN)).toThrow(RangeError);
  });
});

describe('the hour of a timestamp', () => {
  test('when the timestamp is one the server writes, then its hour is the one a Date computes', () => {
    fc.assert(
      fc.property(moment, (ms) => {
        expect(hourOf(new Date(ms).toISOString())).toBe(new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString());
      }),
    );
  });

  test('when the timestamp has an offset or no milliseconds, then it is parsed', () => {
    expect(hourOf('2026-03-01T10:30:00+02:00')).toBe('2026-03-01T08:00:00.000Z');
    expect(hourOf('2026-03-01T10:30:00Z')).toBe('2026-03-01T10:00:00.000Z');
  });
});

describe('the timestamp of a moment', () => {
  /** Any moment a Date holds, from 271 821 BC to AD 275 760, six-digit and negative years included. */
  const anyMoment = fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 });
  test('when moments come in any order, many within one second, then each is written as Date writes it', () => {
    // Within the second of the last moment a Date holds, only that moment is one: the later milliseconds are left out.
    const sameSecond = fc
      .oneof(moment, anyMoment)
      .chain((ms) =>
        fc
          .array(fc.integer({ min: 0, max: 999 }), { minLength: 1, maxLength: 5 })
          .map((offsets) => offsets.map((offset) => Math.floor(ms / 1000) * 1000 + offset).filter((within) => within <= 8_640_000_000_000_000)),
      );
    fc.assert(
      fc.property(fc.array(fc.oneof(moment.map((ms) => [ms]), anyMoment.map((ms) => [ms]), sameSecond), { minLength: 1, maxLength: 20 }), (groups) => {
        for (const ms of groups.flat()) expect([ms, isoTime(new Date(ms))]).toEqual([ms, new Date(ms).toISOString()]);
      }),
    );
  });

  test('when milliseconds need padding or the second turns, then the text has them', () => {
    const second = Date.UTC(2026, 10, 29, 9, 59, 59);
    expect([0, 7, 42, 999, 1000, 1005, -1].map((shift) => isoTime(new Date(second + shift)))).toEqual([
      '2026-11-29T09:59:59.000Z',
      '2026-11-29T09:59:59.007Z',
      '2026-11-29T09:59:59.042Z',
      '2026-11-29T09:59:59.999Z',
      '2026-11-29T10:00:00.000Z',
      '2026-11-29T10:00:00.005Z',
      '2026-11-29T09:59:58.999Z',
    ]);
  });

  test('when the date is invalid, then it is refused as a Date refuses it', () => {
    isoTime(new Date(0));
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});

/** When points added on a day expire, under a program's or an earning rule's expiration rules. Dates are UTC days. */
import { DateTime } from 'luxon';
import type { components } from '../../../generated/openapi.js';
import type { EarningRule } from './types.js';

export type ExpirationRules = components['schemas']['LoyaltyExpirationRules'];

function round(date: DateTime, rules: ExpirationRules): DateTime {
  switch (rules.rounding_type) {
    case 'END_OF_MONTH':
      return date.endOf('month');
    case 'END_OF_QUARTER':
      return date.endOf('quarter');
    case 'END_OF_HALF_YEAR':
      return date.month <= 6 ? date.set({ month: 6 }).endOf('month') : date.endOf('year');
    case 'END_OF_YEAR':
      return date.endOf('year');
    case 'PARTICULAR_MONTH': {
      const month = rules.rounding_value ?? 12;
      const sameYear = date.set({ month }).endOf('month');
      return sameYear >= date ? sameYear : date.plus({ years: 1 }).set({ month }).endOf('month');
    }
    default:
      return date;
  }
}

/**
 * The last day on which points added on `day` can be spent, or null when they never expire.
 * `MONTH`: `period_value` months later, then rounded up to the end of the month, quarter, half year,
 * year or a particular month. `FIXED_DAY_OF_YEAR`: the first `fixed_month`/`fixed_day` after `day`, plus
 * `period_value - 1` years (31 December when no day is given).
 */
export function expiryFor(rules: ExpirationRules | undefined, day: string): string | null {
  if (!rules) return null;
  const added = DateTime.fromISO(day, { zone: 'utc' });
  if (rules.period_type === 'MONTH') return round(added.plus({ months: rules.period_value }), rules).toISODate();
  const month = rules.fixed_month ?? 12;
  const fixed = (year: number) => {
    const first = DateTime.utc(year, month, 1);
    return first.set({ day: Math.min(rules.fixed_day ?? first.daysInMonth!, first.daysInMonth!) });
  };
  let next = fixed(added.year);
  if (next <= added) next = fixed(added.year + 1);
  return fixed(next.year + (rules.period_value ?? 1) - 1).toISODate();
}

/** When points a rule gives expire: by the rule's own expiration rules, else (undefined) by the program's. */
export function earnedExpiry(rule: EarningRule, now: Date): string | null | undefined {
  return rule.expiration_rules ? expiryFor(rule.expiration_rules, now.toISOString().slice(0, 10)) : undefined;
}

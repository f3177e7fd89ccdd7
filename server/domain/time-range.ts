import { and, compare, or, type ComparisonOp, type Condition, type Field } from '../store/conditions.js';

/** `before`/`after` bounds on a timestamp, as the list filters take them; both are exclusive. */
export interface TimeRange {
  before?: string;
  after?: string;
}

/** A bound of a range: a bare date means midnight UTC. */
export function instant(value: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
}

/** A timestamp field compared with an instant; an instant that is not one (a bound that did not parse) keeps nothing. */
export function timeBound(op: ComparisonOp, field: Field, at: number): Condition {
  return Number.isNaN(at) ? or() : compare(op, field, at, 'time');
}

/** A timestamp field strictly within the range; undefined when the range sets no bound. */
export function withinRange(field: Field, range: TimeRange | undefined): Condition | undefined {
  if (!range || (range.before === undefined && range.after === undefined)) return undefined;
  return and(
    range.before === undefined ? undefined : timeBound('lt', field, instant(range.before)),
    range.after === undefined ? undefined : timeBound('gt', field, instant(range.after)),
  );
}

/**
 * Export filters: `{ junction, <field>: { conditions: { $op: value | [values] } } }`, as `create-export` takes
 * them. They name more operators than list filters do (days ago and ahead, counts of a list), so they are
 * checked and compiled here; the operators lists share are compiled by the list filters' compiler
 * (domain/filters.ts), and the whole filter becomes one store condition.
 *
 * Days are whole UTC days around the moment the export started. A moment is a date text (`YYYY-MM-DD…`) or a
 * number of milliseconds; other texts JavaScript's `Date.parse` reads (`'Jan 1 2026'`) no longer count as
 * moments since the filter became a store condition. Counts count a list's items; anything else has none.
 *
 * A filter cannot be half applied: an unknown field or operator, an operand the engine cannot evaluate (an object,
 * a day count that is not a whole number) is refused before the export starts, never ignored.
 */
import { invalid } from '../errors.js';
import { and, compare, isNull, length, not, notNull, or, text, type ComparisonOp, type Condition, type Field } from '../../store/conditions.js';
import { clauseCondition, conditionValues, reading, type ExtraOperators, type FieldSource, type FilterValue, type OperatorCompiler } from '../filters.js';

/** The operators of export filters that list filters evaluate too, under the list filters' names. */
const SHARED: Record<string, string> = {
  $in: '$in',
  $not_in: '$not_in',
  $is: '$is',
  $is_not: '$is_not',
  $has_value: '$has_value',
  $is_unknown: '$is_unknown',
  $contains: '$contains',
  $not_contain: '$not_contain',
  $starts_with: '$starts_with',
  $ends_with: '$ends_with',
  $more_than: '$more_than',
  $less_than: '$less_than',
  $more_than_equal: '$more_than_or_equal',
  $less_than_equal: '$less_than_or_equal',
  $after: '$after',
  $before: '$before',
};
/** Operators whose operand is a whole number of days. */
const DAYS = new Set(['$is_days_ago', '$is_days_in_future', '$more_than_ago', '$less_than_ago', '$more_than_future', '$less_than_future']);
/** Operators on the number of items of a list field. */
const COUNTS = new Set(['$count', '$count_less', '$count_more']);

export const EXPORT_OPERATORS: ReadonlySet<string> = new Set([...Object.keys(SHARED), ...DAYS, ...COUNTS]);

const DAY_MS = 24 * 60 * 60 * 1000;

export type ExportConditions = Record<string, FilterValue[]>;
/**
 * A checked filter: a lower-case junction and, per field, its operators with their values as lists (the
 * operators lists share under the list filters' names).
 */
export interface ExportFilter {
  junction: 'and' | 'or';
  clauses: [field: string, conditions: ExportConditions][];
}

function refuse(details: string) {
  return invalid('invalid_export', 'Invalid export', details);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a filter a client sent for one kind of export. `fields` are the fields it may name, `lists` those of
 * them that hold lists (the only ones counts apply to); `metadata` allows `metadata.<key>`.
 */
export function checkExportFilter(
  raw: Record<string, unknown> | undefined,
  fields: ReadonlySet<string>,
  lists: ReadonlySet<string>,
  metadata: boolean,
  where = 'parameters.filters',
): ExportFilter | undefined {
  if (raw === undefined) return undefined;
  const junction = typeof raw.junction === 'string' ? raw.junction.toLowerCase() : 'and';
  if (junction !== 'and' && junction !== 'or') throw refuse(`${where}.junction must be and or or`);
  const clauses: ExportFilter['clauses'] = [];
  for (const [field, clause] of Object.entries(raw)) {
    if (field === 'junction') continue;
    const known = fields.has(field) || (metadata && /^metadata\.[^.]+$/.test(field));
    if (!known) {
      const also = metadata ? ' and metadata.<key>' : '';
      throw refuse(`${where} cannot filter on '${field}'; it can filter on ${[...fields].join(', ')}${also}`);
    }
    if (!isObject(clause) || !isObject(clause.conditions)) throw refuse(`${where}.${field} must be an object with conditions`);
    const conditions: ExportConditions = {};
    for (const [operator, operand] of Object.entries(clause.conditions)) {
      const at = `${where}.${field}.conditions.${operator}`;
      if (!EXPORT_OPERATORS.has(operator)) throw refuse(`${at} is not an operator; known: ${[...EXPORT_OPERATORS].join(', ')}`);
      const values = Array.isArray(operand) ? operand : [operand];
      for (const value of values) {
        if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
          throw refuse(`${at} holds ${value === null ? 'null' : 'an object'}; give a text, a number or a list of them`);
        }
      }
      if ((DAYS.has(operator) || COUNTS.has(operator)) && !(values.length > 0 && Number.isInteger(Number(values[0])) && Number(values[0]) >= 0)) {
        throw refuse(`${at} takes a whole number (of ${DAYS.has(operator) ? 'days' : 'items'})`);
      }
      if (COUNTS.has(operator) && !lists.has(field)) throw refuse(`${at} counts items, and ${field} is not a list`);
      conditions[SHARED[operator] ?? operator] = values as FilterValue[];
    }
    clauses.push([field, conditions]);
  }
  return { junction, clauses };
}

const dayOf = (time: number) => Math.floor(time / DAY_MS) * DAY_MS;
const operand = (values: readonly unknown[]) => Number(values[0]);

/** A moment field between two instants, either bound inclusive or not. */
function between(field: Field, from: number, fromOp: 'gt' | 'gte', to: number, toOp: 'lt' | 'lte'): Condition {
  return and(compare(fromOp, field, from, 'time'), compare(toOp, field, to, 'time'));
}

/** The day and count operators, `now` being the moment the export started. */
function exportOperators(now: number): ExtraOperators {
  const today = dayOf(now);
  return {
    $is_days_ago: (field, values) => between(field, today - operand(values) * DAY_MS, 'gte', today - (operand(values) - 1) * DAY_MS, 'lt'),
    $is_days_in_future: (field, values) => between(field, today + operand(values) * DAY_MS, 'gte', today + (operand(values) + 1) * DAY_MS, 'lt'),
    $more_than_ago: (field, values) => compare('lt', field, now - operand(values) * DAY_MS, 'time'),
    $less_than_ago: (field, values) => between(field, now - operand(values) * DAY_MS, 'gte', now, 'lte'),
    $more_than_future: (field, values) => compare('gt', field, now + operand(values) * DAY_MS, 'time'),
    $less_than_future: (field, values) => between(field, now, 'gte', now + operand(values) * DAY_MS, 'lte'),
    $count: (field, values) => length(field, 'eq', operand(values)),
    $count_less: (field, values) => length(field, 'lt', operand(values)),
    $count_more: (field, values) => length(field, 'gt', operand(values)),
  };
}

/** The filter as one store condition; `source` says where each field's value comes from. */
export function exportCondition(filter: ExportFilter, source: (name: string) => FieldSource, now: number): Condition {
  const extra = exportOperators(now);
  const clauses = filter.clauses.map(([field, conditions]) => clauseCondition(source(field), conditions, extra));
  return filter.junction === 'or' ? or(...clauses) : and(...clauses);
}

/**
 * The date part (`YYYY-MM-DD`) of a timestamp field, as a filter source: the day's midnight compares as the
 * instant it is. Text operators read the timestamp itself, which differs from reading its date part only for
 * a text that reaches into the time (`$contains: 'T1'`); `$ends_with` reads the text before the `T`.
 */
export function datePartOf(field: Field, now: number): FieldSource {
  // The day's midnight D against an instant t, as conditions on the timestamp c (D = c's midnight).
  const day = (op: ComparisonOp, t: number): Condition => {
    const floor = dayOf(t);
    const ceil = floor === t ? t : floor + DAY_MS;
    switch (op) {
      case 'lt':
        return compare('lt', field, ceil, 'time');
      case 'lte':
        return compare('lt', field, floor + DAY_MS, 'time');
      case 'gt':
        return compare('gte', field, floor + DAY_MS, 'time');
      case 'gte':
        return compare('gte', field, ceil, 'time');
    }
  };
  const asInstant = (value: unknown, then: (t: number) => Condition): Condition => {
    const read = reading(value);
    return read.kind === 'time' || read.kind === 'number' ? then(read.at) : or();
  };
  const equal: OperatorCompiler = (_field, values) => or(...values.map((value) => asInstant(value, (t) => (dayOf(t) === t ? and(day('gte', t), day('lte', t)) : or()))));
  const ordered = (op: ComparisonOp): OperatorCompiler => (_field, values) => asInstant(values[0], (t) => day(op, t));
  const today = dayOf(now);
  const operators: Record<string, OperatorCompiler> = {
    $is: equal,
    $in: equal,
    $is_not: (f, values) => not(equal(f, values)),
    $not_in: (f, values) => not(equal(f, values)),
    $less_than: ordered('lt'),
    $before: ordered('lt'),
    $less_than_or_equal: ordered('lte'),
    $more_than: ordered('gt'),
    $after: ordered('gt'),
    $more_than_or_equal: ordered('gte'),
    $contains: (_f, values) => and(...values.map((value) => text('contains', field, String(value)))),
    $not_contain: (_f, values) => not(or(...values.map((value) => text('contains', field, String(value))))),
    $starts_with: (_f, values) => or(...values.map((value) => (String(value).length <= 10 ? text('starts_with', field, String(value)) : undefined))),
    $ends_with: (_f, values) => or(...values.map((value) => text('contains', field, `${String(value)}T`))),
    $is_unknown: () => isNull(field),
    $has_value: () => notNull(field),
    $is_days_ago: (_f, values) => and(day('gte', today - operand(values) * DAY_MS), day('lte', today - operand(values) * DAY_MS)),
    $is_days_in_future: (_f, values) => and(day('gte', today + operand(values) * DAY_MS), day('lte', today + operand(values) * DAY_MS)),
    $more_than_ago: (_f, values) => day('lt', now - operand(values) * DAY_MS),
    $less_than_ago: (_f, values) => and(day('gte', now - operand(values) * DAY_MS), day('lte', now)),
    $more_than_future: (_f, values) => day('gt', now + operand(values) * DAY_MS),
    $less_than_future: (_f, values) => and(day('gte', now), day('lte', now + operand(values) * DAY_MS)),
    // A date is not a list: it has no items.
    $count: (_f, values) => (operand(values) === 0 ? and() : or()),
    $count_less: (_f, values) => (0 < operand(values) ? and() : or()),
    $count_more: () => or(),
  };
  return {
    compile: (conditions) =>
      and(...Object.entries(conditions).map(([operator, values]) => operators[operator]!(field, conditionValues(values)))),
  };
}

/**
 * Export filters: `{ junction, <field>: { conditions: { $op: value | [values] } } }`, as `create-export` takes
 * them. They name more operators than list filters do (days ago and ahead, counts of a list), so they are
 * checked and evaluated here; the operators lists share are evaluated by the list filter engine.
 *
 * A filter cannot be half applied: an unknown field or operator, an operand the engine cannot evaluate (an object,
 * a day count that is not a whole number) is refused before the export starts, never ignored.
 */
import { invalid } from '../errors.js';
import { conditionValues, matchesConditions, type Conditions, type FilterValue } from '../filters.js';

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
/** A checked filter: a lower-case junction and, per field, its operators with their values as lists. */
export interface ExportFilter {
  junction: 'and' | 'or';
  clauses: [field: string, conditions: ExportConditions][];
}

function refuse(details: string) {
  return invalid('invalid_payload', 'Invalid payload', details);
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
      conditions[operator] = values as FilterValue[];
    }
    clauses.push([field, conditions]);
  }
  return { junction, clauses };
}

function moment(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const time = typeof value === 'number' ? value : Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

/** Whether a value meets one day or count operator, `now` being the moment the export reads the row. */
function special(operator: string, actual: unknown, operand: number, now: number): boolean {
  if (COUNTS.has(operator)) {
    const count = Array.isArray(actual) ? actual.length : 0;
    return operator === '$count' ? count === operand : operator === '$count_less' ? count < operand : count > operand;
  }
  const at = moment(actual);
  if (at === undefined) return false;
  const day = (time: number) => Math.floor(time / DAY_MS);
  switch (operator) {
    case '$is_days_ago':
      return day(at) === day(now) - operand;
    case '$is_days_in_future':
      return day(at) === day(now) + operand;
    case '$more_than_ago':
      return at < now - operand * DAY_MS;
    case '$less_than_ago':
      return at >= now - operand * DAY_MS && at <= now;
    case '$more_than_future':
      return at > now + operand * DAY_MS;
    default:
      return at >= now && at <= now + operand * DAY_MS;
  }
}

function meets(actual: unknown, conditions: ExportConditions, now: number): boolean {
  const shared: Conditions = {};
  for (const [operator, values] of Object.entries(conditions)) {
    const name = SHARED[operator];
    if (name) shared[name] = values;
    else if (!special(operator, actual, Number(conditionValues(values)[0]), now)) return false;
  }
  return Object.keys(shared).length === 0 || matchesConditions(actual, shared);
}

/** Whether a row, read through `read` (a field's value by its filter name), meets the filter. */
export function meetsExportFilter(filter: ExportFilter | undefined, read: (field: string) => unknown, now: number): boolean {
  if (!filter || filter.clauses.length === 0) return true;
  const results = filter.clauses.map(([field, conditions]) => meets(read(field), conditions, now));
  return filter.junction === 'or' ? results.some(Boolean) : results.every(Boolean);
}

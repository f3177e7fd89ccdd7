/**
 * Evaluates the interface's filter objects: `{ junction, <field>: { conditions: { $op: [values] } } }`.
 * Fields are read from a record by name; `metadata.<key>` reads a metadata value.
 *
 * The contract's objects are open, so a filter reaches the domain with whatever keys the client sent. A filter
 * cannot be half applied: a field this engine cannot filter on, or an operator it does not know, is refused
 * (`checkFilter`) rather than ignored, since ignoring it would widen the result silently.
 */
import { invalid } from './errors.js';

export type FilterValue = string | number | boolean;
/** An operator's values: a list, or (for the list operators of validation rules) one value standing alone. */
export type ConditionValues = FilterValue[] | FilterValue;
export type Conditions = Partial<Record<string, ConditionValues>>;
export interface FilterDefinition {
  junction: 'and' | 'or';
  [field: string]: { conditions: Conditions } | 'and' | 'or';
}

function readField(record: object, field: string): unknown {
  if (field.startsWith('metadata.')) {
    const metadata = (record as { metadata?: Record<string, unknown> }).metadata;
    return metadata?.[field.slice('metadata.'.length)];
  }
  return (record as Record<string, unknown>)[field];
}

function asComparable(value: unknown): number | string | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    if (value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
    const time = Date.parse(value);
    if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(time)) return time;
    return value;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

function equals(actual: unknown, expected: FilterValue): boolean {
  if (Array.isArray(actual)) return actual.some((item) => equals(item, expected));
  if (actual === expected) return true;
  const a = asComparable(actual);
  const b = asComparable(expected);
  return a !== undefined && a === b;
}

function compare(actual: unknown, expected: FilterValue | undefined): number | undefined {
  if (expected === undefined) return undefined;
  const a = asComparable(actual);
  const b = asComparable(expected);
  if (a === undefined || b === undefined || typeof a !== typeof b) return undefined;
  return a < b ? -1 : a > b ? 1 : 0;
}

function text(actual: unknown, test: (value: string) => boolean): boolean {
  if (Array.isArray(actual)) return actual.some((item) => text(item, test));
  return typeof actual === 'string' && test(actual);
}

const OPERATORS: Record<string, (actual: unknown, values: FilterValue[]) => boolean> = {
  $is: (actual, values) => values.some((value) => equals(actual, value)),
  $in: (actual, values) => values.some((value) => equals(actual, value)),
  $is_not: (actual, values) => !values.some((value) => equals(actual, value)),
  $not_in: (actual, values) => !values.some((value) => equals(actual, value)),
  $less_than: (actual, values) => (compare(actual, values[0]) ?? 0) < 0,
  $less_than_or_equal: (actual, values) => {
    const order = compare(actual, values[0]);
    return order !== undefined && order <= 0;
  },
  $more_than: (actual, values) => (compare(actual, values[0]) ?? 0) > 0,
  $more_than_or_equal: (actual, values) => {
    const order = compare(actual, values[0]);
    return order !== undefined && order >= 0;
  },
  $contains: (actual, values) => values.every((value) => text(actual, (s) => s.includes(String(value)))),
  $not_contain: (actual, values) => !values.some((value) => text(actual, (s) => s.includes(String(value)))),
  $starts_with: (actual, values) => values.some((value) => text(actual, (s) => s.startsWith(String(value)))),
  $ends_with: (actual, values) => values.some((value) => text(actual, (s) => s.endsWith(String(value)))),
  $before: (actual, values) => (compare(actual, values[0]) ?? 0) < 0,
  $after: (actual, values) => (compare(actual, values[0]) ?? 0) > 0,
  $is_unknown: (actual) => actual === null || actual === undefined,
  $has_value: (actual) => actual !== null && actual !== undefined,
};

/** The operators every filter and validation rule condition may use. */
export const FILTER_OPERATORS: ReadonlySet<string> = new Set(Object.keys(OPERATORS));

export interface FilterProblem {
  /** The error key and message of the place the filter came from (`invalid_query_params`, `invalid_payload`…). */
  key: string;
  message: string;
  /** Where the filter sits, for the error's details (`filters`, `filter`). */
  name: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Refuses an operator this engine does not know: it cannot be evaluated, and dropping it would widen a match. */
export function checkOperators(conditions: unknown, where: string, problem: FilterProblem): void {
  if (!isObject(conditions)) throw invalid(problem.key, problem.message, `${where}.conditions must be an object of operators`);
  for (const operator of Object.keys(conditions)) {
    if (!FILTER_OPERATORS.has(operator)) {
      throw invalid(problem.key, problem.message, `${where}.conditions has an unknown operator '${operator}'; known: ${[...FILTER_OPERATORS].join(', ')}`);
    }
  }
}

/**
 * Checks a filter the client sent and returns it with a lower-case junction (clients send `AND`/`OR` as well).
 * `fields` says which fields may be filtered on; `metadata.<key>` is allowed wherever `metadata` is.
 */
export function checkFilter(filter: Record<string, unknown>, fields: ReadonlySet<string>, problem: FilterProblem): Record<string, unknown> {
  const junction = typeof filter.junction === 'string' ? filter.junction.toLowerCase() : 'and';
  if (junction !== 'and' && junction !== 'or') throw invalid(problem.key, problem.message, `${problem.name}.junction must be and or or`);
  for (const [field, clause] of Object.entries(filter)) {
    if (field === 'junction') continue;
    const known = fields.has(field) || (fields.has('metadata') && /^metadata\.[^.]+$/.test(field));
    if (!known) {
      throw invalid(problem.key, problem.message, `${problem.name} cannot filter on '${field}'; it can filter on ${[...fields].join(', ')}`);
    }
    if (!isObject(clause)) throw invalid(problem.key, problem.message, `${problem.name}.${field} must be an object with conditions`);
    checkOperators(clause.conditions, `${problem.name}.${field}`, problem);
  }
  return { ...filter, junction };
}

/** The values of an operator as a list: one value given alone is a list of that value. */
export function conditionValues(values: ConditionValues | undefined): FilterValue[] {
  if (values === undefined) return [];
  return Array.isArray(values) ? values : [values];
}

/**
 * Refuses an operator value the engine cannot evaluate: a list, or one text or number standing alone, can
 * be; an object (which the public API documents for some list operators, without saying what it means)
 * cannot, and neither can anything else. Evaluating one would answer a guess, or fail later as a 500.
 */
export function checkOperatorValues(conditions: Record<string, unknown>, where: string, problem: FilterProblem): void {
  for (const [operator, values] of Object.entries(conditions)) {
    if (Array.isArray(values) || typeof values === 'string' || typeof values === 'number') continue;
    const shown = values === null ? 'null' : typeof values === 'object' ? 'an object' : `a ${typeof values}`;
    throw invalid(problem.key, problem.message, `${where}.conditions.${operator} is ${shown}; give a list of values or one text or number`);
  }
}

export function matchesConditions(actual: unknown, conditions: Conditions): boolean {
  return Object.entries(conditions).every(([operator, values]) => {
    const test = OPERATORS[operator];
    if (!test) throw new Error(`Unknown filter operator ${operator}`);
    return test(actual, conditionValues(values));
  });
}

export function matchesFilter(record: object, filter: FilterDefinition): boolean {
  const clauses = Object.entries(filter).filter(
    (entry): entry is [string, { conditions: Conditions }] => entry[0] !== 'junction',
  );
  const results = clauses.map(([field, clause]) => matchesConditions(readField(record, field), clause.conditions));
  return filter.junction === 'or' ? results.some(Boolean) : results.every(Boolean);
}

/**
 * The interface's filter objects: `{ junction, <field>: { conditions: { $op: [values] } } }`. A filter compiles
 * to one store condition (server/store/conditions.ts), which a store runs as a query and which `matchesFilter`
 * and `matchesConditions` evaluate on records in hand (validation rules on an order, a customer's facts): a
 * filter has one meaning wherever it runs. Fields are read from a row by name; `metadata.<key>` reads a
 * metadata value.
 *
 * What the operators mean: `$is`/`$in` (any value) and `$is_not`/`$not_in` (none) compare as the interface's
 * filters always have here, across types: `'5'` equals `5` and `'5.0'`, a boolean equals 1 or 0, two dates
 * (texts starting `YYYY-MM-DD`) are equal when they are the same instant, a date and a number when the number is
 * its milliseconds, and a list equals a value when one of its items does. Comparisons (`$less_than`,
 * `$before`…) take the first value: a number or a date (as its milliseconds) compares with numbers, decimal
 * texts, dates and booleans; another text with texts that are neither. `$contains` (all values), `$starts_with`, `$ends_with` (any) read texts and lists'
 * text items; `$not_contain` is none of `$contains`. `$is_unknown` is null or missing, `$has_value` not.
 *
 * Where the declarative conditions give a different answer from the predicates they replaced:
 * - `null` among `$is` values now also matches a field that is missing, not only one that is null.
 * - A field's text that JavaScript reads as a number but that is not a plain decimal (`' 5'`, `'1e3'`, `'0x10'`,
 *   `'.5'`) no longer equals or compares as that number (it still equals the same text given).
 * - A list's items equal a value given only as that very value or, for a number given, as its plain decimal
 *   text (`'5'`, not `'5.0'`) or the boolean it stands for: an item that is another text of the same number or
 *   instant no longer does. Text operators read a list's items, not lists nested in it.
 * - `'Infinity'` given is a text, no longer a number; a number that is not finite matches nothing.
 *
 * The contract's objects are open, so a filter reaches the domain with whatever keys the client sent. A filter
 * cannot be half applied: a field this engine cannot filter on, or an operator it does not know, is refused
 * (`checkFilter`) rather than ignored, since ignoring it would widen the result silently.
 */
import { and, compare, eq, has, isIn, isNull, not, notIn, notNull, or, text, type ComparisonOp, type Condition, type Field, type Scalar, type TextOp } from '../store/conditions.js';
import { meets, predicate, type Predicate } from '../store/evaluate.js';
import { invalid } from './errors.js';
import { FRESH } from '../store/fresh.js';

export type FilterValue = string | number | boolean;
/** An operator's values: a list, or (for the list operators of validation rules) one value standing alone. */
export type ConditionValues = FilterValue[] | FilterValue;
export type Conditions = Partial<Record<string, ConditionValues>>;
export interface FilterDefinition {
  junction: 'and' | 'or';
  [field: string]: { conditions: Conditions } | 'and' | 'or';
}

/** How a filter's value reads, as today's filters compare it: a number (booleans as 1 and 0), an instant, or text. */
export type Reading = { kind: 'number' | 'time'; at: number } | { kind: 'text'; text: string } | { kind: 'null' } | { kind: 'none' };

const DATED = /^\d{4}-\d{2}-\d{2}/;

export function reading(value: unknown): Reading {
  if (value === null) return { kind: 'null' };
  if (typeof value === 'boolean') return { kind: 'number', at: value ? 1 : 0 };
  if (typeof value === 'number') return Number.isFinite(value) ? { kind: 'number', at: value } : { kind: 'none' };
  if (typeof value !== 'string') return { kind: 'none' };
  if (value.trim() !== '' && Number.isFinite(Number(value))) return { kind: 'number', at: Number(value) };
  const time = DATED.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(time) ? { kind: 'text', text: value } : { kind: 'time', at: time };
}

const ORDER: Record<ComparisonOp, (a: number, b: number) => boolean> = {
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
};

/** The field is read as that number or instant (the two readings conditions.ts defines). */
const readAs = (field: Field, as: 'number' | 'time', at: number) => and(compare('gte', field, at, as), compare('lte', field, at, as));
/** The field reads as some number or instant at all. */
const readsAs = (field: Field, as: 'number' | 'time') => or(compare('gte', field, 0, as), compare('lt', field, 0, as));

/**
 * The field equals the value as filters compare: the same value, or the same number (`'5'`, `5`, `'5.0'`; a
 * boolean as 1 or 0), or the same instant (`'2024-01-01'` and `'2024-01-01T00:00:00Z'`); a list field equals the
 * value when one of its items does.
 */
function equalTo(field: Field, value: unknown): Condition {
  const read = reading(value);
  switch (read.kind) {
    case 'none':
      return or();
    case 'null':
      return or(isNull(field), has(field, null));
    case 'text':
      return or(eq(field, read.text), has(field, read.text));
    case 'number':
    case 'time': {
      // Besides the value itself: the number, its decimal text and the boolean it stands for, as list items too.
      const same = new Set<Scalar>([value as Scalar, read.at, String(read.at)]);
      if (read.at === 1) same.add(true);
      if (read.at === 0) same.add(false);
      return or(isIn(field, [...same]), ...[...same].map((item) => has(field, item)), readAs(field, 'number', read.at), readAs(field, 'time', read.at));
    }
  }
}

/**
 * The field compares with the value as filters compare: a number or a date (as its milliseconds) with numbers,
 * decimal texts, dates and booleans (as 1 and 0), and other texts with texts that are neither.
 */
function ordered(op: ComparisonOp, field: Field, value: unknown): Condition {
  const read = reading(value);
  switch (read.kind) {
    case 'number':
    case 'time':
      return or(
        compare(op, field, read.at, 'number'),
        compare(op, field, read.at, 'time'),
        ORDER[op](1, read.at) ? eq(field, true) : undefined,
        ORDER[op](0, read.at) ? eq(field, false) : undefined,
      );
    case 'text':
      return and(compare(op, field, read.text), not(readsAs(field, 'number')), not(readsAs(field, 'time')));
    default:
      return or();
  }
}

/** Compiles one operator and its values (as a list) into a condition on a field. */
export type OperatorCompiler = (field: Field, values: readonly unknown[]) => Condition;

const anyEqual: OperatorCompiler = (field, values) => or(...values.map((value) => equalTo(field, value)));
const texts = (op: TextOp, field: Field, values: readonly unknown[]) => values.map((value) => text(op, field, String(value), true));

const OPERATORS: Readonly<Record<string, OperatorCompiler>> = {
  $is: anyEqual,
  $in: anyEqual,
  $is_not: (field, values) => not(anyEqual(field, values)),
  $not_in: (field, values) => not(anyEqual(field, values)),
  $less_than: (field, values) => ordered('lt', field, values[0]),
  $less_than_or_equal: (field, values) => ordered('lte', field, values[0]),
  $more_than: (field, values) => ordered('gt', field, values[0]),
  $more_than_or_equal: (field, values) => ordered('gte', field, values[0]),
  $contains: (field, values) => and(...texts('contains', field, values)),
  $not_contain: (field, values) => not(or(...texts('contains', field, values))),
  $starts_with: (field, values) => or(...texts('starts_with', field, values)),
  $ends_with: (field, values) => or(...texts('ends_with', field, values)),
  $before: (field, values) => ordered('lt', field, values[0]),
  $after: (field, values) => ordered('gt', field, values[0]),
  $is_unknown: (field) => isNull(field),
  $has_value: (field) => notNull(field),
};

/** The operators every filter and validation rule condition may use. */
export const FILTER_OPERATORS: ReadonlySet<string> = new Set(Object.keys(OPERATORS));

/** Operators whose meaning reads into a list's items; every other one reads a list as a whole. */
const ITEMWISE: ReadonlySet<string> = new Set(['$is', '$in', '$is_not', '$not_in', '$contains', '$not_contain', '$starts_with', '$ends_with']);

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
  return { ...FRESH, ...filter, junction };
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

/** Operators beyond the shared ones, for filters that take more (the exports' day and count operators). */
export type ExtraOperators = Readonly<Record<string, OperatorCompiler>>;

/** Every operator of the conditions holds for the field. */
export function conditionsOn(field: Field, conditions: Conditions, extra: ExtraOperators = {}): Condition {
  return and(
    ...Object.entries(conditions).map(([operator, values]) => {
      const compile = OPERATORS[operator] ?? extra[operator];
      if (!compile) throw new Error(`Unknown filter operator ${operator}`);
      return compile(field, conditionValues(values));
    }),
  );
}

/** Whether a value, known when the filter is compiled, meets the conditions. */
function holds(value: unknown, conditions: Conditions, extra: ExtraOperators): boolean {
  return meets({ value }, conditionsOn('value', conditions, extra));
}

/**
 * Where a filter field's value comes from, for a store query. A field of the row (a path); a value the same
 * for every row; a field whose null reads as another value (`[]`, say); a field read as a list of its one
 * value (`[]` when null); a value looked up by a key field of the row (a category's name by `category_id`),
 * `otherwise` for a key that is null or not in `lookup`; or a compiler of its own.
 */
export type FieldSource =
  | Field
  | { readonly constant: unknown }
  | { readonly field: Field; readonly whenNull: unknown }
  | { readonly singleton: Field }
  | { readonly key: Field; readonly lookup: ReadonlyMap<Scalar, unknown>; readonly otherwise: unknown }
  | { readonly compile: (conditions: Conditions, extra: ExtraOperators) => Condition };

/** A filter field as a field of the row: `metadata.<key>` a key of its metadata. */
export function rowField(name: string): Field {
  return name.startsWith('metadata.') ? ['metadata', name.slice('metadata.'.length)] : name;
}

const isField = (source: FieldSource): source is Field => typeof source === 'string' || Array.isArray(source);

const whenNull = (field: Field, otherwise: unknown, conditions: Conditions, extra: ExtraOperators, present: Condition) =>
  or(and(notNull(field), present), holds(otherwise, conditions, extra) ? isNull(field) : undefined);

/** The conditions of one filter field, as a condition on the row. */
export function clauseCondition(source: FieldSource, conditions: Conditions, extra: ExtraOperators = {}): Condition {
  if (isField(source)) return conditionsOn(source, conditions, extra);
  if ('constant' in source) return holds(source.constant, conditions, extra) ? and() : or();
  if ('compile' in source) return source.compile(conditions, extra);
  if ('whenNull' in source) return whenNull(source.field, source.whenNull, conditions, extra, conditionsOn(source.field, conditions, extra));
  if ('singleton' in source) {
    // `[v]` meets an operator that reads items as `v` does; any other reads the list, the same whatever `v` is.
    const present = and(
      ...Object.entries(conditions).map(([operator, values]) =>
        ITEMWISE.has(operator) ? conditionsOn(source.singleton, { [operator]: values }, extra) : holds([null], { [operator]: values }, extra) ? and() : or(),
      ),
    );
    return whenNull(source.singleton, [], conditions, extra, present);
  }
  const keys = [...source.lookup.keys()];
  const matching = keys.filter((key) => holds(source.lookup.get(key), conditions, extra));
  return or(isIn(source.key, matching), holds(source.otherwise, conditions, extra) ? notIn(source.key, keys) : undefined);
}

/**
 * The filter as one store condition. `source` says where each filter field's value comes from (a field of the
 * row by default); `extra` adds operators.
 */
export function filterCondition(filter: FilterDefinition, source: (name: string) => FieldSource = rowField, extra: ExtraOperators = {}): Condition {
  const clauses = Object.entries(filter)
    .filter((entry): entry is [string, { conditions: Conditions }] => entry[0] !== 'junction')
    .map(([field, clause]) => clauseCondition(source(field), clause.conditions, extra));
  return filter.junction === 'or' ? or(...clauses) : and(...clauses);
}

/** Compiled predicates of filters and conditions that are kept (a segment's, a validation rule's), by identity. */
const compiled = new WeakMap<object, Predicate>();

function cachedPredicate(key: object, compile: () => Condition): Predicate {
  // Only a frozen object (a stored row's part) is sure to mean the same the next time it is seen.
  if (!Object.isFrozen(key)) return predicate(compile());
  let test = compiled.get(key);
  if (!test) compiled.set(key, (test = predicate(compile())));
  return test;
}

/** Whether a value meets the conditions: what filterCondition's conditions mean, applied to a value in hand. */
export function matchesConditions(actual: unknown, conditions: Conditions): boolean {
  return cachedPredicate(conditions, () => conditionsOn('value', conditions))({ value: actual });
}

/** Whether a record in hand (not in a store) meets the filter; its fields are read as filterCondition reads a row's. */
export function matchesFilter(record: object, filter: FilterDefinition): boolean {
  return cachedPredicate(filter, () => filterCondition(filter))(record);
}

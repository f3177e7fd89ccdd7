/**
 * The interface's filters compile to one store condition. What it keeps must be what the filter predicates
 * it replaced kept (`legacy` below is that code, kept here as the oracle), except in the cases the header of
 * server/domain/filters.ts lists; and a store running the condition must keep the same rows as `meets` does.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  clauseCondition,
  conditionsOn,
  filterCondition,
  matchesConditions,
  matchesFilter,
  rowField,
  type Conditions,
  type FieldSource,
  type FilterDefinition,
} from '../../server/domain/filters.js';
import { checkExportFilter, datePartOf, exportCondition } from '../../server/domain/exports/conditions.js';
import { and, eq, length, type Condition } from '../../server/store/conditions.js';
import { meets } from '../../server/store/evaluate.js';
import { MemoryStore } from '../../server/store/memory.js';
import { table } from '../../server/store/schema.js';

/** The predicates filters were evaluated with before they became store conditions. */
const legacy = (() => {
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
  function equals(actual: unknown, expected: unknown): boolean {
    if (Array.isArray(actual)) return actual.some((item) => equals(item, expected));
    if (actual === expected) return true;
    const a = asComparable(actual);
    const b = asComparable(expected);
    return a !== undefined && a === b;
  }
  function compare(actual: unknown, expected: unknown): number | undefined {
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
  const operators: Record<string, (actual: unknown, values: unknown[]) => boolean> = {
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
  return (actual: unknown, conditions: Record<string, unknown[]>) => Object.entries(conditions).every(([operator, values]) => operators[operator]!(actual, values));
})();

const OPERATORS = [
  '$is', '$in', '$is_not', '$not_in', '$less_than', '$less_than_or_equal', '$more_than', '$more_than_or_equal', '$contains', '$not_contain',
  '$starts_with', '$ends_with', '$before', '$after', '$is_unknown', '$has_value',
];

// Values from every family filters compare across: numbers and the texts and booleans that read as them,
// dates (as texts), other texts, and lists. Lists hold numbers only in their plain forms, and no text reads
// as a number unless it is a plain decimal: the cases whose answer changed are tested on their own below.
const NUMBERS = [0, 1, 5, -3, 2.5, 1767225600000];
const DECIMAL_TEXTS = ['0', '1', '5', '05', '-3', '2.5', '5.0'];
const DATES = ['2026-01-01', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z', '2026-06-15T12:00:00.000Z', '2025-12-31T23:59:59.999Z'];
const TEXTS = ['', 'abc', 'Brazil', 'Bra', 'zil', 'ABC', '2026-13-45', 'x5'];
const given = fc.constantFrom<string | number | boolean>(...NUMBERS, ...DECIMAL_TEXTS, ...DATES, ...TEXTS, true, false);
const stored = fc.oneof(
  given,
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.constantFrom<string | number | boolean>(...TEXTS, 0, 1, 5, -3, '5', '1', true), { maxLength: 3 }),
);

const conditionsArbitrary = fc
  .tuple(fc.constantFrom(...OPERATORS), fc.array(given, { minLength: 0, maxLength: 3 }))
  .map(([operator, values]) => ({ [operator]: values }) as Record<string, unknown[]>);

describe('filters compiled to store conditions', () => {
  test('every operator keeps what the old predicates kept, across numbers, decimal texts, booleans, dates, texts, lists and nulls', () => {
    fc.assert(
      fc.property(stored, conditionsArbitrary, (actual, conditions) => {
        expect([actual, conditions, matchesConditions(actual, conditions as Conditions)]).toEqual([actual, conditions, legacy(actual, conditions)]);
      }),
      { numRuns: 20_000 },
    );
  });

  test('the cases filters.ts lists as changed answer as it says', () => {
    const changed: [unknown, Record<string, unknown[]>, boolean][] = [
      // null given now matches a missing field too.
      [undefined, { $is: [null] }, true],
      // A text JavaScript reads as a number but that is no plain decimal is a text.
      [' 5', { $more_than: [4] }, false],
      ['1e3', { $is: [1000] }, false],
      // A list's item equals a number only in its plain forms, and a date only as the same text.
      [['5.0'], { $is: [5] }, false],
      [['2026-01-01T00:00:00.000Z'], { $is: ['2026-01-01'] }, false],
      // 'Infinity' given is a text.
      [5, { $less_than: ['Infinity'] }, false],
    ];
    for (const [actual, conditions, now] of changed) {
      expect([actual, conditions, matchesConditions(actual, conditions as Conditions)]).toEqual([actual, conditions, now]);
      expect([actual, conditions, legacy(actual, conditions)]).toEqual([actual, conditions, !now]);
    }
    // Such a text still equals itself.
    expect(matchesConditions('1e3', { $is: ['1e3'] })).toBe(true);
  });

  test('each operator compiles to the condition its meaning says', () => {
    expect(conditionsOn('name', { $is_unknown: [] })).toEqual(and({ op: 'is_null', field: 'name' }));
    expect(conditionsOn('name', { $has_value: [] })).toEqual(and({ op: 'not_null', field: 'name' }));
    expect(conditionsOn('name', { $starts_with: ['Br'] })).toEqual(and({ op: 'or', conditions: [{ op: 'starts_with', field: 'name', value: 'Br', each: true }] }));
    expect(conditionsOn('name', { $is: ['Brazil'] })).toEqual(
      and({ op: 'or', conditions: [{ op: 'or', conditions: [{ op: 'eq', field: 'name', value: 'Brazil' }, { op: 'has', field: 'name', value: 'Brazil' }] }] }),
    );
    // A number compares with numbers, decimal texts and dates (as milliseconds), and, as 1 and 0, booleans.
    const numbers = (op: string, field: string, value: number) => [{ op, field, value, as: 'number' }, { op, field, value, as: 'time' }];
    expect(conditionsOn('price', { $more_than: [5] })).toEqual(and({ op: 'or', conditions: numbers('gt', 'price', 5) as Condition[] }));
    expect(conditionsOn('price', { $less_than: [5] })).toEqual(
      and({ op: 'or', conditions: [...numbers('lt', 'price', 5), { op: 'eq', field: 'price', value: true }, { op: 'eq', field: 'price', value: false }] as Condition[] }),
    );
    // A date compares as its instant (and a boolean as 1 or 0 milliseconds, which no date comes after).
    expect(conditionsOn('created_at', { $after: ['2026-01-01'] })).toEqual(and({ op: 'or', conditions: numbers('gt', 'created_at', Date.UTC(2026, 0, 1)) as Condition[] }));
    expect(() => conditionsOn('name', { $sounds_like: ['x'] })).toThrow('$sounds_like');
  });

  test('values are coerced as filters always coerced them: texts and numbers, booleans, instants', () => {
    expect(matchesConditions(5, { $is: ['5'] })).toBe(true);
    expect(matchesConditions('5.0', { $in: [5] })).toBe(true);
    expect(matchesConditions(true, { $is: [1] })).toBe(true);
    expect(matchesConditions('1', { $is: [true] })).toBe(true);
    expect(matchesConditions('2026-01-01T00:00:00.000Z', { $is: ['2026-01-01'] })).toBe(true);
    expect(matchesConditions('2026-01-01T00:00:00.001Z', { $is: ['2026-01-01'] })).toBe(false);
    expect(matchesConditions('10', { $more_than: ['9'] })).toBe(true);
    expect(matchesConditions('b', { $more_than: ['a'] })).toBe(true);
    expect(matchesConditions('10', { $more_than: ['a'] })).toBe(false);
    expect(matchesConditions('2026-01-01T00:00:00.000Z', { $less_than: [Date.UTC(2026, 0, 2)] })).toBe(true);
    expect(matchesConditions(Date.UTC(2026, 0, 1), { $is: ['2026-01-01'] })).toBe(true);
    expect(matchesConditions(['x', '5'], { $is: [5] })).toBe(true);
    expect(matchesConditions(['x', 'y'], { $contains: ['y'] })).toBe(true);
  });

  test('metadata paths and junctions read and join as they did', () => {
    const record = { name: 'Beans', metadata: { origin: 'Brazil', score: '7' } };
    const both: FilterDefinition = { junction: 'and', 'metadata.origin': { conditions: { $is: ['Brazil'] } }, 'metadata.score': { conditions: { $more_than: [8] } } };
    expect(rowField('metadata.origin')).toEqual(['metadata', 'origin']);
    expect(matchesFilter(record, both)).toBe(false);
    expect(matchesFilter(record, { ...both, junction: 'or' })).toBe(true);
    expect(matchesFilter(record, { junction: 'and', 'metadata.missing': { conditions: { $is_unknown: [] } } })).toBe(true);
    expect(matchesFilter(record, { junction: 'or' })).toBe(false);
    expect(matchesFilter(record, { junction: 'and' })).toBe(true);
  });

  test('a store running the compiled filter keeps what meets keeps', async () => {
    const schema = { rows: table<{ id: string } & Record<string, unknown>>({ unique: [], indexed: [] }) };
    const store = new MemoryStore(schema);
    await store.createProject('p');
    const records = await fc.sample(fc.record({ value: stored, metadata: fc.record({ key: stored }) }), 200);
    await store.transaction('p', async (uow) => {
      for (const [i, record] of records.entries()) await uow.rows.insert({ id: `r${i}`, ...record });
    });
    fc.assert(
      fc.asyncProperty(conditionsArbitrary, fc.constantFrom('value', 'metadata.key'), fc.constantFrom<'and' | 'or'>('and', 'or'), async (conditions, field, junction) => {
        const filter: FilterDefinition = { junction, [field]: { conditions: conditions as Conditions }, value: { conditions: { $has_value: [] } } };
        const where = filterCondition(filter);
        const kept = await store.transaction('p', async (uow) => (await uow.rows.query({ where })).rows.map((row) => row.id));
        const expected = (await store.transaction('p', async (uow) => (await uow.rows.query({})).rows)).filter((row) => meets(row, where)).map((row) => row.id);
        expect(kept).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('where a filter field comes from', () => {
  const row = { id: 'r1', category_id: 'cat1', days: null as number[] | null, missing_key: null };
  const keeps = (source: FieldSource, conditions: Conditions, record: object = row) => meets(record, clauseCondition(source, conditions));

  test('a constant is decided when the filter is compiled', () => {
    expect(clauseCondition({ constant: null }, { $is_unknown: [] })).toEqual(and());
    expect(clauseCondition({ constant: null }, { $has_value: [] })).toEqual({ op: 'or', conditions: [] });
  });

  test('a field whose null reads as another value, a list of one value, and a looked-up value read as the old views did', () => {
    expect(keeps({ field: 'days', whenNull: [] }, { $is_unknown: [] })).toBe(false);
    expect(keeps({ field: 'days', whenNull: [] }, { $has_value: [] })).toBe(true);
    expect(keeps({ field: 'days', whenNull: [] }, { $is: [1] }, { days: [1, 2] })).toBe(true);
    // `[category_id]`, or `[]` without one: a list, so never unknown and never compared in order.
    expect(keeps({ singleton: 'category_id' }, { $is: ['cat1'] })).toBe(true);
    expect(keeps({ singleton: 'category_id' }, { $is_unknown: [] })).toBe(false);
    expect(keeps({ singleton: 'category_id' }, { $more_than: ['a'] })).toBe(false);
    expect(keeps({ singleton: 'category_id' }, { $has_value: [] }, { category_id: null })).toBe(true);
    expect(keeps({ singleton: 'category_id' }, { $is: ['cat1'] }, { category_id: null })).toBe(false);
    const names = new Map([['cat1', ['Coffee']], ['cat2', ['Tea']]]);
    const byName = { key: 'category_id', lookup: names, otherwise: [] } as const;
    expect(keeps(byName, { $is: ['Coffee'] })).toBe(true);
    expect(keeps(byName, { $is: ['Tea'] })).toBe(false);
    expect(keeps(byName, { $not_in: ['Tea'] }, { category_id: 'gone' })).toBe(true);
    expect(keeps(byName, { $is: ['Coffee'] }, { category_id: null })).toBe(false);
    expect(clauseCondition(byName, { $is: ['Coffee'] })).toEqual({ op: 'or', conditions: [{ op: 'in', field: 'category_id', values: ['cat1'] }] });
  });
});

describe('export filters as conditions', () => {
  const NOW = Date.parse('2026-06-15T12:00:00Z');
  const filterOf = (raw: Record<string, unknown>) => checkExportFilter(raw, new Set(['created_at', 'days', 'created_date']), new Set(['days']), false)!;

  test('counts compile to the length condition, which counts a list and gives anything else none', () => {
    expect(exportCondition(filterOf({ days: { conditions: { $count: [2] } } }), rowField, NOW)).toEqual(and(and(length('days', 'eq', 2))));
    for (const [days, count] of [[[1, 2], 2], [[], 0], [null, 0], ['12', 0], [{ a: 1 }, 0]] as const) {
      expect(meets({ days }, length('days', 'eq', count))).toBe(true);
      expect(meets({ days }, length('days', 'lt', count + 1))).toBe(true);
      expect(meets({ days }, length('days', 'gt', count))).toBe(false);
    }
  });

  test('the date part of a timestamp compares as the day it names, as the old `created_at.slice(0, 10)` did', () => {
    const days = (at: string) => at.slice(0, 10);
    const moments = ['2026-06-14T00:00:00.000Z', '2026-06-14T23:59:59.999Z', '2026-06-15T00:00:00.000Z', '2026-06-15T13:00:00.000Z', '2026-06-16T00:00:00.000Z'];
    const operators = ['$is', '$is_not', '$before', '$after', '$less_than_or_equal', '$more_than_or_equal'];
    const givens = ['2026-06-15', '2026-06-15T00:00:00Z', '2026-06-15T06:00:00Z', '2026-06-14T23:00:00Z', Date.UTC(2026, 5, 15), Date.UTC(2026, 5, 15, 1), 'June', true];
    for (const created_at of moments) {
      for (const operator of operators) {
        for (const value of givens) {
          const compiled = clauseCondition(datePartOf('created_at', NOW), { [operator]: [value] });
          expect([created_at, operator, value, meets({ created_at }, compiled)]).toEqual([created_at, operator, value, legacy(days(created_at), { [operator]: [value] })]);
        }
      }
      const daysAgo = clauseCondition(datePartOf('created_at', NOW), { $is_days_ago: [1] });
      expect(meets({ created_at }, daysAgo)).toBe(days(created_at) === '2026-06-14');
    }
  });

  test('a custom source compiles its own condition', () => {
    const source: FieldSource = { compile: (conditions): Condition => and(eq('kind', 'a'), conditionsOn('value', conditions)) };
    expect(meets({ kind: 'a', value: 3 }, clauseCondition(source, { $is: [3] }))).toBe(true);
    expect(meets({ kind: 'b', value: 3 }, clauseCondition(source, { $is: [3] }))).toBe(false);
  });
});

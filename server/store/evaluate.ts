/**
 * The memory store's reading of conditions (conditions.ts says what each one means). A condition is
 * compiled once per query into a predicate, so a scan over many rows does not walk the condition tree's
 * switch for each of them.
 */
import { fieldPath, type Condition, type Field, type Scalar } from './conditions.js';

export type Predicate = (row: object) => boolean;

const DECIMAL = /^-?\d+(\.\d+)?$/;
const DATED = /^\d{4}-\d{2}-\d{2}/;

function reader(field: Field): (row: object) => unknown {
  const path = fieldPath(field);
  if (path.length === 1) {
    const key = path[0]!;
    return (row) => (Object.hasOwn(row, key) ? (row as Record<string, unknown>)[key] : undefined) ?? null;
  }
  return (row) => {
    let value: unknown = row;
    for (const key of path) {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return null;
      value = (value as Record<string, unknown>)[key];
    }
    return value ?? null;
  };
}

const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** The same JSON scalar: same type and value. */
function same(actual: unknown, expected: Scalar): boolean {
  return isScalar(actual) && actual === expected;
}

/** What a comparison reads `v` as, or undefined when it does not read that way. */
function readAs(as: 'number' | 'time' | undefined): (value: unknown) => string | number | undefined {
  if (as === 'number') {
    return (value) => (typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value) ? Number(value) : undefined);
  }
  if (as === 'time') {
    return (value) => {
      if (typeof value === 'number') return value;
      if (typeof value !== 'string' || !DATED.test(value)) return undefined;
      const time = Date.parse(value);
      return Number.isNaN(time) ? undefined : time;
    };
  }
  return (value) => (typeof value === 'number' || typeof value === 'string' ? value : undefined);
}

const ORDERED: Record<'lt' | 'lte' | 'gt' | 'gte', (a: string | number, b: string | number) => boolean> = {
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
};

const TEXT: Record<'contains' | 'starts_with' | 'ends_with', (actual: string, value: string) => boolean> = {
  contains: (actual, value) => actual.includes(value),
  starts_with: (actual, value) => actual.startsWith(value),
  ends_with: (actual, value) => actual.endsWith(value),
};

export function predicate(condition: Condition): Predicate {
  switch (condition.op) {
    case 'eq':
    case 'ne': {
      if (condition.value === null) return predicate({ op: condition.op === 'eq' ? 'is_null' : 'not_null', field: condition.field });
      const read = reader(condition.field);
      const { value } = condition;
      return condition.op === 'eq' ? (row) => same(read(row), value) : (row) => !same(read(row), value);
    }
    case 'in':
    case 'not_in': {
      const read = reader(condition.field);
      const values = new Set(condition.values);
      const member = (row: object) => {
        const actual = read(row);
        return isScalar(actual) && values.has(actual);
      };
      return condition.op === 'in' ? member : (row) => !member(row);
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const read = reader(condition.field);
      const as = readAs(condition.as);
      const test = ORDERED[condition.op];
      const { value } = condition;
      return (row) => {
        const actual = as(read(row));
        return actual !== undefined && typeof actual === typeof value && test(actual, value);
      };
    }
    case 'is_null': {
      const read = reader(condition.field);
      return (row) => read(row) === null;
    }
    case 'not_null': {
      const read = reader(condition.field);
      return (row) => read(row) !== null;
    }
    case 'has': {
      const read = reader(condition.field);
      const { value } = condition;
      return (row) => {
        const actual = read(row);
        return Array.isArray(actual) && actual.some((item) => same(item, value));
      };
    }
    case 'contains':
    case 'starts_with':
    case 'ends_with': {
      const read = reader(condition.field);
      const test = TEXT[condition.op];
      const { value, each } = condition;
      return (row) => {
        const actual = read(row);
        if (typeof actual === 'string') return test(actual, value);
        return each === true && Array.isArray(actual) && actual.some((item) => typeof item === 'string' && test(item, value));
      };
    }
    case 'length': {
      const read = reader(condition.field);
      const { compare, value } = condition;
      return (row) => {
        const actual = read(row);
        const count = Array.isArray(actual) ? actual.length : 0;
        return compare === 'eq' ? count === value : compare === 'lt' ? count < value : count > value;
      };
    }
    case 'and': {
      const parts = condition.conditions.map(predicate);
      return (row) => parts.every((part) => part(row));
    }
    case 'or': {
      const parts = condition.conditions.map(predicate);
      return (row) => parts.some((part) => part(row));
    }
    case 'not': {
      const inner = predicate(condition.condition);
      return (row) => !inner(row);
    }
  }
}

/** Whether a record meets a condition. */
export function meets(record: object, condition: Condition): boolean {
  return predicate(condition)(record);
}

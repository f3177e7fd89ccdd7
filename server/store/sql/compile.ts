/**
 * Conditions (conditions.ts) compiled to SQL over `store_rows.doc`, with exactly the meaning conditions.ts
 * gives them. Values and a condition's field names are always parameters, never spliced into the text (the
 * store's own statements of fixed text spell its table and declared field names as literals: sql-store.ts).
 *
 * How the meaning is kept:
 * - A field reads as `nullif(doc -> 'a' -> 'b', 'null')`: `->` with a text key reads nothing from an array or
 *   a scalar, as a path through anything but objects reads null, and JSON null becomes SQL null. Top-level
 *   fields read exactly as the declared indexes do (sql/indexes.ts), so an equality on one uses its index.
 * - Equality is jsonb equality: same JSON type and value (`'5'` is not `5`, `1.0` is `1`).
 * - SQL's third value, unknown, only ever arises where the meaning is "no match", and `and`/`or` keep that;
 *   `not` turns unknown into false first (`NOT coalesce(…, false)`), and `ne` is `IS DISTINCT FROM`.
 * - Strings compare under `COLLATE "C"`, in code point order whatever the database's collation. That is
 *   JavaScript's UTF-16 code unit order except between characters past U+FFFF and those in U+E000–U+FFFF,
 *   which no identifier, code or timestamp holds.
 * - `as` readings are SQL functions (migrations/0001-rows.ts) that read as JavaScript does.
 */
import { fieldPath, type Condition, type Field, type Scalar } from '../conditions.js';
import type { FieldKind } from '../schema.js';

/**
 * The process's time zone, read once: making an `Intl.DateTimeFormat` costs far more than a statement's other
 * work, and every statement made a `Params` (a CPU profile of the voucher list on PostgreSQL put 15% of the
 * server's time in it). The zone is fixed when the process starts.
 */
let zone: string | undefined;
function serverZone(): string {
  return (zone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
}

export class Params {
  readonly values: unknown[] = [];
  /** The server's time zone, in which `as: 'time'` reads a date-time without an offset, as Date.parse does. */
  get zone(): string {
    return serverZone();
  }

  /** A placeholder for the value, cast to a type so that PostgreSQL never has to guess it. */
  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

/**
 * The JSON value at a path of keys (each already SQL: a placeholder, or a literal in an index's definition),
 * SQL null where it reads as null. Queries and the indexes that serve them (sql/indexes.ts) share it, since an
 * index serves only the very expression it was made on.
 */
export function jsonAt(keys: readonly string[]): string {
  return `nullif(doc${keys.map((key) => ` -> ${key}`).join('')}, 'null'::jsonb)`;
}

/** A top-level field's value as text in code-point order (`key` is SQL, as for jsonAt): how text sorts. */
export function textOrder(key: string): string {
  return `(doc ->> ${key}) COLLATE "C"`;
}

/** The field's JSON value, SQL null where the field reads as null. */
export function fieldValue(field: Field, params: Params): string {
  return jsonAt(fieldPath(field).map((key) => params.add(key, 'text')));
}

/**
 * Text PostgreSQL cannot hold (a NUL, an unpaired surrogate): no stored value equals or contains it, and as a
 * parameter it would fail the statement (22P05), so a condition on it is decided without one. The server
 * refuses such text at its edge; this keeps a value made inside it (a sentinel that matches nothing) harmless.
 */
const UNHELD = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unheld = (value: unknown) => typeof value === 'string' && UNHELD.test(value);

/** A JSON scalar as a jsonb parameter; undefined for a number JSON cannot hold, or text PostgreSQL cannot, which equals nothing. */
function jsonScalar(value: Scalar, params: Params): string | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  if (unheld(value)) return undefined;
  return params.add(JSON.stringify(value), 'jsonb');
}

const ofType = (json: string, type: string, then: string) => `CASE WHEN jsonb_typeof(${json}) = '${type}' THEN ${then} END`;
const asText = (json: string) => ofType(json, 'string', `${json} #>> '{}'`);
/** The elements of the value when it is an array (none otherwise), as `e.v`. */
const elements = (json: string) => `jsonb_array_elements(${ofType(json, 'array', json)}) AS e(v)`;

const ORDER_OPS = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
const LENGTH_OPS = { eq: '=', lt: '<', gt: '>' } as const;

export function compileCondition(condition: Condition, params: Params): string {
  switch (condition.op) {
    case 'eq':
    case 'ne': {
      if (condition.value === null) return compileCondition({ op: condition.op === 'eq' ? 'is_null' : 'not_null', field: condition.field }, params);
      const value = jsonScalar(condition.value, params);
      if (value === undefined) return condition.op === 'eq' ? 'false' : 'true';
      return `${fieldValue(condition.field, params)} ${condition.op === 'eq' ? '=' : 'IS DISTINCT FROM'} ${value}`;
    }
    case 'in':
    case 'not_in': {
      const json = condition.values.filter((value) => value !== null && (typeof value !== 'number' || Number.isFinite(value)) && !unheld(value)).map((value) => JSON.stringify(value));
      const parts: string[] = [];
      if (json.length === 0 && !condition.values.includes(null)) return condition.op === 'in' ? 'false' : 'true';
      const field = fieldValue(condition.field, params);
      if (json.length > 0) parts.push(`${field} = ANY(${params.add(json, 'jsonb[]')})`);
      if (condition.values.includes(null)) parts.push(`${field} IS NULL`);
      const member = `(${parts.join(' OR ')})`;
      return condition.op === 'in' ? member : `NOT coalesce(${member}, false)`;
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const { value, as } = condition;
      // A number JavaScript compares as false with everything; PostgreSQL would put NaN above all numbers.
      if (typeof value === 'number' && Number.isNaN(value)) return 'false';
      // With a reading, the value must be a number.
      if (as !== undefined && typeof value !== 'number') return 'false';
      const field = fieldValue(condition.field, params);
      const op = ORDER_OPS[condition.op];
      if (as !== undefined) {
        const read = as === 'number' ? `store_number(${field})` : `store_time_ms(${field}, ${params.add(params.zone, 'text')})`;
        return `${read} ${op} ${params.add(value, 'float8')}`;
      }
      if (typeof value === 'number') return `${ofType(field, 'number', `${field}::float8`)} ${op} ${params.add(value, 'float8')}`;
      // No request brings such text (the edge refuses it); one made inside the server compares false rather than fail.
      if (unheld(value)) return 'false';
      return `(${asText(field)}) COLLATE "C" ${op} ${params.add(value, 'text')}`;
    }
    case 'is_null':
      return `${fieldValue(condition.field, params)} IS NULL`;
    case 'not_null':
      return `${fieldValue(condition.field, params)} IS NOT NULL`;
    case 'has': {
      const value = jsonScalar(condition.value, params);
      if (value === undefined) return 'false';
      return `EXISTS (SELECT 1 FROM ${elements(fieldValue(condition.field, params))} WHERE e.v = ${value})`;
    }
    case 'contains':
    case 'starts_with':
    case 'ends_with': {
      if (unheld(condition.value)) return 'false';
      const value = params.add(condition.value, 'text');
      const test = (text: string) =>
        condition.op === 'contains' ? `strpos(${text}, ${value}) > 0` : condition.op === 'starts_with' ? `starts_with(${text}, ${value})` : `right(${text}, char_length(${value})) = ${value}`;
      const field = fieldValue(condition.field, params);
      const own = test(asText(field));
      if (condition.each !== true) return own;
      return `(${own} OR EXISTS (SELECT 1 FROM ${elements(field)} WHERE jsonb_typeof(e.v) = 'string' AND ${test(`(e.v #>> '{}')`)}))`;
    }
    case 'length': {
      // JavaScript compares nothing with NaN; PostgreSQL would put NaN above every number.
      if (Number.isNaN(condition.value)) return 'false';
      const field = fieldValue(condition.field, params);
      const count = `coalesce(${ofType(field, 'array', `jsonb_array_length(${field})`)}, 0)`;
      return `${count} ${LENGTH_OPS[condition.compare]} ${params.add(condition.value, 'float8')}`;
    }
    case 'and':
    case 'or': {
      if (condition.conditions.length === 0) return condition.op === 'and' ? 'true' : 'false';
      return `(${condition.conditions.map((inner) => compileCondition(inner, params)).join(condition.op === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'not':
      return `NOT coalesce(${compileCondition(condition.condition, params)}, false)`;
  }
}

/**
 * A top-level field read as its declared kind, for ORDER BY and keyset cursors; a value of another kind
 * reads as null. Text orders by code point (see above).
 */
export function sortKey(field: string, kind: FieldKind, params: Params): string {
  return sortKeyAt(params.add(field, 'text'), kind);
}

/** sortKey with the field's key as SQL: a placeholder, or a literal in a statement of fixed text. */
export function sortKeyAt(key: string, kind: FieldKind): string {
  const json = `doc -> ${key}`;
  if (kind === 'number') return ofType(json, 'number', `(${json})::float8`);
  if (kind === 'boolean') return ofType(json, 'boolean', `(${json})::boolean`);
  // Any value as its text, as the memory store compares values that are not both numbers by String().
  return textOrder(key);
}

/** A keyset cursor's value as a parameter of the sort key's kind. */
export function cursorValue(after: string | number, kind: FieldKind, params: Params): string {
  if (kind === 'number') {
    const number = Number(after);
    if (typeof after === 'string' && (after.trim() === '' || Number.isNaN(number))) throw new Error(`The cursor ${JSON.stringify(after)} is not a number`);
    return params.add(number, 'float8');
  }
  if (kind === 'boolean') {
    if (after !== 'true' && after !== 'false') throw new Error(`The cursor ${JSON.stringify(after)} is not a boolean`);
    return params.add(after, 'boolean');
  }
  return params.add(String(after), 'text');
}

/**
 * A string as an SQL literal: what pg's escapeLiteral gives (quotes doubled; with a backslash, backslashes
 * doubled too and the E'…' form, right whatever standard_conforming_strings says), made with the engine's own
 * string replacement rather than pg's copy of one character at a time, which held-back inserts (a whole row
 * spelled as a literal) made a tenth of customer creation's time in `make bench`.
 */
export function stringLiteral(text: string): string {
  const quoted = text.replaceAll("'", "''");
  return text.includes('\\') ? ` E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}

/**
 * The store's query conditions: data, not closures, so that the memory store can evaluate them and a SQL
 * store can compile them. Every store must give every condition the same meaning, defined here.
 *
 * A field is a row's top-level field (`'campaign_id'`) or a path into nested objects
 * (`['metadata', 'color']`, `['address', 'city']`). A field that is missing anywhere along its path reads as
 * null. Values are JSON scalars.
 *
 * Meaning, for a row whose field reads as `v`:
 * - `eq`: `v` is the same JSON scalar as the value (same type and value: `'5'` is not `5`). `eq` with null is
 *   `is_null`.
 * - `ne`: not `eq` (so a null `v` is unequal to any non-null value).
 * - `in` / `not_in`: `eq` to one of the values / to none of them. An empty `in` matches nothing.
 * - `lt`, `lte`, `gt`, `gte`: both sides are numbers (compared as numbers) or both are strings (compared by
 *   UTF-16 code units, as JavaScript's `<` does, which for ISO-8601 timestamps of one format is time order).
 *   Anything else (a null `v`, a type mismatch) does not match.
 * - `as` on a comparison reads `v` first: `'number'` takes a number as is and a string of decimal digits with an
 *   optional leading minus and fraction (`'12'`, `'-12.5'`, nothing else) as that number; `'time'` takes a string that starts with a `YYYY-MM-DD` date and that
 *   JavaScript's `Date.parse` reads as that instant (in milliseconds), and a number as is. The value given
 *   must then be a number. A `v` that does not read that way does not match.
 * - `is_null` / `not_null`: `v` is null (or missing) / is not.
 * - `has`: `v` is an array with an element that is the same JSON scalar as the value.
 * - `contains`, `starts_with`, `ends_with`: `v` is a string that contains / starts with / ends with the value,
 *   case-sensitively; with `each: true`, `v` may also be an array, and any string element that does matches.
 * - `length`: the number of elements of `v` when it is an array, and 0 when it is anything else (null, missing,
 *   a scalar, an object), is equal to (`compare: 'eq'`), less than (`'lt'`) or more than (`'gt'`) the value.
 *   (Added for the export filters' `$count`, `$count_less` and `$count_more`.)
 * - `and` / `or`: all / any of the conditions (an empty `and` matches every row, an empty `or` none).
 * - `not`: the condition does not match. Conditions are two-valued: nothing is ever "unknown".
 */

export type Scalar = string | number | boolean | null;
export type Field = string | readonly string[];

export type Condition =
  | { readonly op: 'eq' | 'ne'; readonly field: Field; readonly value: Scalar }
  | { readonly op: 'in' | 'not_in'; readonly field: Field; readonly values: readonly Scalar[] }
  | { readonly op: 'lt' | 'lte' | 'gt' | 'gte'; readonly field: Field; readonly value: string | number; readonly as?: 'number' | 'time' }
  | { readonly op: 'is_null' | 'not_null'; readonly field: Field }
  | { readonly op: 'has'; readonly field: Field; readonly value: Scalar }
  | { readonly op: 'contains' | 'starts_with' | 'ends_with'; readonly field: Field; readonly value: string; readonly each?: boolean }
  | { readonly op: 'length'; readonly field: Field; readonly compare: 'eq' | 'lt' | 'gt'; readonly value: number }
  | { readonly op: 'and' | 'or'; readonly conditions: readonly Condition[] }
  | { readonly op: 'not'; readonly condition: Condition };

export type ComparisonOp = 'lt' | 'lte' | 'gt' | 'gte';
export type TextOp = 'contains' | 'starts_with' | 'ends_with';

/** Builders, so that the domain reads as what it asks. */
export const eq = (field: Field, value: Scalar): Condition => ({ op: 'eq', field, value });
export const ne = (field: Field, value: Scalar): Condition => ({ op: 'ne', field, value });
export const isIn = (field: Field, values: readonly Scalar[]): Condition => ({ op: 'in', field, values });
export const notIn = (field: Field, values: readonly Scalar[]): Condition => ({ op: 'not_in', field, values });
export const compare = (op: ComparisonOp, field: Field, value: string | number, as?: 'number' | 'time'): Condition =>
  as === undefined ? { op, field, value } : { op, field, value, as };
export const isNull = (field: Field): Condition => ({ op: 'is_null', field });
export const notNull = (field: Field): Condition => ({ op: 'not_null', field });
export const has = (field: Field, value: Scalar): Condition => ({ op: 'has', field, value });
export const text = (op: TextOp, field: Field, value: string, each = false): Condition => (each ? { op, field, value, each } : { op, field, value });
export const length = (field: Field, compare: 'eq' | 'lt' | 'gt', value: number): Condition => ({ op: 'length', field, compare, value });
export const and = (...conditions: (Condition | undefined)[]): Condition => ({ op: 'and', conditions: conditions.filter((c): c is Condition => c !== undefined) });
export const or = (...conditions: (Condition | undefined)[]): Condition => ({ op: 'or', conditions: conditions.filter((c): c is Condition => c !== undefined) });
export const not = (condition: Condition): Condition => ({ op: 'not', condition });

/** The path of a field, as a list of keys. */
export function fieldPath(field: Field): readonly string[] {
  return typeof field === 'string' ? [field] : field;
}

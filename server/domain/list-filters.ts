/**
 * The `filters` query parameter of the cursor lists (bin, campaign templates, referral code holders) and of the
 * lists that read it with `normalizeFilters` (vouchers, segments, locations, transactions):
 * `{ junction, <field>: { conditions: { $op: value | [values] } } }`, checked against the fields a list can
 * filter on and compiled to a store condition by the shared filter compiler.
 */
import { cursorPage } from './pagination.js';
import { invalid } from './errors.js';
import { checkFilter, checkOperatorValues, filterCondition, type FilterDefinition, type FilterProblem } from './filters.js';
import { FRESH } from '../store/fresh.js';

const QUERY_FILTER: FilterProblem = { key: 'invalid_query_params', message: 'Invalid query params', name: 'filters' };

/**
 * The filter a list request gives, ready to evaluate; undefined when it names no field. An unknown field or
 * operator is refused, as ignoring it would widen the list silently.
 */
export function listFilter(raw: Record<string, unknown> | undefined, fields: ReadonlySet<string>): FilterDefinition | undefined {
  if (!raw || !Object.keys(raw).some((key) => key !== 'junction')) return undefined;
  const filters = checkFilter(raw, fields, QUERY_FILTER);
  const definition: FilterDefinition = { junction: filters.junction === 'or' ? 'or' : 'and' };
  for (const [field, clause] of Object.entries(filters)) {
    if (field === 'junction') continue;
    const conditions = (clause as { conditions: Record<string, unknown> }).conditions;
    checkOperatorValues(conditions, `filters.${field}`, QUERY_FILTER);
    definition[field] = {
      conditions: Object.fromEntries(
        Object.entries(conditions).map(([op, value]) => [op, (Array.isArray(value) ? value : [value]) as (string | number)[]]),
      ),
    };
  }
  return definition;
}

/**
 * Query-string filters carry single values as strings; the filter engine takes arrays. Fields outside `fields`
 * and unknown operators are refused.
 */
export function normalizeFilters(raw: Record<string, unknown>, fields: ReadonlySet<string>): FilterDefinition {
  const filters = checkFilter(raw, fields, QUERY_FILTER);
  const definition: FilterDefinition = { junction: filters.junction === 'or' ? 'or' : 'and' };
  for (const [field, clause] of Object.entries(filters)) {
    if (field === 'junction') continue;
    const conditions = (clause as { conditions: Record<string, string | string[]> }).conditions;
    definition[field] = {
      conditions: Object.fromEntries(Object.entries(conditions).map(([op, value]) => [op, Array.isArray(value) ? value : [value]])),
    };
  }
  return definition;
}

export interface IdCursorQuery {
  limit?: number;
  starting_after_id?: string;
  order?: 'id' | '-id';
}

/** What a store query of such a list asks: the rows that meet the filter, in the list's ID order. */
export function idOrderedQuery(filter: FilterDefinition | undefined, query: IdCursorQuery) {
  return { ...FRESH, ...(filter && { where: filterCondition(filter) }), orderBy: { field: 'id' as const, direction: query.order === '-id' ? ('desc' as const) : ('asc' as const) } };
}

/**
 * One page of the matching rows (in the list's ID order, as idOrderedQuery asks for them), after the
 * `starting_after_id` cursor, with the number of rows that match. A cursor that is not a row of the list is a 400.
 */
export function idOrderedPage<T extends { id: string }>(matching: readonly T[], query: IdCursorQuery) {
  const page = cursorPage(matching, query);
  if (!page) throw invalid('invalid_query_params', 'Invalid query params', `starting_after_id ${query.starting_after_id} is not an entry of this list`);
  return { ...FRESH, ...page, total: matching.length };
}

/**
 * The `filters` of the campaign list, as one condition on the campaigns table. Most fields take the
 * interface's conditions, compiled by the shared filter compiler over the campaign's fields as the filter
 * names them; `status` and `active` take flags of their own. Anything else is refused, since ignoring it
 * would widen the result.
 */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { invalid } from './errors.js';
import { checkFilter, clauseCondition, type Conditions, type FieldSource, type FilterProblem } from './filters.js';
import { and, eq, isNull, not, or, type Condition } from '../store/conditions.js';
import { timeBound } from './time-range.js';

type CampaignFilters = components['schemas']['CampaignFilters'];

const PROBLEM: FilterProblem = { key: 'invalid_query_params', message: 'Invalid query params', name: 'filters' };
const FIELDS: ReadonlySet<string> = new Set([
  'campaigns',
  'campaigns_id',
  'campaign_status',
  'is_referral_code',
  'validity_timeframe',
  'voucher_type',
  'categories',
  'category_ids',
  'type',
  'created_date',
  'updated_at',
  'start_date',
  'expiration_date',
  'validity_day_of_week',
]);
const FLAG_FIELDS = new Set(['status', 'active']);
const STATUS_FLAGS = new Set(['$active', '$failed', '$in_progress', '$expired', 'before_start']);
const ACTIVE_FLAGS = new Set(['$enabled', '$disabled', '$expired', '$active']);
/** A timeframe is an object, so only whether there is one can be asked. */
const TIMEFRAME_OPERATORS = new Set(['$has_value', '$is_unknown']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function refuse(details: string): never {
  throw invalid(PROBLEM.key, PROBLEM.message, details);
}

/** The flags given under a `status` or `active` filter, refusing unknown ones. */
function flags(value: unknown, where: string, known: ReadonlySet<string>): string[] {
  if (!isObject(value)) refuse(`${where} must be an object of flags`);
  const given = Object.keys(value);
  const unknown = given.find((flag) => !known.has(flag));
  if (unknown !== undefined) refuse(`${where} has an unknown flag '${unknown}'; known: ${[...known].join(', ')}`);
  if (given.length === 0) refuse(`${where} needs at least one flag`);
  return given;
}

/**
 * The filters as a condition on the campaigns table, or undefined when they set none. Field conditions are
 * joined by `junction`; the flags of `status` or of `active` match when any of them does.
 */
export async function campaignFilter(ctx: DomainContext, filters: CampaignFilters | undefined): Promise<Condition | undefined> {
  if (!filters || !isObject(filters)) return undefined;
  const raw = filters as Record<string, unknown>;
  if (!Object.keys(raw).some((key) => key !== 'junction')) return undefined;
  const generic = Object.fromEntries(Object.entries(raw).filter(([field]) => !FLAG_FIELDS.has(field)));
  const checked = checkFilter(generic, FIELDS, PROBLEM);
  const categoryNames = Object.hasOwn(checked, 'categories')
    ? new Map((await ctx.uow.categories.query({})).rows.map((category) => [category.id, [category.name]]))
    : new Map<string, string[]>();
  const parts: Condition[] = [];
  for (const [field, clause] of Object.entries(checked)) {
    if (field === 'junction') continue;
    const conditions = (clause as { conditions: Record<string, unknown> }).conditions;
    if (field === 'validity_timeframe') {
      const operator = Object.keys(conditions).find((each) => !TIMEFRAME_OPERATORS.has(each));
      if (operator !== undefined) refuse(`filters.validity_timeframe takes only $has_value and $is_unknown, not '${operator}'`);
    }
    const normalized: Conditions = Object.fromEntries(
      Object.entries(conditions).map(([operator, value]) => {
        const values = (Array.isArray(value) ? value : [value]).map((each) => (field === 'is_referral_code' ? String(each).toUpperCase() : each));
        return [operator, values as (string | number)[]];
      }),
    );
    parts.push(clauseCondition(fieldSource(field, categoryNames), normalized));
  }
  const now = ctx.clock.now().getTime();
  if (raw.status !== undefined) {
    if (!isObject(raw.status)) refuse('filters.status must be an object with conditions');
    const unknownKey = Object.keys(raw.status).find((key) => key !== 'conditions');
    if (unknownKey !== undefined) refuse(`filters.status takes only conditions, not '${unknownKey}'`);
    const given = flags(raw.status.conditions, 'filters.status.conditions', STATUS_FLAGS);
    parts.push(or(...given.map((flag) => statusFlag(flag, now))));
  }
  if (raw.active !== undefined) {
    const given = flags(raw.active, 'filters.active', ACTIVE_FLAGS);
    parts.push(or(...given.map((flag) => activeFlag(flag, now))));
  }
  if (parts.length === 0) return undefined;
  return checked.junction === 'or' ? or(...parts) : and(...parts);
}

/** Where the campaign's value for a filter field comes from, as the filter names it. */
function fieldSource(field: string, categoryNames: ReadonlyMap<string, string[]>): FieldSource {
  switch (field) {
    case 'campaigns':
      return 'name';
    case 'campaigns_id':
      return 'id';
    case 'campaign_status':
      return 'creation_status';
    case 'is_referral_code':
      return { key: ['voucher', 'is_referral_code'], lookup: new Map([[true, 'TRUE']]), otherwise: 'FALSE' };
    case 'voucher_type':
      return ['voucher', 'type'];
    case 'categories':
      return { key: 'category_id', lookup: categoryNames, otherwise: [] };
    case 'category_ids':
      return { singleton: 'category_id' };
    case 'created_date':
      return 'created_at';
    default:
      return field;
  }
}

/** Started: no start date, or one not after now. */
const started = (now: number) => or(isNull('start_date'), timeBound('lte', 'start_date', now));
const expired = (now: number) => timeBound('lt', 'expiration_date', now);
/** Enabled, started and not yet expired. */
const usable = (now: number) => and(eq('active', true), started(now), not(expired(now)));

function statusFlag(flag: string, now: number): Condition {
  switch (flag) {
    case '$active':
      return usable(now);
    case '$failed':
      return eq('creation_status', 'FAILED');
    case '$in_progress':
      return eq('creation_status', 'IN_PROGRESS');
    case '$expired':
      return expired(now);
    default:
      return not(started(now));
  }
}

function activeFlag(flag: string, now: number): Condition {
  switch (flag) {
    case '$enabled':
      return eq('active', true);
    case '$disabled':
      return not(eq('active', true));
    case '$expired':
      return expired(now);
    default:
      return usable(now);
  }
}

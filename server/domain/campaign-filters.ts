/**
 * The `filters` of the campaign list. Most fields take the interface's conditions and go through the
 * shared filter engine, over a view of the campaign named as the filter names its fields; `status` and
 * `active` take flags of their own. Anything else is refused, since ignoring it would widen the result.
 */
import type { components } from '../../generated/openapi.js';
import type { CampaignRecord } from './campaigns.js';
import type { DomainContext } from './context.js';
import { invalid } from './errors.js';
import { checkFilter, matchesConditions, type Conditions, type FilterProblem } from './filters.js';

type CampaignFilters = components['schemas']['CampaignFilters'];
type Test = (campaign: CampaignRecord) => boolean;

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
 * A test for the campaign list, or undefined when the filters set no condition. Field conditions are
 * joined by `junction`; the flags of `status` or of `active` match when any of them does.
 */
export async function campaignFilter(ctx: DomainContext, filters: CampaignFilters | undefined): Promise<Test | undefined> {
  if (!filters || !isObject(filters)) return undefined;
  const raw = filters as Record<string, unknown>;
  if (!Object.keys(raw).some((key) => key !== 'junction')) return undefined;
  const categoryNames = new Map((await ctx.uow.categories.query({})).rows.map((category) => [category.id, category.name]));
  const generic = Object.fromEntries(Object.entries(raw).filter(([field]) => !FLAG_FIELDS.has(field)));
  const checked = checkFilter(generic, FIELDS, PROBLEM);
  const tests: Test[] = [];
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
    tests.push((campaign) => matchesConditions(readField(campaign, field, categoryNames), normalized));
  }
  const now = ctx.clock.now();
  if (raw.status !== undefined) {
    if (!isObject(raw.status)) refuse('filters.status must be an object with conditions');
    const unknownKey = Object.keys(raw.status).find((key) => key !== 'conditions');
    if (unknownKey !== undefined) refuse(`filters.status takes only conditions, not '${unknownKey}'`);
    const given = flags(raw.status.conditions, 'filters.status.conditions', STATUS_FLAGS);
    tests.push((campaign) => given.some((flag) => statusFlag(campaign, flag, now)));
  }
  if (raw.active !== undefined) {
    const given = flags(raw.active, 'filters.active', ACTIVE_FLAGS);
    tests.push((campaign) => given.some((flag) => activeFlag(campaign, flag, now)));
  }
  if (tests.length === 0) return undefined;
  const any = checked.junction === 'or';
  return (campaign) => (any ? tests.some((test) => test(campaign)) : tests.every((test) => test(campaign)));
}

/** The campaign's value for a filter field, as the filter names it. */
function readField(campaign: CampaignRecord, field: string, categoryNames: ReadonlyMap<string, string>): unknown {
  switch (field) {
    case 'campaigns':
      return campaign.name;
    case 'campaigns_id':
      return campaign.id;
    case 'campaign_status':
      return campaign.creation_status;
    case 'is_referral_code':
      return campaign.voucher?.is_referral_code ? 'TRUE' : 'FALSE';
    case 'voucher_type':
      return campaign.voucher?.type ?? null;
    case 'categories':
      return campaign.category_id ? [categoryNames.get(campaign.category_id)].filter((name) => name !== undefined) : [];
    case 'category_ids':
      return campaign.category_id ? [campaign.category_id] : [];
    case 'created_date':
      return campaign.created_at;
    default:
      return (campaign as unknown as Record<string, unknown>)[field] ?? null;
  }
}

function started(campaign: CampaignRecord, now: Date): boolean {
  return !campaign.start_date || Date.parse(campaign.start_date) <= now.getTime();
}

function expired(campaign: CampaignRecord, now: Date): boolean {
  return Boolean(campaign.expiration_date) && Date.parse(campaign.expiration_date!) < now.getTime();
}

/** Enabled, started and not yet expired. */
function usable(campaign: CampaignRecord, now: Date): boolean {
  return campaign.active && started(campaign, now) && !expired(campaign, now);
}

function statusFlag(campaign: CampaignRecord, flag: string, now: Date): boolean {
  switch (flag) {
    case '$active':
      return usable(campaign, now);
    case '$failed':
      return campaign.creation_status === 'FAILED';
    case '$in_progress':
      return campaign.creation_status === 'IN_PROGRESS';
    case '$expired':
      return expired(campaign, now);
    default:
      return !started(campaign, now);
  }
}

function activeFlag(campaign: CampaignRecord, flag: string, now: Date): boolean {
  switch (flag) {
    case '$enabled':
      return campaign.active;
    case '$disabled':
      return !campaign.active;
    case '$expired':
      return expired(campaign, now);
    default:
      return usable(campaign, now);
  }
}

/**
 * A project's stacking rules: how the redeemables of one validation or redemption request combine. A
 * project has at most one set, written through the management API; without one, the defaults below hold.
 * The engine reads the effective rules once per request (`effectiveStackingRules`).
 */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { DomainError, invalid, notFound } from './errors.js';
import { newId } from './ids.js';
import { table } from '../store/schema.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type Fields = Schemas['StackingRulesFields'];

/** Every setting, always present: what a project's stacking rules hold, and what the engine runs under. */
export type StackingSettings = Required<Fields>;

/** A project's stacking rules as stored and shown. */
export type StackingRulesRecord = StackingSettings & { id: string; created_at: string; updated_at?: string };

export const STACKING_RULES_TABLE = table<StackingRulesRecord>({ unique: [], indexed: [] });

/** What a project without stacking rules runs under, and what a field left out at creation takes. */
export const DEFAULT_STACKING_SETTINGS: Readonly<StackingSettings> = Object.freeze({
  exclusive_categories: [],
  joint_categories: [],
  redeemables_limit: 30,
  applicable_redeemables_limit: 5,
  applicable_redeemables_per_category_limit: 1,
  applicable_redeemables_category_limits: {},
  applicable_exclusive_redeemables_limit: 1,
  applicable_exclusive_redeemables_per_category_limit: 1,
  discount_calculation_mode: 'DISCOUNTED_AMOUNT',
  initial_amount_mode_categories: [],
  discounted_amount_mode_categories: [],
  redeemables_application_mode: 'ALL',
  redeemables_sorting_rule: 'REQUESTED_ORDER',
  redeemables_products_application_mode: 'STACK',
  redeemables_no_effect_rule: 'REDEEM_ANYWAY',
  no_effect_skip_categories: [],
  no_effect_redeem_anyway_categories: [],
  redeemables_rollback_order_mode: 'WITHOUT_ORDER',
});

const CATEGORY_LISTS = [
  'exclusive_categories',
  'joint_categories',
  'initial_amount_mode_categories',
  'discounted_amount_mode_categories',
  'no_effect_skip_categories',
  'no_effect_redeem_anyway_categories',
] as const;

/** Pairs of lists that say opposite things of a category, so one category may be in at most one of each. */
const OPPOSITES: readonly (readonly [(typeof CATEGORY_LISTS)[number], (typeof CATEGORY_LISTS)[number]])[] = [
  ['exclusive_categories', 'joint_categories'],
  ['initial_amount_mode_categories', 'discounted_amount_mode_categories'],
  ['no_effect_skip_categories', 'no_effect_redeem_anyway_categories'],
];

/** The rules the project's requests run under now: its own, or the defaults. */
export async function effectiveStackingRules(ctx: DomainContext): Promise<StackingSettings> {
  const [own] = (await ctx.uow.stacking_rules.query({})).rows;
  if (!own) return DEFAULT_STACKING_SETTINGS;
  const { id: _id, created_at: _created, updated_at: _updated, ...settings } = own;
  return settings;
}

/** The settings of a request merged over `base`, with category lists deduplicated and checked. */
async function settingsFrom(ctx: DomainContext, base: StackingSettings, input: Fields): Promise<StackingSettings> {
  const merged: StackingSettings = { ...base };
  for (const [key, value] of Object.entries(input) as [keyof Fields, unknown][]) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  for (const list of CATEGORY_LISTS) merged[list] = [...new Set(merged[list])];
  // Only the categories this request names are looked up: one deleted since an earlier write stays harmless.
  const named = new Set([...CATEGORY_LISTS.flatMap((list) => input[list] ?? []), ...Object.keys(input.applicable_redeemables_category_limits ?? {})]);
  for (const id of named) if (!(await ctx.uow.categories.get(id))) throw notFound('category', id);
  for (const [a, b] of OPPOSITES) {
    const both = merged[a].find((id) => merged[b].includes(id));
    if (both !== undefined) throw invalid('invalid_stacking_rules', 'Invalid stacking rules', `Category ${both} cannot be in both ${a} and ${b}`);
  }
  return merged;
}

export async function listStackingRules(ctx: DomainContext): Promise<StackingRulesRecord[]> {
  return (await ctx.uow.stacking_rules.query({})).rows;
}

export async function findStackingRules(ctx: DomainContext, id: string): Promise<StackingRulesRecord> {
  const rules = await ctx.uow.stacking_rules.get(id);
  if (!rules) throw notFound('stacking_rules', id);
  return rules;
}

export async function createStackingRules(ctx: DomainContext, input: Fields): Promise<StackingRulesRecord> {
  const [existing] = await listStackingRules(ctx);
  if (existing) {
    throw new DomainError('duplicate', 'duplicate_found', 'Duplicated resource found', `The project already has stacking rules (${existing.id}); update them instead`, existing.id, 'stacking_rules');
  }
  const settings = await settingsFrom(ctx, DEFAULT_STACKING_SETTINGS, input);
  return ctx.uow.stacking_rules.insert({ id: newId('stk'), ...settings, created_at: isoNow(ctx.clock) });
}

export async function updateStackingRules(ctx: DomainContext, id: string, input: Fields): Promise<StackingRulesRecord> {
  const current = await findStackingRules(ctx, id);
  const { id: _id, created_at, updated_at: _updated, ...settings } = current;
  const changed = await settingsFrom(ctx, settings, input);
  return ctx.uow.stacking_rules.update({ id, ...changed, created_at, updated_at: isoNow(ctx.clock) });
}

export async function deleteStackingRules(ctx: DomainContext, id: string): Promise<void> {
  await findStackingRules(ctx, id);
  await ctx.uow.stacking_rules.delete(id);
}

/** The rules as validations and qualifications report them (`stacking_rules`), which name fewer settings. */
export function presentStackingRules(rules: StackingSettings): Schemas['StackingRules'] {
  return {
    redeemables_limit: rules.redeemables_limit,
    applicable_redeemables_limit: rules.applicable_redeemables_limit,
    applicable_redeemables_per_category_limit: rules.applicable_redeemables_per_category_limit,
    applicable_redeemables_category_limits: { ...rules.applicable_redeemables_category_limits },
    applicable_exclusive_redeemables_limit: rules.applicable_exclusive_redeemables_limit,
    applicable_exclusive_redeemables_per_category_limit: rules.applicable_exclusive_redeemables_per_category_limit,
    exclusive_categories: [...rules.exclusive_categories],
    joint_categories: [...rules.joint_categories],
    redeemables_application_mode: rules.redeemables_application_mode,
    redeemables_sorting_rule: rules.redeemables_sorting_rule,
    redeemables_products_application_mode: rules.redeemables_products_application_mode,
    redeemables_no_effect_rule: rules.redeemables_no_effect_rule,
    no_effect_skip_categories: [...rules.no_effect_skip_categories],
    no_effect_redeem_anyway_categories: [...rules.no_effect_redeem_anyway_categories],
    redeemables_rollback_order_mode: rules.redeemables_rollback_order_mode,
  };
}

import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { DomainError, invalid, notFound } from './errors.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import { createdBetween, pageWindow, parseOrder, type PageRequest } from './pagination.js';
import { checkOperators, checkOperatorValues } from './filters.js';
import { effectiveLogic, numberedRules, parseLogic, ruleNumbers } from './rule-logic.js';
import { table } from '../store/schema.js';
import { and, eq } from '../store/conditions.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
export type ValidationRule = Schemas['ValidationRule'];
export type ValidationRuleRecord = Omit<ValidationRule, 'assignments_count'>;

export const VALIDATION_RULES_TABLE = table<ValidationRuleRecord>({ unique: [], indexed: [], frozen: true, kinds: { created_at: 'text', updated_at: 'text', name: 'text' } });
/** A stored assignment: every one has the moment it was made. */
export type ValidationRuleAssignment = Schemas['ValidationRuleAssignment'] & { created_at: string };

export const VALIDATION_RULE_ASSIGNMENTS_TABLE = table<ValidationRuleAssignment>({ unique: [], indexed: ['rule_id', 'related_object_id'], kinds: { created_at: 'text' } });
type RuleCreate = Schemas['ValidationRulesCreateRequestBody'];
type RuleUpdate = Schemas['ValidationRulesUpdateRequestBody'];
type RuleSet = Schemas['ValidationRuleRules'];
type AssignmentCreate = Schemas['ValidationRuleAssignmentsCreateRequestBody'];
/** The kinds of object this server assigns rules to: the ones its engine reads assignments of. */
type AssignableType = 'voucher' | 'campaign' | 'promotion_tier';
type RulesOrder = 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'name' | '-name';

const EMPTY_APPLICABLE_TO: ValidationRule['applicable_to'] = { excluded: [], included: [], included_all: false };

function rulesError(details: string): DomainError {
  return invalid('invalid_validation_rules', 'Invalid validation rules', details);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A rule set, nested sets included, must be one the engine can evaluate: numbered keys, logic that parses
 * and names only rules that exist, and in each rule a name, conditions with operators the engine knows (each
 * with a list of values, or one value standing alone for a list of one), and a property for metadata facts.
 * A name the engine does not know passes here: it is stored, and at validation it never holds.
 */
function checkRuleSet(rules: Record<string, unknown>, at: string): void {
  const numbers = numberedRules(rules);
  const misnamed = numbers.find((key) => !/^[1-9]\d{0,2}$/.test(key));
  if (misnamed !== undefined) throw rulesError(`${at} key '${misnamed}' is neither a rule number nor logic`);
  for (const number of numbers) {
    const where = `${at}.${number}`;
    const rule = rules[number];
    if (!isObject(rule)) throw rulesError(`${where} must be an object`);
    if (typeof rule.name !== 'string' || rule.name === '') throw rulesError(`${where} needs a name`);
    const problem = { key: 'invalid_validation_rules', message: 'Invalid validation rules', name: where };
    checkOperators(rule.conditions, where, problem);
    checkOperatorValues(rule.conditions as Record<string, unknown>, where, problem);
    if ((rule.name === 'order.metadata' || rule.name === 'customer.metadata') && !rule.property) {
      throw rulesError(`${where} (${rule.name}) needs a property`);
    }
    if (rule.rules !== undefined && rule.rules !== null) {
      if (!isObject(rule.rules)) throw rulesError(`${where}.rules must be an object`);
      checkRuleSet(rule.rules, `${where}.rules`);
    }
  }
  let tree;
  try {
    tree = parseLogic(effectiveLogic(rules));
  } catch (error) {
    throw rulesError(`${at}.logic '${String(rules.logic)}' is malformed: ${(error as Error).message}`);
  }
  const unknown = ruleNumbers(tree).filter((number) => !numbers.includes(number));
  if (unknown.length > 0) throw rulesError(`${at}.logic names rule(s) ${unknown.join(', ')} that are not defined`);
}

/** Bundle rules cannot be evaluated here; storing them would let validation skip them, so they are refused. */
function checkBundleRules(bundle: RuleCreate['bundle_rules']): void {
  if (!bundle) return;
  const numbered = Object.keys(bundle).filter((key) => key !== 'limit' && key !== 'logic');
  if (numbered.length > 0) {
    throw rulesError(`bundle_rules ${numbered.join(', ')}: this server does not evaluate bundle rules, so it does not take them`);
  }
}

export async function findValidationRule({ uow }: DomainContext, id: string): Promise<ValidationRuleRecord> {
  const rule = await uow.validation_rules.get(id);
  if (!rule) throw notFound('validation_rules', id);
  return rule;
}

export async function presentValidationRule(ctx: DomainContext, rule: ValidationRuleRecord): Promise<ValidationRule> {
  return { ...FRESH, ...rule, assignments_count: await ctx.uow.validation_rule_assignments.countBy('rule_id', rule.id) };
}

export async function createValidationRule(ctx: DomainContext, input: RuleCreate): Promise<ValidationRuleRecord> {
  const rules: RuleSet = input.rules ?? {};
  checkRuleSet(rules, 'rules');
  checkBundleRules(input.bundle_rules);
  const created = await ctx.uow.validation_rules.insert({
    id: newId('val'),
    name: input.name,
    rules,
    ...(input.bundle_rules && { bundle_rules: input.bundle_rules }),
    error: input.error ?? null,
    applicable_to: input.applicable_to ?? EMPTY_APPLICABLE_TO,
    type: input.type ?? 'expression',
    context_type: input.context_type ?? 'global',
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'validation_rules',
  });
  await recordEvent(ctx, 'business_validation_rule.created', {}, { validation_rule: { id: created.id } });
  return created;
}

/**
 * Fields left out keep their values; null clears one (`rules` to `{}`, `applicable_to` to empty lists,
 * `bundle_rules` away). Fields the server owns never reach here: the contract's pruner drops them.
 */
export async function updateValidationRule(ctx: DomainContext, id: string, input: RuleUpdate): Promise<ValidationRuleRecord> {
  const rule = await findValidationRule(ctx, id);
  if (input.rules) checkRuleSet(input.rules, 'rules');
  checkBundleRules(input.bundle_rules);
  const { bundle_rules: currentBundle, ...kept } = rule;
  const bundle = input.bundle_rules === undefined ? currentBundle : (input.bundle_rules ?? undefined);
  const updated: ValidationRuleRecord = {
    ...FRESH,
    ...kept,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.rules !== undefined && { rules: input.rules ?? {} }),
    ...(bundle && { bundle_rules: bundle }),
    ...(input.error !== undefined && { error: input.error }),
    ...(input.applicable_to !== undefined && { applicable_to: input.applicable_to ?? EMPTY_APPLICABLE_TO }),
    ...(input.type !== undefined && { type: input.type }),
    ...(input.context_type !== undefined && { context_type: input.context_type }),
    updated_at: isoNow(ctx.clock),
  };
  const stored = await ctx.uow.validation_rules.update(updated);
  await recordEvent(ctx, 'business_validation_rule.updated', {}, { validation_rule: { id: stored.id } });
  return stored;
}

export async function deleteValidationRule(ctx: DomainContext, id: string): Promise<void> {
  const rule = await findValidationRule(ctx, id);
  for (const assignment of await ctx.uow.validation_rule_assignments.findBy('rule_id', rule.id)) {
    await ctx.uow.validation_rule_assignments.delete(assignment.id);
  }
  await ctx.uow.validation_rules.delete(rule.id);
  await recordEvent(ctx, 'business_validation_rule.deleted', {}, { validation_rule: { id: rule.id } });
}

export async function listValidationRules(ctx: DomainContext, query: PageRequest & { order?: RulesOrder; start_date?: string; end_date?: string }) {
  const within = createdBetween(query.start_date, query.end_date);
  const page = await ctx.uow.validation_rules.query({
    ...FRESH,
    ...(within && { where: within }),
    orderBy: parseOrder<'created_at' | 'updated_at' | 'name'>(query.order ?? 'created_at'),
    ...pageWindow(query),
  });
  return { rows: await Promise.all(page.rows.map((rule) => presentValidationRule(ctx, rule))), total: page.total };
}

/** The ID of the object an assignment names: vouchers by code or ID, campaigns by ID or name. */
async function relatedObjectId(ctx: DomainContext, type: AssignableType, ref: string): Promise<string> {
  const { uow } = ctx;
  if (type === 'voucher') {
    const voucher = (await uow.vouchers.get(ref)) ?? (await uow.vouchers.getBy('code', ref));
    if (voucher) return voucher.id;
  } else if (type === 'campaign') {
    const campaign = (await uow.campaigns.get(ref)) ?? (await uow.campaigns.getBy('name', ref));
    if (campaign) return campaign.id;
  } else {
    const tier = await uow.promotion_tiers.get(ref);
    if (tier) return tier.id;
  }
  throw notFound(type, ref);
}

const SHORT_FORMS = ['voucher', 'campaign', 'promotion_tier'] as const;

/**
 * The object an assignment request names, in the full form (`related_object_type`, `voucher` when left out,
 * and `related_object_id`) or the short one (`{"voucher": code}` and the like). Exactly one object.
 */
function assignmentTarget(input: AssignmentCreate): { type: AssignableType; ref: string } {
  const short = SHORT_FORMS.filter((kind) => input[kind] !== undefined);
  const full = input.related_object_type !== undefined || input.related_object_id !== undefined;
  const problem = (details: string) => invalid('invalid_payload', 'Invalid payload', details);
  if (short.length + (full ? 1 : 0) !== 1) {
    throw problem('name one object: related_object_id (with related_object_type), or one of voucher, campaign, promotion_tier');
  }
  if (!full) return { type: short[0]!, ref: input[short[0]!]! };
  if (input.related_object_id === undefined) throw problem('related_object_id is required with related_object_type');
  const type = input.related_object_type ?? 'voucher';
  if (type !== 'voucher' && type !== 'campaign' && type !== 'promotion_tier') {
    throw invalid('invalid_related_object_type', 'Invalid related object type', `this server assigns rules to vouchers, campaigns and promotion tiers only, where its engine checks them; not to ${type}`);
  }
  return { type, ref: input.related_object_id };
}

/** Assigns the rule; with `force`, an assignment of the same rule to the same object is replaced instead of refused. */
export async function assignValidationRule(
  ctx: DomainContext,
  ruleId: string,
  request: AssignmentCreate,
  options: { force?: boolean } = {},
): Promise<ValidationRuleAssignment> {
  const target = assignmentTarget(request);
  const rule = await findValidationRule(ctx, ruleId);
  const objectId = await relatedObjectId(ctx, target.type, target.ref);
  const existing = (await ctx.uow.validation_rule_assignments.findBy('related_object_id', objectId)).find((assignment) => assignment.rule_id === rule.id);
  if (existing && !options.force) {
    throw new DomainError('duplicate', 'duplicate_found', 'Duplicated resource found', `Rule ${rule.id} is already assigned to ${objectId}`, objectId, 'validation_rules_assignment');
  }
  if (existing) {
    await ctx.uow.validation_rule_assignments.delete(existing.id);
    await recordEvent(ctx, 'business_validation_rule.assignment.deleted', {}, { validation_rule: { id: rule.id }, assignment: { id: existing.id } });
  }
  const assignment = await ctx.uow.validation_rule_assignments.insert({
    id: newId('asgm'),
    rule_id: rule.id,
    related_object_id: objectId,
    related_object_type: target.type,
    created_at: isoNow(ctx.clock),
    object: 'validation_rules_assignment',
  });
  await recordEvent(ctx, 'business_validation_rule.assignment.created', {}, { validation_rule: { id: rule.id }, assignment: { id: assignment.id } });
  return assignment;
}

export async function unassignValidationRule(ctx: DomainContext, ruleId: string, assignmentId: string): Promise<void> {
  const assignment = await ctx.uow.validation_rule_assignments.get(assignmentId);
  if (!assignment || assignment.rule_id !== ruleId) throw notFound('validation_rules_assignment', assignmentId);
  await ctx.uow.validation_rule_assignments.delete(assignment.id);
  await recordEvent(ctx, 'business_validation_rule.assignment.deleted', {}, { validation_rule: { id: ruleId }, assignment: { id: assignment.id } });
}

/** Removes every assignment to an object that is being deleted. */
export async function dropAssignmentsOf(ctx: DomainContext, objectId: string): Promise<void> {
  for (const assignment of await ctx.uow.validation_rule_assignments.findBy('related_object_id', objectId)) {
    await ctx.uow.validation_rule_assignments.delete(assignment.id);
  }
}

export async function listAssignments(
  ctx: DomainContext,
  query: PageRequest & { order?: 'created_at' | '-created_at'; rule?: string; related_object_id?: string },
) {
  return ctx.uow.validation_rule_assignments.query({
    where: and(
      query.rule === undefined ? undefined : eq('rule_id', query.rule),
      query.related_object_id === undefined ? undefined : eq('related_object_id', query.related_object_id),
    ),
    orderBy: { field: 'created_at', direction: (query.order ?? '-created_at') === '-created_at' ? 'desc' : 'asc' },
    ...pageWindow(query),
  });
}

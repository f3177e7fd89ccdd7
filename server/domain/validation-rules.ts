import type { components } from '../../generated/openapi.js';
import { applyChanges } from './changes.js';
import type { DomainContext } from './context.js';
import { DomainError, invalid, notFound } from './errors.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from './pagination.js';
import { checkOperators } from './filters.js';
import { effectiveLogic, parseLogic, ruleNumbers } from './rule-logic.js';

type Schemas = components['schemas'];
export type ValidationRule = Schemas['ValidationRule'];
export type ValidationRuleRecord = Omit<ValidationRule, 'assignments_count'>;
export type ValidationRuleAssignment = Schemas['ValidationRuleAssignment'];
type RuleCreate = Schemas['ValidationRulesCreateRequestBody'];
type RuleUpdate = Schemas['ValidationRulesUpdateRequestBody'];
type AssignmentCreate = Schemas['ValidationRuleAssignmentsCreateRequestBody'];
/** The full form of an assignment request, which the short forms are read into. */
type AssignmentTarget = Extract<AssignmentCreate, { related_object_type: string }>;

function rulesError(details: string): DomainError {
  return invalid('invalid_validation_rules', 'Invalid validation rules', details);
}

/** A rule set needs at least one numbered rule, and its logic must parse and name only those. */
function checkRules(rules: ValidationRule['rules']): void {
  const numbers = Object.keys(rules).filter((key) => key !== 'logic');
  const misnamed = numbers.find((key) => !/^[1-9]\d{0,2}$/.test(key));
  if (misnamed !== undefined) throw rulesError(`rules key '${misnamed}' is neither a rule number nor logic`);
  for (const number of numbers) {
    checkOperators((rules[number] as { conditions?: unknown }).conditions, `rules.${number}`, {
      key: 'invalid_validation_rules',
      message: 'Invalid validation rules',
      name: `rules.${number}`,
    });
  }
  if (numbers.length === 0) throw rulesError('rules needs at least one numbered rule');
  let tree;
  try {
    tree = parseLogic(effectiveLogic(rules));
  } catch (error) {
    throw rulesError(`logic '${String(rules.logic)}' is malformed: ${(error as Error).message}`);
  }
  const unknown = ruleNumbers(tree).filter((number) => !numbers.includes(number));
  if (unknown.length > 0) throw rulesError(`logic names rule(s) ${unknown.join(', ')} that are not defined`);
  for (const number of numbers) {
    const rule = rules[number] as { name: string; property?: string };
    if ((rule.name === 'order.metadata' || rule.name === 'customer.metadata') && !rule.property) {
      throw rulesError(`rule ${number} (${rule.name}) needs a property`);
    }
  }
}

export async function findValidationRule({ uow }: DomainContext, id: string): Promise<ValidationRuleRecord> {
  const rule = await uow.validation_rules.get(id);
  if (!rule) throw notFound('validation_rules', id);
  return rule;
}

export async function presentValidationRule(ctx: DomainContext, rule: ValidationRuleRecord): Promise<ValidationRule> {
  return { ...rule, assignments_count: await ctx.uow.validation_rule_assignments.countBy('rule_id', rule.id) };
}

export async function createValidationRule(ctx: DomainContext, input: RuleCreate): Promise<ValidationRuleRecord> {
  checkRules(input.rules);
  const created = await ctx.uow.validation_rules.insert({
    id: newId('val'),
    name: input.name,
    rules: input.rules,
    error: input.error ?? null,
    type: input.type ?? 'basic',
    context_type: input.context_type ?? 'global',
    created_at: ctx.clock.now().toISOString(),
    updated_at: null,
    object: 'validation_rules',
  });
  await recordEvent(ctx, 'business_validation_rule.created', {}, { validation_rule: { id: created.id } });
  return created;
}

export async function updateValidationRule(ctx: DomainContext, id: string, input: RuleUpdate): Promise<ValidationRuleRecord> {
  const rule = await findValidationRule(ctx, id);
  if (input.rules) checkRules(input.rules);
  const updated = await ctx.uow.validation_rules.update(applyChanges(rule, input, ctx.clock.now().toISOString()));
  await recordEvent(ctx, 'business_validation_rule.updated', {}, { validation_rule: { id: updated.id } });
  return updated;
}

export async function deleteValidationRule(ctx: DomainContext, id: string): Promise<void> {
  const rule = await findValidationRule(ctx, id);
  for (const assignment of await ctx.uow.validation_rule_assignments.findBy('rule_id', rule.id)) {
    await ctx.uow.validation_rule_assignments.delete(assignment.id);
  }
  await ctx.uow.validation_rules.delete(rule.id);
  await recordEvent(ctx, 'business_validation_rule.deleted', {}, { validation_rule: { id: rule.id } });
}

export async function listValidationRules(ctx: DomainContext, query: PageRequest & { order?: SortOrder }) {
  const page = await ctx.uow.validation_rules.query({ orderBy: parseTimestampOrder(query.order), ...pageWindow(query) });
  return { rows: await Promise.all(page.rows.map((rule) => presentValidationRule(ctx, rule))), total: page.total };
}

/** The ID of the object an assignment names: vouchers by code or ID, campaigns by ID or name. */
async function relatedObjectId(ctx: DomainContext, type: AssignmentTarget['related_object_type'], ref: string): Promise<string> {
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

/** The full form of an assignment request; the short form (`{"voucher": code}` and the like) names the kind by its key. */
function assignmentTarget(input: AssignmentCreate): AssignmentTarget {
  if ('related_object_type' in input) return input;
  if ('voucher' in input) return { related_object_type: 'voucher', related_object_id: input.voucher };
  if ('campaign' in input) return { related_object_type: 'campaign', related_object_id: input.campaign };
  return { related_object_type: 'promotion_tier', related_object_id: input.promotion_tier };
}

export async function assignValidationRule(ctx: DomainContext, ruleId: string, request: AssignmentCreate): Promise<ValidationRuleAssignment> {
  const input = assignmentTarget(request);
  const rule = await findValidationRule(ctx, ruleId);
  const objectId = await relatedObjectId(ctx, input.related_object_type, input.related_object_id);
  const existing = await ctx.uow.validation_rule_assignments.findBy('related_object_id', objectId);
  if (existing.some((assignment) => assignment.rule_id === rule.id)) {
    throw new DomainError('duplicate', 'duplicate_found', 'Duplicated resource found', `Rule ${rule.id} is already assigned to ${objectId}`, objectId, 'validation_rules_assignment');
  }
  const assignment = await ctx.uow.validation_rule_assignments.insert({
    id: newId('asgm'),
    rule_id: rule.id,
    related_object_id: objectId,
    related_object_type: input.related_object_type,
    created_at: ctx.clock.now().toISOString(),
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
    where: (assignment) =>
      (query.rule === undefined || assignment.rule_id === query.rule) &&
      (query.related_object_id === undefined || assignment.related_object_id === query.related_object_id),
    orderBy: { field: 'created_at', direction: (query.order ?? '-created_at') === '-created_at' ? 'desc' : 'asc' },
    ...pageWindow(query),
  });
}

import {
  assignValidationRule,
  createValidationRule,
  deleteValidationRule,
  findValidationRule,
  listAssignments,
  listValidationRules,
  presentValidationRule,
  unassignValidationRule,
  updateValidationRule,
} from '../domain/validation-rules.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';
import { FRESH } from '../store/fresh.js';

type RuleOperations =
  | 'list-validation-rules'
  | 'create-validation-rules'
  | 'get-validation-rule'
  | 'update-validation-rule'
  | 'delete-validation-rules'
  | 'list-validation-rule-assignments'
  | 'create-validation-rule-assignment'
  | 'delete-validation-rule-assignment'
  | 'list-validation-rules-assignments';

export const validationRuleHandlers: HandlersOf<RuleOperations> = {
  'list-validation-rules': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listValidationRules(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'create-validation-rules': async ({ body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentValidationRule(ctx, await createValidationRule(ctx, body))),
  }),
  'get-validation-rule': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentValidationRule(ctx, await findValidationRule(ctx, path.validationRuleId))),
  }),
  'update-validation-rule': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) =>
      presentValidationRule(ctx, await updateValidationRule(ctx, path.validationRuleId, body)),
    ),
  }),
  'delete-validation-rules': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteValidationRule(ctx, path.validationRuleId));
    return { status: 204 };
  },
  'list-validation-rule-assignments': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listAssignments(ctx, { ...FRESH, ...query, rule: path.validationRuleId }));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'create-validation-rule-assignment': async ({ path, query, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => assignValidationRule(ctx, path.validationRuleId, body, { force: query.force })),
  }),
  'delete-validation-rule-assignment': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => unassignValidationRule(ctx, path.validationRuleId, path.assignmentId));
    return { status: 204 };
  },
  'list-validation-rules-assignments': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listAssignments(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
};

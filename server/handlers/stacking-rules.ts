/** A project's stacking rules, through the management API. */
import { createStackingRules, deleteStackingRules, findStackingRules, listStackingRules, updateStackingRules } from '../domain/stacking-rules.js';
import type { HandlersOf } from './types.js';
import { inManagedProject } from './unit-of-work.js';

type StackingRulesOperations = 'list-stacking-rules' | 'create-stacking-rules' | 'get-stacking-rules' | 'update-stacking-rules' | 'delete-stacking-rules';

export const stackingRulesHandlers: HandlersOf<StackingRulesOperations> = {
  'list-stacking-rules': async ({ path, services }) => {
    const data = await inManagedProject(services, path.projectId, listStackingRules);
    return { status: 200, body: { object: 'list', data_ref: 'data', data, total: data.length } };
  },
  'create-stacking-rules': async ({ path, body, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => createStackingRules(ctx, body)),
  }),
  'get-stacking-rules': async ({ path, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => findStackingRules(ctx, path.stackingRulesId)),
  }),
  'update-stacking-rules': async ({ path, body, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => updateStackingRules(ctx, path.stackingRulesId, body)),
  }),
  'delete-stacking-rules': async ({ path, services }) => {
    await inManagedProject(services, path.projectId, (ctx) => deleteStackingRules(ctx, path.stackingRulesId));
    return { status: 204 };
  },
};

import { getAsyncAction } from '../domain/async-actions.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

export const asyncActionHandlers: HandlersOf<'get-async-action'> = {
  'get-async-action': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => getAsyncAction(ctx, path.asyncActionId)),
  }),
};

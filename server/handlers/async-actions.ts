import { getAsyncAction, listAsyncActions } from '../domain/async-actions.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

export const asyncActionHandlers: HandlersOf<'get-async-action' | 'list-async-actions'> = {
  'get-async-action': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => getAsyncAction(ctx, path.asyncActionId)),
  }),
  'list-async-actions': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listAsyncActions(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'async_actions', async_actions: page.rows, has_more: page.has_more } };
  },
};

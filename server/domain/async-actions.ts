import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { newId } from './ids.js';

export type AsyncActionRecord = components['schemas']['AsyncAction'];

export async function startAsyncAction(ctx: DomainContext, type: AsyncActionRecord['type']): Promise<AsyncActionRecord> {
  return ctx.uow.async_actions.insert({
    id: newId('aa'),
    type,
    status: 'IN_PROGRESS',
    result: null,
    created_at: ctx.clock.now().toISOString(),
    updated_at: null,
    object: 'async_action',
  });
}

export async function finishAsyncAction(
  ctx: DomainContext,
  id: string,
  status: 'DONE' | 'FAILED',
  result: { message: string; count: number },
): Promise<void> {
  const action = await ctx.uow.async_actions.get(id);
  if (action) await ctx.uow.async_actions.update({ ...action, status, result, updated_at: ctx.clock.now().toISOString() });
}

export async function getAsyncAction(ctx: DomainContext, id: string): Promise<AsyncActionRecord> {
  const action = await ctx.uow.async_actions.get(id);
  if (!action) throw notFound('async_action', id);
  return action;
}

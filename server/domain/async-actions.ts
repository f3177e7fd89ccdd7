import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { newId } from './ids.js';
import { table } from '../store/schema.js';
import { timeBound } from './time-range.js';
import { FRESH } from '../store/fresh.js';
import { isoNow, isoTime } from './clock.js';

type Schemas = components['schemas'];
export type AsyncAction = Schemas['AsyncAction'];
export type AsyncActionType = Schemas['AsyncActionType'];
type AsyncActionResult = Schemas['AsyncActionResult'];

/** An async action as stored: the contract leaves every field optional, the server always keeps these. */
export interface AsyncActionRecord {
  id: string;
  type: AsyncActionType;
  status: 'ENQUEUED' | 'IN_PROGRESS' | 'DONE' | 'FAILED';
  operation_status?: 'SUCCESS' | 'FAILED';
  created_at: string;
  updated_at: string | null;
  request_id: string;
  processing_time?: number;
  progress: number;
  result: AsyncActionResult | null;
  object: 'async_action';
}

export const ASYNC_ACTIONS_TABLE = table<AsyncActionRecord>({ unique: [], indexed: [], kinds: { created_at: 'text' } });

export async function startAsyncAction(ctx: DomainContext, type: AsyncActionType, requestId: string): Promise<AsyncActionRecord> {
  return ctx.uow.async_actions.insert({
    id: newId('aa'),
    type,
    status: 'IN_PROGRESS',
    created_at: isoNow(ctx.clock),
    updated_at: null,
    request_id: requestId,
    progress: 0,
    result: null,
    object: 'async_action',
  });
}

/** Records how much of the work is done, as a whole percentage. */
export async function reportProgress(ctx: DomainContext, id: string, done: number, total: number): Promise<void> {
  const action = await ctx.uow.async_actions.get(id);
  if (!action || total <= 0) return;
  const progress = Math.min(100, Math.floor((done * 100) / total));
  if (progress !== action.progress) await ctx.uow.async_actions.update({ ...FRESH, ...action, progress, updated_at: isoNow(ctx.clock) });
}

export async function finishAsyncAction(ctx: DomainContext, id: string, status: 'DONE' | 'FAILED', result: AsyncActionResult): Promise<void> {
  const action = await ctx.uow.async_actions.get(id);
  if (!action) return;
  const now = ctx.clock.now();
  await ctx.uow.async_actions.update({
    ...FRESH,
    ...action,
    status,
    operation_status: status === 'DONE' ? 'SUCCESS' : 'FAILED',
    processing_time: Math.max(0, now.getTime() - Date.parse(action.created_at)),
    ...(status === 'DONE' && { progress: 100 }),
    result,
    updated_at: isoTime(now),
  });
}

export async function getAsyncAction(ctx: DomainContext, id: string): Promise<AsyncActionRecord> {
  const action = await ctx.uow.async_actions.get(id);
  if (!action) throw notFound('async_action', id);
  return action;
}

/**
 * The project's async actions, newest first, without their results: `limit` of them created before `end_date`
 * (when given), and whether older ones follow.
 */
export async function listAsyncActions(ctx: DomainContext, query: { limit?: number; end_date?: string }) {
  const limit = query.limit ?? 10;
  const page = await ctx.uow.async_actions.query({
    ...FRESH,
    ...(query.end_date !== undefined && { where: timeBound('lt', 'created_at', Date.parse(query.end_date)) }),
    orderBy: { field: 'created_at', direction: 'desc' },
    limit: limit + 1,
  });
  return {
    rows: page.rows.slice(0, limit).map(({ result: _result, ...action }) => action),
    has_more: page.rows.length > limit,
  };
}

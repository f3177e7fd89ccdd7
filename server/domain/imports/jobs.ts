/**
 * Imports and bulk updates in the background, each an async action. Every item (a row of a file, an object of a
 * JSON list) is made in its own unit of work through the domain function of its single operation: one that fails
 * leaves nothing behind (the unit of work is undone whole) and is reported, and the others go on. The async action
 * reports progress as it goes and, at the end, what was done and what was not, by line or position and field.
 */
import type { components } from '../../../generated/openapi.js';
import type { DomainStore } from '../schema.js';
import { finishAsyncAction, reportProgress } from '../async-actions.js';
import type { Clock } from '../clock.js';
import type { DomainContext, EventSource } from '../context.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';

type Failure = components['schemas']['AsyncActionFailure'];
type BulkError = NonNullable<components['schemas']['AsyncActionResult']['errors']>[number];

/** At most this many failures are listed in an import's result; `failed_count` counts them all. */
export const LISTED_FAILURES = 1000;

/** One thing to import: a value to make, or the reason it cannot be (found before it reached the domain). */
export interface ImportItem<T> {
  /** The line of a file, or the position (from 1) in a JSON list. */
  row: number;
  value?: T;
  problem?: { field?: string; reason: string };
  /** What names the object in a report: a voucher's code, a customer's or product's `source_id`. */
  code?: string;
  source_id?: string;
}

export interface JobScope {
  store: DomainStore;
  clock: Clock;
  projectId: string;
  asyncActionId: string;
  /** Who started the job: the events its items record carry it. */
  source?: EventSource;
}

/** The column or field a domain refusal is about, when it says (a taken code, an unknown category). */
function fieldOf(error: DomainError): string | undefined {
  if (error.kind === 'duplicate') return /with (\w+) '/.exec(error.details)?.[1];
  if (error.kind === 'not_found') return { category: 'category', campaign: 'campaign', product: 'product_id', customer: 'customer' }[error.resourceType ?? ''];
  return undefined;
}

/** Runs one item in its own unit of work; a refusal comes back as its reason, anything else is thrown. */
async function inOwnUnit(scope: JobScope, work: (ctx: DomainContext) => Promise<void>): Promise<DomainError | undefined> {
  try {
    await scope.store.transaction(scope.projectId, (uow) =>
      work({ uow, clock: scope.clock, ...(scope.source && { source: scope.source }), groupId: newId('grp') }),
    );
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

async function progress(scope: JobScope, done: number, total: number) {
  await scope.store.transaction(scope.projectId, (uow) => reportProgress({ uow, clock: scope.clock }, scope.asyncActionId, done, total));
}

/**
 * Makes each item with `make`, and ends the async action with the count made and the failures. `total` is how
 * many items there are (for progress); `noun` names them in the message.
 */
export async function importInBackground<T>(
  scope: JobScope,
  job: { items: AsyncIterable<ImportItem<T>>; total: number; noun: string; make: (ctx: DomainContext, value: T) => Promise<unknown> },
): Promise<void> {
  let done = 0;
  let seen = 0;
  const failed: Failure[] = [];
  let failedCount = 0;
  const fail = (item: ImportItem<T>, reason: string, field?: string) => {
    failedCount++;
    if (failed.length < LISTED_FAILURES) {
      failed.push({
        row: item.row,
        ...(field !== undefined && { field }),
        ...(item.code !== undefined && { code: item.code }),
        ...(item.source_id !== undefined && { source_id: item.source_id }),
        reason,
      });
    }
  };
  try {
    for await (const item of job.items) {
      seen++;
      if (item.problem || item.value === undefined) fail(item, item.problem?.reason ?? 'nothing to import', item.problem?.field);
      else {
        const value = item.value;
        const refused = await inOwnUnit(scope, async (ctx) => {
          await job.make(ctx, value);
        });
        if (refused) fail(item, refused.details || refused.message, fieldOf(refused));
        else done++;
      }
      if (seen % 100 === 0) await progress(scope, seen, job.total);
    }
    await scope.store.transaction(scope.projectId, (uow) =>
      finishAsyncAction({ uow, clock: scope.clock }, scope.asyncActionId, 'DONE', {
        message: `Imported ${done} of ${seen} ${job.noun}${failedCount > 0 ? `; ${failedCount} could not be imported` : ''}`,
        done_count: done,
        failed_count: failedCount,
        failed,
      }),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await scope.store.transaction(scope.projectId, (uow) =>
      finishAsyncAction({ uow, clock: scope.clock }, scope.asyncActionId, 'FAILED', {
        message: `Stopped after ${seen} ${job.noun}: ${reason}`,
        done_count: done,
        failed_count: failedCount,
        failed,
      }),
    );
  }
}

/** One object of a bulk update, named by its code or `source_id`. */
export interface BulkItem<T> {
  code?: string;
  source_id?: string;
  value: T;
}

/** Applies `update` to each item, each in its own unit of work, and ends the async action with the count and the errors. */
export async function bulkInBackground<T>(scope: JobScope, job: { items: BulkItem<T>[]; update: (ctx: DomainContext, item: BulkItem<T>) => Promise<unknown> }): Promise<void> {
  let done = 0;
  const errors: BulkError[] = [];
  try {
    for (const [index, item] of job.items.entries()) {
      const refused = await inOwnUnit(scope, async (ctx) => {
        await job.update(ctx, item);
      });
      if (refused) {
        errors.push({
          key: refused.key,
          message: refused.message,
          details: refused.details,
          ...(item.code !== undefined && { code: item.code }),
          ...(item.source_id !== undefined && { source_id: item.source_id }),
        });
      } else done++;
      if ((index + 1) % 100 === 0) await progress(scope, index + 1, job.items.length);
    }
    await scope.store.transaction(scope.projectId, (uow) =>
      finishAsyncAction({ uow, clock: scope.clock }, scope.asyncActionId, 'DONE', { done_count: done, failed_count: errors.length, reports: [], errors }),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await scope.store.transaction(scope.projectId, (uow) =>
      finishAsyncAction({ uow, clock: scope.clock }, scope.asyncActionId, 'FAILED', { message: reason, done_count: done, failed_count: errors.length, reports: [], errors }),
    );
  }
}

/** Metadata with the given keys set over the current ones; a null value removes its key. */
export function mergedMetadata(current: Record<string, unknown> | null | undefined, changes: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

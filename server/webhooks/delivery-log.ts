/**
 * The delivery log's retention. Settled deliveries (DELIVERED, FAILED) are kept for the log while they are
 * younger than `keepSettledMs` and among the newest `keepSettledPerProject` of their project; the rest are
 * removed, oldest first, in units of work of at most PRUNE_BATCH rows so that a project's requests never wait
 * long behind it. PENDING deliveries are never touched. Rows are read through the `status` index in insertion
 * order, which is the order they were made in, so neither the PENDING rows nor the whole table are read.
 */
import type { DomainStore } from '../domain/schema.js';
import type { WebhookDeliveryRow } from '../domain/management/webhooks.js';
import { UnknownProject } from '../store/store.js';

const SETTLED = ['DELIVERED', 'FAILED'] as const;
/** Rows removed in one unit of work. */
export const PRUNE_BATCH = 500;

export interface LogRetention {
  keepSettledMs: number;
  keepSettledPerProject: number;
}

/**
 * Removes the settled deliveries of one project past the retention; returns how many. `nowMs` is the
 * clock's time, against which a row's `created_at` is aged.
 */
export async function pruneProjectLog(store: DomainStore, projectId: string, retention: LogRetention, nowMs: number): Promise<number> {
  const cutoff = new Date(nowMs - retention.keepSettledMs).toISOString();
  let removed = 0;
  for (;;) {
    const count = await store.transaction(projectId, async (uow) => {
      const table = uow.webhook_deliveries;
      const settled = (await Promise.all(SETTLED.map((status) => table.countBy('status', status)))).reduce((sum, each) => sum + each, 0);
      const excess = Math.max(0, settled - retention.keepSettledPerProject);
      // The oldest batch of each status, merged by age, holds the oldest batch of both: of those, the first
      // `excess` go whatever their age, the rest while older than the cutoff.
      const oldest: WebhookDeliveryRow[] = [];
      for (const status of SETTLED) oldest.push(...(await table.query({ index: { field: 'status', value: status }, limit: PRUNE_BATCH })).rows);
      oldest.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
      const doomed = oldest.filter((row, place) => place < excess || row.created_at < cutoff).slice(0, PRUNE_BATCH);
      for (const row of doomed) await table.delete(row.id);
      return doomed.length;
    });
    removed += count;
    if (count < PRUNE_BATCH) return removed;
  }
}

/** Prunes every project's log; a project deleted meanwhile is skipped. Returns the rows removed. */
export async function pruneDeliveryLog(store: DomainStore, retention: LogRetention, nowMs: number): Promise<number> {
  let removed = 0;
  for (const projectId of await store.projectIds()) {
    try {
      removed += await pruneProjectLog(store, projectId, retention, nowMs);
    } catch (error) {
      if (!(error instanceof UnknownProject)) throw error;
    }
  }
  return removed;
}

/**
 * Settles time-driven loyalty work (pending points that fall due, points that expire) in every project
 * on a timer, so it happens on its day even when no request arrives. Requests settle their own project
 * first as well, so what they read is always current.
 *
 * Every server instance runs the timer. A project's settling is claimed first (Store.exclusively, shared by
 * every instance on one database): while one instance settles a project, another skips it rather than wait
 * and settle it again right after; alone, an instance settles every project.
 */
import type { Clock } from './domain/clock.js';
import { settleLoyalty } from './domain/loyalty/settle.js';
import type { DomainStore } from './domain/schema.js';
import { projectClock } from './domain/test-clock.js';

/** Settles every project no other instance is settling; says how many it settled and skipped. */
/**
 * With `testClocks`, a project whose test clock is frozen is settled up to its frozen time only (advancing the
 * clock settles the rest).
 */
export async function settleAllProjects(store: DomainStore, clock: Clock, testClocks = false): Promise<{ settled: number; skipped: number }> {
  let settled = 0;
  let skipped = 0;
  for (const projectId of await store.projectIds()) {
    const { ran } = await store.exclusively(`loyalty-settling:${projectId}`, () => store.transaction(projectId, async (uow) => settleLoyalty({ uow, clock: testClocks ? await projectClock(uow, clock) : clock })));
    if (ran) settled++;
    else skipped++;
  }
  return { settled, skipped };
}

/** Starts settling every `intervalMs`; returns the function that stops it. */
export function startLoyaltyTimer(store: DomainStore, clock: Clock, intervalMs: number, testClocks = false): () => void {
  const timer = setInterval(() => {
    settleAllProjects(store, clock, testClocks).catch((error: unknown) => console.error('loyalty settling failed:', error));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Settles time-driven loyalty work (pending points that fall due, points that expire) in every project
 * on a timer, so it happens on its day even when no request arrives. Requests settle their own project
 * first as well, so what they read is always current.
 */
import type { Clock } from './domain/clock.js';
import { settleLoyalty } from './domain/loyalty/settle.js';
import type { DomainStore } from './domain/schema.js';

export async function settleAllProjects(store: DomainStore, clock: Clock): Promise<void> {
  for (const projectId of await store.projectIds()) {
    await store.transaction(projectId, (uow) => settleLoyalty({ uow, clock }));
  }
}

/** Starts settling every `intervalMs`; returns the function that stops it. */
export function startLoyaltyTimer(store: DomainStore, clock: Clock, intervalMs: number): () => void {
  const timer = setInterval(() => {
    settleAllProjects(store, clock).catch((error: unknown) => console.error('loyalty settling failed:', error));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

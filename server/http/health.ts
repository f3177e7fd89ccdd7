/**
 * Probes for whatever runs the server (an orchestrator, a load balancer, a supervisor), without keys:
 * `GET /healthz` answers while the process does, and `GET /readyz` only while the server should get traffic:
 * its store answers, and it is not stopping. From SIGTERM on, through the grace period in which requests in
 * flight finish, `/readyz` answers 503, so a balancer still probing on an open connection takes it out.
 */
import { Router } from 'express';
import type { DomainStore } from '../domain/schema.js';
import { sendError } from './errors.js';
import { nameOperation } from './request-facts.js';

/** How long the store has to answer a readiness probe; probes usually give up after a second or a few. */
const STORE_PROBE_MS = 1000;

export class Readiness {
  private stopping = false;

  /** `probe` is a cheap read that only a working store answers. */
  constructor(private readonly probe: () => Promise<unknown>) {}

  /** From now on the server is not ready: it is stopping. */
  stop(): void {
    this.stopping = true;
  }

  /** Why the server is not ready, or undefined when it is. */
  async notReady(): Promise<string | undefined> {
    if (this.stopping) return 'The server is shutting down';
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STORE_PROBE_MS)));
    try {
      const answer = await Promise.race([this.probe().then(() => 'answered' as const), late]);
      return answer === 'late' ? `The store did not answer within ${STORE_PROBE_MS} ms` : undefined;
    } catch (error) {
      return `The store failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The store answers when it can say whether the organization's partition (made at start) is there. */
export function storeProbe(store: DomainStore, partition: string): () => Promise<unknown> {
  return async () => {
    if (!(await store.hasProject(partition))) throw new Error(`the partition ${partition} is missing`);
  };
}

export function healthRoutes(readiness: Readiness): Router {
  const router = Router();
  router.get('/healthz', nameOperation('healthz'), (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', nameOperation('readyz'), async (_req, res) => {
    const why = await readiness.notReady();
    res.set('Cache-Control', 'no-store');
    if (why) return sendError(res, 503, 'not_ready', 'Service Unavailable', why);
    res.json({ status: 'ready' });
  });
  return router;
}

/**
 * This instance's side of the leases on background jobs (domain/background-jobs.ts). Jobs started here are held:
 * their leases are renewed on a timer while they run, and let go when they end. The same timer claims the jobs
 * whose lease lapsed on every project (their instance died): a generation resumes here from its progress, an
 * import or an export is ended with the reason. A job that is claimed by two instances at once is not possible:
 * the claim is a read and a write in one unit of work, under the project's lock.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DEFAULT_JOB_LEASE_MS } from './config.js';
import type { Clock } from './domain/clock.js';
import { claimLapsedJobs, endCutOffJob, endJob, renewLeases, type Lease } from './domain/background-jobs.js';
import { generateInBackground } from './domain/generation.js';
import type { DomainStore } from './domain/schema.js';
import type { Jobs } from './jobs.js';

export class JobLeases {
  readonly lease: Lease;
  /** The jobs running here, by project. */
  private readonly held = new Map<string, Set<string>>();

  constructor(
    private readonly store: DomainStore,
    private readonly clock: Clock,
    private readonly jobs: Jobs,
    ms = DEFAULT_JOB_LEASE_MS,
  ) {
    this.lease = { owner: `${hostname()}/${process.pid}/${randomUUID()}`, ms, clock };
  }

  /** Runs a job whose lease row was written (to this instance), renewing the lease until it ends. */
  run(projectId: string, jobId: string, name: string, work: () => Promise<void>): void {
    const ids = this.held.get(projectId) ?? new Set<string>();
    this.held.set(projectId, ids.add(jobId));
    this.jobs.start(name, async () => {
      try {
        await work();
      } finally {
        ids.delete(jobId);
        if (ids.size === 0 && this.held.get(projectId) === ids) this.held.delete(projectId);
        await this.store.transaction(projectId, (uow) => endJob({ uow, clock: this.clock }, jobId, this.lease.owner));
      }
    });
  }

  /** Runs a generation job held by this instance. */
  generate(projectId: string, jobId: string): void {
    this.run(projectId, jobId, `generation ${jobId}`, () => generateInBackground(this.store, this.clock, projectId, jobId, this.lease.owner));
  }

  /** Renews the leases of the jobs running here, then takes over those whose instance died. */
  async tick(): Promise<void> {
    for (const [projectId, ids] of this.held) {
      await this.store.transaction(projectId, (uow) => renewLeases({ uow, clock: this.clock }, [...ids], this.lease));
    }
    for (const projectId of await this.store.projectIds()) {
      const resumed = await this.store.transaction(projectId, async (uow) => {
        const ctx = { uow, clock: this.clock };
        const claimed = await claimLapsedJobs(ctx, this.lease);
        for (const job of claimed) if (job.kind !== 'generation') await endCutOffJob(ctx, job);
        return claimed.filter((job) => job.kind === 'generation');
      });
      for (const job of resumed) this.generate(projectId, job.id);
    }
  }

  /** Ticks now (jobs cut off by this instance's own last stop resume at once) and then every third of a lease. */
  start(onError: (error: unknown) => void): () => void {
    let running: Promise<void> | undefined;
    const tick = () => {
      running ??= this.tick()
        .catch(onError)
        .finally(() => (running = undefined));
    };
    tick();
    const timer = setInterval(tick, Math.max(1, Math.floor(this.lease.ms / 3)));
    timer.unref();
    return () => clearInterval(timer);
  }
}

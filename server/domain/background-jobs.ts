/**
 * Background work under a lease. Each job that outlives its request (generating vouchers, an import, an export)
 * has a row here, written in the unit of work that starts it, naming the server instance that runs it and until
 * when (`lease_until`). The instance renews its leases while it lives (server/job-leases.ts); when one lapses, the
 * instance died, and whichever instance claims the row first takes the job over: a generation resumes from the
 * progress its last batch wrote, an import or an export, which cannot resume, is marked failed with the reason.
 * The row is deleted when the job ends.
 */
import type { components } from '../../generated/openapi.js';
import { compare } from '../store/conditions.js';
import { table } from '../store/schema.js';
import { finishAsyncAction } from './async-actions.js';
import type { Clock } from './clock.js';
import type { DomainContext } from './context.js';
import { deleteChunks } from './exports/chunks.js';
import { setExportStatus } from './exports/exports.js';
import { FRESH } from '../store/fresh.js';

export type JobKind = 'generation' | 'import' | 'export';

/** What a generation needs to go on where it stopped. */
export interface GenerationState {
  campaign_id: string;
  count: number;
  /** Vouchers made so far: written in the unit of work of each batch, with the batch. */
  done: number;
  input: components['schemas']['CampaignsVouchersCreateRequestBody'];
  /** Vouchers a batch makes (GENERATION_BATCH when absent, as in jobs recorded before it was kept). */
  batch?: number;
}

export interface BackgroundJobRecord {
  /** The async action's ID (a generation, an import) or the export's. */
  id: string;
  kind: JobKind;
  lease_owner: string;
  /** Milliseconds since the epoch. */
  lease_until: number;
  generation: GenerationState | null;
}

export const BACKGROUND_JOBS_TABLE = table<BackgroundJobRecord>({ unique: [], indexed: [], kinds: { lease_until: 'number' } });

export interface Lease {
  owner: string;
  ms: number;
  /**
   * The server's own clock, for when a lease ends: leases are real time between instances, whatever a
   * project's test clock says (a lease written at a frozen time in the past had lapsed at once, and was taken
   * over while its job ran). The unit of work's clock when not given.
   */
  clock?: Clock;
}

export function newJob(ctx: DomainContext, lease: Lease, id: string, kind: JobKind, generation: GenerationState | null = null): Promise<BackgroundJobRecord> {
  return ctx.uow.background_jobs.insert({ id, kind, lease_owner: lease.owner, lease_until: (lease.clock ?? ctx.clock).now().getTime() + lease.ms, generation });
}

/** The job, while `owner` holds it; undefined when it ended or another instance took it over. */
export async function heldJob(ctx: DomainContext, id: string, owner: string): Promise<BackgroundJobRecord | undefined> {
  const job = await ctx.uow.background_jobs.get(id);
  return job?.lease_owner === owner ? job : undefined;
}

/** Extends the leases `owner` still holds among `ids`. */
export async function renewLeases(ctx: DomainContext, ids: Iterable<string>, lease: Lease): Promise<void> {
  const until = ctx.clock.now().getTime() + lease.ms;
  for (const id of ids) {
    const job = await heldJob(ctx, id, lease.owner);
    if (job) await ctx.uow.background_jobs.update({ ...FRESH, ...job, lease_until: until });
  }
}

/** Takes over the project's jobs whose lease lapsed: their instance died. */
export async function claimLapsedJobs(ctx: DomainContext, lease: Lease): Promise<BackgroundJobRecord[]> {
  const now = ctx.clock.now().getTime();
  const { rows } = await ctx.uow.background_jobs.query({ where: compare('lt', 'lease_until', now) });
  const claimed: BackgroundJobRecord[] = [];
  for (const job of rows) claimed.push(await ctx.uow.background_jobs.update({ ...FRESH, ...job, lease_owner: lease.owner, lease_until: now + lease.ms }));
  return claimed;
}

/** Ends the job's lease (it finished), unless another instance took it over. */
export async function endJob(ctx: DomainContext, id: string, owner: string): Promise<void> {
  if (await heldJob(ctx, id, owner)) await ctx.uow.background_jobs.delete(id);
}

/**
 * Ends a job taken over from a dead instance that cannot resume: an import's items so far stay made (each was its
 * own unit of work) and its async action fails with the reason; an export's half-written file is dropped and the
 * export ends in ERROR. A job that had in fact ended (its instance died before it let go of the lease) is let go.
 */
export async function endCutOffJob(ctx: DomainContext, job: BackgroundJobRecord): Promise<void> {
  const reason = 'the server instance running it stopped before it ended';
  if (job.kind === 'import') {
    const action = await ctx.uow.async_actions.get(job.id);
    if (action?.status === 'IN_PROGRESS') await finishAsyncAction(ctx, job.id, 'FAILED', { message: `Cut off: ${reason}; the items done before were kept` });
  } else if (job.kind === 'export') {
    const record = await ctx.uow.exports.get(job.id);
    if (record && record.status !== 'DONE' && record.status !== 'ERROR') {
      while ((await deleteChunks(ctx, job.id)) > 0);
      await setExportStatus(ctx, job.id, 'ERROR', `Cut off: ${reason}`);
    }
  }
  await ctx.uow.background_jobs.delete(job.id);
}

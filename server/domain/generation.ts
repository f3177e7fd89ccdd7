/**
 * Generation of many vouchers in the background: batches, each its own unit of work, so requests keep
 * being served while it runs. The campaign's `vouchers_generation_status` and the async action report
 * progress.
 *
 * The job's state is its row in background_jobs (background-jobs.ts): each batch's unit of work makes the
 * vouchers, adds them to `done` and checks that this instance still holds the job, all at once. So a crash
 * loses at most the batch that was not committed, and whichever instance takes the job over makes exactly the
 * vouchers still missing: never one twice, never one too few.
 */
import type { components } from '../../generated/openapi.js';
import type { DomainStore } from './schema.js';
import { finishAsyncAction, reportProgress } from './async-actions.js';
import { heldJob, newJob, type Lease } from './background-jobs.js';
import { setGenerationStatus } from './campaigns.js';
import type { Clock } from './clock.js';
import type { DomainContext } from './context.js';
import { projectClock } from './test-clock.js';
import { generateCampaignVouchers } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

export const GENERATION_BATCH = 500;

/**
 * Records a generation job, in the unit of work that made its async action. Its batch size is kept with it, so
 * whichever instance takes it over makes batches of the same size.
 */
export function scheduleGeneration(
  ctx: DomainContext,
  lease: Lease,
  job: { campaignId: string; count: number; asyncActionId: string; input: components['schemas']['CampaignsVouchersCreateRequestBody']; batch?: number },
): Promise<unknown> {
  const batch = job.batch ?? GENERATION_BATCH;
  return newJob(ctx, lease, job.asyncActionId, 'generation', { campaign_id: job.campaignId, count: job.count, done: 0, input: job.input, batch });
}

async function fail(ctx: DomainContext, jobId: string, campaignId: string, made: number, reason: string): Promise<void> {
  await setGenerationStatus(ctx, campaignId, 'FAILED');
  await finishAsyncAction(ctx, jobId, 'FAILED', { message: `Stopped after ${made} vouchers: ${reason}`, done_count: made });
  await ctx.uow.background_jobs.delete(jobId);
}

/**
 * Makes the vouchers a generation job still misses, batch by batch, while `owner` holds the job; stops
 * without a word when another instance took it over.
 */
export async function generateInBackground(store: DomainStore, clock: Clock, projectId: string, jobId: string, owner: string): Promise<void> {
  try {
    for (;;) {
      const more = await store.transaction(projectId, async (uow) => {
        // What the batch makes carries the project's time: its test clock's while frozen.
        const ctx = { uow, clock: await projectClock(uow, clock) };
        const job = await heldJob(ctx, jobId, owner);
        if (!job?.generation) return false;
        const state = job.generation;
        const campaign = await uow.campaigns.get(state.campaign_id);
        if (!campaign) {
          await fail(ctx, jobId, state.campaign_id, state.done, `campaign ${state.campaign_id} was deleted during generation`);
          return false;
        }
        const batch = Math.min(state.batch ?? GENERATION_BATCH, state.count - state.done);
        if (batch > 0) await generateCampaignVouchers(ctx, campaign, state.input, batch);
        const done = state.done + batch;
        if (done >= state.count) {
          await setGenerationStatus(ctx, state.campaign_id, 'DONE');
          await finishAsyncAction(ctx, jobId, 'DONE', { message: `Generated ${done} vouchers`, done_count: done });
          await uow.background_jobs.delete(jobId);
          return false;
        }
        await uow.background_jobs.update({ ...FRESH, ...job, generation: { ...FRESH, ...state, done } });
        await reportProgress(ctx, jobId, done, state.count);
        return true;
      });
      if (!more) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await store.transaction(projectId, async (uow) => {
      const ctx = { uow, clock };
      const job = await heldJob(ctx, jobId, owner);
      if (job?.generation) await fail(ctx, jobId, job.generation.campaign_id, job.generation.done, reason);
    });
  }
}

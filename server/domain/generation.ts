/**
 * Generation of many vouchers in the background: batches, each its own unit of work, so requests keep
 * being served while it runs. The campaign's `vouchers_generation_status` and the async action report
 * progress.
 */
import type { components } from '../../generated/openapi.js';
import type { DomainStore } from './schema.js';
import { finishAsyncAction, reportProgress } from './async-actions.js';
import { setGenerationStatus } from './campaigns.js';
import type { Clock } from './clock.js';
import { generateCampaignVouchers } from './vouchers.js';

export const GENERATION_BATCH = 500;

export async function generateInBackground(
  store: DomainStore,
  clock: Clock,
  projectId: string,
  job: { campaignId: string; count: number; asyncActionId: string; input: components['schemas']['CampaignsVouchersCreateRequestBody'] },
): Promise<void> {
  let made = 0;
  try {
    while (made < job.count) {
      const batch = Math.min(GENERATION_BATCH, job.count - made);
      const stillThere = await store.transaction(projectId, async (uow) => {
        const campaign = await uow.campaigns.get(job.campaignId);
        if (!campaign) return false;
        await generateCampaignVouchers({ uow, clock }, campaign, job.input, batch);
        return true;
      });
      if (!stillThere) throw new Error(`campaign ${job.campaignId} was deleted during generation`);
      made += batch;
      if (made < job.count) await store.transaction(projectId, (uow) => reportProgress({ uow, clock }, job.asyncActionId, made, job.count));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await store.transaction(projectId, async (uow) => {
      await setGenerationStatus({ uow, clock }, job.campaignId, 'DONE');
      await finishAsyncAction({ uow, clock }, job.asyncActionId, 'DONE', { message: `Generated ${made} vouchers`, done_count: made });
    });
  } catch (error) {
    await store.transaction(projectId, async (uow) => {
      await setGenerationStatus({ uow, clock }, job.campaignId, 'FAILED');
      const reason = error instanceof Error ? error.message : String(error);
      await finishAsyncAction({ uow, clock }, job.asyncActionId, 'FAILED', { message: `Stopped after ${made} vouchers: ${reason}`, done_count: made });
    });
  }
}

/**
 * A campaign's deletion as the public API runs it: accepted with an async action (`CAMPAIGN.VOUCHERS_DELETE`) and
 * carried out in the background, in one unit of work, so the campaign and its vouchers go together or not at all.
 */
import { finishAsyncAction, startAsyncAction } from './async-actions.js';
import { newJob, type Lease } from './background-jobs.js';
import { findCampaign } from './campaign-lookup.js';
import { deleteCampaign } from './campaigns.js';
import type { DomainContext } from './context.js';
import { DomainError } from './errors.js';
import { newId } from './ids.js';
import type { JobScope } from './imports/jobs.js';

/** Checks the campaign exists (404 at once otherwise) and starts the async action and its job; the campaign's ID and the action's. */
export async function acceptCampaignDeletion(ctx: DomainContext, ref: string, lease: Lease, requestId: string): Promise<{ campaignId: string; asyncActionId: string }> {
  const campaign = await findCampaign(ctx, ref);
  const action = await startAsyncAction(ctx, 'CAMPAIGN.VOUCHERS_DELETE', requestId);
  await newJob(ctx, lease, action.id, 'import');
  return { campaignId: campaign.id, asyncActionId: action.id };
}

/** Deletes the campaign and ends the async action: DONE with the vouchers deleted, or FAILED with the reason. */
export async function deleteCampaignInBackground(scope: JobScope, campaignId: string, options: { force?: boolean }): Promise<void> {
  try {
    await scope.store.transaction(scope.projectId, async (uow) => {
      const ctx = { uow, clock: scope.clock, ...(scope.source && { source: scope.source }), groupId: newId('grp') };
      const count = await deleteCampaign(ctx, campaignId, options);
      await finishAsyncAction(ctx, scope.asyncActionId, 'DONE', { message: `Deleted the campaign and its ${count} voucher(s)`, done_count: count });
    });
  } catch (error) {
    // A campaign deleted meanwhile by another request is a refusal to report, like any other.
    const reason = error instanceof DomainError ? error.details : error instanceof Error ? error.message : String(error);
    await scope.store.transaction(scope.projectId, (uow) => finishAsyncAction({ uow, clock: scope.clock }, scope.asyncActionId, 'FAILED', { message: reason, done_count: 0 }));
  }
}

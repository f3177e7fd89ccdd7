import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { evaluate } from './engine.js';
import { recordEvent } from './events.js';

/** Checks the redeemables without changing anything, and records each verdict for the campaign summaries. */
export async function validate(ctx: DomainContext, request: components['schemas']['ValidationsValidateRequestBody']) {
  const evaluation = await evaluate(ctx, request);
  for (const verdict of [...evaluation.redeemables, ...evaluation.inapplicable]) {
    if (!verdict.campaign_id) continue;
    const succeeded = evaluation.valid && verdict.status === 'APPLICABLE';
    await recordEvent(
      ctx,
      succeeded ? 'validation.succeeded' : 'validation.failed',
      { campaign_id: verdict.campaign_id, customer_id: evaluation.customerId },
      { redeemable: { id: verdict.id, object: verdict.object }, status: verdict.status, ...(verdict.result.error && { error: verdict.result.error.key }) },
    );
  }
  return {
    valid: evaluation.valid,
    redeemables: evaluation.redeemables,
    inapplicable_redeemables: evaluation.inapplicable,
    order: evaluation.order,
    tracking_id: evaluation.trackingId,
    object: 'validation' as const,
  };
}

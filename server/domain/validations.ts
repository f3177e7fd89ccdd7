import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { evaluate } from './engine.js';
import { recordEvent } from './events.js';
import { randomHex } from './ids.js';
import { presentStackingRules } from './stacking-rules.js';

type Schemas = components['schemas'];

/**
 * The session a validation answers with: the one the request named, with the public API's defaults for
 * what it left out (a new key, seven days). Nothing is reserved under it; see RedemptionSession.
 */
function sessionOf(given: Schemas['RedemptionSession'] | undefined): Schemas['RedemptionSession'] | undefined {
  if (!given) return undefined;
  return { key: given.key ?? `ssn_${randomHex(16)}`, type: 'LOCK', ttl: given.ttl ?? 7, ttl_unit: given.ttl_unit ?? 'DAYS' };
}

/** Checks the redeemables without changing anything, and records each verdict for the campaign summaries. */
export async function validate(ctx: DomainContext, request: Schemas['ValidationsValidateRequestBody']): Promise<Schemas['ValidationsValidateResponseBody']> {
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
  const session = sessionOf(request.session);
  return {
    valid: evaluation.valid,
    redeemables: evaluation.redeemables,
    // The public API leaves these lists out when they are empty.
    ...(evaluation.skipped.length > 0 && { skipped_redeemables: evaluation.skipped }),
    ...(evaluation.inapplicable.length > 0 && { inapplicable_redeemables: evaluation.inapplicable }),
    order: evaluation.order,
    tracking_id: evaluation.trackingId,
    ...(session && { session }),
    stacking_rules: presentStackingRules(evaluation.stackingRules),
    object: 'validation',
  };
}

import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { evaluate, type Evaluation } from './engine.js';
import { recordEvent } from './events.js';
import { holdApplied, sessionOf } from './sessions.js';
import { presentStackingRules } from './stacking-rules.js';
import { FRESH } from '../store/fresh.js';

type Schemas = components['schemas'];

/**
 * Checks the redeemables without changing them, records each verdict for the campaign summaries and, when
 * the request has a `LOCK` session and is valid, holds what it found under the session.
 */
export async function validate(ctx: DomainContext, request: Schemas['ValidationsValidateRequestBody']): Promise<Schemas['ValidationsValidateResponseBody']> {
  return (await validation(ctx, request)).response;
}

/** A validation, with the engine's evaluation behind its answer (the deprecated single-object operations read both). */
export async function validation(
  ctx: DomainContext,
  request: Schemas['ValidationsValidateRequestBody'],
): Promise<{ response: Schemas['ValidationsValidateResponseBody']; evaluation: Evaluation }> {
  const session = sessionOf(request.session);
  // The engine runs under the session's key, made up here when the request gave none.
  const evaluation = await evaluate(ctx, session ? { ...FRESH, ...request, session } : request);
  // An invalid request lists its inapplicable redeemables among the others too: each verdict is recorded once.
  for (const verdict of new Set([...evaluation.redeemables, ...evaluation.inapplicable])) {
    if (!verdict.campaign_id) continue;
    const succeeded = evaluation.valid && verdict.status === 'APPLICABLE';
    await recordEvent(
      ctx,
      succeeded ? 'validation.succeeded' : 'validation.failed',
      { campaign_id: verdict.campaign_id, customer_id: evaluation.customerId },
      { redeemable: { id: verdict.id, object: verdict.object }, status: verdict.status, ...(verdict.result.error && { error: verdict.result.error.key }) },
    );
  }
  let redeemables = evaluation.redeemables;
  if (session && evaluation.valid) {
    const held = await holdApplied(ctx, session, evaluation.applied);
    // A gift card's verdict says how much of its credit the session now holds.
    redeemables = redeemables.map((verdict) => {
      const voucherId = evaluation.applied.find((entry) => entry.voucher?.code === verdict.id && verdict.object === 'voucher')?.voucher?.id;
      const lock = voucherId ? held.get(voucherId) : undefined;
      if (!lock || !verdict.result.gift) return verdict;
      return { ...FRESH, ...verdict, result: { ...FRESH, ...verdict.result, gift: { ...FRESH, ...verdict.result.gift, locked_credits: lock.credits } } };
    });
  }
  const response: Schemas['ValidationsValidateResponseBody'] = {
    valid: evaluation.valid,
    redeemables,
    // The public API leaves these lists out when they are empty.
    ...(evaluation.skipped.length > 0 && { skipped_redeemables: evaluation.skipped }),
    ...(evaluation.inapplicable.length > 0 && { inapplicable_redeemables: evaluation.inapplicable }),
    order: evaluation.order,
    tracking_id: evaluation.trackingId,
    ...(session && { session }),
    stacking_rules: presentStackingRules(evaluation.stackingRules),
    object: 'validation',
  };
  return { response, evaluation };
}

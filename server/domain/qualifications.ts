import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { evaluate } from './engine.js';

type Schemas = components['schemas'];
type Request = Schemas['QualificationsCheckEligibilityRequestBody'];
type Redeemable = Schemas['RedeemableRequest'];

/** Checks each candidate on its own and keeps those that would apply. */
export async function checkEligibility(ctx: DomainContext, request: Request) {
  const scenario = request.scenario ?? 'ALL';
  const customer = request.customer?.id
    ? await ctx.uow.customers.get(request.customer.id)
    : request.customer?.source_id
      ? await ctx.uow.customers.getBy('source_id', request.customer.source_id)
      : undefined;
  const candidates: Redeemable[] = [];
  if (scenario !== 'CUSTOMER_WALLET') {
    const tiers = (await ctx.uow.promotion_tiers.query({ orderBy: { field: 'hierarchy', direction: 'asc' } })).rows;
    candidates.push(...tiers.map((tier) => ({ object: 'promotion_tier' as const, id: tier.id })));
  }
  if (scenario !== 'AUDIENCE_ONLY' && customer) {
    const held = await ctx.uow.vouchers.findBy('holder_id', customer.id);
    candidates.push(...held.map((voucher) => ({ object: 'voucher' as const, id: voucher.code })));
  }
  const qualifying = [];
  for (const candidate of candidates) {
    const evaluation = await evaluate(ctx, { redeemables: [candidate], ...(request.order && { order: request.order }), ...(request.customer && { customer: request.customer }) });
    if (evaluation.valid) qualifying.push(evaluation.redeemables[0]!);
  }
  const limit = request.options?.limit ?? 5;
  // With nothing to apply, the engine just prices the order and identifies the customer.
  const base = await evaluate(ctx, { redeemables: [], ...(request.order && { order: request.order }), ...(request.customer && { customer: request.customer }) });
  return {
    redeemables: { object: 'list' as const, data_ref: 'data' as const, data: qualifying.slice(0, limit), total: qualifying.length, has_more: qualifying.length > limit },
    tracking_id: base.trackingId,
    order: base.order,
    object: 'qualification' as const,
  };
}

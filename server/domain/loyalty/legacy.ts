/**
 * What only the public API's deprecated loyalty operations show: a card's points by expiry, and the points an
 * order would earn. Both read the engine's own state and rules (the card's buckets, the earning rules).
 */
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { readLines } from '../order-lines.js';
import { findOrder, type Order } from '../orders.js';
import { pageWindow, type PageRequest } from '../pagination.js';
import type { VoucherRecord } from '../vouchers.js';
import { presentBucket } from './buckets.js';
import { cardState } from './cards.js';
import { estimateOrderPoints } from './earning.js';
import { findProgram } from './programs.js';
import { isoNow } from '../clock.js';

type Schemas = components['schemas'];
type EstimateRequest = Schemas['LoyaltiesQualificationsRequestBody'];

/** The card's points that will expire, one bucket per expiry day, soonest first; points that never expire are left out. */
export async function pointsExpiration(ctx: DomainContext, card: VoucherRecord, query: PageRequest) {
  const state = await cardState(ctx, card);
  const dated = state.buckets
    .filter((bucket): bucket is typeof bucket & { expires_on: string } => bucket.expires_on !== null && bucket.points > 0)
    .sort((a, b) => a.expires_on.localeCompare(b.expires_on));
  const window = pageWindow(query);
  const rows = dated.slice(window.offset, window.offset + window.limit).map((bucket) => presentBucket(card, state, bucket, 'ACTIVE'));
  return { rows, total: dated.length };
}

/** The order an estimate is for: the stored one it names, else one made (not stored) from the request. */
async function draftOrder(ctx: DomainContext, input: EstimateRequest['order']): Promise<Order> {
  const named = input.id ?? input.source_id ?? undefined;
  const hasOwnData = input.amount !== undefined || input.items !== undefined;
  if (named !== undefined && !hasOwnData) return findOrder(ctx, named);
  const lines = await readLines(ctx, input.items);
  const amount = input.amount ?? lines.reduce((sum, line) => sum + line.amount, 0);
  const now = isoNow(ctx.clock);
  return {
    id: input.id ?? 'ord_estimate',
    source_id: input.source_id ?? null,
    status: 'PAID',
    amount,
    initial_amount: amount,
    discount_amount: 0,
    items_discount_amount: 0,
    total_discount_amount: 0,
    total_amount: amount,
    items: lines.map((line, index) => ({
      id: `ordli_estimate_${index}`,
      product_id: line.product_id,
      sku_id: line.sku_id,
      ...(line.metadata && { metadata: line.metadata }),
      quantity: line.quantity,
      price: line.price,
      amount: line.amount,
      initial_quantity: line.initial_quantity,
      initial_amount: line.initial_amount,
      discount_quantity: 0,
      discount_amount: 0,
      object: 'order_item' as const,
    })),
    metadata: input.metadata ?? {},
    customer_id: null,
    referrer_id: null,
    redemptions: {},
    created_at: now,
    updated_at: null,
    object: 'order',
  };
}

/** The points an order would earn in the program when paid, for the customer given (known or not). */
export async function estimatePoints(ctx: DomainContext, campaignRef: string, input: EstimateRequest) {
  const program = await findProgram(ctx, campaignRef);
  const ref = input.customer.id ?? input.customer.source_id;
  const stored = ref ? ((await ctx.uow.customers.get(ref)) ?? (await ctx.uow.customers.getBy('source_id', ref))) : undefined;
  const order = await draftOrder(ctx, input.order);
  const points = await estimateOrderPoints(ctx, program.id, order, {
    id: stored?.id ?? null,
    metadata: input.customer.metadata ?? stored?.metadata ?? null,
  });
  return { campaign: { id: program.id, name: program.name, object: 'campaign' as const }, points_estimation: points };
}

import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { priceItems } from './engine.js';
import { newId } from './ids.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from './pagination.js';
import { earnOnOrderPaid } from './loyalty/earning.js';
import { writeUnique } from './unique.js';

type Schemas = components['schemas'];
export type Order = Schemas['Order'];
type OrderCreate = Schemas['OrdersCreateRequestBody'];
type OrderUpdate = Schemas['OrdersUpdateRequestBody'];

export async function findOrder({ uow }: DomainContext, ref: string): Promise<Order> {
  const order = (await uow.orders.get(ref)) ?? (await uow.orders.getBy('source_id', ref));
  if (!order) throw notFound('order', ref);
  return order;
}

/** New lines and amount when the request gives them; the current ones otherwise. */
async function linesAndAmount(ctx: DomainContext, input: { items?: Schemas['OrderItemRequest'][]; amount?: number }, current?: Order) {
  const items = input.items
    ? (await priceItems(ctx, { items: input.items })).map((item) => ({ ...item, object: 'order_item' as const }))
    : (current?.items ?? []);
  const amount = input.amount ?? (input.items ? items.reduce((sum, item) => sum + item.amount, 0) : (current?.amount ?? 0));
  return { items, amount };
}

async function customerIdOf(ctx: DomainContext, ref: Schemas['CustomerReference'] | undefined): Promise<string | null> {
  if (!ref || (!ref.id && !ref.source_id)) return null;
  const customer = ref.id ? await ctx.uow.customers.get(ref.id) : await ctx.uow.customers.getBy('source_id', ref.source_id!);
  if (!customer) throw notFound('customer', (ref.id ?? ref.source_id)!);
  return customer.id;
}

export async function createOrder(ctx: DomainContext, input: OrderCreate): Promise<Order> {
  const existing = input.source_id ? await ctx.uow.orders.getBy('source_id', input.source_id) : undefined;
  const customerId = (await customerIdOf(ctx, input.customer)) ?? existing?.customer_id ?? null;
  if (existing) return changeOrder(ctx, existing, input, customerId);
  const { items, amount } = await linesAndAmount(ctx, input);
  const now = ctx.clock.now().toISOString();
  const created = await writeUnique('order', () =>
    ctx.uow.orders.insert({
      id: newId('ord'),
      source_id: input.source_id ?? null,
      status: input.status ?? 'CREATED',
      amount,
      discount_amount: 0,
      total_amount: amount,
      items,
      metadata: input.metadata ?? {},
      customer_id: customerId,
      created_at: now,
      updated_at: null,
      object: 'order',
    }),
  );
  await paidNow(ctx, undefined, created);
  return created;
}

/** An order that has just become PAID earns loyalty points for its customer. */
async function paidNow(ctx: DomainContext, before: Order | undefined, after: Order): Promise<void> {
  if (after.status === 'PAID' && before?.status !== 'PAID') await earnOnOrderPaid(ctx, after);
}

/** Applies an update (or an upsert's fields) to an order; discounts already applied stay. */
async function changeOrder(ctx: DomainContext, order: Order, input: OrderUpdate, customerId = order.customer_id): Promise<Order> {
  const { items, amount } = await linesAndAmount(ctx, input, order);
  const updated = await ctx.uow.orders.update({
    ...order,
    status: input.status ?? order.status,
    amount,
    items,
    total_amount: Math.max(0, amount - order.discount_amount),
    metadata: input.metadata ?? order.metadata,
    customer_id: customerId,
    updated_at: ctx.clock.now().toISOString(),
  });
  await paidNow(ctx, order, updated);
  return updated;
}

export async function updateOrder(ctx: DomainContext, ref: string, input: OrderUpdate): Promise<Order> {
  return changeOrder(ctx, await findOrder(ctx, ref), input);
}

export async function listOrders(ctx: DomainContext, query: PageRequest & { order?: SortOrder }) {
  return ctx.uow.orders.query({ orderBy: parseTimestampOrder(query.order), ...pageWindow(query) });
}

/** The order a redemption is made on: the one named by `id` or `source_id`, or a new paid one. */
export async function orderForRedemption(
  ctx: DomainContext,
  request: Schemas['OrderRequest'] | undefined,
  calculated: Schemas['OrderCalculated'],
  customerId: string | null,
): Promise<Order> {
  const existing = request?.id ? await findOrder(ctx, request.id) : request?.source_id ? await ctx.uow.orders.getBy('source_id', request.source_id) : undefined;
  const now = ctx.clock.now().toISOString();
  const items = calculated.items.map((item) => ({
    product_id: item.product_id ?? null,
    sku_id: item.sku_id ?? null,
    quantity: item.quantity,
    price: item.price ?? null,
    amount: item.amount,
    object: 'order_item' as const,
  }));
  if (existing) {
    const discount = existing.discount_amount + calculated.discount_amount;
    const updated = await ctx.uow.orders.update({
      ...existing,
      amount: calculated.amount,
      items: items.length > 0 ? items : existing.items,
      discount_amount: discount,
      total_amount: Math.max(0, calculated.amount - discount),
      customer_id: existing.customer_id ?? customerId,
      updated_at: now,
    });
    await paidNow(ctx, existing, updated);
    return updated;
  }
  const created = await ctx.uow.orders.insert({
    id: newId('ord'),
    source_id: request?.source_id ?? null,
    status: 'PAID',
    amount: calculated.amount,
    discount_amount: calculated.discount_amount,
    total_amount: Math.max(0, calculated.amount - calculated.discount_amount),
    items,
    metadata: request?.metadata ?? {},
    customer_id: customerId,
    created_at: now,
    updated_at: null,
    object: 'order',
  });
  await paidNow(ctx, undefined, created);
  return created;
}

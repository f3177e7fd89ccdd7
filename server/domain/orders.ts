import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { findCustomer, namedCustomer, type Customer } from './customers.js';
import { notFound } from './errors.js';
import type { Line } from './engine.js';
import { newId } from './ids.js';
import { readLines } from './order-lines.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from './pagination.js';
import { earnOnOrderPaid } from './loyalty/earning.js';
import { writeUnique } from './unique.js';
import { table } from '../store/schema.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type OrderCreate = Schemas['OrdersCreateRequestBody'];
type OrderUpdate = Schemas['OrdersUpdateRequestBody'];
type OrderStatus = NonNullable<Schemas['Order']['status']>;

/** A line as stored. `product_id`, `sku_id` and `price` are null when unknown; the response leaves them out. */
export interface OrderLine {
  id: string;
  product_id: string | null;
  sku_id: string | null;
  source_id?: string;
  related_object?: 'product' | 'sku';
  product?: Schemas['OrderItemProduct'];
  sku?: Schemas['OrderItemSku'];
  metadata?: Record<string, unknown>;
  quantity: number;
  price: number | null;
  amount: number;
  initial_quantity: number;
  initial_amount: number;
  /** Units unit discounts made free, over every redemption on the order. */
  discount_quantity: number;
  /** What item discounts took off the line, over every redemption on the order. */
  discount_amount: number;
  object: 'order_item';
}

/** An order as stored. Discounts count every redemption made on it; `total_amount` is what is left to pay. */
export interface OrderRecord {
  id: string;
  source_id: string | null;
  status: OrderStatus;
  amount: number;
  initial_amount: number;
  /** Order-level discounts. */
  discount_amount: number;
  /** Item-level discounts. */
  items_discount_amount: number;
  /** The two together, kept on the row so that a filter (an export's) can read it as a field. */
  total_discount_amount: number;
  total_amount: number;
  items: OrderLine[];
  metadata: Record<string, unknown>;
  customer_id: string | null;
  referrer_id: string | null;
  redemptions: Record<string, Schemas['OrderRedemption']>;
  created_at: string;
  updated_at: string | null;
  object: 'order';
}

export type Order = OrderRecord;

export const ORDERS_TABLE = table<Order>({ unique: ['source_id'], indexed: ['customer_id'], kinds: { created_at: 'text', updated_at: 'text', status: 'text' } });

/** The order as the contract shows it. */
export function presentOrder(order: OrderRecord): Schemas['Order'] {
  const totalDiscount = order.discount_amount + order.items_discount_amount;
  return {
    id: order.id,
    source_id: order.source_id,
    status: order.status,
    amount: order.amount,
    initial_amount: order.initial_amount,
    discount_amount: order.discount_amount,
    items_discount_amount: order.items_discount_amount,
    total_discount_amount: totalDiscount,
    total_amount: order.total_amount,
    items: order.items.map((line) => ({
      id: line.id,
      ...(line.sku_id !== null && { sku_id: line.sku_id }),
      ...(line.product_id !== null && { product_id: line.product_id }),
      ...(line.related_object && { related_object: line.related_object }),
      ...(line.source_id !== undefined && { source_id: line.source_id }),
      quantity: line.quantity,
      ...(line.discount_quantity > 0 && { discount_quantity: line.discount_quantity }),
      initial_quantity: line.initial_quantity,
      amount: line.amount,
      discount_amount: line.discount_amount,
      initial_amount: line.initial_amount,
      ...(line.price !== null && { price: line.price }),
      subtotal_amount: Math.max(0, line.amount - line.discount_amount),
      ...(line.product && { product: line.product }),
      ...(line.sku && { sku: line.sku }),
      ...(line.metadata && { metadata: line.metadata }),
      object: 'order_item',
    })),
    metadata: order.metadata,
    customer_id: order.customer_id,
    referrer_id: order.referrer_id,
    ...(order.customer_id !== null && { customer: { id: order.customer_id, object: 'customer' as const } }),
    ...(order.referrer_id !== null && { referrer: { id: order.referrer_id, object: 'customer' as const } }),
    ...(Object.keys(order.redemptions).length > 0 && { redemptions: order.redemptions }),
    created_at: order.created_at,
    updated_at: order.updated_at,
    object: 'order',
  };
}

export async function findOrder({ uow }: DomainContext, ref: string): Promise<OrderRecord> {
  const order = (await uow.orders.get(ref)) ?? (await uow.orders.getBy('source_id', ref));
  if (!order) throw notFound('order', ref);
  return order;
}

function storedLine(line: Line, id = newId('ordli')): OrderLine {
  return {
    id,
    product_id: line.product_id,
    sku_id: line.sku_id,
    ...(line.source_id !== undefined && { source_id: line.source_id }),
    ...(line.related_object && { related_object: line.related_object }),
    ...(line.product && { product: line.product }),
    ...(line.sku && { sku: line.sku }),
    ...(line.metadata && { metadata: line.metadata }),
    quantity: line.quantity,
    price: line.price,
    amount: line.amount,
    initial_quantity: line.initial_quantity,
    initial_amount: line.initial_amount,
    discount_quantity: line.discount_quantity,
    discount_amount: line.discount_amount,
    object: 'order_item',
  };
}

/** New lines and amount when the request gives them; the current ones otherwise. */
async function linesAndAmount(ctx: DomainContext, input: { items?: Schemas['OrderItemRequest'][]; amount?: number }, current?: OrderRecord) {
  const items = input.items ? (await readLines(ctx, input.items)).map((line) => storedLine(line)) : (current?.items ?? []);
  const amount = input.amount ?? (input.items ? items.reduce((sum, item) => sum + item.amount, 0) : (current?.amount ?? 0));
  return { items, amount };
}

/** The customer a `customer` or `referrer` field names: undefined when left out, null for explicit none. */
async function partyOf(ctx: DomainContext, ref: OrderCreate['customer']): Promise<Customer | null | undefined> {
  if (ref === undefined) return undefined;
  if (ref === null) return null;
  return (await namedCustomer(ctx, ref)) ?? undefined;
}

/** The referrer, by `referrer` (which wins) or `referrer_id` (ID or `source_id` of an existing customer). */
async function referrerOf(ctx: DomainContext, input: OrderCreate): Promise<string | null | undefined> {
  const referrer = await partyOf(ctx, input.referrer);
  if (referrer !== undefined) return referrer?.id ?? null;
  if (input.referrer_id === undefined) return undefined;
  if (input.referrer_id === null) return null;
  return (await findCustomer(ctx, input.referrer_id)).id;
}

export async function createOrder(ctx: DomainContext, input: OrderCreate): Promise<OrderRecord> {
  const existing =
    (input.id ? await ctx.uow.orders.get(input.id) : undefined) ?? (input.source_id ? await ctx.uow.orders.getBy('source_id', input.source_id) : undefined);
  if (existing) return changeOrder(ctx, existing, input);
  const customer = await partyOf(ctx, input.customer);
  const referrerId = await referrerOf(ctx, input);
  const { items, amount } = await linesAndAmount(ctx, input);
  const now = isoNow(ctx.clock);
  const created = await writeUnique('order', () =>
    ctx.uow.orders.insert({
      id: newId('ord'),
      source_id: input.source_id ?? null,
      status: input.status ?? 'CREATED',
      amount,
      initial_amount: amount,
      discount_amount: 0,
      items_discount_amount: 0,
      total_discount_amount: 0,
      total_amount: amount,
      items,
      metadata: input.metadata ?? {},
      customer_id: customer?.id ?? null,
      referrer_id: referrerId ?? null,
      redemptions: {},
      created_at: now,
      updated_at: null,
      object: 'order',
    }),
  );
  await paidNow(ctx, undefined, created);
  return created;
}

/** An order that has just become PAID earns loyalty points for its customer. */
async function paidNow(ctx: DomainContext, before: OrderRecord | undefined, after: OrderRecord): Promise<void> {
  if (after.status === 'PAID' && before?.status !== 'PAID') await earnOnOrderPaid(ctx, after);
}

/** Lines the request sends back unchanged (as a response showed them) keep their IDs and discounts. */
function sameLines(current: OrderLine[], next: OrderLine[]): OrderLine[] {
  const key = (line: OrderLine) => JSON.stringify([line.product_id, line.sku_id, line.source_id ?? null, line.quantity, line.price, line.amount, line.metadata ?? null]);
  if (current.length !== next.length || current.some((line, index) => key(line) !== key(next[index]!))) return next;
  return current;
}

/**
 * Applies an update (or an upsert's fields) to an order; discounts already applied stay. Fields the
 * service computes are never taken from the request, so an order sent back as it was read changes
 * nothing but `updated_at`.
 */
async function changeOrder(ctx: DomainContext, order: OrderRecord, input: OrderUpdate | OrderCreate): Promise<OrderRecord> {
  const { items: given, amount } = await linesAndAmount(ctx, input, order);
  const items = input.items ? sameLines(order.items, given) : given;
  const customer = await partyOf(ctx, input.customer);
  const referrerId = await referrerOf(ctx, input);
  const updated = await ctx.uow.orders.update({
    ...FRESH,
    ...order,
    ...(input.source_id !== undefined && input.source_id !== order.source_id && { source_id: input.source_id }),
    status: input.status ?? order.status,
    amount,
    ...(input.items && items !== order.items && { initial_amount: amount }),
    items,
    total_amount: Math.max(0, amount - order.discount_amount - order.items_discount_amount),
    metadata: input.metadata === undefined ? order.metadata : (input.metadata ?? {}),
    customer_id: customer === undefined ? order.customer_id : (customer?.id ?? null),
    referrer_id: referrerId === undefined ? order.referrer_id : referrerId,
    updated_at: isoNow(ctx.clock),
  });
  await paidNow(ctx, order, updated);
  return updated;
}

export async function updateOrder(ctx: DomainContext, ref: string, input: OrderUpdate): Promise<OrderRecord> {
  return changeOrder(ctx, await findOrder(ctx, ref), input);
}

export async function listOrders(ctx: DomainContext, query: PageRequest & { order?: SortOrder }) {
  return ctx.uow.orders.query({ orderBy: parseTimestampOrder(query.order), ...pageWindow(query) });
}

/** What a redemption computed for the order it is made on. */
export interface CalculatedOrder {
  amount: number;
  discount_amount: number;
  items_discount_amount?: number;
  initial_amount?: number;
  items: {
    product_id?: string | null;
    sku_id?: string | null;
    quantity: number;
    price?: number | null;
    amount: number;
    discount_amount?: number;
    discount_quantity?: number;
    initial_quantity?: number;
    initial_amount?: number;
  }[];
}

/** The calculated lines as stored lines, from the engine's lines when given (they carry more). */
function calculatedLines(calculated: CalculatedOrder, lines?: Line[]): OrderLine[] {
  if (lines) return lines.map((line) => storedLine(line));
  return calculated.items.map((item) =>
    storedLine({
      product_id: item.product_id ?? null,
      sku_id: item.sku_id ?? null,
      quantity: item.quantity,
      price: item.price ?? null,
      amount: item.amount,
      initial_quantity: item.initial_quantity ?? item.quantity,
      initial_amount: item.initial_amount ?? item.amount,
      discount_quantity: item.discount_quantity ?? 0,
      discount_amount: item.discount_amount ?? 0,
      index: null,
      details: [],
    }),
  );
}

/**
 * The order a redemption is made on: the one named by `id` or `source_id`, or a new paid one. `lines`
 * are the engine's lines; `merge` says they are the stored order's own lines (the request named the
 * order by reference only), so their discounts add to those already there.
 */
export async function orderForRedemption(
  ctx: DomainContext,
  request: Schemas['OrderRequest'] | null | undefined,
  calculated: CalculatedOrder,
  customerId: string | null,
  lines?: Line[],
  merge = false,
  note?: RedemptionNote,
): Promise<OrderRecord> {
  const existing = request?.id ? await findOrder(ctx, request.id) : request?.source_id ? await ctx.uow.orders.getBy('source_id', request.source_id) : undefined;
  const now = isoNow(ctx.clock);
  const computed = calculatedLines(calculated, lines);
  const itemsDiscount = calculated.items_discount_amount ?? 0;
  if (existing) {
    const items =
      computed.length === 0
        ? existing.items
        : merge && computed.length >= existing.items.length
          ? computed.map((line, index) => {
              const before = existing.items[index];
              return before
                ? { ...FRESH, ...line, id: before.id, discount_amount: before.discount_amount + line.discount_amount, discount_quantity: before.discount_quantity + line.discount_quantity, initial_quantity: before.initial_quantity, initial_amount: before.initial_amount }
                : line;
            })
          : computed;
    const discount = existing.discount_amount + calculated.discount_amount;
    const lineDiscount = existing.items_discount_amount + itemsDiscount;
    const updated = await ctx.uow.orders.update({
      ...FRESH,
      ...existing,
      amount: calculated.amount,
      items,
      discount_amount: discount,
      items_discount_amount: lineDiscount,
      total_discount_amount: discount + lineDiscount,
      total_amount: Math.max(0, calculated.amount - discount - lineDiscount),
      customer_id: existing.customer_id ?? customerId,
      ...(note && { redemptions: noted(existing.redemptions, note) }),
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
    initial_amount: calculated.initial_amount ?? calculated.amount,
    discount_amount: calculated.discount_amount,
    items_discount_amount: itemsDiscount,
    total_discount_amount: calculated.discount_amount + itemsDiscount,
    total_amount: Math.max(0, calculated.amount - calculated.discount_amount - itemsDiscount),
    items: computed,
    metadata: request?.metadata ?? {},
    customer_id: customerId,
    referrer_id: null,
    redemptions: note ? noted(NO_NOTES, note) : {},
    created_at: now,
    updated_at: null,
    object: 'order',
  });
  await paidNow(ctx, undefined, created);
  return created;
}

/** The notes of an order that has none yet. */
const NO_NOTES: OrderRecord['redemptions'] = Object.freeze({});

/** What an order's `redemptions` notes of one parent redemption (or, with `rollback`, of its rollback). */
export interface RedemptionNote {
  parentId: string;
  entry: Partial<Schemas['OrderRedemption']>;
}

/** An order's `redemptions` with the note merged into what it already says of the same parent. */
function noted(redemptions: OrderRecord['redemptions'], { parentId, entry }: RedemptionNote): OrderRecord['redemptions'] {
  // A new order has no notes to merge with, so none is looked up.
  const before = (redemptions === NO_NOTES ? undefined : redemptions[parentId]) ?? {};
  const merged = {
    ...FRESH,
    ...before,
    ...entry,
    ...(entry.rollback_stacked && { rollback_stacked: [...(before.rollback_stacked ?? []), ...entry.rollback_stacked] }),
  };
  // The notes are keyed by redemption IDs, a new key for each order. Added to an ordinary object, each new key
  // made V8 a new hidden class for that one object (and again when the store froze it); an object without a
  // prototype keeps its keys in a table of its own instead.
  const notes = Object.assign(Object.create(null) as OrderRecord['redemptions'], redemptions);
  notes[parentId] = merged;
  return notes;
}

/** Notes a redemption (or, with `rollback`, its rollback) in the order's `redemptions`. */
export async function noteRedemption(ctx: DomainContext, orderId: string, parentId: string, entry: Partial<Schemas['OrderRedemption']>): Promise<void> {
  const order = await ctx.uow.orders.get(orderId);
  if (!order) return;
  await ctx.uow.orders.update({ ...FRESH, ...order, redemptions: noted(order.redemptions, { parentId, entry }) });
}

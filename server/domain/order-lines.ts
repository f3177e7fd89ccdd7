/**
 * Order lines as a request gives them, read against the catalog. The engine gathers them as facts; orders,
 * loyalty rewards and legacy estimates store or price them without running the engine.
 */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import type { Line } from './decide.js';
import type { PricedItem } from './discounts.js';

type ItemRequest = components['schemas']['OrderItemRequest'];

const wholeOrNull = (value: number | undefined): number | null => (value === undefined ? null : Math.round(value));

/**
 * The request's order lines with catalog IDs and prices filled in. A line names its product or SKU by
 * `product_id`/`sku_id`, by `product`/`sku` (ID or `source_id`), or by `source_id` with `related_object`;
 * its price is its own, its product's or SKU's as the line describes it, or the catalog's.
 */
export async function readLines(ctx: DomainContext, items: readonly ItemRequest[] | undefined): Promise<Line[]> {
  const lines: Line[] = [];
  for (const [index, item] of (items ?? []).entries()) {
    const bySource = item.source_id !== undefined;
    const productRef = item.product_id ?? item.product?.id ?? item.product?.source_id ?? (bySource && item.related_object !== 'sku' ? item.source_id : undefined);
    const skuRef = item.sku_id ?? item.sku?.id ?? item.sku?.source_id ?? (bySource && item.related_object === 'sku' ? item.source_id : undefined);
    const product = productRef ? ((await ctx.uow.products.get(productRef)) ?? (await ctx.uow.products.getBy('source_id', productRef))) : undefined;
    const sku = skuRef ? ((await ctx.uow.skus.get(skuRef)) ?? (await ctx.uow.skus.getBy('source_id', skuRef))) : undefined;
    const quantity = item.quantity ?? 1;
    const price = item.price ?? wholeOrNull(item.sku?.price) ?? wholeOrNull(item.product?.price) ?? sku?.price ?? product?.price ?? null;
    const amount = item.amount ?? (price ?? 0) * quantity;
    const skuId = sku?.id ?? skuRef ?? null;
    lines.push({
      product_id: product?.id ?? sku?.product_id ?? productRef ?? null,
      sku_id: skuId,
      ...(item.source_id !== undefined && { source_id: item.source_id }),
      ...((skuId !== null || product || productRef) && { related_object: skuId !== null ? ('sku' as const) : ('product' as const) }),
      ...(item.product && { product: item.product }),
      ...(item.sku && { sku: item.sku }),
      ...(item.metadata && { metadata: item.metadata }),
      product_source_id: product?.source_id ?? (sku ? undefined : item.product?.source_id) ?? null,
      sku_source_id: sku?.source_id ?? item.sku?.source_id ?? null,
      quantity,
      price,
      amount,
      initial_quantity: quantity,
      initial_amount: amount,
      discount_quantity: 0,
      discount_amount: 0,
      index,
      details: [],
    });
  }
  return lines;
}

/** Order lines with catalog IDs and prices filled in. */
export async function priceItems(ctx: DomainContext, order: { items?: ItemRequest[] } | null | undefined): Promise<PricedItem[]> {
  return (await readLines(ctx, order?.items)).map(({ product_id, sku_id, quantity, price, amount }) => ({ product_id, sku_id, quantity, price, amount }));
}

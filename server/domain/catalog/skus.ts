import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { createdBetween, pageWindow } from '../pagination.js';
import { writeUnique } from '../unique.js';
import { removeFromStaticCollections } from './collections.js';
import { catalogOrder } from './catalog-order.js';
import { findProduct, type ListQuery } from './products.js';
import type { Product, Sku, SkuCreate, SkuUpdate } from './types.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

/** Finds a SKU by ID, then by `source_id`. */
export async function findSku({ uow }: DomainContext, ref: string): Promise<Sku> {
  const sku = (await uow.skus.get(ref)) ?? (await uow.skus.getBy('source_id', ref));
  if (!sku) throw notFound('sku', ref);
  return sku;
}

/** A SKU may only set values for the attributes its product declares. */
function checkAttributes(product: Product, attributes: Record<string, unknown> | null | undefined): void {
  if (!attributes) return;
  const declared = new Set(product.attributes);
  const undeclared = Object.keys(attributes).filter((name) => !declared.has(name));
  if (undeclared.length > 0) {
    throw invalid(
      'invalid_sku',
      'Invalid SKU',
      `Product ${product.id} does not declare the attribute(s) ${undeclared.map((n) => `'${n}'`).join(', ')}` +
        ` (declared: ${product.attributes.length ? product.attributes.join(', ') : 'none'})`,
    );
  }
}

async function findSkuOfProduct(ctx: DomainContext, productRef: string, skuRef: string) {
  const product = await findProduct(ctx, productRef);
  const sku = await findSku(ctx, skuRef);
  if (sku.product_id !== product.id) throw notFound('sku', skuRef);
  return { product, sku };
}

export async function createSku(ctx: DomainContext, productRef: string, input: SkuCreate): Promise<Sku> {
  const product = await findProduct(ctx, productRef);
  const attributes = input.attributes ?? {};
  checkAttributes(product, attributes);
  const sku: Sku = {
    id: input.id ?? newId('sku'),
    source_id: input.source_id ?? null,
    product_id: product.id,
    sku: input.sku ?? null,
    price: input.price ?? null,
    currency: input.currency ?? null,
    attributes,
    image_url: input.image_url ?? null,
    metadata: input.metadata ?? {},
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'sku',
  };
  return writeUnique('sku', () => ctx.uow.skus.insert(sku));
}

export async function updateSku(ctx: DomainContext, productRef: string, skuRef: string, input: SkuUpdate) {
  const { product, sku } = await findSkuOfProduct(ctx, productRef, skuRef);
  checkAttributes(product, input.attributes);
  const { attributes, metadata, ...fields } = input;
  const changes: Partial<Sku> = {
    ...FRESH,
    ...fields,
    // A null means none: the SKU keeps an empty map, as a new one has.
    ...(attributes !== undefined && { attributes: attributes ?? {} }),
    ...(metadata !== undefined && { metadata: metadata ?? {} }),
  };
  const updated = applyChanges(sku, changes, isoNow(ctx.clock));
  return writeUnique('sku', () => ctx.uow.skus.update(updated));
}

export async function deleteSku(ctx: DomainContext, productRef: string, skuRef: string): Promise<void> {
  const { sku } = await findSkuOfProduct(ctx, productRef, skuRef);
  await removeFromStaticCollections(ctx, new Set([sku.id]));
  await ctx.uow.skus.delete(sku.id);
}

export async function listSkus(ctx: DomainContext, productRef: string, query: ListQuery) {
  const product = await findProduct(ctx, productRef);
  const inRange = createdBetween(query.start_date, query.end_date);
  return ctx.uow.skus.query({
    index: { field: 'product_id', value: product.id },
    ...(inRange && { where: inRange }),
    orderBy: catalogOrder(query.order, ['created_at', 'updated_at'] as const),
    ...pageWindow(query),
  });
}

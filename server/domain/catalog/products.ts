import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { createdBetween, pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from '../pagination.js';
import { writeUnique } from '../unique.js';
import { removeFromStaticCollections } from './collections.js';
import type { Product, ProductCreate, ProductUpdate, Sku } from './types.js';

export interface ListQuery extends PageRequest {
  order?: SortOrder;
  start_date?: string;
  end_date?: string;
}

/** Finds a product by ID, then by `source_id`. */
export async function findProduct({ uow }: DomainContext, ref: string): Promise<Product> {
  const product = (await uow.products.get(ref)) ?? (await uow.products.getBy('source_id', ref));
  if (!product) throw notFound('product', ref);
  return product;
}

export async function createProduct(ctx: DomainContext, input: ProductCreate): Promise<Product> {
  const product: Product = {
    id: input.id ?? newId('prod'),
    source_id: input.source_id ?? null,
    name: input.name ?? null,
    price: input.price ?? null,
    attributes: input.attributes ?? [],
    metadata: input.metadata ?? {},
    image_url: input.image_url ?? null,
    created_at: ctx.clock.now().toISOString(),
    updated_at: null,
    object: 'product',
  };
  return writeUnique('product', () => ctx.uow.products.insert(product));
}

export async function updateProduct(ctx: DomainContext, ref: string, input: ProductUpdate): Promise<Product> {
  const product = await findProduct(ctx, ref);
  if (input.attributes) {
    const allowed = new Set(input.attributes);
    for (const sku of await ctx.uow.skus.findBy('product_id', product.id)) {
      const orphan = Object.keys(sku.attributes).find((name) => !allowed.has(name));
      if (orphan !== undefined) {
        throw invalid(
          'invalid_product',
          'Invalid product',
          `Attribute '${orphan}' cannot be removed: SKU ${sku.id} still sets it`,
        );
      }
    }
  }
  const updated = applyChanges(product, input, ctx.clock.now().toISOString());
  return writeUnique('product', () => ctx.uow.products.update(updated));
}

/** Deletes the product with its SKUs, and takes all of them out of static collections. */
export async function deleteProduct(ctx: DomainContext, ref: string): Promise<void> {
  const product = await findProduct(ctx, ref);
  const skus = await ctx.uow.skus.findBy('product_id', product.id);
  await removeFromStaticCollections(ctx, new Set([product.id, ...skus.map((sku) => sku.id)]));
  for (const sku of skus) await ctx.uow.skus.delete(sku.id);
  await ctx.uow.products.delete(product.id);
}

export async function listProducts(ctx: DomainContext, query: ListQuery) {
  return ctx.uow.products.query({
    where: createdBetween(query.start_date, query.end_date),
    orderBy: parseTimestampOrder(query.order),
    ...pageWindow(query),
  });
}

export async function getProductWithSkus(ctx: DomainContext, ref: string): Promise<{ product: Product; skus: Sku[] }> {
  const product = await findProduct(ctx, ref);
  return { product, skus: await ctx.uow.skus.findBy('product_id', product.id) };
}

import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { createdBetween, pageWindow, type PageRequest } from '../pagination.js';
import { writeUnique } from '../unique.js';
import { catalogOrder } from './catalog-order.js';
import { removeFromStaticCollections } from './collections.js';
import type { CatalogOrder, Product, ProductCreate, ProductUpdate, ProductWithSkus, Sku } from './types.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

export interface ListQuery extends PageRequest {
  order?: CatalogOrder;
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
    // A null means none, as an absent field does.
    attributes: input.attributes ?? [],
    metadata: input.metadata ?? {},
    image_url: input.image_url ?? null,
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'product',
  };
  return writeUnique('product', () => ctx.uow.products.insert(product));
}

export async function updateProduct(ctx: DomainContext, ref: string, input: ProductUpdate): Promise<Product> {
  const product = await findProduct(ctx, ref);
  if (input.attributes !== undefined) {
    const allowed = new Set(input.attributes ?? []);
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
  const { attributes, metadata, ...fields } = input;
  const changes: Partial<Product> = {
    ...FRESH,
    ...fields,
    // A null means none: the product keeps an empty list and map, as a new one has.
    ...(attributes !== undefined && { attributes: attributes ?? [] }),
    ...(metadata !== undefined && { metadata: metadata ?? {} }),
  };
  const updated = applyChanges(product, changes, isoNow(ctx.clock));
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
  const within = createdBetween(query.start_date, query.end_date);
  const page = await ctx.uow.products.query({
    ...FRESH,
    ...(within && { where: within }),
    orderBy: catalogOrder(query.order, ['created_at', 'updated_at'] as const),
    ...pageWindow(query),
  });
  return { ...FRESH, ...page, rows: await Promise.all(page.rows.map((product) => withSkus(ctx, product))) };
}

/** The product as the API returns it: with every one of its SKUs, oldest first. */
export async function withSkus(ctx: DomainContext, product: Product): Promise<ProductWithSkus> {
  const skus: Sku[] = await ctx.uow.skus.findBy('product_id', product.id);
  return { ...FRESH, ...product, skus: { object: 'list', data_ref: 'data', data: skus, total: skus.length } };
}

export async function getProduct(ctx: DomainContext, ref: string): Promise<ProductWithSkus> {
  return withSkus(ctx, await findProduct(ctx, ref));
}

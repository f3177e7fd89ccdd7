import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { checkFilter, matchesFilter, type FilterDefinition } from '../filters.js';
import { newId } from '../ids.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from '../pagination.js';
import { writeUnique } from '../unique.js';
import type { Product, ProductCollection, ProductCollectionCreate, ProductCollectionItem, Sku } from './types.js';

export async function findCollection({ uow }: DomainContext, id: string): Promise<ProductCollection> {
  const collection = await uow.product_collections.get(id);
  if (!collection) throw notFound('product_collection', id);
  return collection;
}

/** Checks that every listed product and SKU exists, fills in each SKU's product, and drops repeats. */
async function resolveItems(ctx: DomainContext, items: ProductCollectionItem[]): Promise<ProductCollectionItem[]> {
  const seen = new Set<string>();
  const resolved: ProductCollectionItem[] = [];
  for (const item of items) {
    const key = `${item.object}:${item.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (item.object === 'product') {
      if (!(await ctx.uow.products.get(item.id))) throw notFound('product', item.id);
      resolved.push({ id: item.id, object: 'product' });
    } else {
      const sku = await ctx.uow.skus.get(item.id);
      if (!sku) throw notFound('sku', item.id);
      if (item.product_id !== undefined && item.product_id !== sku.product_id) {
        throw invalid(
          'invalid_payload',
          'Invalid payload',
          `SKU ${sku.id} belongs to product ${sku.product_id}, not ${item.product_id}`,
        );
      }
      resolved.push({ id: sku.id, product_id: sku.product_id, object: 'sku' });
    }
  }
  return resolved;
}

/** The fields of products and SKUs an auto-update collection may select on. */
const COLLECTION_FILTER_FIELDS = new Set(['id', 'source_id', 'name', 'sku', 'price', 'object', 'product_id', 'image_url', 'created_at', 'updated_at', 'metadata']);

export async function createCollection(ctx: DomainContext, input: ProductCollectionCreate): Promise<ProductCollection> {
  const base = { id: newId('pc'), name: input.name, created_at: ctx.clock.now().toISOString() };
  const collection: ProductCollection =
    input.type === 'STATIC'
      ? {
          ...base,
          type: 'STATIC',
          filter: null,
          products: await resolveItems(ctx, input.products ?? []),
          object: 'products_collection',
        }
      : {
          ...base,
          type: 'AUTO_UPDATE',
          filter: checkFilter(input.filter as Record<string, unknown>, COLLECTION_FILTER_FIELDS, {
            key: 'invalid_payload',
            message: 'Invalid payload',
            name: 'filter',
          }) as typeof input.filter,
          object: 'products_collection',
        };
  return writeUnique('product_collection', () => ctx.uow.product_collections.insert(collection));
}

export async function deleteCollection(ctx: DomainContext, id: string): Promise<void> {
  const collection = await findCollection(ctx, id);
  await ctx.uow.product_collections.delete(collection.id);
}

export async function listCollections(ctx: DomainContext, query: PageRequest & { order?: SortOrder }) {
  const order = parseTimestampOrder(query.order);
  // Collections are never updated, so their update time is their creation time.
  return ctx.uow.product_collections.query({
    orderBy: { field: 'created_at', direction: order.direction },
    ...pageWindow(query),
  });
}

/** Takes deleted products and SKUs out of every static collection that lists them. */
export async function removeFromStaticCollections(ctx: DomainContext, ids: ReadonlySet<string>): Promise<void> {
  for (const collection of await ctx.uow.product_collections.findBy('type', 'STATIC')) {
    const products = collection.products ?? [];
    const kept = products.filter((item) => !ids.has(item.id));
    if (kept.length !== products.length) {
      await ctx.uow.product_collections.update({ ...collection, products: kept });
    }
  }
}

/** The members of a collection now: listed ones for STATIC, the filter's matches for AUTO_UPDATE. */
export async function listCollectionMembers(ctx: DomainContext, id: string, query: PageRequest) {
  const collection = await findCollection(ctx, id);
  let members: (Product | Sku)[];
  if (collection.type === 'STATIC') {
    members = [];
    for (const item of collection.products ?? []) {
      const member = item.object === 'product' ? await ctx.uow.products.get(item.id) : await ctx.uow.skus.get(item.id);
      if (member) members.push(member);
    }
  } else {
    const filter = collection.filter as unknown as FilterDefinition;
    const everything = [
      ...(await ctx.uow.products.query({})).rows,
      ...(await ctx.uow.skus.query({})).rows,
    ].sort((a, b) => a.created_at.localeCompare(b.created_at));
    members = everything.filter((record) => matchesFilter(record, filter));
  }
  const { offset, limit } = pageWindow(query);
  return { rows: members.slice(offset, offset + limit), total: members.length };
}

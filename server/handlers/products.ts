import { createProduct, deleteProduct, getProduct, listProducts, updateProduct, withSkus } from '../domain/catalog/products.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type ProductOperations = 'list-products' | 'create-product' | 'get-product' | 'update-product' | 'delete-product';

export const productHandlers: HandlersOf<ProductOperations> = {
  'list-products': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listProducts(ctx, query));
    return {
      status: 200,
      body: { object: 'list', data_ref: 'products', products: page.rows, total: page.total },
    };
  },
  'create-product': async ({ body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => withSkus(ctx, await createProduct(ctx, body))),
  }),
  'get-product': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => getProduct(ctx, path.productId)),
  }),
  'update-product': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => withSkus(ctx, await updateProduct(ctx, path.productId, body))),
  }),
  'delete-product': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteProduct(ctx, path.productId));
    return { status: 204 };
  },
};

import {
  createProduct,
  deleteProduct,
  getProductWithSkus,
  listProducts,
  updateProduct,
} from '../domain/catalog/products.js';
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
    body: await inProject(services, context, (ctx) => createProduct(ctx, body)),
  }),
  'get-product': async ({ path, context, services }) => {
    const { product, skus } = await inProject(services, context, (ctx) => getProductWithSkus(ctx, path.productId));
    return {
      status: 200,
      body: { ...product, skus: { object: 'list', data_ref: 'data', data: skus, total: skus.length } },
    };
  },
  'update-product': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => updateProduct(ctx, path.productId, body)),
  }),
  'delete-product': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteProduct(ctx, path.productId));
    return { status: 204 };
  },
};

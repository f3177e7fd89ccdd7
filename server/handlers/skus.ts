import { createSku, deleteSku, findSku, listSkus, updateSku } from '../domain/catalog/skus.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type SkuOperations = 'list-SKUs-in-product' | 'create-sku' | 'update-sku' | 'delete-sku' | 'get-sku';

export const skuHandlers: HandlersOf<SkuOperations> = {
  'list-SKUs-in-product': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listSkus(ctx, path.productId, query));
    return { status: 200, body: { object: 'list', data_ref: 'skus', skus: page.rows, total: page.total } };
  },
  'create-sku': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => createSku(ctx, path.productId, body)),
  }),
  'update-sku': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => updateSku(ctx, path.productId, path.skuId, body)),
  }),
  'delete-sku': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteSku(ctx, path.productId, path.skuId));
    return { status: 204 };
  },
  'get-sku': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => findSku(ctx, path.skuId)),
  }),
};

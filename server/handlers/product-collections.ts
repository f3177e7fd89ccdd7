import {
  createCollection,
  deleteCollection,
  findCollection,
  listCollectionMembers,
  listCollections,
  updateCollection,
} from '../domain/catalog/collections.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type CollectionOperations =
  | 'list-product-collections'
  | 'create-product-collection'
  | 'get-product-collection'
  | 'put-product-collection'
  | 'delete-product-collection'
  | 'list-products-in-collection';

export const productCollectionHandlers: HandlersOf<CollectionOperations> = {
  'list-product-collections': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listCollections(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'create-product-collection': async ({ body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => createCollection(ctx, body)),
  }),
  'get-product-collection': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => findCollection(ctx, path.productCollectionId)),
  }),
  'put-product-collection': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => updateCollection(ctx, path.productCollectionId, body)),
  }),
  'delete-product-collection': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteCollection(ctx, path.productCollectionId));
    return { status: 204 };
  },
  'list-products-in-collection': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listCollectionMembers(ctx, path.productCollectionId, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
};

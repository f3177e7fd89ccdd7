import { createCategory, deleteCategory, findCategory, listCategories, updateCategory } from '../domain/categories.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type CategoryOperations = 'list-categories' | 'create-category' | 'get-category' | 'update-category' | 'delete-category';

export const categoryHandlers: HandlersOf<CategoryOperations> = {
  'list-categories': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listCategories(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total, has_more: page.rows.length < page.total } };
  },
  'create-category': async ({ body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => createCategory(ctx, body)),
  }),
  'get-category': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => findCategory(ctx, path.categoryId)),
  }),
  'update-category': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => updateCategory(ctx, path.categoryId, body)),
  }),
  'delete-category': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteCategory(ctx, path.categoryId));
    return { status: 204 };
  },
};

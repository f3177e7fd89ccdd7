import type { components } from '../../generated/openapi.js';
import { applyChanges } from './changes.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { newId } from './ids.js';
import { writeUnique } from './unique.js';

export type Category = components['schemas']['Category'];
type CategoryCreate = components['schemas']['CategoriesCreateRequestBody'];
type CategoryUpdate = components['schemas']['CategoriesUpdateRequestBody'];

export async function findCategory({ uow }: DomainContext, id: string): Promise<Category> {
  const category = await uow.categories.get(id);
  if (!category) throw notFound('category', id);
  return category;
}

export async function createCategory(ctx: DomainContext, input: CategoryCreate): Promise<Category> {
  const category: Category = {
    id: newId('cat'),
    name: input.name,
    hierarchy: input.hierarchy,
    created_at: ctx.clock.now().toISOString(),
    object: 'category',
  };
  return writeUnique('category', () => ctx.uow.categories.insert(category));
}

export async function updateCategory(ctx: DomainContext, id: string, input: CategoryUpdate): Promise<Category> {
  const category = await findCategory(ctx, id);
  const updated = applyChanges(category, input, ctx.clock.now().toISOString()) as Category;
  return writeUnique('category', () => ctx.uow.categories.update(updated));
}

export async function deleteCategory(ctx: DomainContext, id: string): Promise<void> {
  const category = await findCategory(ctx, id);
  await ctx.uow.categories.delete(category.id);
}

/** Every category, by hierarchy and then by creation. */
export async function listCategories(ctx: DomainContext): Promise<Category[]> {
  return (await ctx.uow.categories.query({ orderBy: { field: 'hierarchy', direction: 'asc' } })).rows;
}

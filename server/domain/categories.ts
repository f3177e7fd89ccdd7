import type { components } from '../../generated/openapi.js';
import { applyChanges } from './changes.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { newId } from './ids.js';
import { writeUnique } from './unique.js';
import { table } from '../store/schema.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
/** A category as stored and shown; `updated_at` appears once it has been updated. */
export type Category = Schemas['Category'];

export const CATEGORIES_TABLE = table<Category>({ unique: ['name'], indexed: [], kinds: { hierarchy: 'number', name: 'text' } });
type CategoryCreate = Schemas['CategoriesCreateRequestBody'];
type CategoryUpdate = Schemas['CategoriesUpdateRequestBody'];

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
    created_at: isoNow(ctx.clock),
    object: 'category',
  };
  return writeUnique('category', () => ctx.uow.categories.insert(category));
}

export async function updateCategory(ctx: DomainContext, id: string, input: CategoryUpdate): Promise<Category & { updated_at: string }> {
  const category = await findCategory(ctx, id);
  // Only the two fields a client may change; the pruner has already taken out every other one.
  const updated = applyChanges(category, { name: input.name, hierarchy: input.hierarchy }, isoNow(ctx.clock)) as Category & { updated_at: string };
  await writeUnique('category', () => ctx.uow.categories.update(updated));
  return updated;
}

export async function deleteCategory(ctx: DomainContext, id: string): Promise<void> {
  const category = await findCategory(ctx, id);
  await ctx.uow.categories.delete(category.id);
}

/** The categories by hierarchy and then by creation: every one, or the first `limit`; `total` counts them all. */
export async function listCategories(ctx: DomainContext, query: { limit?: number } = {}): Promise<{ rows: Category[]; total: number }> {
  return ctx.uow.categories.query({
    orderBy: { field: 'hierarchy', direction: 'asc' },
    ...(query.limit !== undefined && { offset: 0, limit: query.limit }),
  });
}

/**
 * Resolves a `category`/`category_id` pair from a request: undefined when neither was given, null when
 * the request clears it, the category otherwise (404 when it does not exist).
 */
export async function resolveCategoryRef(
  ctx: DomainContext,
  ref: { category?: string | null; category_id?: string | null },
): Promise<Category | null | undefined> {
  if (ref.category_id !== undefined) return ref.category_id === null ? null : findCategory(ctx, ref.category_id);
  if (ref.category !== undefined) {
    if (ref.category === null) return null;
    const category = await ctx.uow.categories.getBy('name', ref.category);
    if (!category) throw notFound('category', ref.category);
    return category;
  }
  return undefined;
}

/**
 * Makes the category a CSV import names when the project has none of that name, at hierarchy 0: the public API's
 * import takes the column as a free tag (see import-vouchers-using-csv).
 */
export async function ensureCategoryNamed(ctx: DomainContext, name: string | null | undefined): Promise<void> {
  if (!name || (await ctx.uow.categories.getBy('name', name))) return;
  await createCategory(ctx, { name, hierarchy: 0 });
}

/** The `category`, `category_id` and `categories` fields of a campaign or voucher. */
export async function categoryFields(ctx: DomainContext, categoryId: string | null) {
  const category = categoryId ? await ctx.uow.categories.get(categoryId) : undefined;
  return {
    category: category?.name ?? null,
    category_id: category?.id ?? null,
    categories: category ? [category] : [],
  };
}

/**
 * Turns an update request's `category`/`category_id` into the stored `category_id` change: the rest of
 * the request, plus `category_id` when either was given.
 */
export async function categoryChange<T extends { category?: string | null; category_id?: string | null }>(
  ctx: DomainContext,
  input: T,
): Promise<Omit<T, 'category' | 'category_id'> & { category_id?: string | null }> {
  const category = await resolveCategoryRef(ctx, input);
  const { category: _name, category_id: _id, ...rest } = input;
  return { ...FRESH, ...rest, ...(category !== undefined && { category_id: category?.id ?? null }) };
}

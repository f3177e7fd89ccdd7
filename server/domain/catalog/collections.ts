import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { FILTER_OPERATORS, matchesConditions, type FilterValue } from '../filters.js';
import { newId } from '../ids.js';
import { pageWindow, type PageRequest } from '../pagination.js';
import { writeUnique } from '../unique.js';
import { catalogOrder } from './catalog-order.js';
import type { CatalogOrder, Product, ProductCollection, ProductCollectionCreate, ProductCollectionFilter, ProductCollectionItem, Sku } from './types.js';
import type { components } from '../../../generated/openapi.js';
import type { PricedItem } from '../discounts.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

type ProductCollectionUpdate = components['schemas']['ProductCollectionsUpdateRequestBody'];
type SkuWithProduct = components['schemas']['SkuWithProduct'];

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
const COLLECTION_FILTER_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'source_id',
  'name',
  'sku',
  'price',
  'currency',
  'attributes',
  'object',
  'product_id',
  'image_url',
  'created_at',
  'updated_at',
]);

/** The public API's spellings of the engine's inclusive comparisons. */
const ALIASES: Readonly<Record<string, string>> = { $more_than_equal: '$more_than_or_equal', $less_than_equal: '$less_than_or_equal' };

const DAY = 24 * 60 * 60 * 1000;

/** Operators on a date field counted in days from now, and on the length of an array field. */
const RELATIVE_OPERATORS: Readonly<Record<string, (actual: unknown, n: number, now: number) => boolean>> = {
  $is_days_ago: (actual, n, now) => sameUtcDay(actual, now - n * DAY),
  $is_days_in_future: (actual, n, now) => sameUtcDay(actual, now + n * DAY),
  $more_than_ago: (actual, n, now) => timeOf(actual) < now - n * DAY,
  $less_than_ago: (actual, n, now) => timeOf(actual) > now - n * DAY && timeOf(actual) <= now,
  $more_than_future: (actual, n, now) => timeOf(actual) > now + n * DAY,
  $less_than_future: (actual, n, now) => timeOf(actual) >= now && timeOf(actual) < now + n * DAY,
  $count: (actual, n) => Array.isArray(actual) && actual.length === n,
  $count_less: (actual, n) => Array.isArray(actual) && actual.length < n,
  $count_more: (actual, n) => Array.isArray(actual) && actual.length > n,
};

/** Operators that may take an object operand: they compare whole values. */
const EQUALITY_OPERATORS: ReadonlySet<string> = new Set(['$is', '$in', '$is_not', '$not_in']);

/** A timestamp in ms, or NaN (which no comparison holds for) when the value is not a date. */
function timeOf(value: unknown): number {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
}

function sameUtcDay(value: unknown, moment: number): boolean {
  const at = timeOf(value);
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === new Date(moment).toISOString().slice(0, 10);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const filterProblem = (details: string) => invalid('invalid_payload', 'Invalid payload', details);

/**
 * Checks a collection filter and returns it with a lower-case junction. A field or operator this engine
 * cannot evaluate is refused rather than ignored: ignoring it would silently widen the collection.
 */
function checkCollectionFilter(filter: ProductCollectionFilter): ProductCollectionFilter {
  const junction = (filter.junction ?? 'and').toLowerCase();
  for (const [field, clause] of Object.entries(filter)) {
    if (field === 'junction') continue;
    if (!COLLECTION_FILTER_FIELDS.has(field) && !/^metadata\.[^.]+$/.test(field)) {
      throw filterProblem(`filter cannot select on '${field}'; it can on ${[...COLLECTION_FILTER_FIELDS].join(', ')} and metadata.<key>`);
    }
    const conditions = isObject(clause) ? clause.conditions : undefined;
    if (!isObject(conditions)) throw filterProblem(`filter.${field} must be an object with conditions`);
    for (const [operator, operands] of Object.entries(conditions)) {
      const where = `filter.${field}.conditions.${operator}`;
      const known = FILTER_OPERATORS.has(operator) || operator in ALIASES || operator in RELATIVE_OPERATORS;
      if (!known) {
        const names = [...FILTER_OPERATORS, ...Object.keys(ALIASES), ...Object.keys(RELATIVE_OPERATORS)];
        throw filterProblem(`filter.${field}.conditions has an unknown operator '${operator}'; known: ${names.join(', ')}`);
      }
      if (!Array.isArray(operands)) throw filterProblem(`${where} must be an array of operands`);
      if (operator in RELATIVE_OPERATORS && !(operands.length > 0 && operands.every((value) => Number.isFinite(Number(value)) && typeof value !== 'object'))) {
        throw filterProblem(`${where} takes a number of ${operator.startsWith('$count') ? 'values' : 'days'}`);
      }
      if (!EQUALITY_OPERATORS.has(operator) && operands.some(isObject)) {
        throw filterProblem(`${where} cannot compare with an object; only $is, $in, $is_not and $not_in take one`);
      }
    }
  }
  return { ...FRESH, ...filter, junction } as ProductCollectionFilter;
}

/** Whether a value equals an object operand, compared as whole JSON values. */
function sameJson(actual: unknown, expected: Record<string, unknown>): boolean {
  if (Array.isArray(actual)) return actual.some((item) => sameJson(item, expected));
  return JSON.stringify(actual) === JSON.stringify(expected);
}

function readField(record: Product | Sku, field: string): unknown {
  if (field.startsWith('metadata.')) return record.metadata[field.slice('metadata.'.length)];
  return (record as unknown as Record<string, unknown>)[field];
}

function holds(actual: unknown, operator: string, operands: unknown[], now: number): boolean {
  const relative = RELATIVE_OPERATORS[operator];
  if (relative) return relative(actual, Number(operands[0]), now);
  const engineOperator = ALIASES[operator] ?? operator;
  const objects = operands.filter(isObject);
  if (objects.length === 0) return matchesConditions(actual, { [engineOperator]: operands as FilterValue[] });
  // Only the equality operators take objects (checkCollectionFilter); each object operand is one more value.
  const values = operands.filter((value) => !isObject(value)) as FilterValue[];
  const equalsOne = objects.some((object) => sameJson(actual, object)) || (values.length > 0 && matchesConditions(actual, { $in: values }));
  return engineOperator === '$is' || engineOperator === '$in' ? equalsOne : !equalsOne;
}

export function matchesCollectionFilter(record: Product | Sku, filter: ProductCollectionFilter, now: number): boolean {
  const results = Object.entries(filter)
    .filter(([field]) => field !== 'junction')
    .map(([field, clause]) => {
      const actual = readField(record, field);
      const conditions = (clause as { conditions: Record<string, unknown[]> }).conditions;
      return Object.entries(conditions).every(([operator, operands]) => holds(actual, operator, operands, now));
    });
  return filter.junction === 'or' ? results.some(Boolean) : results.every(Boolean);
}

/** Whether a collection holds a line's product or SKU: a static one by its members (a product with its SKUs), an auto-update one by its filter. */
export async function inCollection(ctx: DomainContext, collectionId: string, item: PricedItem): Promise<boolean> {
  const collection = await ctx.uow.product_collections.get(collectionId);
  if (!collection) return false;
  if (collection.type === 'STATIC') {
    return (collection.products ?? []).some((member) => member.id === item.product_id || member.id === item.sku_id);
  }
  if (!collection.filter) return false;
  // Each product and SKU meets the filter on its own (as the collection's member list has it): a SKU is not in
  // because its product is.
  const record = item.sku_id ? await ctx.uow.skus.get(item.sku_id) : item.product_id ? await ctx.uow.products.get(item.product_id) : undefined;
  return record !== undefined && matchesCollectionFilter(record, collection.filter, ctx.clock.now().getTime());
}

export async function createCollection(ctx: DomainContext, input: ProductCollectionCreate): Promise<ProductCollection> {
  const base = { id: newId('pc'), name: input.name, created_at: isoNow(ctx.clock) };
  const collection: ProductCollection =
    input.type === 'STATIC'
      ? { ...FRESH, ...base, type: 'STATIC', products: await resolveItems(ctx, input.products ?? []), object: 'products_collection' }
      : { ...FRESH, ...base, type: 'AUTO_UPDATE', filter: checkCollectionFilter(input.filter), object: 'products_collection' };
  return writeUnique('product_collection', () => ctx.uow.product_collections.insert(collection));
}

/** Renames a collection and replaces an auto-update collection's filter; a collection's type and members stay. */
export async function updateCollection(ctx: DomainContext, id: string, input: ProductCollectionUpdate): Promise<ProductCollection> {
  const collection = await findCollection(ctx, id);
  const changes: Partial<ProductCollection> = input.name === undefined ? {} : { name: input.name };
  if (collection.type === 'STATIC' && input.filter) {
    throw filterProblem(`Collection ${collection.id} is STATIC: it lists its members and has no filter`);
  }
  if (collection.type === 'AUTO_UPDATE' && input.filter !== undefined) {
    if (input.filter === null) throw filterProblem(`Collection ${collection.id} is AUTO_UPDATE: its filter cannot be removed`);
    changes.filter = checkCollectionFilter(input.filter);
  }
  const updated = applyChanges(collection, changes, isoNow(ctx.clock)) as ProductCollection;
  return writeUnique('product_collection', () => ctx.uow.product_collections.update(updated));
}

export async function deleteCollection(ctx: DomainContext, id: string): Promise<void> {
  const collection = await findCollection(ctx, id);
  await ctx.uow.product_collections.delete(collection.id);
}

export async function listCollections(ctx: DomainContext, query: PageRequest & { order?: CatalogOrder }) {
  return ctx.uow.product_collections.query({
    orderBy: catalogOrder(query.order, ['created_at', 'updated_at', 'type'] as const),
    ...pageWindow(query),
  });
}

/** Takes deleted products and SKUs out of every static collection that lists them. */
export async function removeFromStaticCollections(ctx: DomainContext, ids: ReadonlySet<string>): Promise<void> {
  for (const collection of await ctx.uow.product_collections.findBy('type', 'STATIC')) {
    const products = collection.products ?? [];
    const kept = products.filter((item) => !ids.has(item.id));
    if (kept.length !== products.length) {
      await ctx.uow.product_collections.update({ ...FRESH, ...collection, products: kept });
    }
  }
}

export interface MembersQuery extends PageRequest {
  order?: CatalogOrder;
  starting_after?: string;
}

/** Sorts members by a timestamp; a member never updated comes first by `updated_at`. Ties keep their order. */
function sortMembers(members: (Product | Sku)[], order: CatalogOrder): (Product | Sku)[] {
  const { field, direction } = catalogOrder(order, ['created_at', 'updated_at'] as const);
  const key = (member: Product | Sku) => member[field] ?? '';
  const sorted = members.map((member, position) => ({ member, position }));
  sorted.sort((a, b) => key(a.member).localeCompare(key(b.member)) || a.position - b.position);
  if (direction === 'desc') sorted.reverse();
  return sorted.map(({ member }) => member);
}

/**
 * The members of a collection now: listed ones for STATIC, the filter's matches for AUTO_UPDATE. Products
 * come without their SKUs, SKUs with their product.
 */
export async function listCollectionMembers(ctx: DomainContext, id: string, query: MembersQuery) {
  const collection = await findCollection(ctx, id);
  let members: (Product | Sku)[];
  if (collection.type === 'STATIC') {
    members = [];
    for (const item of collection.products ?? []) {
      const member = item.object === 'product' ? await ctx.uow.products.get(item.id) : await ctx.uow.skus.get(item.id);
      if (member) members.push(member);
    }
  } else {
    const now = ctx.clock.now().getTime();
    const everything = [...(await ctx.uow.products.query({})).rows, ...(await ctx.uow.skus.query({})).rows].sort((a, b) =>
      a.created_at.localeCompare(b.created_at),
    );
    members = everything.filter((record) => matchesCollectionFilter(record, collection.filter!, now));
  }
  if (query.order !== undefined) members = sortMembers(members, query.order);
  if (query.starting_after !== undefined) {
    const cursor = Date.parse(query.starting_after);
    const descending = query.order === '-created_at';
    members = members.filter((member) => (descending ? Date.parse(member.created_at) < cursor : Date.parse(member.created_at) > cursor));
  }
  const { offset, limit } = pageWindow(query);
  const rows: (Product | SkuWithProduct)[] = [];
  for (const member of members.slice(offset, offset + limit)) {
    if (member.object === 'product') rows.push(member);
    else {
      const product = await ctx.uow.products.get(member.product_id);
      rows.push({ ...FRESH, ...member, ...(product && { product }) });
    }
  }
  return { rows, total: members.length };
}

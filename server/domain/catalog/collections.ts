import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { FILTER_OPERATORS, filterCondition, matchesConditions, rowField, type Conditions, type ExtraOperators, type FilterDefinition, type FilterValue } from '../filters.js';
import { newId } from '../ids.js';
import { pageWindow, type PageRequest } from '../pagination.js';
import { writeUnique } from '../unique.js';
import { catalogOrder } from './catalog-order.js';
import type { CatalogOrder, Product, ProductCollection, ProductCollectionCreate, ProductCollectionFilter, ProductCollectionItem, Sku } from './types.js';
import type { components } from '../../../generated/openapi.js';
import type { PricedItem } from '../discounts.js';
import { FRESH } from '../../store/fresh.js';
import { and, compare, or, type Condition, type Field } from '../../store/conditions.js';
import { isoNow } from '../clock.js';
import { keepFirst } from '../../store/keep-first.js';

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

/**
 * Whether the store can select a filter's members itself, with the meaning matchesCollectionFilter gives it:
 * not when an operand is an object (compared as whole JSON, which the store's conditions do not do), nor for
 * the `$count` operators (which hold for no value but an array, where the store's `length` reads a non-array
 * as empty).
 */
function storeSelects(filter: ProductCollectionFilter): boolean {
  return Object.entries(filter)
    .filter(([field]) => field !== 'junction')
    .every(([, clause]) =>
      Object.entries((clause as { conditions: Record<string, unknown[]> }).conditions).every(([operator, operands]) => !operator.startsWith('$count') && !operands.some(isObject)),
    );
}

/** The day operators as store conditions, `now` being the moment of the request; each holds only for a text that reads as a date, as timeOf does. */
function dayOperators(now: number): ExtraOperators {
  const days = (values: readonly unknown[]) => Number(values[0]) * DAY;
  const dayOf = (moment: number) => Math.floor(moment / DAY) * DAY;
  // Any text is at least the empty text: the field holds a string, not a number the store would read as a time.
  const dated = (field: Field, ...conditions: Condition[]) => and(compare('gte', field, ''), ...conditions);
  const sameDay = (field: Field, moment: number) => dated(field, compare('gte', field, dayOf(moment), 'time'), compare('lt', field, dayOf(moment) + DAY, 'time'));
  return {
    $is_days_ago: (field, values) => sameDay(field, now - days(values)),
    $is_days_in_future: (field, values) => sameDay(field, now + days(values)),
    $more_than_ago: (field, values) => dated(field, compare('lt', field, now - days(values), 'time')),
    $less_than_ago: (field, values) => dated(field, compare('gt', field, now - days(values), 'time'), compare('lte', field, now, 'time')),
    $more_than_future: (field, values) => dated(field, compare('gt', field, now + days(values), 'time')),
    $less_than_future: (field, values) => dated(field, compare('gte', field, now, 'time'), compare('lt', field, now + days(values), 'time')),
  };
}

/** A filter the store can select on (storeSelects) as a store condition on products and SKUs alike. */
function collectionCondition(filter: ProductCollectionFilter, now: number): Condition {
  const spelled: FilterDefinition = { junction: filter.junction?.toLowerCase() === 'or' ? 'or' : 'and' };
  for (const [field, clause] of Object.entries(filter)) {
    if (field === 'junction') continue;
    const conditions = (clause as { conditions: Record<string, unknown[]> }).conditions;
    spelled[field] = { conditions: Object.fromEntries(Object.entries(conditions).map(([operator, operands]) => [ALIASES[operator] ?? operator, operands])) as Conditions };
  }
  return filterCondition(spelled, rowField, dayOperators(now));
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

/** Member order: the sort key (a member never updated first by `updated_at`), then creation, a product before a SKU. */
function memberOrder(order: CatalogOrder | undefined) {
  const { field, direction } = catalogOrder(order, ['created_at', 'updated_at'] as const);
  const ascending = (a: Product | Sku, b: Product | Sku) =>
    (a[field] ?? '').localeCompare(b[field] ?? '') || a.created_at.localeCompare(b.created_at) || (a.object === b.object ? 0 : a.object === 'product' ? -1 : 1);
  return { field, direction, compare: direction === 'desc' ? (a: Product | Sku, b: Product | Sku) => ascending(b, a) : ascending };
}

/** The `starting_after` cursor: members made after it (before it, newest first). */
function afterCursor(query: MembersQuery): { holds(member: Product | Sku): boolean; condition: Condition } | undefined {
  if (query.starting_after === undefined) return undefined;
  const cursor = Date.parse(query.starting_after);
  const descending = query.order === '-created_at';
  if (Number.isNaN(cursor)) return { holds: () => false, condition: or() };
  return {
    holds: (member) => (descending ? Date.parse(member.created_at) < cursor : Date.parse(member.created_at) > cursor),
    condition: compare(descending ? 'lt' : 'gt', 'created_at', cursor, 'time'),
  };
}

/**
 * The first `count` members of an auto-update collection the store selects (storeSelects), with how many there
 * are: each table's first `count` in the order asked for, merged. Nothing beyond the page is read into memory.
 */
async function selectedMembers(ctx: DomainContext, filter: ProductCollectionFilter, query: MembersQuery, count: number) {
  const { field, direction, compare: order } = memberOrder(query.order);
  const where = and(collectionCondition(filter, ctx.clock.now().getTime()), afterCursor(query)?.condition);
  const request = { where, orderBy: { field, direction }, limit: count };
  const [products, skus] = [await ctx.uow.products.query(request), await ctx.uow.skus.query(request)];
  return { members: [...products.rows, ...skus.rows].sort(order).slice(0, count), total: products.total + skus.total };
}

/** Every member of a static collection, in the order asked for. */
async function listedMembers(ctx: DomainContext, collection: ProductCollection, query: MembersQuery) {
  let members: (Product | Sku)[] = [];
  for (const item of collection.products ?? []) {
    const member = item.object === 'product' ? await ctx.uow.products.get(item.id) : await ctx.uow.skus.get(item.id);
    if (member) members.push(member);
  }
  // A static collection keeps its listed order unless an order is asked for; ties keep it too.
  if (query.order !== undefined) members = sortMembers(members, query.order);
  const cursor = afterCursor(query);
  if (cursor) members = members.filter((member) => cursor.holds(member));
  return { members, total: members.length };
}

/** Products or SKUs whose membership is worked out at a time. */
const MEMBERS_PAGE = 500;

/**
 * The first `count` members of an auto-update collection whose filter is worked out member by member (not
 * storeSelects), with how many there are: the products, then the SKUs, are read a page at a time, and only the
 * first `count` matches in the order asked for are kept.
 */
async function filteredMembers(ctx: DomainContext, filter: ProductCollectionFilter, query: MembersQuery, count: number) {
  const now = ctx.clock.now().getTime();
  const { compare } = memberOrder(query.order);
  const cursor = afterCursor(query);
  const first: (Product | Sku)[] = [];
  let total = 0;
  const consider = (member: Product | Sku) => {
    if (!matchesCollectionFilter(member, filter, now) || (cursor && !cursor.holds(member))) return;
    total++;
    keepFirst(first, member, count, compare);
  };
  for await (const page of ctx.uow.products.walk({}, MEMBERS_PAGE)) page.forEach(consider);
  for await (const page of ctx.uow.skus.walk({}, MEMBERS_PAGE)) page.forEach(consider);
  return { members: first, total };
}

/**
 * The members of a collection now: listed ones for STATIC, the filter's matches for AUTO_UPDATE (selected by
 * the store, a page at a time, unless the filter needs each member in hand). Products come without their SKUs,
 * SKUs with their product.
 */
export async function listCollectionMembers(ctx: DomainContext, id: string, query: MembersQuery) {
  const collection = await findCollection(ctx, id);
  const { offset, limit } = pageWindow(query);
  const { members, total } =
    collection.type === 'STATIC' || !collection.filter
      ? await listedMembers(ctx, collection, query)
      : storeSelects(collection.filter)
        ? await selectedMembers(ctx, collection.filter, query, offset + limit)
        : await filteredMembers(ctx, collection.filter, query, offset + limit);
  const rows: (Product | SkuWithProduct)[] = [];
  for (const member of members.slice(offset, offset + limit)) {
    if (member.object === 'product') rows.push(member);
    else {
      const product = await ctx.uow.products.get(member.product_id);
      rows.push({ ...FRESH, ...member, ...(product && { product }) });
    }
  }
  return { rows, total };
}

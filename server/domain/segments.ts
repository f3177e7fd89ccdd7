/**
 * Customer segments. A static segment holds the customers it was given; an auto-update or passive one holds,
 * at any moment, every customer its filter matches, so its members are worked out when asked, never stored.
 * Auto-update segments also tell when a customer enters or leaves them: each customer write compares the
 * customer's segments before and after (`noteSegmentChanges`).
 */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { recordEvent } from './events.js';
import { checkFilter, checkOperatorValues, filterCondition, matchesFilter, rowField, type FilterDefinition } from './filters.js';
import { newId } from './ids.js';
import { idsWhere, parseOrder } from './pagination.js';
import { normalizeFilters } from './list-filters.js';
import { table } from '../store/schema.js';
import { and, eq, isIn, or, type Condition, type Field } from '../store/conditions.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type Segment = Schemas['Segment'];
type SegmentType = Schemas['SegmentType'];
type SegmentCreate = Schemas['SegmentsCreateRequestBody'];

/** A segment as stored: a static one keeps its members' IDs. */
export interface SegmentRecord {
  id: string;
  name: string;
  type: SegmentType;
  filter: FilterDefinition | null;
  customers: string[];
  created_at: string;
}

export const SEGMENTS_TABLE = table<SegmentRecord>({ unique: [], indexed: [], ordered: ['created_at'], frozen: true, kept: true, kinds: { created_at: 'text' } });

/** The customer as a segment filter reads it; only what `CustomerFacts` needs of the stored customer. */
interface CustomerLike {
  id: string;
  source_id: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  description: string | null;
  birthdate: string | null;
  birthday: string | null;
  created_at: string;
  updated_at: string | null;
  address: Record<string, string | null> | null;
  metadata?: Record<string, unknown>;
  summary: { redemptions: { total_redeemed: number; total_succeeded: number } };
}

const PLAIN_FIELDS = ['id', 'source_id', 'name', 'email', 'phone', 'description', 'birthdate', 'birthday', 'created_at', 'updated_at'] as const;
const ADDRESS_FIELDS = ['city', 'state', 'line_1', 'line_2', 'country', 'postal_code'] as const;
const ORDER_FIELDS = ['total_amount', 'total_count', 'average_amount', 'last_order_amount', 'last_order_date'] as const;

/** The customer fields a segment filter may test. */
export const SEGMENT_FILTER_FIELDS: ReadonlySet<string> = new Set([
  ...PLAIN_FIELDS,
  ...ADDRESS_FIELDS.map((field) => `address.${field}`),
  'metadata',
  'loyalty.points',
  ...ORDER_FIELDS.map((field) => `summary.orders.${field}`),
  'summary.redemptions.total_redeemed',
  'summary.redemptions.total_succeeded',
]);

/**
 * The customer's fields under the names a filter uses. Order totals and loyalty points are read from the
 * customer's orders and cards only when the filter asks for them.
 */
async function customerFacts(ctx: DomainContext, customer: CustomerLike, filter: FilterDefinition): Promise<Record<string, unknown>> {
  const facts: Record<string, unknown> = { metadata: customer.metadata ?? {} };
  for (const field of PLAIN_FIELDS) facts[field] = customer[field];
  for (const field of ADDRESS_FIELDS) facts[`address.${field}`] = customer.address?.[field] ?? null;
  facts['summary.redemptions.total_redeemed'] = customer.summary.redemptions.total_redeemed;
  facts['summary.redemptions.total_succeeded'] = customer.summary.redemptions.total_succeeded;
  const fields = Object.keys(filter);
  if (fields.some((field) => field.startsWith('summary.orders.'))) {
    const orders = (await ctx.uow.orders.findBy('customer_id', customer.id)).filter((order) => order.status !== 'CANCELED');
    const total = orders.reduce((sum, order) => sum + order.amount, 0);
    const last = orders.reduce<(typeof orders)[number] | undefined>((latest, order) => (!latest || order.created_at >= latest.created_at ? order : latest), undefined);
    facts['summary.orders.total_amount'] = total;
    facts['summary.orders.total_count'] = orders.length;
    facts['summary.orders.average_amount'] = orders.length ? Math.floor(total / orders.length) : 0;
    facts['summary.orders.last_order_amount'] = last?.amount ?? 0;
    facts['summary.orders.last_order_date'] = last?.created_at ?? null;
  }
  if (fields.includes('loyalty.points')) {
    const cards = await ctx.uow.vouchers.findBy('holder_id', customer.id);
    facts['loyalty.points'] = cards.reduce((sum, card) => sum + (card.loyalty_card?.balance ?? 0), 0);
  }
  return facts;
}

/**
 * Whether the segment holds the customer now. `metadata` stands in for the stored customer's metadata, for
 * a request that describes the customer anew (a validation's `customer.metadata`).
 */
export async function segmentHolds(ctx: DomainContext, segment: SegmentRecord, customer: CustomerLike, metadata?: Record<string, unknown>): Promise<boolean> {
  if (segment.type === 'static') return segment.customers.includes(customer.id);
  if (!segment.filter) return false;
  const facts = await customerFacts(ctx, metadata ? { ...FRESH, ...customer, metadata } : customer, segment.filter);
  return matchesFilter(facts, segment.filter);
}

/** Every segment that holds the customer now, oldest first. */
export async function segmentsOf(ctx: DomainContext, customer: CustomerLike, metadata?: Record<string, unknown>): Promise<SegmentRecord[]> {
  const held: SegmentRecord[] = [];
  for (const segment of (await ctx.uow.segments.query({ orderBy: { field: 'created_at', direction: 'asc' } })).rows) {
    if (await segmentHolds(ctx, segment, customer, metadata)) held.push(segment);
  }
  return held;
}

export function presentSegment(segment: SegmentRecord): Segment {
  return { id: segment.id, name: segment.name, created_at: segment.created_at, type: segment.type, filter: segment.filter, object: 'segment' };
}

export async function findSegment(ctx: DomainContext, id: string): Promise<SegmentRecord> {
  const segment = await ctx.uow.segments.get(id);
  if (!segment) throw notFound('segment', id);
  return segment;
}

/** Refusals of what the contract's schema lets through, under a key of their own (not a malformed body). */
const PAYLOAD = { key: 'invalid_segment', message: 'Invalid segment', name: 'filter' };

export async function createSegment(ctx: DomainContext, input: SegmentCreate): Promise<SegmentRecord> {
  const type = input.type ?? 'static';
  const id = newId('seg');
  let filter: FilterDefinition | null = null;
  const customers: string[] = [];
  // The public API's body is one of two shapes, by `type`: a field of the other shape (a static segment's
  // `filter`, a filtered one's `customers`) is no part of this one, and is ignored like any unknown field.
  if (type === 'static') {
    for (const ref of input.customers ?? []) {
      const customer = (await ctx.uow.customers.get(ref)) ?? (await ctx.uow.customers.getBy('source_id', ref));
      if (!customer) throw notFound('customer', ref);
      if (!customers.includes(customer.id)) customers.push(customer.id);
    }
  } else {
    if (input.filter === undefined || !Object.keys(input.filter).some((key) => key !== 'junction')) {
      throw invalid(PAYLOAD.key, PAYLOAD.message, `An ${type} segment needs a filter with at least one condition`);
    }
    const checked = checkFilter(input.filter, SEGMENT_FILTER_FIELDS, PAYLOAD);
    for (const [field, clause] of Object.entries(checked)) {
      if (field !== 'junction') checkOperatorValues((clause as { conditions: Record<string, unknown> }).conditions, `filter.${field}`, PAYLOAD);
    }
    filter = checked as FilterDefinition;
  }
  return ctx.uow.segments.insert({ id, name: input.name ?? id, type, filter, customers, created_at: isoNow(ctx.clock) });
}

export async function deleteSegment(ctx: DomainContext, id: string): Promise<void> {
  await findSegment(ctx, id);
  await ctx.uow.segments.delete(id);
}

const SEGMENT_LIST_FIELDS: ReadonlySet<string> = new Set(['id', 'name', 'type', 'created_at']);

export interface SegmentListQuery {
  limit?: number;
  order?: 'created_at' | '-created_at';
  filters?: Record<string, unknown>;
  ids?: string[];
}

export async function listSegments(ctx: DomainContext, query: SegmentListQuery): Promise<{ rows: Segment[]; total: number }> {
  const filter = query.filters && Object.keys(query.filters).some((key) => key !== 'junction') ? normalizeFilters(query.filters, SEGMENT_LIST_FIELDS) : undefined;
  const ids = query.ids && query.ids.length > 0 ? query.ids : undefined;
  // Without a condition, the page is read straight off creation order.
  const page = await ctx.uow.segments.query({
    ...FRESH,
    ...((ids || filter) && { where: and(ids && isIn('id', ids), filter && filterCondition(filter)) }),
    orderBy: parseOrder<'created_at'>(query.order ?? 'created_at'),
    offset: 0,
    limit: query.limit ?? 10,
  });
  return { rows: page.rows.map(presentSegment), total: page.total };
}

/** Where a segment filter's field is on the stored customer; undefined for a figure worked out from other tables. */
function storedCustomerField(name: string): Field | undefined {
  if (name.startsWith('summary.orders.') || name === 'loyalty.points') return undefined;
  if (name.startsWith('metadata.')) return rowField(name);
  // `address.city`, `summary.redemptions.total_redeemed`: paths into the customer.
  return name.includes('.') ? name.split('.') : name;
}

/** Customers a segment's members are worked out for at a time (their orders and cards read in one statement each). */
const MEMBERS_PAGE = 500;

/**
 * The customers a segment holds now, as a condition on the customers table (the customers list's
 * `segment_id`). A filter on the stored customer's fields is the condition itself; one that reads order totals
 * or loyalty points, which are worked out from other tables, is worked out customer by customer, a page of
 * customers at a time (those the filter's stored fields already leave out, when its junction is `and`, never read).
 */
export async function segmentMembers(ctx: DomainContext, segmentId: string): Promise<Condition> {
  const segment = await findSegment(ctx, segmentId);
  if (segment.type === 'static') return isIn('id', segment.customers);
  const { filter } = segment;
  if (!filter) return or();
  const fields = Object.keys(filter).filter((field) => field !== 'junction');
  const stored = (field: string) => storedCustomerField(field)!;
  if (fields.every((field) => storedCustomerField(field) !== undefined)) return filterCondition(filter, stored);
  const storedPart = Object.fromEntries(Object.entries(filter).filter(([field]) => field !== 'junction' && storedCustomerField(field) !== undefined));
  const where = filter.junction === 'or' ? undefined : filterCondition({ ...FRESH, ...storedPart, junction: 'and' } as FilterDefinition, stored);
  return isIn('id', await idsWhere(ctx.uow.customers.walk(where ? { where } : {}, MEMBERS_PAGE), (customer) => segmentHolds(ctx, segment, customer)));
}

/** The auto-update segments that hold the customer: the ones whose entering and leaving is told. */
async function announcedSegments(ctx: DomainContext, customer: CustomerLike | undefined): Promise<Map<string, SegmentRecord>> {
  const held = new Map<string, SegmentRecord>();
  if (!customer) return held;
  for (const segment of (await ctx.uow.segments.query({ where: eq('type', 'auto-update') })).rows) {
    if (await segmentHolds(ctx, segment, customer)) held.set(segment.id, segment);
  }
  return held;
}

/** What `noteSegmentChanges` needs to know of the customer before a write. */
export type SegmentSnapshot = Map<string, SegmentRecord>;

export async function segmentSnapshot(ctx: DomainContext, customer: CustomerLike | undefined): Promise<SegmentSnapshot> {
  return announcedSegments(ctx, customer);
}

/**
 * After a customer write: records the customer entering each auto-update segment it matches now and did
 * not before (`customer.segment.entered`), and leaving each one it no longer matches
 * (`customer.segment.left`). Returns the segments entered, for the loyalty rules that reward entering.
 */
export async function noteSegmentChanges(ctx: DomainContext, before: SegmentSnapshot, after: CustomerLike | undefined, customerId: string) {
  const now = await announcedSegments(ctx, after);
  const entered: { segment: SegmentRecord; eventId: string }[] = [];
  for (const [id, segment] of now) {
    if (before.has(id)) continue;
    const event = await recordEvent(ctx, 'customer.segment.entered', { customer_id: customerId }, { segment: { id, name: segment.name, object: 'segment' } });
    entered.push({ segment, eventId: event.id });
  }
  for (const [id, segment] of before) {
    if (now.has(id)) continue;
    await recordEvent(ctx, 'customer.segment.left', { customer_id: customerId }, { segment: { id, name: segment.name, object: 'segment' } });
  }
  return entered;
}

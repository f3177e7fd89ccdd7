import type { components } from '../../generated/openapi.js';
import { applyChanges, changesNothing } from './changes.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { recordEvent, type EventRecord, type EventType } from './events.js';
import { currentTier } from './loyalty/tiers.js';
import { newId } from './ids.js';
import { listenerSlot } from './listener-slot.js';
import { cursorPage, pageWindow, parseOrder, type PageRequest, type SortOrder } from './pagination.js';
import { noteSegmentChanges, segmentSnapshot, type SegmentSnapshot } from './segments.js';
import { timeBound, withinRange, type TimeRange } from './time-range.js';
import { writeUnique } from './unique.js';
import { table } from '../store/schema.js';
import { and, eq, has, notNull, type Condition } from '../store/conditions.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type CustomerSchema = components['schemas']['Customer'];
type CustomerCreate = components['schemas']['CustomersCreateRequestBody'];
type CustomerUpdate = components['schemas']['CustomersUpdateRequestBody'];
type CustomerReference = components['schemas']['CustomerReference'];
type Address = NonNullable<CustomerSchema['address']>;
type Loyalty = NonNullable<CustomerSchema['loyalty']>;
type Referrals = NonNullable<CustomerSchema['referrals']>;

/**
 * A stored customer: the contract leaves most fields optional (the public API may leave them out), but this
 * server keeps and sends every one of them but `assets`, and `metadata` until some is given.
 */
export type Customer = Omit<CustomerSchema, 'loyalty' | 'referrals' | 'assets' | 'summary'> &
  Required<Pick<CustomerSchema, 'id' | 'source_id' | 'name' | 'description' | 'email' | 'phone' | 'birthday' | 'birthdate' | 'address' | 'system_metadata' | 'created_at' | 'updated_at'>> & {
    loyalty: Loyalty;
    referrals: Referrals;
    summary: NonNullable<CustomerSchema['summary']>;
  };

export const CUSTOMERS_TABLE = table<Customer>({ unique: ['source_id'], indexed: [], ordered: ['created_at'], kinds: { created_at: 'text', updated_at: 'text', source_id: 'text', name: 'text', email: 'text', id: 'text' } });

export interface CustomerListQuery extends PageRequest {
  order?: SortOrder | 'source_id' | '-source_id';
  starting_after?: string;
  email?: string;
  name?: string;
  city?: string;
  segment_id?: string;
  created_at?: TimeRange;
  updated_at?: TimeRange;
}

function emptySummary(): Customer['summary'] {
  return {
    redemptions: {
      total_redeemed: 0,
      total_failed: 0,
      total_succeeded: 0,
      total_rolled_back: 0,
      total_rollback_failed: 0,
      total_rollback_succeeded: 0,
      gift: { redeemed_amount: 0, amount_to_go: 0 },
      loyalty_card: { redeemed_points: 0, points_to_go: 0 },
    },
    orders: { total_amount: 0, total_count: 0, average_amount: 0, last_order_amount: 0, last_order_date: null },
  };
}

/** Every address field is present in responses, null where not given. */
function fullAddress(address: CustomerCreate['address']): Customer['address'] {
  if (address === undefined || address === null) return null;
  const fields: (keyof Address)[] = ['city', 'state', 'line_1', 'line_2', 'country', 'postal_code'];
  return Object.fromEntries(fields.map((field) => [field, address[field] ?? null])) as Address;
}

/** The address fields a bulk update sent, over the stored ones: a field it leaves unset is kept, or left out, never nulled. */
function mergedAddress(stored: Customer['address'] | undefined, sent: CustomerCreate['address']): Customer['address'] {
  if (sent === undefined || sent === null) return sent === null ? null : (stored ?? null);
  const given = Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== undefined));
  return { ...FRESH, ...(stored ?? {}), ...given } as Address;
}

/** Finds a customer by ID, then by `source_id`. */
export async function findCustomer({ uow }: DomainContext, ref: string): Promise<Customer> {
  const customer = (await uow.customers.get(ref)) ?? (await uow.customers.getBy('source_id', ref));
  if (!customer) throw notFound('customer', ref);
  return customer;
}

/**
 * Creates a customer, or updates the one `id` names, or else the one that already has the `source_id` (the
 * public API's upsert).
 */
/**
 * One customer of a bulk update: the upsert above, except that a sent address changes only the fields it names
 * (a new customer's address has only those), where create and update fill every address field.
 */
export async function bulkUpsertCustomer(ctx: DomainContext, input: CustomerCreate): Promise<Customer> {
  const existing = input.source_id ? await ctx.uow.customers.getBy('source_id', input.source_id) : undefined;
  return upsertCustomer(ctx, input, (sent) => mergedAddress(existing?.address, sent));
}

export async function upsertCustomer(ctx: DomainContext, input: CustomerCreate, addressOf: (sent: CustomerCreate['address']) => Customer['address'] = fullAddress): Promise<Customer> {
  return (await upsertCustomerTold(ctx, input, addressOf)).customer;
}

/**
 * upsertCustomer, telling also whether the customer is new and entered no segment. Such a customer holds
 * nothing yet: no voucher or order can name an ID made a moment ago, and only entering a segment runs rules
 * (earning) on a customer as it is made. Its presentation (presentCustomer's `holdsNothing`) then need not
 * read its vouchers and orders, two statements of the eight a creation sends on the SQL store.
 */
export async function upsertCustomerTold(
  ctx: DomainContext,
  input: CustomerCreate,
  addressOf: (sent: CustomerCreate['address']) => Customer['address'] = fullAddress,
): Promise<{ customer: Customer; holdsNothing: boolean }> {
  if (input.id !== undefined) {
    const existing = await ctx.uow.customers.get(input.id);
    if (!existing) throw notFound('customer', input.id);
    const { id: _id, source_id: _ignored, ...changes } = input;
    return { customer: await updateCustomer(ctx, existing.id, changes, addressOf), holdsNothing: false };
  }
  if (input.source_id) {
    const existing = await ctx.uow.customers.getBy('source_id', input.source_id);
    if (existing) {
      const { source_id: _sameSourceId, ...changes } = input;
      return { customer: await updateCustomer(ctx, existing.id, changes, addressOf), holdsNothing: false };
    }
  }
  const customer: Customer = {
    id: newId('cust'),
    source_id: input.source_id ?? null,
    name: input.name ?? null,
    description: input.description ?? null,
    email: input.email ?? null,
    phone: input.phone ?? null,
    birthday: input.birthday ?? null,
    birthdate: input.birthdate ?? null,
    address: addressOf(input.address),
    summary: emptySummary(),
    loyalty: { points: 0, referred_customers: 0, campaigns: {} },
    referrals: { total: 0, campaigns: [] },
    // The public API leaves `metadata` out of a customer created without it.
    ...(input.metadata != null && { metadata: input.metadata }),
    system_metadata: {},
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'customer',
  };
  const created = await writeUnique('customer', () => ctx.uow.customers.insert(customer));
  await recordEvent(ctx, 'customer.created', { customer_id: created.id }, { customer: { id: created.id, source_id: created.source_id } });
  const entered = await followSegments(ctx, new Map(), created);
  return { customer: created, holdsNothing: entered === 0 };
}

/**
 * The customer a request names, as orders, qualifications and publications take it: by `id` (which must
 * exist), by `source_id` (an unknown one creates the customer with the details given), or, with neither, by
 * details alone (`name`, `email` or `phone`), which creates a new customer. Undefined when the reference
 * names no one (nothing but metadata, say).
 */
export async function namedCustomer(ctx: DomainContext, ref: CustomerReference | null | undefined): Promise<Customer | undefined> {
  if (!ref) return undefined;
  if (ref.id) {
    const customer = await ctx.uow.customers.get(ref.id);
    if (!customer) throw notFound('customer', ref.id);
    return customer;
  }
  if (!namesCustomer(ref)) return undefined;
  if (ref.source_id) {
    const existing = await ctx.uow.customers.getBy('source_id', ref.source_id);
    if (existing) return existing;
  }
  return upsertNamedCustomer(ctx, ref);
}

/** Whether a reference without an `id` names a customer: by `source_id`, or by details (`name`, `email` or `phone`). */
export function namesCustomer(ref: CustomerReference): boolean {
  return Boolean(ref.source_id || ref.name || ref.email || ref.phone);
}

/** The customer a reference without an `id` names, upserted with the details it gives (see upsertCustomer). */
export function upsertNamedCustomer(ctx: DomainContext, ref: CustomerReference): Promise<Customer> {
  const { id: _id, object: _object, ...fields } = ref;
  return upsertCustomer(ctx, fields);
}

/**
 * What follows a customer entering an auto-update segment, with the event that told it: the points of the
 * loyalty programs' segment rules (loyalty/earning.ts, which imports this module; hooks.ts sets it).
 */
export const segmentEntered = listenerSlot<[ctx: DomainContext, customerId: string, segmentId: string, trigger: EventRecord]>('a customer entering a segment');

/** Tells which auto-update segments the customer entered and left with a write, and rewards entering. */
/** Records the segments the customer entered and left, and runs what entering one does; returns how many it entered. */
async function followSegments(ctx: DomainContext, before: SegmentSnapshot, after: Customer): Promise<number> {
  const entered = await noteSegmentChanges(ctx, before, after, after.id);
  for (const { segment, eventId } of entered) {
    const trigger = (await ctx.uow.events.get(eventId))!;
    await segmentEntered.call(ctx, after.id, segment.id, trigger);
  }
  return entered.length;
}

export async function updateCustomer(ctx: DomainContext, ref: string, input: CustomerUpdate, addressOf: (sent: CustomerUpdate['address']) => Customer['address'] = fullAddress): Promise<Customer> {
  const customer = await findCustomer(ctx, ref);
  const { address, metadata, ...fields } = input;
  const changes: Partial<Customer> = {
    ...FRESH,
    ...fields,
    ...(address !== undefined && { address: addressOf(address) }),
    // `metadata: null` means none: the customer keeps an empty map.
    ...(metadata !== undefined && { metadata: metadata ?? {} }),
  };
  if (changesNothing(customer, changes)) return customer;
  const updated = applyChanges(customer, changes, isoNow(ctx.clock));
  const before = await segmentSnapshot(ctx, customer);
  await recordEvent(ctx, 'customer.updated', { customer_id: customer.id }, { customer: { id: customer.id, source_id: customer.source_id } });
  const stored = await ctx.uow.customers.update(updated);
  await followSegments(ctx, before, stored);
  return stored;
}

export async function deleteCustomer(ctx: DomainContext, ref: string): Promise<void> {
  const customer = await findCustomer(ctx, ref);
  await ctx.uow.customers.delete(customer.id);
  // A deleted customer leaves the static segments that held it; filters stop matching it by themselves.
  for (const segment of (await ctx.uow.segments.query({ where: has('customers', customer.id) })).rows) {
    await ctx.uow.segments.update({ ...FRESH, ...segment, customers: segment.customers.filter((id) => id !== customer.id) });
  }
  await recordEvent(ctx, 'customer.deleted', { customer_id: customer.id }, { customer: { id: customer.id, source_id: customer.source_id } });
}

/** `members`: the customers of the segment `segment_id` names, which the caller works out (see segmentMembers). */
export async function listCustomers(ctx: DomainContext, query: CustomerListQuery, members?: Condition) {
  // Newest first by default: the published SDKs' scroll helpers page back in time when no order is given.
  const orderName = query.order ?? '-created_at';
  const order = parseOrder<'created_at' | 'updated_at' | 'source_id'>(orderName);
  const cursor = query.starting_after === undefined ? undefined : Date.parse(query.starting_after);
  const backwards = orderName.startsWith('-');
  const conditions = [
    query.email === undefined ? undefined : eq('email', query.email),
    query.name === undefined ? undefined : eq('name', query.name),
    query.city === undefined ? undefined : eq(['address', 'city'], query.city),
    members,
    // (The validator fills in the deepObject ranges as `{}` when they are not given; those set no condition.)
    withinRange('created_at', query.created_at),
    withinRange('updated_at', query.updated_at),
    cursor === undefined ? undefined : timeBound(backwards ? 'lt' : 'gt', 'created_at', cursor),
  ].filter((condition) => condition !== undefined);
  const window = pageWindow(query);
  // Without a condition, the store reads the page straight off insertion order (customers are kept in
  // creation order), so a page costs the same however many customers the project has.
  const page = await ctx.uow.customers.query({
    ...FRESH,
    ...(conditions.length > 0 && { where: and(...conditions) }),
    orderBy: order,
    ...window,
  });
  return { ...FRESH, ...page, has_more: window.offset + page.rows.length < page.total };
}

/**
 * The customer as the contract shows it. Order totals, balances still to spend and loyalty points are
 * derived from the customer's orders and the cards they hold now, so they are always true; redemption
 * counters are kept as redemptions happen.
 */
/** The customer as answered, its summary worked out from what it holds; `holdsNothing` as upsertCustomerTold tells it. */
export async function presentCustomer(ctx: DomainContext, record: Customer, { holdsNothing = false } = {}): Promise<Customer> {
  let giftToGo = 0;
  let points = 0;
  // Referral counts are kept on the customer; points come from the cards held now.
  const campaigns: Customer['loyalty']['campaigns'] = Object.fromEntries(
    Object.entries(record.loyalty.campaigns).map(([name, entry]) => [name, { ...FRESH, ...entry, points: 0 }]),
  );
  for (const voucher of holdsNothing ? [] : await ctx.uow.vouchers.findBy('holder_id', record.id)) {
    if (voucher.gift) giftToGo += voucher.gift.balance;
    if (voucher.loyalty_card) {
      points += voucher.loyalty_card.balance;
      const campaign = voucher.campaign_id ? await ctx.uow.campaigns.get(voucher.campaign_id) : undefined;
      if (campaign) {
        const entry = campaigns[campaign.name] ?? { points: 0, referred_customers: 0 };
        const tier = await currentTier(ctx, voucher.id);
        campaigns[campaign.name] = { ...FRESH, ...entry, points: (entry.points ?? 0) + voucher.loyalty_card.balance, ...(tier && { loyalty_tier: tier.id }) };
      }
    }
  }
  const orders = (holdsNothing ? [] : await ctx.uow.orders.findBy('customer_id', record.id)).filter((order) => order.status !== 'CANCELED');
  const totalAmount = orders.reduce((sum, order) => sum + order.amount, 0);
  const last = orders.reduce<(typeof orders)[number] | undefined>((latest, order) => (!latest || order.created_at >= latest.created_at ? order : latest), undefined);
  const redemptions = record.summary.redemptions;
  return {
    ...FRESH,
    ...record,
    summary: {
      ...FRESH,
      ...record.summary,
      orders: {
        total_amount: totalAmount,
        total_count: orders.length,
        average_amount: orders.length ? Math.floor(totalAmount / orders.length) : 0,
        last_order_amount: last?.amount ?? 0,
        last_order_date: last?.created_at ?? null,
      },
      redemptions: {
        ...FRESH,
        ...redemptions,
        gift: { ...FRESH, ...redemptions.gift, amount_to_go: giftToGo },
        loyalty_card: { ...FRESH, ...redemptions.loyalty_card, points_to_go: points },
      },
    },
    loyalty: { ...FRESH, ...record.loyalty, points, campaigns },
  };
}

type ActivityType = components['schemas']['CustomerActivityType'];
type CampaignType = components['schemas']['CampaignType'];

export interface ActivityQuery {
  limit?: number;
  starting_after_id?: string;
  order?: 'created_at' | '-created_at';
  start_date?: string;
  end_date?: string;
  campaign_id?: string;
  campaign_type?: CampaignType;
  category?: 'ACTION' | 'EFFECT';
  type?: ActivityType;
}

/**
 * The public API's name of each recorded event that is customer activity. Events missing here (campaign and
 * rule changes, a voucher published, which a publication already records) are not listed.
 */
const ACTIVITY_TYPES: Partial<Record<EventType, ActivityType>> = {
  'customer.created': 'customer.created',
  'customer.updated': 'customer.updated',
  'customer.deleted': 'customer.deleted',
  'customer.custom_event': 'customer.custom_event',
  'customer.order.paid': 'customer.order.paid',
  'customer.rewarded': 'customer.rewarded',
  'customer.rewarded.loyalty_points': 'customer.rewarded.loyalty_points',
  'customer.reward_redemptions.created': 'customer.reward_redemptions.created',
  'customer.segment.entered': 'customer.segment.entered',
  'customer.segment.left': 'customer.segment.left',
  'validation.succeeded': 'customer.validation.succeeded',
  'validation.failed': 'customer.validation.failed',
  'redemption.succeeded': 'customer.redemption.succeeded',
  'redemption.failed': 'customer.redemption.failed',
  'redemption.rollback.succeeded': 'customer.redemption.rollback.succeeded',
  'redemption.rollback.failed': 'customer.redemption.rollback.failed',
  'publication.succeeded': 'customer.publication.succeeded',
  'publication.failed': 'customer.publication.failed',
  'voucher.gift.balance_added': 'customer.voucher.gift.balance_added',
  'voucher.loyalty_card.points_added': 'customer.voucher.loyalty_card.points_added',
  'customer.loyalty.card.points_added': 'customer.voucher.loyalty_card.points_added',
  // The public API names no activity for points taken off a card by hand; it is a change of the customer's loyalty.
  'customer.loyalty.card.points_removed': 'customer.loyalty.updated',
  'customer.loyalty.card.points_transferred': 'customer.voucher.loyalty_card.points_transferred',
  'customer.loyalty.card.points_expired': 'customer.voucher.loyalty_card.points_expired',
  'customer.loyalty.card.pending_points.added': 'customer.voucher.loyalty_card.pending_points.added',
  'customer.loyalty.card.pending_points.activated': 'customer.voucher.loyalty_card.pending_points.activated',
  'customer.loyalty.card.pending_points.canceled': 'customer.voucher.loyalty_card.pending_points.canceled',
  'customer.loyalty.tier.joined': 'customer.loyalty.tier.joined',
  'customer.loyalty.tier.upgraded': 'customer.loyalty.tier.upgraded',
  'customer.loyalty.tier.downgraded': 'customer.loyalty.tier.downgraded',
  'customer.loyalty.tier.left': 'customer.loyalty.tier.left',
};

/** What was done as the customer; everything else listed is what followed for them. */
const ACTION_TYPES: ReadonlySet<ActivityType> = new Set<ActivityType>([
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.custom_event',
  'customer.validation.succeeded',
  'customer.validation.failed',
  'customer.redemption.succeeded',
  'customer.redemption.failed',
  'customer.redemption.rollback.succeeded',
  'customer.redemption.rollback.failed',
  'customer.publication.succeeded',
  'customer.publication.failed',
  'customer.reward_redemptions.created',
]);

export function activityCategory(type: ActivityType): 'ACTION' | 'EFFECT' {
  return ACTION_TYPES.has(type) ? 'ACTION' : 'EFFECT';
}

/** The entry filters both activity lists take. */
interface ActivityFilters {
  start_date?: string;
  end_date?: string;
  campaign_id?: string;
  campaign_type?: CampaignType;
  category?: 'ACTION' | 'EFFECT';
  type?: ActivityType;
  product_id?: string;
}

interface ListedEntry {
  event: EventRecord;
  type: ActivityType;
  /** Where the event stands in the log, which breaks ties between entries of the same instant. */
  position: number;
}

/** Whether an event is about a product: its data names it, or an item of the order (or the redemption's order) it is about does. */
async function aboutProduct(ctx: DomainContext, event: EventRecord, productId: string): Promise<boolean> {
  if (JSON.stringify(event.data).includes(JSON.stringify(productId))) return true;
  const ref = (value: unknown) => (value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : undefined);
  const orderId = ref(event.data.order);
  const order = orderId ? await ctx.uow.orders.get(orderId) : undefined;
  if (order?.items.some((item) => item.product_id === productId)) return true;
  const redemptionId = ref(event.data.redemption);
  const redemption = redemptionId ? await ctx.uow.redemptions.get(redemptionId) : undefined;
  return redemption?.order?.items?.some((item) => item.product_id === productId) ?? false;
}

/**
 * The customer's activity entries that pass the filters, in the order they were recorded. Both activity
 * lists read this one log, so they always agree.
 */
async function activityEntries(ctx: DomainContext, customer: Customer, query: ActivityFilters): Promise<ListedEntry[]> {
  const from = query.start_date === undefined ? -Infinity : Date.parse(query.start_date);
  const to = query.end_date === undefined ? Infinity : Date.parse(query.end_date);
  const campaignTypes = new Map<string, CampaignType | undefined>();
  const campaignTypeOf = async (campaignId: string) => {
    if (!campaignTypes.has(campaignId)) campaignTypes.set(campaignId, (await ctx.uow.campaigns.get(campaignId))?.campaign_type);
    return campaignTypes.get(campaignId);
  };
  const listed: ListedEntry[] = [];
  for (const [position, event] of (await ctx.uow.events.findBy('customer_id', customer.id)).entries()) {
    const type = ACTIVITY_TYPES[event.type];
    if (type === undefined) continue;
    const at = Date.parse(event.created_at);
    if (at < from || at > to) continue;
    if (query.type !== undefined && type !== query.type) continue;
    if (query.category !== undefined && activityCategory(type) !== query.category) continue;
    if (query.campaign_id !== undefined && event.campaign_id !== query.campaign_id) continue;
    if (query.campaign_type !== undefined && (!event.campaign_id || (await campaignTypeOf(event.campaign_id)) !== query.campaign_type)) continue;
    if (query.product_id !== undefined && !(await aboutProduct(ctx, event, query.product_id))) continue;
    listed.push({ event, type, position });
  }
  return listed;
}

function presentEntry({ event, type }: ListedEntry) {
  return {
    id: event.id,
    type,
    data: { data: event.data, event_source: event.event_source },
    created_at: event.created_at,
    group_id: event.group_id,
  };
}

function unknownCursor(id: string | undefined) {
  return invalid('invalid_query_params', 'Invalid query params', `starting_after_id ${id} is not an entry of this list`);
}

export async function customerActivity(ctx: DomainContext, ref: string, query: ActivityQuery) {
  const customer = await findCustomer(ctx, ref);
  const listed = await activityEntries(ctx, customer, query);
  listed.sort((a, b) => a.event.created_at.localeCompare(b.event.created_at) || a.position - b.position);
  if ((query.order ?? '-created_at') === '-created_at') listed.reverse();
  const page = cursorPage(
    listed.map((entry) => ({ ...FRESH, ...entry, id: entry.event.id })),
    query,
  );
  if (!page) throw unknownCursor(query.starting_after_id);
  return { ...FRESH, ...page, rows: page.rows.map(presentEntry) };
}

export type ActivitiesOrder = 'created_at' | 'updated_at' | 'type' | 'code' | 'campaign' | 'category';

export interface ActivitiesQuery extends ActivityFilters {
  limit?: number;
  order?: ActivitiesOrder | `-${ActivitiesOrder}`;
  starting_after?: string;
  starting_after_id?: string;
}

/**
 * The deprecated list of a customer's activities: the same entries as `customerActivity`, sorted by more
 * keys, read after a time or an entry, with the number that match.
 */
export async function customerActivities(ctx: DomainContext, ref: string, query: ActivitiesQuery) {
  const customer = await findCustomer(ctx, ref);
  const listed = await activityEntries(ctx, customer, query);
  const { field, direction } = parseOrder<ActivitiesOrder>(query.order ?? '-created_at');
  const keys = new Map<string, string>();
  for (const entry of listed) {
    const { event, type } = entry;
    let key: string;
    if (field === 'created_at' || field === 'updated_at') key = event.created_at;
    else if (field === 'type') key = type;
    else if (field === 'category') key = activityCategory(type);
    else if (field === 'campaign') key = (event.campaign_id ? (await ctx.uow.campaigns.get(event.campaign_id))?.name : undefined) ?? '';
    else {
      const voucher = event.voucher_id ? await ctx.uow.vouchers.get(event.voucher_id) : undefined;
      key = voucher?.code ?? ((event.data.voucher as { code?: string } | undefined)?.code ?? '');
    }
    keys.set(event.id, key);
  }
  listed.sort((a, b) => keys.get(a.event.id)!.localeCompare(keys.get(b.event.id)!) || a.position - b.position);
  if (direction === 'desc') listed.reverse();
  const after = query.starting_after === undefined ? undefined : Date.parse(query.starting_after);
  const matching = after === undefined ? listed : listed.filter((entry) => (direction === 'desc' ? Date.parse(entry.event.created_at) < after : Date.parse(entry.event.created_at) > after));
  let start = 0;
  if (query.starting_after_id !== undefined) {
    const index = matching.findIndex((entry) => entry.event.id === query.starting_after_id);
    if (index < 0) throw unknownCursor(query.starting_after_id);
    start = index + 1;
  }
  return { rows: matching.slice(start, start + (query.limit ?? 10)).map(presentEntry), total: matching.length };
}

/** Events about a customer's orders: order events, and redemptions on those orders. */
function aboutOrders(event: EventRecord, orderIds: ReadonlySet<string>): boolean {
  const order = event.data.order as { id?: string } | undefined;
  return event.type.startsWith('customer.order.') || (order?.id !== undefined && orderIds.has(order.id));
}

/**
 * Deletes the customer and the personal data kept about them, for good: the events recorded about them (their
 * activity), their orders, and the contact details copied into their redemptions. Vouchers they held stay, as
 * on an ordinary deletion.
 */
export async function deleteCustomerPermanently(ctx: DomainContext, ref: string) {
  const customer = await findCustomer(ctx, ref);
  const orders = await ctx.uow.orders.findBy('customer_id', customer.id);
  const orderIds = new Set(orders.map((order) => order.id));
  const counts = { events: 0, customer_events: 0, daily_events: 0, segments: 0, orders: orders.length, order_events: 0, customer: 1 };
  for (const event of await ctx.uow.events.findBy('customer_id', customer.id)) {
    counts.events += 1;
    if (ACTIVITY_TYPES[event.type] !== undefined) counts.customer_events += 1;
    if (aboutOrders(event, orderIds)) counts.order_events += 1;
    await ctx.uow.events.delete(event.id);
  }
  for (const order of orders) await ctx.uow.orders.delete(order.id);
  // Their part as a referee goes too; codes they hold as referrer stay theirs, as every voucher they hold does.
  for (const holder of await ctx.uow.redeemable_holders.findBy('customer_id', customer.id)) {
    if (holder.holder_role === 'REFEREE') await ctx.uow.redeemable_holders.delete(holder.id);
  }
  const copies = await ctx.uow.redemptions.query({ where: and(eq('customer_id', customer.id), notNull('customer')) });
  for (const entry of copies.rows) await ctx.uow.redemptions.update({ ...FRESH, ...entry, customer: { id: customer.id, object: 'customer' } });
  await ctx.uow.customers.delete(customer.id);
  // Told to webhooks, but kept out of any customer's activity: nothing about the customer stays listed.
  await recordEvent(ctx, 'customer.deleted', {}, { customer: { id: customer.id } });
  return {
    id: newId('del'),
    created_at: isoNow(ctx.clock),
    related_object_id: customer.id,
    related_object: 'customer' as const,
    status: 'DONE',
    data_json: counts,
    object: 'pernament_deletion' as const,
  };
}

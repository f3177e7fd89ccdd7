import type { components } from '../../generated/openapi.js';
import { applyChanges } from './changes.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import { cursorPage, pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from './pagination.js';
import { withinRange, type TimeRange } from './time-range.js';
import { writeUnique } from './unique.js';

export type Customer = components['schemas']['Customer'];
type CustomerCreate = components['schemas']['CustomersCreateRequestBody'];
type CustomerUpdate = components['schemas']['CustomersUpdateRequestBody'];
type Address = NonNullable<Customer['address']>;

export interface CustomerListQuery extends PageRequest {
  order?: SortOrder;
  email?: string;
  name?: string;
  city?: string;
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

/** Finds a customer by ID, then by `source_id`. */
export async function findCustomer({ uow }: DomainContext, ref: string): Promise<Customer> {
  const customer = (await uow.customers.get(ref)) ?? (await uow.customers.getBy('source_id', ref));
  if (!customer) throw notFound('customer', ref);
  return customer;
}

/** Creates a customer, or updates the one that already has the `source_id` (the public API's upsert). */
export async function upsertCustomer(ctx: DomainContext, input: CustomerCreate): Promise<Customer> {
  if (input.source_id) {
    const existing = await ctx.uow.customers.getBy('source_id', input.source_id);
    if (existing) {
      const { source_id: _sameSourceId, ...changes } = input;
      return updateCustomer(ctx, existing.id, changes);
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
    address: fullAddress(input.address),
    summary: emptySummary(),
    loyalty: { points: 0, referred_customers: 0, campaigns: {} },
    referrals: { total: 0, campaigns: [] },
    metadata: input.metadata ?? {},
    system_metadata: {},
    created_at: ctx.clock.now().toISOString(),
    updated_at: null,
    object: 'customer',
  };
  const created = await writeUnique('customer', () => ctx.uow.customers.insert(customer));
  await recordEvent(ctx, 'customer.created', { customer_id: created.id }, { customer: { id: created.id, source_id: created.source_id } });
  return created;
}

export async function updateCustomer(ctx: DomainContext, ref: string, input: CustomerUpdate): Promise<Customer> {
  const customer = await findCustomer(ctx, ref);
  const changes = input.address === undefined ? input : { ...input, address: fullAddress(input.address) };
  const updated = applyChanges(customer, changes as Partial<Customer>, ctx.clock.now().toISOString());
  await recordEvent(ctx, 'customer.updated', { customer_id: customer.id }, { customer: { id: customer.id, source_id: customer.source_id } });
  return ctx.uow.customers.update(updated);
}

export async function deleteCustomer(ctx: DomainContext, ref: string): Promise<void> {
  const customer = await findCustomer(ctx, ref);
  await ctx.uow.customers.delete(customer.id);
  await recordEvent(ctx, 'customer.deleted', { customer_id: customer.id }, { customer: { id: customer.id, source_id: customer.source_id } });
}

export async function listCustomers(ctx: DomainContext, query: CustomerListQuery) {
  return ctx.uow.customers.query({
    where: (customer) =>
      (query.email === undefined || customer.email === query.email) &&
      (query.name === undefined || customer.name === query.name) &&
      (query.city === undefined || customer.address?.city === query.city) &&
      withinRange(customer.created_at, query.created_at) &&
      withinRange(customer.updated_at, query.updated_at),
    orderBy: parseTimestampOrder(query.order),
    ...pageWindow(query),
  });
}

/**
 * The customer as the contract shows it. Order totals, balances still to spend and loyalty points are
 * derived from the customer's orders and the cards they hold now, so they are always true; redemption
 * counters are kept as redemptions happen.
 */
export async function presentCustomer(ctx: DomainContext, record: Customer): Promise<Customer> {
  let giftToGo = 0;
  let points = 0;
  // Referral counts are kept on the customer; points come from the cards held now.
  const campaigns: Customer['loyalty']['campaigns'] = Object.fromEntries(
    Object.entries(record.loyalty.campaigns).map(([name, entry]) => [name, { ...entry, points: 0 }]),
  );
  for (const voucher of await ctx.uow.vouchers.findBy('holder_id', record.id)) {
    if (voucher.gift) giftToGo += voucher.gift.balance;
    if (voucher.loyalty_card) {
      points += voucher.loyalty_card.balance;
      const campaign = voucher.campaign_id ? await ctx.uow.campaigns.get(voucher.campaign_id) : undefined;
      if (campaign) {
        const entry = campaigns[campaign.name] ?? { points: 0, referred_customers: 0 };
        campaigns[campaign.name] = { ...entry, points: entry.points + voucher.loyalty_card.balance };
      }
    }
  }
  const orders = (await ctx.uow.orders.findBy('customer_id', record.id)).filter((order) => order.status !== 'CANCELED');
  const totalAmount = orders.reduce((sum, order) => sum + order.amount, 0);
  const last = orders.reduce<(typeof orders)[number] | undefined>((latest, order) => (!latest || order.created_at >= latest.created_at ? order : latest), undefined);
  const redemptions = record.summary.redemptions;
  return {
    ...record,
    summary: {
      ...record.summary,
      orders: {
        total_amount: totalAmount,
        total_count: orders.length,
        average_amount: orders.length ? Math.floor(totalAmount / orders.length) : 0,
        last_order_amount: last?.amount ?? 0,
        last_order_date: last?.created_at ?? null,
      },
      redemptions: {
        ...redemptions,
        gift: { ...redemptions.gift, amount_to_go: giftToGo },
        loyalty_card: { ...redemptions.loyalty_card, points_to_go: points },
      },
    },
    loyalty: { ...record.loyalty, points, campaigns },
  };
}

export async function customerActivity(
  ctx: DomainContext,
  ref: string,
  query: { limit?: number; starting_after_id?: string; order?: 'created_at' | '-created_at' },
) {
  const customer = await findCustomer(ctx, ref);
  const events = await ctx.uow.events.findBy('customer_id', customer.id);
  const ordered = events
    .map((event, position) => ({ event, position }))
    .sort((a, b) => a.event.created_at.localeCompare(b.event.created_at) || a.position - b.position)
    .map(({ event }) => event);
  if ((query.order ?? '-created_at') === '-created_at') ordered.reverse();
  const page = cursorPage(ordered, query);
  if (!page) throw invalid('invalid_query_params', 'Invalid query params', `starting_after_id ${query.starting_after_id} is not an entry of this list`);
  return {
    ...page,
    rows: page.rows.map((event) => ({ id: event.id, type: event.type, data: event.data, created_at: event.created_at, object: 'customer_activity' as const })),
  };
}

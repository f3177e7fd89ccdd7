/**
 * What can be exported, kind by kind: the columns (`fields`) and the value of each for one object, the orders,
 * the fields filters may name, which objects an export holds (`scan`, their keys in order) and one row (`row`).
 *
 * An export never holds its rows in memory together: `scan` returns the keys of the matching objects (an ID
 * each), and the rows are read back a page at a time while the file is written.
 */
import type { DomainContext } from '../context.js';
import { campaignNamesById } from '../campaign-lookup.js';
import { presentCustomer } from '../customers.js';
import type { Customer } from '../customers.js';
import type { CardTransaction } from '../loyalty/types.js';
import type { OrderRecord } from '../orders.js';
import type { PublicationRecord } from '../publications.js';
import { redemptionFilterSource, type Redemption } from '../redemptions.js';
import type { VoucherRecord } from '../vouchers.js';
import { conditionsOn, rowField, type FieldSource } from '../filters.js';
import { and, isNull, notNull, or, type Condition } from '../../store/conditions.js';
import { datePartOf, exportCondition, type ExportFilter } from './conditions.js';
import { FRESH } from '../../store/fresh.js';

export type ExportedObject = 'voucher' | 'redemption' | 'customer' | 'publication' | 'order' | 'points_expiration' | 'voucher_transactions';

/** How one export reads its objects: parsed from its stored parameters. */
export interface ExportPlan {
  fields: string[];
  order: { field: string; direction: 'asc' | 'desc' };
  filter: ExportFilter | undefined;
  /** A condition every row must meet besides the filter (the campaign of a voucher export, the voucher of a transaction export). */
  scope: { field: string; value: string } | undefined;
  /** The moment the export started, for day-relative filters. */
  now: number;
}

/** What rows need from outside the domain: the image URLs of a voucher code. */
export interface ExportLinks {
  assets(code: string): { qr: string; barcode: string };
}

/** Lookups shared by the rows of one page (campaign names, customers). */
export type PageCache = Map<string, unknown>;

/** What the rows of one page share: their lookups, the links, and the columns asked for. */
export interface RowContext {
  cache: PageCache;
  links: ExportLinks;
  fields: ReadonlySet<string>;
}

export interface ExportKind {
  fields: readonly string[];
  /** The columns of an export that names none. */
  defaults: readonly string[];
  orders: readonly string[];
  defaultOrder: string;
  /** Fields filters may name; `metadata` allows `metadata.<key>` too. */
  filterFields: ReadonlySet<string>;
  /** Filter fields that hold lists (counts apply to them). */
  listFields: ReadonlySet<string>;
  metadata: boolean;
  scan(ctx: DomainContext, plan: ExportPlan): Promise<string[]>;
  row(ctx: DomainContext, key: string, page: RowContext): Promise<Record<string, unknown> | undefined>;
}

async function cached<T>(cache: PageCache, key: string, load: () => Promise<T>): Promise<T> {
  if (cache.has(key)) return cache.get(key) as T;
  const value = await load();
  cache.set(key, value);
  return value;
}

const campaignName = (ctx: DomainContext, cache: PageCache, id: string | null | undefined) =>
  id ? cached(cache, `campaign:${id}`, async () => (await ctx.uow.campaigns.get(id))?.name ?? null) : Promise.resolve(null);

const customerOf = (ctx: DomainContext, cache: PageCache, id: string | null | undefined) =>
  id ? cached(cache, `customer:${id}`, () => ctx.uow.customers.get(id)) : Promise.resolve(undefined);

/** The plan's filter as a store condition over the fields `source` names, or nothing when it has none. */
function filterWhere(plan: ExportPlan, source: (name: string) => FieldSource): { where?: Condition } {
  return plan.filter ? { where: exportCondition(plan.filter, source, plan.now) } : {};
}

/** Campaign names by ID, for `campaign_name`: loaded only when the filter names it. */
async function campaignNames(ctx: DomainContext, plan: ExportPlan): Promise<Map<string, string>> {
  return plan.filter?.clauses.some(([field]) => field === 'campaign_name') ? campaignNamesById(ctx) : new Map();
}

function orderBy<T>(plan: ExportPlan, fields: Record<string, keyof T & string>) {
  return { field: fields[plan.order.field] ?? (plan.order.field as keyof T & string), direction: plan.order.direction };
}

// Vouchers.

/** A discount's value and formula, whichever kind it is. */
function discountValue(discount: VoucherRecord['discount']): { value: unknown; formula: unknown } {
  if (!discount) return { value: null, formula: null };
  const d = discount as Record<string, unknown>;
  switch (d.type) {
    case 'AMOUNT':
      return { value: d.amount_off, formula: d.amount_off_formula };
    case 'PERCENT':
      return { value: d.percent_off, formula: d.percent_off_formula };
    case 'FIXED':
      return { value: d.fixed_amount, formula: d.fixed_amount_formula };
    default:
      return { value: d.unit_off ?? null, formula: d.unit_off_formula };
  }
}

async function voucherCategories(ctx: DomainContext, cache: PageCache, voucher: VoucherRecord): Promise<string[]> {
  if (!voucher.category_id) return [];
  const name = await cached(cache, `category:${voucher.category_id}`, async () => (await ctx.uow.categories.get(voucher.category_id!))?.name ?? null);
  return name === null ? [] : [name];
}

/** Where a voucher filter's field comes from; `categoryNames` holds each category's name as a list of one. */
function voucherSource(field: string, categoryNames: ReadonlyMap<string, string[]>, now: number): FieldSource {
  switch (field) {
    case 'created_date':
      return datePartOf('created_at', now);
    case 'vouchers':
      return 'id';
    case 'published_for_customer_id':
      return 'holder_id';
    case 'category_ids':
      return { singleton: 'category_id' };
    case 'categories':
      return { key: 'category_id', lookup: categoryNames, otherwise: [] };
    case 'validity_day_of_week':
      return { field: 'validity_day_of_week', whenNull: [] };
    default:
      return rowField(field);
  }
}

const vouchers: ExportKind = {
  fields: [
    'code', 'voucher_type', 'value', 'formula', 'discount_type', 'campaign', 'category', 'start_date', 'expiration_date', 'gift_balance',
    'loyalty_balance', 'redemption_quantity', 'redemption_count', 'active', 'qr_code', 'bar_code', 'metadata', 'id', 'is_referral_code',
    'created_at', 'updated_at', 'validity_timeframe_interval', 'validity_timeframe_duration', 'validity_day_of_week', 'discount_amount_limit',
    'campaign_id', 'additional_info', 'customer_id', 'discount_effect', 'discount_unit_type', 'discount_unit_effect', 'validation_rules_id',
    'customer_source_id',
  ],
  defaults: [
    'code', 'voucher_type', 'value', 'discount_type', 'campaign', 'category', 'start_date', 'expiration_date', 'gift_balance', 'loyalty_balance',
    'redemption_quantity', 'redemption_count', 'active', 'metadata',
  ],
  orders: ['-created_at', 'created_at', '-updated_at', 'updated_at', '-code', 'code'],
  defaultOrder: '-created_at',
  filterFields: new Set([
    'created_at', 'updated_at', 'created_date', 'active', 'start_date', 'expiration_date', 'validity_day_of_week', 'code', 'categories', 'vouchers',
    'holder_id', 'is_referral_code', 'published_for_customer_id', 'category_ids',
  ]),
  listFields: new Set(['validity_day_of_week', 'categories', 'category_ids']),
  metadata: true,
  async scan(ctx, plan) {
    const categoryNames = new Map<string, string[]>();
    if (plan.filter?.clauses.some(([field]) => field === 'categories')) {
      for (const category of (await ctx.uow.categories.query({})).rows) categoryNames.set(category.id, [category.name]);
    }
    const { scope, now } = plan;
    const { rows } = await ctx.uow.vouchers.query({
      ...FRESH,
      ...(scope && { index: { field: 'campaign_id', value: scope.value } }),
      ...filterWhere(plan, (field) => voucherSource(field, categoryNames, now)),
      orderBy: orderBy<VoucherRecord>(plan, {}),
    });
    return rows.map((voucher) => voucher.id);
  },
  async row(ctx, key, { cache, links, fields }) {
    const voucher = await ctx.uow.vouchers.get(key);
    if (!voucher) return undefined;
    const discount = (voucher.discount ?? {}) as Record<string, unknown>;
    const unit = discount.type === 'UNIT';
    const { value, formula } = voucher.discount ? discountValue(voucher.discount) : { value: voucher.gift?.amount ?? voucher.loyalty_card?.points ?? null, formula: null };
    // Only what the columns need is looked up: signing image URLs and reading assignments cost per row.
    const holder = fields.has('customer_source_id') ? await customerOf(ctx, cache, voucher.holder_id) : undefined;
    const assets = fields.has('qr_code') || fields.has('bar_code') ? links.assets(voucher.code) : undefined;
    const rules = fields.has('validation_rules_id') ? await ctx.uow.validation_rule_assignments.findBy('related_object_id', voucher.id) : [];
    return {
      code: voucher.code,
      voucher_type: voucher.type,
      value,
      formula,
      discount_type: discount.type,
      campaign: await campaignName(ctx, cache, voucher.campaign_id),
      category: (await voucherCategories(ctx, cache, voucher))[0] ?? null,
      start_date: voucher.start_date,
      expiration_date: voucher.expiration_date,
      gift_balance: voucher.gift?.balance,
      loyalty_balance: voucher.loyalty_card?.balance,
      redemption_quantity: voucher.redemption.quantity,
      redemption_count: voucher.redemption.redeemed_quantity,
      active: voucher.active,
      qr_code: assets?.qr,
      bar_code: assets?.barcode,
      metadata: voucher.metadata,
      id: voucher.id,
      is_referral_code: voucher.is_referral_code,
      created_at: voucher.created_at,
      updated_at: voucher.updated_at,
      validity_timeframe_interval: voucher.validity_timeframe?.interval,
      validity_timeframe_duration: voucher.validity_timeframe?.duration,
      validity_day_of_week: voucher.validity_day_of_week,
      discount_amount_limit: discount.amount_limit,
      campaign_id: voucher.campaign_id,
      additional_info: voucher.additional_info,
      customer_id: voucher.holder_id,
      discount_effect: unit ? null : discount.effect,
      discount_unit_type: discount.unit_type,
      discount_unit_effect: unit ? discount.effect : null,
      validation_rules_id: rules.map((assignment) => assignment.rule_id),
      customer_source_id: holder?.source_id ?? null,
    };
  },
};

// Redemptions and rollbacks.

const redemptions: ExportKind = {
  fields: [
    'id', 'object', 'date', 'voucher_code', 'campaign', 'promotion_tier_id', 'customer_id', 'customer_source_id', 'customer_name', 'tracking_id',
    'order_id', 'order_amount', 'gift_amount', 'loyalty_points', 'result', 'failure_code', 'failure_message', 'metadata',
  ],
  defaults: [
    'id', 'object', 'date', 'voucher_code', 'campaign', 'customer_id', 'tracking_id', 'order_amount', 'gift_amount', 'loyalty_points', 'result',
    'failure_code', 'failure_message', 'metadata',
  ],
  orders: ['-id', 'id', '-voucher_code', 'voucher_code', '-tracking_id', 'tracking_id', '-customer_id', 'customer_id', '-created_at', 'created_at'],
  defaultOrder: '-created_at',
  filterFields: new Set([
    'created_at', 'campaign', 'customer', 'voucher', 'related_object', 'voucher_code', 'related_object_id', 'related_object_parent_id',
    'parent_redemption_id', 'failure_code', 'result', 'object', 'customer_id', 'campaign_name', 'user_login', 'status',
  ]),
  listFields: new Set(),
  metadata: true,
  async scan(ctx, plan) {
    const names = await campaignNames(ctx, plan);
    const { rows } = await ctx.uow.redemptions.query({
      ...FRESH,
      ...filterWhere(plan, (field) => redemptionFilterSource(field, { key: 'campaign_id', lookup: names, otherwise: null })),
      orderBy: orderBy<Redemption>(plan, { created_at: 'date' }),
    });
    return rows.map((entry) => entry.id);
  },
  async row(ctx, key, { cache }) {
    const entry = await ctx.uow.redemptions.get(key);
    if (!entry) return undefined;
    const customer = await customerOf(ctx, cache, entry.customer_id);
    return {
      id: entry.id,
      object: entry.object,
      date: entry.date,
      voucher_code: entry.voucher_code,
      campaign: await campaignName(ctx, cache, entry.campaign_id),
      promotion_tier_id: entry.related_object_type === 'promotion_tier' ? entry.related_object_id : null,
      customer_id: entry.customer_id,
      customer_source_id: customer?.source_id ?? null,
      customer_name: customer?.name ?? null,
      tracking_id: entry.tracking_id,
      order_id: entry.order?.id ?? null,
      order_amount: entry.order?.amount ?? null,
      gift_amount: entry.gift_amount,
      loyalty_points: entry.loyalty_card?.points ?? null,
      result: entry.result,
      failure_code: entry.object === 'redemption' ? entry.failure_code : null,
      failure_message: entry.object === 'redemption' ? entry.failure_message : null,
      metadata: entry.metadata,
    };
  },
};

// Customers.

const customers: ExportKind = {
  fields: [
    'name', 'id', 'description', 'email', 'source_id', 'created_at', 'address_city', 'address_state', 'address_line_1', 'address_line_2',
    'address_country', 'address_postal_code', 'redemptions_total_redeemed', 'redemptions_total_failed', 'redemptions_total_succeeded',
    'redemptions_total_rolled_back', 'redemptions_total_rollback_failed', 'redemptions_total_rollback_succeeded', 'orders_total_amount',
    'orders_total_count', 'orders_average_amount', 'orders_last_order_amount', 'orders_last_order_date', 'loyalty_points',
    'loyalty_referred_customers', 'updated_at', 'phone', 'birthday', 'metadata', 'birthdate',
  ],
  defaults: ['name', 'id', 'email', 'source_id', 'created_at', 'updated_at', 'metadata'],
  orders: ['-name', 'name', '-id', 'id', '-email', 'email', '-source_id', 'source_id', '-created_at', 'created_at', '-updated_at', 'updated_at'],
  defaultOrder: '-created_at',
  filterFields: new Set(['created_at', 'updated_at', 'email', 'name', 'city', 'phone', 'birthday', 'source_id', 'publications.created_at', 'publications.related_object_id']),
  listFields: new Set(['publications.created_at', 'publications.related_object_id']),
  metadata: true,
  async scan(ctx, plan) {
    // A customer's `publications.*` are lists over its publications, worked out before the query.
    const published = new Map<string, { created_at: string[]; vouchers: string[] }>();
    if (plan.filter?.clauses.some(([field]) => field.startsWith('publications.'))) {
      for (const publication of (await ctx.uow.publications.query({})).rows) {
        const lists = published.get(publication.customer_id) ?? { created_at: [], vouchers: [] };
        lists.created_at.push(publication.created_at);
        lists.vouchers.push(...publication.vouchers_id);
        published.set(publication.customer_id, lists);
      }
    }
    const listed = (pick: (lists: { created_at: string[]; vouchers: string[] }) => string[]): FieldSource => ({
      key: 'id',
      lookup: new Map([...published].map(([id, lists]) => [id, pick(lists)])),
      otherwise: [],
    });
    const source = (field: string): FieldSource => {
      switch (field) {
        case 'city':
          return ['address', 'city'];
        case 'birthday':
          // The birthday, or else the birthdate.
          return {
            compile: (conditions, extra) =>
              or(and(notNull('birthday'), conditionsOn('birthday', conditions, extra)), and(isNull('birthday'), conditionsOn('birthdate', conditions, extra))),
          };
        case 'publications.created_at':
          return listed((lists) => lists.created_at);
        case 'publications.related_object_id':
          return listed((lists) => lists.vouchers);
        default:
          return rowField(field);
      }
    };
    const { rows } = await ctx.uow.customers.query({
      ...FRESH,
      ...filterWhere(plan, source),
      orderBy: orderBy<Customer>(plan, {}),
    });
    return rows.map((customer) => customer.id);
  },
  async row(ctx, key) {
    const record = await ctx.uow.customers.get(key);
    if (!record) return undefined;
    const customer = await presentCustomer(ctx, record);
    const { redemptions: counts, orders } = customer.summary;
    const address = customer.address ?? undefined;
    return {
      name: customer.name,
      id: customer.id,
      description: customer.description,
      email: customer.email,
      source_id: customer.source_id,
      created_at: customer.created_at,
      address_city: address?.city,
      address_state: address?.state,
      address_line_1: address?.line_1,
      address_line_2: address?.line_2,
      address_country: address?.country,
      address_postal_code: address?.postal_code,
      redemptions_total_redeemed: counts.total_redeemed,
      redemptions_total_failed: counts.total_failed,
      redemptions_total_succeeded: counts.total_succeeded,
      redemptions_total_rolled_back: counts.total_rolled_back,
      redemptions_total_rollback_failed: counts.total_rollback_failed,
      redemptions_total_rollback_succeeded: counts.total_rollback_succeeded,
      orders_total_amount: orders.total_amount,
      orders_total_count: orders.total_count,
      orders_average_amount: orders.average_amount,
      orders_last_order_amount: orders.last_order_amount,
      orders_last_order_date: orders.last_order_date,
      loyalty_points: customer.loyalty.points,
      loyalty_referred_customers: customer.loyalty.referred_customers,
      updated_at: customer.updated_at,
      phone: customer.phone,
      birthday: customer.birthday,
      metadata: customer.metadata,
      birthdate: customer.birthdate,
    };
  },
};

// Publications.

const publications: ExportKind = {
  fields: ['voucher_code', 'customer_id', 'customer_source_id', 'date', 'channel', 'campaign', 'is_winner', 'metadata'],
  defaults: ['voucher_code', 'customer_id', 'customer_source_id', 'date', 'channel', 'campaign', 'is_winner', 'metadata'],
  orders: ['-id', 'id', '-voucher_code', 'voucher_code', '-tracking_id', 'tracking_id', '-customer_id', 'customer_id', '-created_at', 'created_at', '-channel', 'channel'],
  defaultOrder: '-created_at',
  filterFields: new Set([
    'created_at', 'campaign', 'customer', 'voucher', 'related_object_id', 'failure_code', 'result', 'customer_id', 'campaign_name', 'source_id',
    'is_referral_code', 'parent_object_id', 'voucher_type',
  ]),
  listFields: new Set(['related_object_id']),
  metadata: true,
  async scan(ctx, plan) {
    const names = await campaignNames(ctx, plan);
    const source = (field: string): FieldSource => {
      switch (field) {
        case 'campaign':
        case 'parent_object_id':
          return 'campaign_id';
        case 'customer':
          return 'customer_id';
        case 'voucher':
          return 'voucher_code';
        case 'related_object_id':
          return 'vouchers_id';
        case 'failure_code':
          return { constant: null };
        case 'campaign_name':
          return { key: 'campaign_id', lookup: names, otherwise: null };
        default:
          // `is_referral_code` and `voucher_type` are the voucher's, kept on the publication when it was made.
          return rowField(field);
      }
    };
    const { rows } = await ctx.uow.publications.query({
      ...FRESH,
      ...filterWhere(plan, source),
      orderBy: orderBy<PublicationRecord>(plan, {}),
    });
    return rows.map((publication) => publication.id);
  },
  async row(ctx, key, { cache }) {
    const publication = await ctx.uow.publications.get(key);
    if (!publication) return undefined;
    const customer = await customerOf(ctx, cache, publication.customer_id);
    return {
      voucher_code: publication.voucher_code,
      customer_id: publication.customer_id,
      customer_source_id: customer?.source_id ?? null,
      date: publication.created_at,
      channel: publication.channel,
      campaign: await campaignName(ctx, cache, publication.campaign_id),
      is_winner: publication.result === 'SUCCESS',
      metadata: publication.metadata,
    };
  },
};

// Orders.

const orders: ExportKind = {
  fields: [
    'id', 'source_id', 'created_at', 'updated_at', 'status', 'amount', 'discount_amount', 'items_discount_amount', 'total_discount_amount',
    'total_amount', 'customer_id', 'referrer_id', 'metadata',
  ],
  defaults: ['id', 'source_id', 'created_at', 'updated_at', 'status', 'amount', 'discount_amount', 'total_amount', 'customer_id', 'metadata'],
  orders: ['-created_at', 'created_at', '-updated_at', 'updated_at', '-status', 'status'],
  defaultOrder: '-created_at',
  filterFields: new Set(['created_at', 'updated_at', 'status', 'source_id', 'amount', 'total_amount', 'discount_amount', 'total_discount_amount', 'items_discount_amount']),
  listFields: new Set(),
  metadata: true,
  async scan(ctx, plan) {
    const { rows } = await ctx.uow.orders.query({
      ...FRESH,
      ...filterWhere(plan, rowField),
      orderBy: orderBy<OrderRecord>(plan, {}),
    });
    return rows.map((order) => order.id);
  },
  async row(ctx, key) {
    const order = await ctx.uow.orders.get(key);
    if (!order) return undefined;
    return {
      id: order.id,
      source_id: order.source_id,
      created_at: order.created_at,
      updated_at: order.updated_at,
      status: order.status,
      amount: order.amount,
      discount_amount: order.discount_amount,
      items_discount_amount: order.items_discount_amount,
      total_discount_amount: order.discount_amount + order.items_discount_amount,
      total_amount: order.total_amount,
      customer_id: order.customer_id,
      referrer_id: order.referrer_id,
      metadata: order.metadata,
    };
  },
};

// Points that expire: one row per card and day.

/** The key of a card's points expiring on one day, which is also the row's `id`. */
const expirationKey = (cardId: string, day: string) => `${cardId}-${day}`;

const pointsExpiration: ExportKind = {
  fields: ['id', 'campaign_id', 'voucher_id', 'points', 'status', 'expires_at'],
  defaults: ['id', 'campaign_id', 'voucher_id', 'points', 'status', 'expires_at'],
  orders: ['expires_at', '-expires_at'],
  defaultOrder: 'expires_at',
  filterFields: new Set(['campaign_id', 'voucher_id']),
  listFields: new Set(),
  metadata: false,
  async scan(ctx, plan) {
    const { scope } = plan;
    const { rows: cards } = await ctx.uow.loyalty_cards.query({
      ...FRESH,
      ...(scope && { index: { field: 'campaign_id', value: scope.value } }),
      // A card's ID is its voucher's.
      ...filterWhere(plan, (field) => (field === 'voucher_id' ? 'id' : 'campaign_id')),
    });
    const entries: { key: string; day: string }[] = [];
    for (const card of cards) {
      for (const bucket of card.buckets) {
        if (bucket.expires_on !== null && bucket.points > 0) entries.push({ key: expirationKey(card.id, bucket.expires_on), day: bucket.expires_on });
      }
    }
    const sign = plan.order.direction === 'desc' ? -1 : 1;
    // A stable sort: within a day, cards keep their order.
    entries.sort((a, b) => sign * a.day.localeCompare(b.day));
    return entries.map((entry) => entry.key);
  },
  async row(ctx, key) {
    const day = key.slice(-10);
    const cardId = key.slice(0, -11);
    const card = await ctx.uow.loyalty_cards.get(cardId);
    const points = card?.buckets.filter((bucket) => bucket.expires_on === day).reduce((sum, bucket) => sum + bucket.points, 0) ?? 0;
    if (!card || points <= 0) return undefined;
    return { id: key, campaign_id: card.campaign_id, voucher_id: card.id, points, status: 'ACTIVE', expires_at: day };
  },
};

// Balance movements of gift cards and loyalty cards.

const voucherTransactions: ExportKind = {
  fields: ['id', 'campaign_id', 'voucher_id', 'type', 'source_id', 'reason', 'source', 'balance', 'amount', 'related_transaction_id', 'created_at', 'details'],
  defaults: ['id', 'campaign_id', 'voucher_id', 'type', 'source_id', 'reason', 'source', 'balance', 'amount', 'related_transaction_id', 'created_at', 'details'],
  orders: ['-created_at', 'created_at'],
  defaultOrder: '-created_at',
  filterFields: new Set(['created_at', 'campaign_id', 'voucher_id']),
  listFields: new Set(),
  metadata: false,
  async scan(ctx, plan) {
    const { scope } = plan;
    const { rows } = await ctx.uow.loyalty_transactions.query({
      ...FRESH,
      ...(scope && { index: { field: scope.field as 'voucher_id' | 'campaign_id', value: scope.value } }),
      ...filterWhere(plan, rowField),
      orderBy: orderBy<CardTransaction>(plan, {}),
    });
    return rows.map((transaction) => transaction.id);
  },
  async row(ctx, key) {
    const transaction = await ctx.uow.loyalty_transactions.get(key);
    if (!transaction) return undefined;
    const balance = transaction.details?.balance;
    return {
      id: transaction.id,
      campaign_id: transaction.campaign_id,
      voucher_id: transaction.voucher_id,
      type: transaction.type,
      source_id: transaction.source_id,
      reason: transaction.reason,
      source: transaction.source,
      balance: balance?.balance,
      amount: balance?.amount ?? balance?.points,
      related_transaction_id: transaction.related_transaction_id,
      created_at: transaction.created_at,
      details: transaction.details,
    };
  },
};

export const EXPORT_KINDS: Readonly<Record<ExportedObject, ExportKind>> = {
  voucher: vouchers,
  redemption: redemptions,
  customer: customers,
  publication: publications,
  order: orders,
  points_expiration: pointsExpiration,
  voucher_transactions: voucherTransactions,
};

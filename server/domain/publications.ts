import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { namedCustomer, presentCustomer, upsertCustomer } from './customers.js';
import { trackingIdOf } from './tracking-ids.js';
import { DomainError, invalid, notFound } from './errors.js';
import { recordEvent } from './events.js';
import { checkFilter, filterCondition, type FieldSource, type FilterDefinition } from './filters.js';
import { and, eq, has, isNull, or } from '../store/conditions.js';
import { newId } from './ids.js';
import { pageWindow, parseOrder, type PageRequest } from './pagination.js';
import { validityAt } from './validity.js';
import { createVoucher, type VoucherRecord } from './vouchers.js';
import { noteReferrer } from './referrals.js';
import { table } from '../store/schema.js';
import { campaignNameSource } from './campaign-lookup.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type PublicationCreate = Schemas['PublicationsCreateRequestBody'];

/** A publication as stored; its customer and voucher are attached when it is read. */
export interface PublicationRecord {
  id: string;
  created_at: string;
  customer_id: string;
  tracking_id: string;
  metadata: Record<string, unknown>;
  channel: string;
  source_id: string | null;
  result: 'SUCCESS';
  voucher_code: string;
  vouchers_id: string[];
  /** The codes, when the request asked for more than one voucher. */
  vouchers?: string[];
  campaign_id: string | null;
  /**
   * The type and referral flag of the (first) voucher, which never change: kept on the publication so that
   * the list's conditions on them read the row alone. Not shown.
   */
  voucher_type: VoucherRecord['type'];
  is_referral_code: boolean;
  object: 'publication';
}

export const PUBLICATIONS_TABLE = table<PublicationRecord>({ unique: [], indexed: [], kinds: { created_at: 'text', id: 'text', voucher_code: 'text', tracking_id: 'text', customer_id: 'text', channel: 'text' } });

/**
 * The customer of a loyalty member, a custom event or the like: by `id` (which must exist) or `source_id`
 * (created when new). A reference with neither is refused.
 */
export async function customerFor(ctx: DomainContext, input: Schemas['PublicationsCreateRequestBody']['customer']) {
  if (input.id) {
    const customer = await ctx.uow.customers.get(input.id);
    if (!customer) throw notFound('customer', input.id);
    return customer;
  }
  if (input.source_id) {
    const existing = await ctx.uow.customers.getBy('source_id', input.source_id);
    if (existing) return existing;
    return upsertCustomer(ctx, {
      source_id: input.source_id,
      ...(input.name !== undefined && { name: input.name }),
      ...(input.email !== undefined && { email: input.email }),
      ...(input.metadata !== undefined && { metadata: input.metadata }),
    });
  }
  throw invalid('invalid_customer', 'Invalid customer', 'The customer needs an id or a source_id');
}

/** The oldest active vouchers of the campaign that nobody holds. */
async function freeVouchers(ctx: DomainContext, campaignId: string, count: number): Promise<VoucherRecord[]> {
  const now = ctx.clock.now();
  const { rows } = await ctx.uow.vouchers.query({ index: { field: 'campaign_id', value: campaignId }, where: and(isNull('holder_id'), eq('active', true)) });
  return rows.filter((voucher) => validityAt({ ...FRESH, ...voucher, validity_timeframe: null, validity_day_of_week: null, validity_hours: null }, now).valid).slice(0, count);
}

async function vouchersFor(ctx: DomainContext, input: PublicationCreate, customerId: string): Promise<VoucherRecord[] | DomainError> {
  if (input.voucher !== undefined && input.voucher !== null) {
    const voucher = await ctx.uow.vouchers.getBy('code', input.voucher);
    if (!voucher) throw notFound('voucher', input.voucher);
    if (voucher.holder_id !== null && voucher.holder_id !== customerId) {
      throw invalid('invalid_publish_params', 'Invalid publish params', `Voucher ${voucher.code} is already held by another customer`);
    }
    return [voucher];
  }
  const campaign = await campaignOf(ctx, input.campaign!.name);
  const count = input.campaign!.count ?? 1;
  const free = await freeVouchers(ctx, campaign.id, count);
  // An AUTO_UPDATE campaign makes what it lacks, from its own code config and template, as the public API does.
  if (free.length < count && campaign.type === 'AUTO_UPDATE' && campaign.voucher) {
    while (free.length < count) free.push(await createVoucher(ctx, {}, campaign));
  }
  if (free.length < count) {
    await recordEvent(ctx, 'publication.failed', { campaign_id: campaign.id, customer_id: customerId }, { campaign: { id: campaign.id } });
    return invalid('no_voucher_suitable_for_publication', 'No voucher suitable for publication', `Campaign ${campaign.name} has ${free.length} free voucher(s) left; ${count} asked for`);
  }
  return free;
}

async function campaignOf(ctx: DomainContext, ref: string) {
  const campaign = (await ctx.uow.campaigns.get(ref)) ?? (await ctx.uow.campaigns.getBy('name', ref));
  if (!campaign) throw notFound('campaign', ref);
  return campaign;
}

export type PublishOutcome = { ok: true; publication: PublicationRecord; vouchers: VoucherRecord[] } | { ok: false; error: DomainError };

/** An earlier publication the request asks for again: by its `source_id`, or the customer's latest of the campaign with `join_once`. */
async function earlierPublication(ctx: DomainContext, input: PublicationCreate, customerId: string, joinOnce: boolean): Promise<PublicationRecord | undefined> {
  if (input.source_id !== undefined) {
    const [same] = (await ctx.uow.publications.query({ where: eq('source_id', input.source_id), limit: 1 })).rows;
    if (same) {
      if (same.customer_id !== customerId) {
        throw invalid('invalid_publish_params', 'Invalid publish params', `Publication source_id ${input.source_id} belongs to another customer`);
      }
      return same;
    }
  }
  if (joinOnce && input.campaign) {
    const campaign = await campaignOf(ctx, input.campaign.name);
    const [latest] = (
      await ctx.uow.publications.query({
        where: and(eq('customer_id', customerId), eq('campaign_id', campaign.id)),
        orderBy: { field: 'created_at', direction: 'desc' },
        limit: 1,
      })
    ).rows;
    return latest;
  }
  return undefined;
}

/**
 * Assigns vouchers to a customer. A campaign without enough left is a refusal that is returned, not
 * thrown, so the unit of work still commits the record of the failed publication.
 */
export async function publish(ctx: DomainContext, input: PublicationCreate, options: { joinOnce?: boolean } = {}): Promise<PublishOutcome> {
  // The contract lets either be null (the published SDKs send `campaign: null` with a code), so one of them is checked here.
  if ((input.voucher === undefined || input.voucher === null) === (input.campaign === undefined || input.campaign === null)) {
    throw invalid('invalid_publish_params', 'Invalid publish params', 'Name what to publish with voucher or with campaign: one of them, not both');
  }
  const named = await namedCustomer(ctx, input.customer);
  if (!named) throw invalid('invalid_customer', 'Invalid customer', 'The customer needs an id, a source_id, or details such as a name or email');
  // The customer's row is locked before its publications are read: publications to one customer running at
  // once (optimistic units of work) then run one after another, each reading what the one before it committed,
  // so join_once and a source_id repeated for that customer hold.
  const customer = (await ctx.uow.customers.get(named.id, { forUpdate: true })) ?? named;
  const earlier = await earlierPublication(ctx, input, customer.id, options.joinOnce ?? false);
  if (earlier) {
    const vouchers = (await Promise.all(earlier.vouchers_id.map((id) => ctx.uow.vouchers.get(id)))).filter((voucher): voucher is VoucherRecord => !!voucher);
    return { ok: true, publication: earlier, vouchers };
  }
  const chosen = await vouchersFor(ctx, input, customer.id);
  if (chosen instanceof DomainError) return { ok: false, error: chosen };
  const now = isoNow(ctx.clock);
  const held: VoucherRecord[] = [];
  for (const voucher of chosen) {
    const given = await ctx.uow.vouchers.update({ ...FRESH, ...voucher, holder_id: customer.id, publish_count: voucher.publish_count + 1, updated_at: now });
    await noteReferrer(ctx, given);
    held.push(given);
  }
  const first = held[0]!;
  const publication = await ctx.uow.publications.insert({
    id: newId('pub'),
    created_at: now,
    customer_id: customer.id,
    tracking_id: trackingIdOf(customer.id),
    metadata: input.metadata ?? {},
    channel: input.channel ?? 'API',
    source_id: input.source_id ?? null,
    result: 'SUCCESS',
    voucher_code: first.code,
    vouchers_id: held.map((voucher) => voucher.id),
    ...(held.length > 1 && { vouchers: held.map((voucher) => voucher.code) }),
    campaign_id: first.campaign_id,
    voucher_type: first.type,
    is_referral_code: first.is_referral_code,
    object: 'publication',
  });
  for (const voucher of held) {
    await recordEvent(ctx, 'publication.succeeded', { campaign_id: voucher.campaign_id, customer_id: customer.id, voucher_id: voucher.id }, { publication: { id: publication.id }, voucher: { id: voucher.id, code: voucher.code } });
    await recordEvent(ctx, 'voucher.published', { campaign_id: voucher.campaign_id, customer_id: customer.id, voucher_id: voucher.id }, { voucher: { id: voucher.id, code: voucher.code }, customer: { id: customer.id }, publication: { id: publication.id } });
  }
  return { ok: true, publication, vouchers: held };
}

/** The fields a publication list's `filters` may name. */
const PUBLICATION_FILTER_FIELDS: ReadonlySet<string> = new Set([
  'failure_code', 'result', 'customer_id', 'campaign_name', 'voucher_type', 'is_referral_code', 'parent_object_id', 'related_object_id', 'source_id',
]);

type PublicationSortField = 'id' | 'voucher_code' | 'tracking_id' | 'customer_id' | 'created_at' | 'channel';
export type PublicationOrder = PublicationSortField | `-${PublicationSortField}`;

export interface PublicationListQuery extends PageRequest {
  customer?: string;
  campaign?: string;
  voucher?: string;
  result?: 'SUCCESS' | 'FAILURE';
  voucher_type?: 'discount' | 'loyalty';
  is_referral_code?: boolean;
  source_id?: string;
  order?: PublicationOrder;
  filters?: Record<string, unknown>;
}

/**
 * A filter without its fields that carry no conditions: the contract lets a field come without any, and such
 * a field constrains nothing, so leaving it out changes no answer (unlike an unknown field or operator, which
 * `checkFilter` refuses).
 */
export function withoutEmptyClauses(raw: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(raw).filter(([field, clause]) => field === 'junction' || !(typeof clause === 'object' && clause !== null && !Array.isArray(clause) && (clause as { conditions?: unknown }).conditions === undefined)),
  );
}

/** Query-string filters carry single values as strings; the filter engine takes lists. */
export function listFilter(raw: Record<string, unknown>, fields: ReadonlySet<string>): FilterDefinition {
  const checked = checkFilter(withoutEmptyClauses(raw), fields, { key: 'invalid_query_params', message: 'Invalid query params', name: 'filters' });
  const definition: FilterDefinition = { junction: checked.junction === 'or' ? 'or' : 'and' };
  for (const [field, clause] of Object.entries(checked)) {
    if (field === 'junction') continue;
    const conditions = (clause as { conditions: Record<string, unknown> }).conditions;
    definition[field] = {
      conditions: Object.fromEntries(Object.entries(conditions).map(([op, value]) => [op, (Array.isArray(value) ? value : [value]) as (string | number | boolean)[]])),
    };
  }
  return definition;
}

export async function listPublications(ctx: DomainContext, query: PublicationListQuery) {
  const missing = '\u0000';
  const customerId = query.customer ? (((await ctx.uow.customers.get(query.customer)) ?? (await ctx.uow.customers.getBy('source_id', query.customer)))?.id ?? missing) : undefined;
  const campaignId = query.campaign ? (((await ctx.uow.campaigns.get(query.campaign)) ?? (await ctx.uow.campaigns.getBy('name', query.campaign)))?.id ?? missing) : undefined;
  const filter = query.filters ? listFilter(query.filters, PUBLICATION_FILTER_FIELDS) : undefined;
  const clause = filter?.campaign_name;
  const names = typeof clause === 'object' ? await campaignNameSource(ctx, clause.conditions) : undefined;
  const source = (field: string): FieldSource => {
    switch (field) {
      case 'failure_code':
        return { constant: null };
      case 'campaign_name':
        return names ?? { constant: null };
      // The list's filters read the referral flag as the text `true` or `false`.
      case 'is_referral_code':
        return { key: 'is_referral_code', lookup: new Map([[true, 'true'], [false, 'false']]), otherwise: null };
      case 'parent_object_id':
        return 'campaign_id';
      case 'related_object_id':
        return 'vouchers_id';
      default:
        return field;
    }
  };
  const order = parseOrder<PublicationSortField>(query.order ?? '-created_at');
  return ctx.uow.publications.query({
    where: and(
      customerId === undefined ? undefined : eq('customer_id', customerId),
      campaignId === undefined ? undefined : eq('campaign_id', campaignId),
      query.voucher === undefined ? undefined : or(eq('voucher_code', query.voucher), has('vouchers', query.voucher)),
      query.result === undefined ? undefined : eq('result', query.result),
      query.source_id === undefined ? undefined : eq('source_id', query.source_id),
      query.voucher_type === undefined ? undefined : eq('voucher_type', query.voucher_type === 'loyalty' ? 'LOYALTY_CARD' : 'DISCOUNT_VOUCHER'),
      query.is_referral_code === undefined ? undefined : eq('is_referral_code', query.is_referral_code),
      filter && filterCondition(filter, source),
    ),
    orderBy: { field: order.field, direction: order.direction },
    ...pageWindow(query),
  });
}

/** The publication as the contract shows it, with its customer; the voucher is the caller's to attach. */
export async function presentPublication(ctx: DomainContext, record: PublicationRecord): Promise<Schemas['Publication']> {
  const { voucher_type: _type, is_referral_code: _referral, ...shown } = record;
  const customer = await ctx.uow.customers.get(record.customer_id);
  return {
    ...FRESH,
    ...shown,
    // The API always names the customer; one deleted since (or erased for good) is left with its ID alone.
    customer: customer ? await presentCustomer(ctx, customer) : { id: record.customer_id, object: 'customer' },
  } as Schemas['Publication'];
}

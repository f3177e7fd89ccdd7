import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { DomainError, invalid, notFound } from './errors.js';
import { recordEvent } from './events.js';
import { upsertCustomer } from './customers.js';
import { newId } from './ids.js';
import { pageWindow, type PageRequest } from './pagination.js';
import { validityAt } from './validity.js';
import type { VoucherRecord } from './vouchers.js';

type Schemas = components['schemas'];
export type PublicationRecord = Omit<Schemas['Publication'], 'voucher'>;
type PublicationCreate = Schemas['PublicationsCreateRequestBody'];

export async function customerFor(ctx: DomainContext, input: PublicationCreate['customer']) {
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

async function voucherFor(ctx: DomainContext, input: PublicationCreate, customerId: string): Promise<VoucherRecord | DomainError> {
  if (input.voucher !== undefined) {
    const voucher = await ctx.uow.vouchers.getBy('code', input.voucher);
    if (!voucher) throw notFound('voucher', input.voucher);
    if (voucher.holder_id !== null && voucher.holder_id !== customerId) {
      throw invalid('invalid_publish_params', 'Invalid publish params', `Voucher ${voucher.code} is already held by another customer`);
    }
    return voucher;
  }
  const ref = input.campaign!.name;
  const campaign = (await ctx.uow.campaigns.get(ref)) ?? (await ctx.uow.campaigns.getBy('name', ref));
  if (!campaign) throw notFound('campaign', ref);
  const now = ctx.clock.now();
  const free = (await ctx.uow.vouchers.findBy('campaign_id', campaign.id)).find(
    (voucher) => voucher.holder_id === null && voucher.active && validityAt({ ...voucher, validity_timeframe: null, validity_day_of_week: null, validity_hours: null }, now).valid,
  );
  if (!free) {
    await recordEvent(ctx, 'publication.failed', { campaign_id: campaign.id, customer_id: customerId }, { campaign: { id: campaign.id } });
    return invalid('no_voucher_suitable_for_publication', 'No voucher suitable for publication', `Campaign ${campaign.name} has no free voucher left`);
  }
  return free;
}

export type PublishOutcome = { ok: true; publication: PublicationRecord; voucher: VoucherRecord } | { ok: false; error: DomainError };

/**
 * Assigns a voucher to a customer. A campaign with nothing left is a refusal that is returned, not
 * thrown, so the unit of work still commits the record of the failed publication.
 */
export async function publish(ctx: DomainContext, input: PublicationCreate): Promise<PublishOutcome> {
  const customer = await customerFor(ctx, input.customer);
  const voucher = await voucherFor(ctx, input, customer.id);
  if (voucher instanceof DomainError) return { ok: false, error: voucher };
  const now = ctx.clock.now().toISOString();
  const held = await ctx.uow.vouchers.update({ ...voucher, holder_id: customer.id, publish_count: voucher.publish_count + 1, updated_at: now });
  const publication = await ctx.uow.publications.insert({
    id: newId('pub'),
    created_at: now,
    customer_id: customer.id,
    tracking_id: `track_${Buffer.from(customer.id).toString('base64url')}`,
    metadata: input.metadata ?? {},
    channel: input.channel ?? 'API',
    result: 'SUCCESS',
    voucher_code: voucher.code,
    campaign_id: voucher.campaign_id,
    object: 'publication',
  });
  await recordEvent(ctx, 'publication.succeeded', { campaign_id: voucher.campaign_id, customer_id: customer.id, voucher_id: voucher.id }, { publication: { id: publication.id }, voucher: { id: voucher.id, code: voucher.code } });
  await recordEvent(ctx, 'voucher.published', { campaign_id: voucher.campaign_id, customer_id: customer.id, voucher_id: voucher.id }, { voucher: { id: voucher.id, code: voucher.code }, customer: { id: customer.id }, publication: { id: publication.id } });
  return { ok: true, publication, voucher: held };
}

export async function listPublications(
  ctx: DomainContext,
  query: PageRequest & { customer?: string; campaign?: string; voucher?: string; order?: 'created_at' | '-created_at' },
) {
  const missing = '\u0000';
  const customerId = query.customer ? (((await ctx.uow.customers.get(query.customer)) ?? (await ctx.uow.customers.getBy('source_id', query.customer)))?.id ?? missing) : undefined;
  const campaignId = query.campaign ? (((await ctx.uow.campaigns.get(query.campaign)) ?? (await ctx.uow.campaigns.getBy('name', query.campaign)))?.id ?? missing) : undefined;
  return ctx.uow.publications.query({
    where: (publication) =>
      (customerId === undefined || publication.customer_id === customerId) &&
      (campaignId === undefined || publication.campaign_id === campaignId) &&
      (query.voucher === undefined || publication.voucher_code === query.voucher),
    orderBy: { field: 'created_at', direction: (query.order ?? '-created_at') === '-created_at' ? 'desc' : 'asc' },
    ...pageWindow(query),
  });
}

/**
 * Custom events: things that happened to a customer, named in the project's event schemas. An event can
 * convert a referral and earn loyalty points.
 */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { upsertCustomer, type Customer } from './customers.js';
import { invalid, notFound } from './errors.js';
import { recordEvent, type EventRecord } from './events.js';
import { earnOnCustomEvent } from './loyalty/earning.js';
import { checkMetadata } from './management/metadata-rules.js';

type Schemas = components['schemas'];
type EventCreate = Schemas['EventsCreateRequestBody'];
type EventResponse = Schemas['EventsCreateResponseBody'];

async function checkEvent(ctx: DomainContext, name: string, metadata: Record<string, unknown> | undefined): Promise<void> {
  const schema = await ctx.uow.custom_event_schemas.getBy('name', name);
  if (!schema) throw notFound('custom_event', name);
  checkMetadata(
    {
      id: schema.id,
      related_object: `event ${name}`,
      properties: schema.schema.properties,
      allow_defined_only: false,
      created_at: schema.created_at,
      updated_at: schema.updated_at,
      object: 'metadata_schema',
    },
    metadata,
  );
}

/**
 * The customer of the event: by ID, or by `source_id`, created from the fields given when no customer has
 * it yet. An existing customer is not changed by an event.
 */
async function customerOf(ctx: DomainContext, input: EventCreate['customer']): Promise<Customer> {
  if (input.id) {
    const customer = await ctx.uow.customers.get(input.id);
    if (!customer) throw notFound('customer', input.id);
    return customer;
  }
  if (input.source_id) {
    const existing = await ctx.uow.customers.getBy('source_id', input.source_id);
    if (existing) return existing;
    const { id: _none, ...fields } = input;
    return upsertCustomer(ctx, fields);
  }
  throw invalid('invalid_customer', 'Invalid customer', 'The customer needs an id or a source_id');
}

/**
 * Counts a referral when the code's program converts on this event: once per referee and program, never
 * for the referrer themselves.
 */
async function convertReferral(ctx: DomainContext, referral: NonNullable<EventCreate['referral']>, referee: Customer, trigger: EventRecord, name: string) {
  const code = await ctx.uow.vouchers.getBy('code', referral.code);
  if (!code) throw notFound('voucher', referral.code);
  const program = code.campaign_id ? await ctx.uow.campaigns.get(code.campaign_id) : undefined;
  const converts = program?.referral_program?.conversion_event_type === 'custom_event' && program.referral_program.custom_event?.name === name;
  if (!program || !converts) return;
  const referrerId = code.holder_id ?? referral.referrer_id;
  const referrer = referrerId ? ((await ctx.uow.customers.get(referrerId)) ?? (await ctx.uow.customers.getBy('source_id', referrerId))) : undefined;
  if (!referrer || referrer.id === referee.id) return;
  if (referee.referrals.campaigns.some((entry) => entry.campaign_id === program.id)) return;
  await ctx.uow.customers.update({
    ...referee,
    referrals: {
      total: referee.referrals.total + 1,
      campaigns: [
        ...referee.referrals.campaigns,
        { campaign_id: program.id, referrer_id: referrer.id, related_object_id: trigger.id, related_object_type: 'customer_event', date: trigger.created_at },
      ],
    },
  });
  const entry = referrer.loyalty.campaigns[program.name] ?? { points: 0, referred_customers: 0 };
  await ctx.uow.customers.update({
    ...referrer,
    loyalty: {
      ...referrer.loyalty,
      referred_customers: referrer.loyalty.referred_customers + 1,
      campaigns: { ...referrer.loyalty.campaigns, [program.name]: { ...entry, referred_customers: (entry.referred_customers ?? 0) + 1 } },
    },
  });
}

export async function trackCustomEvent(ctx: DomainContext, input: EventCreate): Promise<EventResponse> {
  await checkEvent(ctx, input.event, input.metadata);
  if (input.loyalty && !(await ctx.uow.vouchers.getBy('code', input.loyalty.code))) throw notFound('loyalty_card', input.loyalty.code);
  const customer = await customerOf(ctx, input.customer);
  const trigger = await recordEvent(ctx, 'customer.custom_event', { customer_id: customer.id }, {
    event: { name: input.event, metadata: input.metadata ?? {} },
    customer: { id: customer.id, source_id: customer.source_id },
  });
  if (input.referral) await convertReferral(ctx, input.referral, customer, trigger, input.event);
  await earnOnCustomEvent(ctx, customer.id, trigger, input.event, input.loyalty?.code);
  return {
    object: 'event',
    type: input.event,
    customer: { id: customer.id, name: customer.name, email: customer.email, source_id: customer.source_id, metadata: customer.metadata, object: 'customer' },
    referral: null,
    loyalty: null,
    metadata: input.metadata ?? {},
  };
}

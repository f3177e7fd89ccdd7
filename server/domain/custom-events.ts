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
import { convertHeldReferrals, convertReferral, convertsOnEvent } from './referrals.js';

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

/** Counts a referral when the code's program converts on this event (see referrals.ts). */
async function convertNamedReferral(ctx: DomainContext, referral: NonNullable<EventCreate['referral']>, referee: Customer, trigger: EventRecord, name: string) {
  const code = await ctx.uow.vouchers.getBy('code', referral.code);
  if (!code) throw notFound('voucher', referral.code);
  const program = await convertsOnEvent(ctx, code, name);
  if (program) await convertReferral(ctx, code, program, referee, conversionBy(trigger), referral.referrer_id);
}

function conversionBy(trigger: EventRecord) {
  return { id: trigger.id, type: 'customer_event' as const, date: trigger.created_at };
}

export async function trackCustomEvent(ctx: DomainContext, input: EventCreate): Promise<EventResponse> {
  await checkEvent(ctx, input.event, input.metadata);
  if (input.loyalty && !(await ctx.uow.vouchers.getBy('code', input.loyalty.code))) throw notFound('loyalty_card', input.loyalty.code);
  const customer = await customerOf(ctx, input.customer);
  const trigger = await recordEvent(ctx, 'customer.custom_event', { customer_id: customer.id }, {
    event: { name: input.event, metadata: input.metadata ?? {} },
    customer: { id: customer.id, source_id: customer.source_id },
  });
  if (input.referral) await convertNamedReferral(ctx, input.referral, customer, trigger, input.event);
  else await convertHeldReferrals(ctx, customer, conversionBy(trigger), input.event);
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

/** Webhook configurations of a project and the record of their deliveries. */
import { randomBytes } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { literalAddress, lookupName, refusedAddresses, type HostResolver, type ResolvedAddress } from './webhook-targets.js';
import { table } from '../../store/schema.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

/** A stored webhook: every one has its signing secret and an update time (null until changed); the contract leaves both optional, as the public API documents webhooks without them. */
export type Webhook = components['schemas']['Webhook'] & Required<Pick<components['schemas']['Webhook'], 'secret' | 'updated_at'>>;

export const WEBHOOKS_TABLE = table<Webhook>({ unique: [], indexed: [], kept: true });
export type WebhookDelivery = components['schemas']['WebhookDelivery'];

/**
 * A delivery as kept: what the API shows, and what the delivery worker (server/webhooks/delivery.ts) needs of
 * it, never shown. `body` is the payload, written with the event in its unit of work and dropped once the
 * delivery is DELIVERED or FAILED; `due_ms` is when a PENDING delivery's next attempt is due (ms since the
 * epoch; 0 at once); `leased_by`/`lease_until` say which server instance holds it (Store.claim).
 */
export interface WebhookDeliveryRow extends WebhookDelivery {
  body?: string | null;
  due_ms?: number | null;
  leased_by?: string | null;
  lease_until?: number | null;
}

export const WEBHOOK_DELIVERIES_TABLE = table<WebhookDeliveryRow>({ unique: [], indexed: ['webhook_id', 'status'], kinds: { due_ms: 'number', lease_until: 'number' } });

/** A delivery as the API shows it: the worker's fields left out. */
export function presentDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  const { body: _body, due_ms: _due, leased_by: _holder, lease_until: _until, ...delivery } = row;
  return delivery;
}
export type WebhookEventType = components['schemas']['WebhookEventType'];
type WebhookCreate = components['schemas']['WebhooksCreateRequestBody'];
type WebhookUpdate = components['schemas']['WebhooksUpdateRequestBody'];

/** Every event kind a webhook can subscribe to; the `satisfies` keeps it equal to the contract's enum. */
const KINDS = {
  'redemption.succeeded': true,
  'redemption.failed': true,
  'redemption.rollback.succeeded': true,
  'redemption.rollback.failed': true,
  'publication.succeeded': true,
  'voucher.published': true,
  'voucher.created': true,
  'voucher.updated': true,
  'voucher.deleted': true,
  'voucher.enabled': true,
  'voucher.disabled': true,
  'voucher.loyalty_card.points_added': true,
  'voucher.loyalty_card.pending_points.activated': true,
  'voucher.loyalty_card.points_expired': true,
  'voucher.gift.balance_added': true,
  'campaign.created': true,
  'campaign.updated': true,
  'campaign.deleted': true,
  'campaign.enabled': true,
  'campaign.disabled': true,
  'campaign.vouchers.generation.completed': true,
  'business_validation_rule.created': true,
  'business_validation_rule.updated': true,
  'business_validation_rule.deleted': true,
  'business_validation_rule.assignment.created': true,
  'business_validation_rule.assignment.deleted': true,
  'customer.created': true,
  'customer.deleted': true,
  'customer.rewarded': true,
  'customer.rewarded.loyalty_points': true,
} satisfies Record<WebhookEventType, true>;

function isWebhookEventType(type: string): type is WebhookEventType {
  return Object.hasOwn(KINDS, type);
}

/**
 * The event log's names for the kinds it records under another name: its member activity keeps the loyalty
 * card's own names, which webhooks deliver under the public API's `voucher.loyalty_card.*` kinds.
 */
const DELIVERED_AS: Readonly<Record<string, WebhookEventType>> = {
  'customer.loyalty.card.pending_points.activated': 'voucher.loyalty_card.pending_points.activated',
  'customer.loyalty.card.points_expired': 'voucher.loyalty_card.points_expired',
};

/** The kind webhooks deliver an event of the log as, or undefined when no webhook can take it. */
export function webhookKindOf(eventType: string): WebhookEventType | undefined {
  return Object.hasOwn(DELIVERED_AS, eventType) ? DELIVERED_AS[eventType] : isWebhookEventType(eventType) ? eventType : undefined;
}

/**
 * The kind a subscription names. The public API's subscription list spells three kinds `…aded`; they mean the
 * `…added` kinds that are delivered.
 */
export function subscribedKind(subscription: string): string {
  return subscription.replace(/_aded$/, '_added');
}

/** Whether a webhook's subscriptions take an event of this kind. */
export function subscribesTo(webhook: { events: readonly string[] }, type: string): boolean {
  return webhook.events.some((subscription) => subscribedKind(subscription) === type);
}

export interface WebhookRules {
  /** Whether `http` target URLs are accepted besides `https` (local testing only). */
  allowPlainHttp: boolean;
  /** Whether targets may be loopback, private, link-local or other non-public addresses (local testing only). */
  allowPrivateTargets: boolean;
  /** How host names are resolved, here and at delivery; tests inject their own. */
  resolve: HostResolver;
  /** How long saving waits for a host name to resolve before taking it unresolved (3 s when not given). */
  lookupTimeoutMs?: number;
}

declare const vetted: unique symbol;
/** A target URL that passed {@link vetTarget}; only such a URL can be stored. */
export type VettedTarget = string & { readonly [vetted]: true };

function refuse(details: string): never {
  throw invalid('invalid_target_url', 'Invalid target URL', details);
}

/**
 * Checks a target URL before it is stored: its scheme (any case), no credentials, and every address its host
 * resolves to now must be public unless the rules allow otherwise. A name that does not resolve (yet) is
 * taken: each delivery resolves it again and connects only to public addresses, so an unresolved name can
 * never reach a private one. Runs outside any unit of work, since a lookup may take seconds.
 */
export async function vetTarget(raw: string, rules: WebhookRules): Promise<VettedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    refuse('target_url must be an absolute URL');
  }
  const { protocol } = url;
  if (!(protocol === 'https:' || (protocol === 'http:' && rules.allowPlainHttp))) {
    refuse(`target_url must be ${rules.allowPlainHttp ? 'an https or http' : 'an https'} URL, got ${protocol.replace(/:$/, '')}`);
  }
  // A receiver cannot be given credentials this way (they would be sent to it in the clear and shown in every read).
  if (url.username !== '' || url.password !== '') refuse('target_url must not carry a user name or password');
  if (!rules.allowPrivateTargets) {
    const literal = literalAddress(url);
    const addresses = literal ? [{ address: literal, family: 0 }] : await resolveForSave(rules.resolve, lookupName(url), rules.lookupTimeoutMs ?? 3000);
    const [refused] = refusedAddresses(addresses);
    if (refused) {
      const what = literal ? `${url.hostname} is` : `${url.hostname} resolves to`;
      refuse(`${what} a ${refused.range} address; webhooks may only target public addresses`);
    }
  }
  return raw as VettedTarget;
}

/** The host's addresses, or none when it does not resolve in time (it is checked again at every delivery). */
async function resolveForSave(resolve: HostResolver, hostname: string, timeoutMs: number): Promise<readonly ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<readonly ResolvedAddress[]>((done) => {
    timer = setTimeout(() => done([]), timeoutMs);
  });
  try {
    return await Promise.race([resolve(hostname).catch(() => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a secret is shown after its webhook was created: a fixed prefix, a fixed run of stars and its last 4 characters. */
export function maskSecret(secret: string): string {
  return `${MASK_PREFIX}${secret.slice(-4)}`;
}

const MASK_PREFIX = 'whsec_************';
const MASKED = /^whsec_\*{12}[\x21-\x7e]{4}$/;

/**
 * The secret to store from a request. A masked secret as reads show it is never a secret: sent back unchanged
 * (a whole webhook PUT back as read) it keeps the current one; any other masked value is refused, so a value
 * copied from a read can never become a key anyone could guess.
 */
function secretFrom(given: string | undefined, current: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (current !== undefined && given === maskSecret(current)) return current;
  if (MASKED.test(given)) throw invalid('invalid_secret', 'Invalid secret', 'secret is a masked value as reads show it; send the full secret, or leave it out');
  return given;
}

/** A webhook as the API shows it: the secret in full only in the answer to its creation. */
export function presentWebhook(webhook: Webhook, { revealSecret = false } = {}): Webhook {
  return revealSecret ? webhook : { ...FRESH, ...webhook, secret: maskSecret(webhook.secret) };
}

export async function findWebhook({ uow }: DomainContext, id: string): Promise<Webhook> {
  const webhook = await uow.webhooks.get(id);
  if (!webhook) throw notFound('webhook', id);
  return webhook;
}

export async function listWebhooks({ uow }: DomainContext): Promise<Webhook[]> {
  return (await uow.webhooks.query({})).rows;
}

export async function createWebhook(ctx: DomainContext, input: WebhookCreate, target: VettedTarget): Promise<Webhook> {
  const secret = secretFrom(input.secret, undefined);
  return ctx.uow.webhooks.insert({
    id: newId('wh'),
    target_url: target,
    events: [...new Set(input.events)],
    active: input.active ?? true,
    secret: secret ?? `whsec_${randomBytes(24).toString('hex')}`,
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'webhook',
  });
}

/** `target` is the request's `target_url` once vetted, when it has one. */
export async function updateWebhook(ctx: DomainContext, id: string, input: WebhookUpdate, target: VettedTarget | undefined): Promise<Webhook> {
  const webhook = await findWebhook(ctx, id);
  const secret = secretFrom(input.secret, webhook.secret);
  return ctx.uow.webhooks.update({
    ...FRESH,
    ...webhook,
    ...(target !== undefined && { target_url: target }),
    ...(input.events !== undefined && { events: [...new Set(input.events)] }),
    ...(input.active !== undefined && { active: input.active }),
    ...(secret !== undefined && { secret }),
    updated_at: isoNow(ctx.clock),
  });
}

export async function deleteWebhook(ctx: DomainContext, id: string): Promise<void> {
  await findWebhook(ctx, id);
  for (const delivery of await ctx.uow.webhook_deliveries.findBy('webhook_id', id)) await ctx.uow.webhook_deliveries.delete(delivery.id);
  await ctx.uow.webhooks.delete(id);
}

export async function listDeliveries(ctx: DomainContext, webhookId: string, page: { limit: number; page: number }) {
  await findWebhook(ctx, webhookId);
  const all = await ctx.uow.webhook_deliveries.findBy('webhook_id', webhookId);
  const newestFirst = all.reverse();
  const start = (page.page - 1) * page.limit;
  return { rows: newestFirst.slice(start, start + page.limit).map(presentDelivery), total: newestFirst.length };
}

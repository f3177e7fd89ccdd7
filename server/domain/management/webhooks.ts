/** Webhook configurations of a project and the record of their deliveries. */
import { randomBytes } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';

export type Webhook = components['schemas']['Webhook'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
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

export function isWebhookEventType(type: string): type is WebhookEventType {
  return Object.hasOwn(KINDS, type);
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
}

function checkTarget(url: string, rules: WebhookRules): void {
  const { protocol } = new URL(url);
  if (protocol === 'https:' || (protocol === 'http:' && rules.allowPlainHttp)) return;
  const allowed = rules.allowPlainHttp ? 'an https or http' : 'an https';
  throw invalid('invalid_target_url', 'Invalid target URL', `target_url must be ${allowed} URL, got ${protocol.replace(/:$/, '')}`);
}

export async function findWebhook({ uow }: DomainContext, id: string): Promise<Webhook> {
  const webhook = await uow.webhooks.get(id);
  if (!webhook) throw notFound('webhook', id);
  return webhook;
}

export async function listWebhooks({ uow }: DomainContext): Promise<Webhook[]> {
  return (await uow.webhooks.query({})).rows;
}

export async function createWebhook(ctx: DomainContext, input: WebhookCreate, rules: WebhookRules): Promise<Webhook> {
  checkTarget(input.target_url, rules);
  return ctx.uow.webhooks.insert({
    id: newId('wh'),
    target_url: input.target_url,
    events: [...new Set(input.events)],
    active: input.active ?? true,
    secret: input.secret ?? `whsec_${randomBytes(24).toString('hex')}`,
    created_at: ctx.clock.now().toISOString(),
    updated_at: null,
    object: 'webhook',
  });
}

export async function updateWebhook(ctx: DomainContext, id: string, input: WebhookUpdate, rules: WebhookRules): Promise<Webhook> {
  const webhook = await findWebhook(ctx, id);
  if (input.target_url !== undefined) checkTarget(input.target_url, rules);
  return ctx.uow.webhooks.update({
    ...webhook,
    ...(input.target_url !== undefined && { target_url: input.target_url }),
    ...(input.events !== undefined && { events: [...new Set(input.events)] }),
    ...(input.active !== undefined && { active: input.active }),
    ...(input.secret !== undefined && { secret: input.secret }),
    updated_at: ctx.clock.now().toISOString(),
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
  return { rows: newestFirst.slice(start, start + page.limit), total: newestFirst.length };
}

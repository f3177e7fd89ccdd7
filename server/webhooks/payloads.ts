/**
 * What a webhook payload carries for each event kind: the `data` the contract types for it and the ID of
 * the object the event is mainly about (`event.entity_id`). Built from the event record and the objects it
 * names, presented as the API's own reads present them, while the unit of work that recorded the event is
 * still open, so the objects are shown as they stood when the event happened (deleted ones included).
 */
import type { components } from '../../generated/openapi.js';
import { presentCampaign } from '../domain/campaigns.js';
import type { DomainContext } from '../domain/context.js';
import { presentCustomer } from '../domain/customers.js';
import type { EventRecord } from '../domain/events.js';
import { currentTier } from '../domain/loyalty/tiers.js';
import type { ShownBucket } from '../domain/loyalty/buckets.js';
import type { CardTransaction, PendingPoints } from '../domain/loyalty/types.js';
import type { WebhookEventType } from '../domain/management/webhooks.js';
import { presentPromotionTier } from '../domain/promotion-tiers.js';
import { presentPublication } from '../domain/publications.js';
import { presentEntry, type RedemptionView, type RollbackView } from '../domain/redemptions.js';
import { presentValidationRule } from '../domain/validation-rules.js';
import { presentVoucher } from '../domain/vouchers.js';
import type { Tables } from '../domain/schema.js';
import { FRESH } from '../store/fresh.js';

type Schemas = components['schemas'];
export type WebhookPayload = Schemas['WebhookEvent'];
type PayloadOf<K extends WebhookEventType> = Extract<WebhookPayload, { type: K }>;
export type PayloadData<K extends WebhookEventType = WebhookEventType> = PayloadOf<K>['data'];

/** The typed part of a delivery that depends on the event alone; the envelope is added per webhook. */
export interface PresentedEvent<D = PayloadData> {
  entityId: string;
  data: D;
}

type Builder<D> = (scope: EventScope, event: EventRecord) => Promise<PresentedEvent<D>>;

/** What presenting an event may look at: the open unit of work, and what it did before the event. */
export interface EventScope {
  ctx: DomainContext;
  /** A row as it stands now in the unit of work, or as it stood when the unit of work deleted it. */
  find<T extends keyof Tables>(table: T, id: string): Promise<Tables[T] | undefined>;
  /** The last loyalty card transaction the unit of work recorded for a card. */
  lastTransaction(voucherId: string): CardTransaction | undefined;
  /** The events the unit of work has recorded so far, oldest first, this one last. */
  recorded: readonly EventRecord[];
}

/** Names an object by ID, as event records do. */
type Named = { id: string } | null | undefined;

const idOf = (value: unknown): string | undefined => {
  const id = (value as Named)?.id;
  return typeof id === 'string' ? id : undefined;
};

/**
 * A voucher in a payload. The API's reads add `assets`, whose URLs are built from the address the request
 * used; a delivery has no request, so payload vouchers have none (the contract leaves `assets` optional).
 */
async function voucher(scope: EventScope, id: string | undefined): Promise<Schemas['Voucher'] | null> {
  const record = id ? await scope.find('vouchers', id) : undefined;
  return record ? presentVoucher(scope.ctx, record) : null;
}

async function campaign(scope: EventScope, id: string | null | undefined): Promise<Schemas['Campaign'] | null> {
  const record = id ? await scope.find('campaigns', id) : undefined;
  return record ? presentCampaign(scope.ctx, record) : null;
}

async function customer(scope: EventScope, id: string | null | undefined): Promise<Schemas['Customer'] | null> {
  const record = id ? await scope.find('customers', id) : undefined;
  return record ? presentCustomer(scope.ctx, record) : null;
}

async function row<T extends keyof Tables>(scope: EventScope, table: T, id: string | null | undefined): Promise<Tables[T] | null> {
  return (id ? await scope.find(table, id) : undefined) ?? null;
}

/** The campaign and the voucher of a voucher event, and the voucher's holder. */
async function voucherParts(scope: EventScope, event: EventRecord) {
  const voucherId = idOf(event.data.voucher) ?? event.voucher_id ?? undefined;
  const shown = await voucher(scope, voucherId);
  return { voucherId: voucherId ?? '', voucher: shown, campaign: await campaign(scope, shown?.campaign_id ?? event.campaign_id) };
}

function balance(card: Schemas['Voucher'] | null, change: { points: number } | { amount: number }, operation: 'MANUAL' | 'AUTOMATIC', voucherId: string): Schemas['WebhookBalance'] {
  const gift = 'amount' in change;
  return {
    ...FRESH,
    ...change,
    total: (gift ? card?.gift?.amount : card?.loyalty_card?.points) ?? 0,
    balance: (gift ? card?.gift?.balance : card?.loyalty_card?.balance) ?? 0,
    type: gift ? 'gift_voucher' : 'loyalty_card',
    operation_type: operation,
    object: 'balance',
    related_object: { type: 'voucher', id: voucherId },
  };
}

async function voucherEvent(scope: EventScope, event: EventRecord): Promise<PresentedEvent<PayloadData<'voucher.created'>>> {
  const { voucherId, voucher, campaign } = await voucherParts(scope, event);
  return { entityId: voucherId, data: { voucher, campaign } };
}

async function campaignEvent(scope: EventScope, event: EventRecord): Promise<PresentedEvent<PayloadData<'campaign.updated'>>> {
  const id = idOf(event.data.campaign) ?? event.campaign_id ?? '';
  return { entityId: id, data: { campaign: await campaign(scope, id) } };
}

/** A redemption or rollback entry as the API shows it. */
async function entry(scope: EventScope, id: string | null | undefined) {
  const record = await row(scope, 'redemptions', id);
  return record ? presentEntry(scope.ctx, record) : null;
}

/** The objects around a redemption: the redeemed voucher or tier, its campaign, the customers and the order. */
async function redemptionParts(scope: EventScope, event: EventRecord, redemption: RedemptionView | RollbackView | null) {
  const redeemable = event.data.redeemable as { id: string; object: string } | undefined;
  let voucherRecord = null;
  let tierId: string | null = null;
  if (redemption) {
    if (redemption.related_object_type === 'voucher') voucherRecord = await scope.find('vouchers', redemption.related_object_id);
    if (redemption.related_object_type === 'promotion_tier') tierId = redemption.related_object_id;
  } else if (redeemable?.object === 'voucher') {
    voucherRecord = (await scope.ctx.uow.vouchers.getBy('code', redeemable.id)) ?? (await scope.find('vouchers', redeemable.id));
  } else if (redeemable?.object === 'promotion_tier') tierId = redeemable.id;
  const tier = tierId ? await scope.find('promotion_tiers', tierId) : undefined;
  const shownVoucher = await voucher(scope, voucherRecord?.id);
  const customerId = redemption ? redemption.customer_id : event.customer_id;
  return {
    entityId: redemption?.id ?? voucherRecord?.id ?? tierId ?? redeemable?.id ?? event.id,
    parts: {
      customer: await customer(scope, customerId),
      holder: await customer(scope, shownVoucher?.holder_id),
      order: await row(scope, 'orders', redemption?.order?.id),
      voucher: shownVoucher,
      promotion_tier: tier ? await presentPromotionTier(scope.ctx, tier) : null,
      campaign: await campaign(scope, redemption?.campaign_id ?? event.campaign_id),
    },
  };
}

async function redemptionEvent(scope: EventScope, event: EventRecord): Promise<PresentedEvent<PayloadData<'redemption.succeeded'>>> {
  const redemption = (await entry(scope, idOf(event.data.redemption))) as RedemptionView | null;
  const { entityId, parts } = await redemptionParts(scope, event, redemption);
  return { entityId, data: { redemption, ...parts, created_at: redemption?.date ?? event.created_at } };
}

async function rollbackEvent(scope: EventScope, event: EventRecord): Promise<PresentedEvent<PayloadData<'redemption.rollback.succeeded'>>> {
  const redemption = (await entry(scope, idOf(event.data.redemption))) as RedemptionView | null;
  const { entityId, parts } = await redemptionParts(scope, event, redemption);
  return { entityId, data: { redemption, ...parts } };
}

/** A publication as the request that made it answered: with the voucher it published, when it published one. */
async function shownPublication(scope: EventScope, id: string | null | undefined): Promise<Schemas['PublicationWithVoucher'] | null> {
  const record = await row(scope, 'publications', id);
  if (!record) return null;
  const [only, ...more] = record.vouchers_id;
  const published = only !== undefined && more.length === 0 ? await voucher(scope, only) : null;
  return { ...FRESH, ...(await presentPublication(scope.ctx, record)), ...(published && { voucher: published }) };
}

async function ruleEvent(scope: EventScope, event: EventRecord) {
  const id = idOf(event.data.validation_rule) ?? '';
  const record = await scope.find('validation_rules', id);
  return { id, rule: record ? await presentValidationRule(scope.ctx, record) : null };
}

async function assignmentEvent(scope: EventScope, event: EventRecord): Promise<PresentedEvent<PayloadData<'business_validation_rule.assignment.created'>>> {
  const { rule } = await ruleEvent(scope, event);
  const assignment = await row(scope, 'validation_rule_assignments', idOf(event.data.assignment));
  const data: PayloadData<'business_validation_rule.assignment.created'> = { rule, assignment };
  const target = assignment?.related_object_id;
  if (assignment?.related_object_type === 'voucher') {
    const shown = await voucher(scope, target);
    if (shown) data.voucher = shown;
  } else if (assignment?.related_object_type === 'campaign') {
    data.campaign = await campaign(scope, target);
  } else if (assignment?.related_object_type === 'promotion_tier') {
    const tier = target ? await scope.find('promotion_tiers', target) : undefined;
    data.promotion_tier = tier ? await presentPromotionTier(scope.ctx, tier) : null;
  }
  return { entityId: assignment?.id ?? idOf(event.data.assignment) ?? '', data };
}

/** How each kind's data is built. */
const BUILDERS: { [K in WebhookEventType]: Builder<PayloadData<K>> } = {
  'redemption.succeeded': redemptionEvent,
  'redemption.failed': redemptionEvent,
  'redemption.rollback.succeeded': rollbackEvent,
  'redemption.rollback.failed': rollbackEvent,
  'publication.succeeded': async (scope, event) => {
    const publication = await shownPublication(scope, idOf(event.data.publication));
    const { voucher, campaign } = await voucherParts(scope, event);
    return {
      entityId: publication?.id ?? idOf(event.data.publication) ?? '',
      data: { data: { publication, ...(voucher && { voucher }), customer: await customer(scope, publication?.customer_id ?? event.customer_id), campaign } },
    };
  },
  'voucher.published': async (scope, event) => {
    const { voucherId, voucher, campaign } = await voucherParts(scope, event);
    const publication = await shownPublication(scope, idOf(event.data.publication));
    return {
      entityId: voucherId,
      data: {
        ...FRESH,
        ...(voucher && { voucher }),
        customer: await customer(scope, idOf(event.data.customer) ?? event.customer_id),
        campaign,
        publication,
        created_at: publication?.created_at ?? event.created_at,
      },
    };
  },
  'voucher.created': voucherEvent,
  'voucher.updated': voucherEvent,
  'voucher.deleted': voucherEvent,
  'voucher.enabled': voucherEvent,
  'voucher.disabled': voucherEvent,
  'voucher.loyalty_card.points_added': async (scope, event) => {
    const { voucherId, voucher, campaign } = await voucherParts(scope, event);
    return {
      entityId: voucherId,
      data: {
        voucher,
        balance: balance(voucher, { points: Number(event.data.points ?? 0) }, 'MANUAL', voucherId),
        transaction: scope.lastTransaction(voucherId) ?? null,
        campaign,
        customer: await customer(scope, voucher?.holder_id),
      },
    };
  },
  'voucher.loyalty_card.pending_points.activated': async (scope, event) => {
    const { voucherId, voucher, campaign } = await voucherParts(scope, event);
    const entry = event.data.pending_points as PendingPoints;
    // The service activates entries on their day by itself; the activate operation is a call's.
    const operation = event.event_source.channel === 'AUTOMATION' ? 'AUTOMATIC' : 'MANUAL';
    return {
      entityId: voucherId,
      data: {
        customer: await customer(scope, voucher?.holder_id ?? event.customer_id),
        campaign,
        voucher,
        balance: balance(voucher, { points: entry.points }, operation, voucherId),
        order: await row(scope, 'orders', entry.order_id),
        // An entry of no points adds none, so it records no transaction: the card's last one is another's.
        transaction: entry.points > 0 ? (scope.lastTransaction(voucherId) ?? null) : null,
        pending_points: entry,
      },
    };
  },
  'voucher.loyalty_card.points_expired': async (scope, event) => {
    const { voucherId, voucher, campaign } = await voucherParts(scope, event);
    const [bucket] = event.data.buckets as ShownBucket[];
    return {
      entityId: voucherId,
      data: {
        voucher,
        points: Number(event.data.points ?? 0),
        campaign,
        customer: await customer(scope, voucher?.holder_id ?? event.customer_id),
        buckets: bucket!,
        transaction: scope.lastTransaction(voucherId) ?? null,
      },
    };
  },
  'voucher.gift.balance_added': async (scope, event) => {
    const { voucherId, voucher, campaign } = await voucherParts(scope, event);
    return {
      entityId: voucherId,
      // No gift credit transactions are kept, so there is none to show.
      data: { voucher, balance: balance(voucher, { amount: Number(event.data.amount ?? 0) }, 'MANUAL', voucherId), transaction: null, campaign },
    };
  },
  'campaign.created': async (scope, event) => {
    const { entityId, data } = await campaignEvent(scope, event);
    return { entityId, data: { ...FRESH, ...data, created_at: data.campaign?.created_at ?? event.created_at } };
  },
  'campaign.updated': campaignEvent,
  'campaign.deleted': async (scope, event) => {
    const { entityId, data } = await campaignEvent(scope, event);
    return { entityId, data: { ...FRESH, ...data, deleted_at: event.created_at } };
  },
  'campaign.enabled': campaignEvent,
  'campaign.disabled': campaignEvent,
  'campaign.vouchers.generation.completed': async (scope, event) => {
    const { entityId, data } = await campaignEvent(scope, event);
    return { entityId, data: { ...FRESH, ...data, count: Number(event.data.count ?? 0), completed_at: event.created_at } };
  },
  'business_validation_rule.created': async (scope, event) => {
    const { id, rule } = await ruleEvent(scope, event);
    return { entityId: id, data: { rule, created_at: rule?.created_at ?? event.created_at } };
  },
  'business_validation_rule.updated': async (scope, event) => {
    const { id, rule } = await ruleEvent(scope, event);
    return { entityId: id, data: { rule, updated_at: rule?.updated_at ?? event.created_at } };
  },
  'business_validation_rule.deleted': async (scope, event) => {
    const { id, rule } = await ruleEvent(scope, event);
    return { entityId: id, data: { rule, deleted_at: event.created_at } };
  },
  'business_validation_rule.assignment.created': assignmentEvent,
  'business_validation_rule.assignment.deleted': assignmentEvent,
  'customer.created': customerEvent,
  'customer.deleted': customerEvent,
  'customer.rewarded': async (scope, event) => {
    const given = event.data.reward as {
      id: string;
      assignment_id?: string;
      points?: number;
      voucher?: Named;
      product?: { id: string; sku_id?: string | null } | null;
    };
    // The card's own event of the same reward, recorded just before, names the card that paid.
    const paid = scope.recorded.findLast((earlier) => earlier.type === 'customer.reward_redemptions.created' && earlier.customer_id === event.customer_id);
    const cardId = event.voucher_id ?? paid?.voucher_id ?? (await cardOfProgram(scope, event))?.id;
    const card = await voucher(scope, cardId);
    const holder = await customer(scope, event.customer_id);
    const record = await row(scope, 'rewards', given.id);
    const product = await row(scope, 'products', given.product?.id);
    const sku = await row(scope, 'skus', given.product?.sku_id);
    const rewardVoucher = await voucher(scope, idOf(given.voucher));
    const reward: Schemas['WebhookRewardGiven'] | null = record && {
      ...FRESH,
      ...record,
      ...(given.assignment_id && { assignment_id: given.assignment_id }),
      customer: holder,
      ...(rewardVoucher && { voucher: rewardVoucher }),
      ...(product && { product }),
      ...(sku && { sku }),
    };
    return {
      entityId: event.customer_id ?? '',
      data: {
        customer: holder,
        holder,
        voucher: card,
        campaign: await campaign(scope, card?.campaign_id ?? event.campaign_id),
        reward,
        balance: { points: given.points ?? 0 },
      },
    };
  },
  'customer.rewarded.loyalty_points': async (scope, event) => {
    const { voucherId, voucher, campaign } = await voucherParts(scope, event);
    const holder = await customer(scope, voucher?.holder_id ?? event.customer_id);
    const rule = await row(scope, 'earning_rules', idOf(event.data.earning_rule));
    const order = await row(scope, 'orders', idOf(event.data.order));
    const tier = voucherId ? await currentTier(scope.ctx, voucherId) : undefined;
    const trigger = order ? scope.recorded.findLast((earlier) => earlier.type === 'customer.order.paid' && idOf(earlier.data.order) === order.id) : undefined;
    return {
      entityId: holder?.id ?? event.customer_id ?? '',
      data: {
        customer: holder,
        holder,
        voucher,
        campaign,
        loyalty_tier: tier ?? null,
        earning_rule: rule,
        balance: balance(voucher, { points: Number(event.data.points ?? 0) }, 'AUTOMATIC', voucherId),
        ...(order && { order }),
        ...(trigger && {
          event: {
            id: trigger.id,
            type: trigger.type,
            category: 'ACTION' as const,
            entity_id: trigger.customer_id ?? '',
            created_at: trigger.created_at,
            group_id: trigger.group_id,
          },
        }),
      },
    };
  },
};

async function customerEvent(scope: EventScope, event: EventRecord): Promise<PresentedEvent<PayloadData<'customer.created'>>> {
  const id = idOf(event.data.customer) ?? event.customer_id ?? '';
  const shown = await customer(scope, id);
  // A customer is always found (deleted ones are kept for the unit of work), so the cast only narrows the type.
  return { entityId: id, data: { customer: shown as Schemas['Customer'] } };
}

/** The card a `customer.rewarded` was paid with, when the event does not name it: the holder's card in the program. */
async function cardOfProgram(scope: EventScope, event: EventRecord) {
  if (!event.customer_id || !event.campaign_id) return undefined;
  const cards = await scope.ctx.uow.vouchers.findBy('holder_id', event.customer_id);
  return cards.find((card) => card.campaign_id === event.campaign_id && card.type === 'LOYALTY_CARD');
}

/** The payload data of an event of the log, delivered as the given kind. */
export function presentEvent(scope: EventScope, kind: WebhookEventType, event: EventRecord): Promise<PresentedEvent> {
  return (BUILDERS[kind] as Builder<PayloadData>)(scope, event);
}

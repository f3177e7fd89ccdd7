/**
 * The project's event log. Every change worth counting or telling the outside world about is recorded
 * here, in the same unit of work as the change: customer and member activity list these records, webhooks
 * deliver them (see server/webhooks), and campaign summaries count them as they are recorded (see
 * campaign-counters.ts). The log keeps a project's most recent events only (see server/store/retention.ts):
 * nothing may count what it still holds.
 */
import { countEvent, countedIn } from './campaign-counters.js';
import type { DomainContext, EventSource } from './context.js';
import { newId } from './ids.js';
import { table } from '../store/schema.js';
import { isoNow } from './clock.js';

export type EventType =
  | 'campaign.created'
  | 'campaign.updated'
  | 'campaign.deleted'
  | 'campaign.enabled'
  | 'campaign.disabled'
  | 'campaign.vouchers.generation.completed'
  | 'voucher.created'
  | 'voucher.updated'
  | 'voucher.published'
  | 'voucher.deleted'
  | 'voucher.enabled'
  | 'voucher.disabled'
  | 'voucher.gift.balance_added'
  | 'voucher.loyalty_card.points_added'
  | 'customer.created'
  | 'customer.updated'
  | 'customer.deleted'
  | 'validation.succeeded'
  | 'validation.failed'
  | 'redemption.succeeded'
  | 'redemption.failed'
  | 'redemption.rollback.succeeded'
  | 'redemption.rollback.failed'
  | 'publication.succeeded'
  | 'publication.failed'
  | 'business_validation_rule.created'
  | 'business_validation_rule.updated'
  | 'business_validation_rule.deleted'
  | 'business_validation_rule.assignment.created'
  | 'business_validation_rule.assignment.deleted'
  | 'customer.order.paid'
  | 'customer.custom_event'
  | 'customer.rewarded'
  | 'customer.rewarded.loyalty_points'
  | 'customer.loyalty.card.points_added'
  | 'customer.loyalty.card.points_removed'
  | 'customer.loyalty.card.points_transferred'
  | 'customer.loyalty.card.points_expired'
  | 'customer.loyalty.card.pending_points.added'
  | 'customer.loyalty.card.pending_points.activated'
  | 'customer.loyalty.card.pending_points.canceled'
  | 'customer.loyalty.tier.joined'
  | 'customer.loyalty.tier.upgraded'
  | 'customer.loyalty.tier.downgraded'
  | 'customer.loyalty.tier.left'
  | 'customer.reward_redemptions.created'
  | 'customer.segment.entered'
  | 'customer.segment.left';

export interface EventRecord {
  id: string;
  type: EventType;
  created_at: string;
  campaign_id: string | null;
  customer_id: string | null;
  voucher_id: string | null;
  data: Record<string, unknown>;
  /** Who caused the event. */
  event_source: EventSource;
  /** The events one unit of work recorded share it. */
  group_id: string;
  /** The campaign counters this event was counted into (see campaign-counters.ts); null when none. */
  counted_in: string | null;
}

export const EVENTS_TABLE = table<EventRecord>({
  unique: [],
  indexed: ['counted_in', 'customer_id', 'voucher_id'],
  sparse: ['counted_in', 'customer_id', 'voucher_id'],
  // Every event's ID is newId('evt') (recordEvent).
  freshIds: true,
});

/**
 * How many events a project's log keeps unless configured otherwise: the most recent ones, the oldest
 * dropped first. Activity lists show what is kept; counters and summaries never depend on it.
 */
export const DEFAULT_EVENT_RETENTION = 100_000;

const AUTOMATION: EventSource = Object.freeze({ channel: 'AUTOMATION' });

/**
 * One frozen copy of each event source, which the events that name it share instead of each keeping its own.
 * A handful of sources exist (one per API key and channel); the cache is bounded in case a caller makes many.
 */
const sources = new Map<string, EventSource>();
const SOURCES_AT_MOST = 1000;

function sharedSource(source: EventSource): EventSource {
  if (Object.isFrozen(source)) return source;
  const key = JSON.stringify(source);
  let shared = sources.get(key);
  if (!shared) {
    if (sources.size >= SOURCES_AT_MOST) sources.clear();
    shared = deepFrozen(structuredClone(source));
    sources.set(key, shared);
  }
  return shared;
}

function deepFrozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
}

export async function recordEvent(
  ctx: DomainContext,
  type: EventType,
  about: { campaign_id?: string | null; customer_id?: string | null; voucher_id?: string | null },
  data: Record<string, unknown>,
): Promise<EventRecord> {
  const createdAt = isoNow(ctx.clock);
  const campaignId = about.campaign_id ?? null;
  const event = await ctx.uow.events.insert({
    id: newId('evt'),
    type,
    created_at: createdAt,
    campaign_id: campaignId,
    customer_id: about.customer_id ?? null,
    voucher_id: about.voucher_id ?? null,
    data,
    event_source: ctx.source ? sharedSource(ctx.source) : AUTOMATION,
    group_id: ctx.groupId ?? newId('grp'),
    counted_in: countedIn(type, campaignId, createdAt),
  });
  await countEvent(ctx, event);
  return event;
}

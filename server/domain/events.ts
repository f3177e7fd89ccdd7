/**
 * The project's event log. Every change worth counting or telling the outside world about is recorded
 * here, in the same unit of work as the change: summaries count these records, customer activity lists
 * them, and webhooks deliver them (see server/webhooks).
 */
import type { DomainContext, EventSource } from './context.js';
import { newId } from './ids.js';

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
}

const AUTOMATION: EventSource = { channel: 'AUTOMATION' };

export async function recordEvent(
  ctx: DomainContext,
  type: EventType,
  about: { campaign_id?: string | null; customer_id?: string | null; voucher_id?: string | null },
  data: Record<string, unknown>,
): Promise<EventRecord> {
  return ctx.uow.events.insert({
    id: newId('evt'),
    type,
    created_at: ctx.clock.now().toISOString(),
    campaign_id: about.campaign_id ?? null,
    customer_id: about.customer_id ?? null,
    voucher_id: about.voucher_id ?? null,
    data,
    event_source: ctx.source ?? AUTOMATION,
    group_id: ctx.groupId ?? newId('grp'),
  });
}

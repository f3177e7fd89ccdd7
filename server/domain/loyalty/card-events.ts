/**
 * Events on a loyalty card, told with its holder and program. Apart from cards.ts, whose points moves make the
 * member follow their tier, because tiers.ts records its own events here.
 */
import type { DomainContext } from '../context.js';
import { recordEvent, type EventType } from '../events.js';
import type { VoucherRecord } from '../vouchers.js';
import { FRESH } from '../../store/fresh.js';

/** The customer and program as member activity shows them. */
export async function cardContext(ctx: DomainContext, card: VoucherRecord) {
  const customer = card.holder_id ? await ctx.uow.customers.get(card.holder_id) : undefined;
  const campaign = card.campaign_id ? await ctx.uow.campaigns.get(card.campaign_id) : undefined;
  return {
    customer: customer
      ? { id: customer.id, name: customer.name, email: customer.email, source_id: customer.source_id, metadata: customer.metadata, object: 'customer' }
      : null,
    campaign: campaign ? { id: campaign.id, name: campaign.name, campaign_type: campaign.campaign_type, type: campaign.type, active: campaign.active, object: 'campaign' } : null,
    loyalty_card: { id: card.id, code: card.code, points: card.loyalty_card?.points ?? 0, balance: card.loyalty_card?.balance ?? 0 },
  };
}

/** Records an event on the card, with its holder and program, for member and customer activity. */
export async function recordCardEvent(ctx: DomainContext, type: EventType, card: VoucherRecord, data: Record<string, unknown> = {}) {
  return recordEvent(ctx, type, { campaign_id: card.campaign_id, customer_id: card.holder_id, voucher_id: card.id }, { ...FRESH, ...(await cardContext(ctx, card)), ...data });
}

/** Loyalty programs are campaigns of type LOYALTY_PROGRAM; their members are the customers holding cards. */
import type { components } from '../../../generated/openapi.js';
import { findCampaign } from '../campaign-lookup.js';
import type { CampaignRecord } from '../campaigns.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import type { VoucherRecord } from '../vouchers.js';

export type LoyaltyProgramCreate = components['schemas']['LoyaltyProgramsCreateRequestBody'];

export async function findProgram(ctx: DomainContext, ref: string): Promise<CampaignRecord> {
  const campaign = await findCampaign(ctx, ref).catch(() => undefined);
  if (!campaign || campaign.campaign_type !== 'LOYALTY_PROGRAM') throw notFound('campaign', ref);
  return campaign;
}

/** The loyalty card with the code, optionally required to belong to a program. */
export async function findMember(ctx: DomainContext, memberId: string, campaignRef?: string): Promise<VoucherRecord> {
  const card = (await ctx.uow.vouchers.getBy('code', memberId)) ?? (await ctx.uow.vouchers.get(memberId));
  if (!card || card.type !== 'LOYALTY_CARD') throw notFound('loyalty_card', memberId);
  if (campaignRef !== undefined) {
    const program = await findProgram(ctx, campaignRef);
    if (card.campaign_id !== program.id) throw notFound('loyalty_card', memberId);
  }
  return card;
}

/** Removes what the program's loyalty tables hold; the campaign and its cards go with deleteCampaign. */
export async function dropProgramData(ctx: DomainContext, campaignId: string): Promise<void> {
  for (const rule of await ctx.uow.earning_rules.findBy('campaign_id', campaignId)) await ctx.uow.earning_rules.delete(rule.id);
  for (const tier of await ctx.uow.loyalty_tiers.findBy('campaign_id', campaignId)) await ctx.uow.loyalty_tiers.delete(tier.id);
  for (const entry of await ctx.uow.pending_points.findBy('campaign_id', campaignId)) await ctx.uow.pending_points.delete(entry.id);
  for (const state of await ctx.uow.loyalty_cards.findBy('campaign_id', campaignId)) await ctx.uow.loyalty_cards.delete(state.id);
  for (const assignment of await ctx.uow.reward_assignments.findBy('related_object_id', campaignId)) await ctx.uow.reward_assignments.delete(assignment.id);
}

/** Removes what the loyalty tables hold about one card. */
export async function dropCardData(ctx: DomainContext, cardId: string): Promise<void> {
  for (const entry of await ctx.uow.pending_points.findBy('voucher_id', cardId)) await ctx.uow.pending_points.delete(entry.id);
  await ctx.uow.loyalty_cards.delete(cardId);
}

/**
 * Looking campaigns up, apart from campaigns.ts: the modules that hold a campaign's vouchers, tiers, stacks and
 * programs need it, and campaigns.ts builds on those modules.
 */
import type { CampaignRecord } from './campaigns.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';

/** Finds a campaign by ID, then by name. */
export async function findCampaign({ uow }: DomainContext, ref: string): Promise<CampaignRecord> {
  const campaign = (await uow.campaigns.get(ref)) ?? (await uow.campaigns.getBy('name', ref));
  if (!campaign) throw notFound('campaign', ref);
  return campaign;
}

/** Every campaign's name by its ID, for filters on `campaign_name` (looked up by an entry's `campaign_id`). */
export async function campaignNamesById(ctx: DomainContext): Promise<Map<string, string>> {
  return new Map((await ctx.uow.campaigns.query({})).rows.map((campaign) => [campaign.id, campaign.name]));
}

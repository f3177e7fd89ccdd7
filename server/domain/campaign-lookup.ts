/**
 * Looking campaigns up, apart from campaigns.ts: the modules that hold a campaign's vouchers, tiers, stacks and
 * programs need it, and campaigns.ts builds on those modules.
 */
import type { CampaignRecord } from './campaigns.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { conditionsOn, matchesConditions, type Conditions, type FieldSource } from './filters.js';
import { isIn, not, notIn } from '../store/conditions.js';

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

/**
 * A filter's `campaign_name` conditions as a condition on an entry's `campaign_id`, asking the store only for
 * the campaigns that decide it. An entry without a campaign (or with one since deleted) reads the name as
 * null: when null meets the conditions, an entry is in unless its campaign's name fails them; otherwise it is
 * in only when its campaign's name meets them.
 */
export async function campaignNameSource(ctx: DomainContext, conditions: Conditions): Promise<FieldSource> {
  const nullMeets = matchesConditions(null, conditions);
  const names = conditionsOn('name', conditions);
  const ids = (await ctx.uow.campaigns.query({ where: nullMeets ? not(names) : names })).rows.map((campaign) => campaign.id);
  const condition = nullMeets ? notIn('campaign_id', ids) : isIn('campaign_id', ids);
  return { compile: () => condition };
}

import { deleteCampaign, listCampaigns, presentCampaign, updateCampaign } from '../domain/campaigns.js';
import type { DomainContext } from '../domain/context.js';
import { listMemberActivity, listTransactions } from '../domain/loyalty/activity.js';
import { changeCardPoints } from '../domain/loyalty/cards.js';
import {
  createEarningRules,
  earningRuleView,
  deleteEarningRule,
  findEarningRule,
  listEarningRules,
  ruleInTier,
  setEarningRuleActive,
  updateEarningRule,
} from '../domain/loyalty/earning.js';
import { addMember, listMembers, transferPoints } from '../domain/loyalty/members.js';
import { activatePending, adjustPending, cancelPending, findPending, pendingPage, type PendingQuery } from '../domain/loyalty/pending-points.js';
import { findMember, findProgram } from '../domain/loyalty/programs.js';
import { redeemReward, tierRewards } from '../domain/loyalty/rewards.js';
import { createTiers, findTier, listTiers, memberTiers } from '../domain/loyalty/tiers.js';
import { pageWindow } from '../domain/pagination.js';
import type { VoucherRecord } from '../domain/vouchers.js';
import { createCampaignWithVouchers } from './campaigns.js';
import type { components } from '../../generated/openapi.js';
import type { Handler, HandlersOf, RequestContext, Services } from './types.js';

type LoyaltyProgramUpdate = components['schemas']['LoyaltyProgramsUpdateRequestBody'];
type CampaignsUpdateRequestBody = components['schemas']['CampaignsUpdateRequestBody'];
import { inProject } from './unit-of-work.js';
import { voucherResponse, withAssets } from './vouchers.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from '../domain/clock.js';

type LoyaltyOperations =
  | 'list-loyalty-programs'
  | 'create-loyalty-program'
  | 'get-loyalty-program'
  | 'update-loyalty-program'
  | 'delete-loyalty-program'
  | 'list-members'
  | 'add-member'
  | 'get-member'
  | 'get-member-1'
  | 'update-loyalty-card-balance'
  | 'update-loyalty-card-balance-1'
  | 'transfer-points'
  | 'list-loyalty-card-transactions'
  | 'list-loyalty-card-transactions-1'
  | 'list-earning-rules'
  | 'create-earning-rule'
  | 'get-earning-rule'
  | 'update-earning-rule'
  | 'delete-earning-rule'
  | 'enable-earning-rule'
  | 'disable-earning-rule'
  | 'list-campaign-pending-points'
  | 'list-member-pending-points'
  | 'list-member-pending-points-1'
  | 'activate-member-pending-points'
  | 'cancel-member-pending-points'
  | 'adjust-member-pending-points'
  | 'list-loyalty-tiers'
  | 'create-in-bulk-loyalty-tiers'
  | 'get-loyalty-tier'
  | 'list-loyalty-tier-rewards'
  | 'list-loyalty-tier-earning-rules'
  | 'list-member-loyalty-tier'
  | 'redeem-reward'
  | 'redeem-reward-1'
  | 'list-member-activity'
  | 'list-member-activity-1';

/** Runs work on the member's card: any loyalty card by code, or only one of the program in the path. */
/**
 * Runs a use case on one loyalty card. One that writes runs optimistically: the card's balance, and a reward's
 * stock, are on rows it changes.
 */
function onCard<R>(services: Services, context: RequestContext, path: { memberId: string; campaignId?: string }, work: (ctx: DomainContext, card: VoucherRecord) => Promise<R>) {
  return inProject(services, context, async (ctx) => work(ctx, await findMember(ctx, path.memberId, path.campaignId)), { optimistic: true });
}

/** A cursor-paged list response. */
function cursorBody<T>(page: { rows: T[]; has_more: boolean; more_starting_after?: string }) {
  return {
    object: 'list' as const,
    data_ref: 'data' as const,
    data: page.rows,
    has_more: page.has_more,
    ...(page.more_starting_after !== undefined && { more_starting_after: page.more_starting_after }),
  };
}

function pendingList(services: Services, context: RequestContext, scope: (ctx: DomainContext) => Promise<{ field: 'campaign_id' | 'voucher_id'; value: string }>, query: PendingQuery) {
  return inProject(services, context, async (ctx) => {
    const page = await pendingPage(ctx, await scope(ctx), query);
    return { status: 200 as const, body: cursorBody(page) };
  });
}

/**
 * A program update as a campaign update: metadata keys named in `unset_metadata_fields` are removed, and the
 * fields the reference server takes but does not keep (tier expiration, access settings, card activity
 * duration, options) are set aside.
 */
function programChanges(program: { metadata: Record<string, unknown> }, body: LoyaltyProgramUpdate): CampaignsUpdateRequestBody {
  const {
    unset_metadata_fields: unset,
    loyalty_tiers_expiration: _tiers,
    access_settings: _areas,
    activity_duration_after_publishing: _duration,
    options: _options,
    ...changes
  } = body;
  if (!unset || unset.length === 0) return changes;
  const metadata = { ...(changes.metadata ?? program.metadata) };
  for (const key of unset) delete metadata[key];
  return { ...FRESH, ...changes, metadata };
}

/** Operations that exist both with and without the program in the path share one handler. */
type CardPath = { memberId: string; campaignId?: string };

const changeBalance: Handler<'update-loyalty-card-balance'> & Handler<'update-loyalty-card-balance-1'> = async ({ path, body, context, services }) => ({
  status: 200,
  body: (await onCard(services, context, path as CardPath, (ctx, card) => changeCardPoints(ctx, card, body))).balance,
});

const transactions: Handler<'list-loyalty-card-transactions'> & Handler<'list-loyalty-card-transactions-1'> = async ({ path, query, context, services }) => ({
  status: 200,
  body: cursorBody(await onCard(services, context, path as CardPath, (ctx, card) => listTransactions(ctx, card, query))),
});

const redeem: Handler<'redeem-reward'> & Handler<'redeem-reward-1'> = async ({ path, body, context, services }) => {
  const { card, issued, reward, ...redemption } = await onCard(services, context, path as CardPath, (ctx, member) => redeemReward(ctx, member, body, context.apiKey.appId));
  return {
    status: 200,
    body: {
      ...FRESH,
      ...redemption,
      voucher: withAssets(services, context, card),
      reward: { ...FRESH, ...reward, voucher: issued ? withAssets(services, context, issued) : null },
    },
  };
};

const activity: Handler<'list-member-activity'> & Handler<'list-member-activity-1'> = async ({ path, query, context, services }) => ({
  status: 200,
  body: cursorBody(await onCard(services, context, path as CardPath, (ctx, card) => listMemberActivity(ctx, card, query))),
});

export const loyaltyHandlers: HandlersOf<LoyaltyOperations> = {
  'list-loyalty-programs': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listCampaigns(ctx, { ...FRESH, ...query, campaign_type: 'LOYALTY_PROGRAM' }));
    return { status: 200, body: { object: 'list', data_ref: 'campaigns', campaigns: page.rows, total: page.total } };
  },
  'create-loyalty-program': ({ body, context, services }) => {
    const { access_settings: _areas, activity_duration_after_publishing: _duration, type, name, voucher, ...rest } = body;
    return createCampaignWithVouchers(services, context, {
      ...FRESH,
      ...rest,
      campaign_type: 'LOYALTY_PROGRAM',
      name: name ?? `Loyalty program ${isoNow(services.clock)}`,
      voucher: voucher ?? { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
      ...(type !== undefined && { type: type === 'STANDALONE' ? 'AUTO_UPDATE' : type }),
    });
  },
  'get-loyalty-program': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentCampaign(ctx, await findProgram(ctx, path.campaignId))),
  }),
  'update-loyalty-program': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => {
      const program = await findProgram(ctx, path.campaignId);
      return presentCampaign(ctx, await updateCampaign(ctx, program.id, programChanges(program, body)));
    }),
  }),
  'delete-loyalty-program': async ({ path, query, context, services }) => {
    await inProject(services, context, async (ctx) => {
      const program = await findProgram(ctx, path.campaignId);
      await deleteCampaign(ctx, program.id, { force: query.force });
    });
    return { status: 204 };
  },
  'list-members': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listMembers(ctx, path.campaignId, query));
    return { status: 200, body: { object: 'list', data_ref: 'vouchers', vouchers: page.rows.map((card) => withAssets(services, context, card)), total: page.total } };
  },
  'add-member': ({ path, body, context, services }) => voucherResponse(services, context, (ctx) => addMember(ctx, path.campaignId, body)),
  'get-member': ({ path, context, services }) => voucherResponse(services, context, (ctx) => findMember(ctx, path.memberId)),
  'get-member-1': ({ path, context, services }) => voucherResponse(services, context, (ctx) => findMember(ctx, path.memberId, path.campaignId)),
  'update-loyalty-card-balance': changeBalance,
  'update-loyalty-card-balance-1': changeBalance,
  'transfer-points': ({ path, body, context, services }) =>
    voucherResponse(services, context, async (ctx) => transferPoints(ctx, await findMember(ctx, path.memberId, path.campaignId), body), { optimistic: true }),
  'list-loyalty-card-transactions': transactions,
  'list-loyalty-card-transactions-1': transactions,
  'list-earning-rules': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listEarningRules(ctx, path.campaignId, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows.map(earningRuleView), total: page.total } };
  },
  'create-earning-rule': async ({ path, body, context, services }) => ({
    status: 200,
    body: (await inProject(services, context, (ctx) => createEarningRules(ctx, path.campaignId, body))).map(earningRuleView),
  }),
  'get-earning-rule': async ({ path, context, services }) => ({
    status: 200,
    body: earningRuleView(await inProject(services, context, (ctx) => findEarningRule(ctx, path.campaignId, path.earningRuleId))),
  }),
  'update-earning-rule': async ({ path, body, context, services }) => ({
    status: 200,
    body: earningRuleView(await inProject(services, context, (ctx) => updateEarningRule(ctx, path.campaignId, path.earningRuleId, body))),
  }),
  'delete-earning-rule': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteEarningRule(ctx, path.campaignId, path.earningRuleId));
    return { status: 204 };
  },
  'enable-earning-rule': async ({ path, context, services }) => ({
    status: 200,
    body: earningRuleView(await inProject(services, context, (ctx) => setEarningRuleActive(ctx, path.campaignId, path.earningRuleId, true))),
  }),
  'disable-earning-rule': async ({ path, context, services }) => ({
    status: 200,
    body: earningRuleView(await inProject(services, context, (ctx) => setEarningRuleActive(ctx, path.campaignId, path.earningRuleId, false))),
  }),
  'list-campaign-pending-points': ({ path, query, context, services }) =>
    pendingList(services, context, async (ctx) => ({ field: 'campaign_id', value: (await findProgram(ctx, path.campaignId)).id }), query),
  'list-member-pending-points': ({ path, query, context, services }) =>
    pendingList(services, context, async (ctx) => ({ field: 'voucher_id', value: (await findMember(ctx, path.memberId)).id }), query),
  'list-member-pending-points-1': ({ path, query, context, services }) =>
    pendingList(services, context, async (ctx) => ({ field: 'voucher_id', value: (await findMember(ctx, path.memberId, path.campaignId)).id }), query),
  'activate-member-pending-points': async ({ path, context, services }) => {
    const balance = await onCard(services, context, path, async (ctx, card) => activatePending(ctx, await findPending(ctx, card, path.pendingPointsId), 'MANUAL'));
    return { status: 200, body: balance! };
  },
  'cancel-member-pending-points': async ({ path, context, services }) => {
    await onCard(services, context, path, (ctx, card) => cancelPending(ctx, card, path.pendingPointsId));
    return { status: 204 };
  },
  'adjust-member-pending-points': async ({ path, body, context, services }) => ({
    status: 200,
    body: await onCard(services, context, path, (ctx, card) => adjustPending(ctx, card, path.pendingPointsId, body.points)),
  }),
  'list-loyalty-tiers': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listTiers(ctx, path.campaignId, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'create-in-bulk-loyalty-tiers': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => createTiers(ctx, path.campaignId, body)),
  }),
  'get-loyalty-tier': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => findTier(ctx, (await findProgram(ctx, path.campaignId)).id, path.loyaltyTierId)),
  }),
  'list-loyalty-tier-rewards': async ({ path, context, services }) => {
    const rows = await inProject(services, context, (ctx) => tierRewards(ctx, path.campaignId, path.loyaltyTierId));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: rows, total: rows.length } };
  },
  'list-loyalty-tier-earning-rules': async ({ path, query, context, services }) => {
    const { rows, total } = await inProject(services, context, async (ctx) => {
      const program = await findProgram(ctx, path.campaignId);
      const tier = await findTier(ctx, program.id, path.loyaltyTierId);
      const rules = (await ctx.uow.earning_rules.findBy('campaign_id', program.id)).map((rule) => earningRuleView(ruleInTier(rule, tier)));
      const { offset, limit } = pageWindow(query);
      return { rows: rules.slice(offset, offset + limit), total: rules.length };
    });
    return { status: 200, body: { object: 'list', data_ref: 'data', data: rows, total } };
  },
  'list-member-loyalty-tier': async ({ path, context, services }) => {
    const tiers = await onCard(services, context, path, (ctx, card) => memberTiers(ctx, card));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: tiers, total: tiers.length } };
  },
  'redeem-reward': redeem,
  'redeem-reward-1': redeem,
  'list-member-activity': activity,
  'list-member-activity-1': activity,
};

/** Rewards, the programs that offer them (assignments), and redeeming them with a card's points. */
import type { components } from '../../../generated/openapi.js';
import { findCampaign } from '../campaign-lookup.js';
import type { DomainContext } from '../context.js';
import { priceItems } from '../order-lines.js';
import { coinPayment } from './coin.js';
import { duplicate, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events.js';
import { newId } from '../ids.js';
import { orderForRedemption } from '../orders.js';
import { pageWindow, type PageRequest } from '../pagination.js';
import { createVoucher, presentVoucher, type VoucherRecord, type VoucherView } from '../vouchers.js';
import { recordCardEvent } from './card-events.js';
import { cardState, movePoints, type PointsMove } from './cards.js';
import { enroll } from './members.js';
import { findProgram } from './programs.js';
import { currentTier, findTier, mapped } from './tiers.js';
import type { LoyaltyTier, Reward, RewardAssignment, StoredRewardParameters } from './types.js';
import { eq } from '../../store/conditions.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

type Schemas = components['schemas'];
type RewardCreate = Schemas['RewardsCreateRequestBody'];
type RewardUpdate = Schemas['RewardsUpdateRequestBody'];
type Parameters = Schemas['RewardParameters'];
type RewardType = Reward['type'];
type Redemption = Schemas['LoyaltyRewardRedemption'];

const PART_OF = { CAMPAIGN: 'campaign', COIN: 'coin', MATERIAL: 'product' } as const;
const REWARDABLE = ['DISCOUNT_COUPONS', 'GIFT_VOUCHERS', 'LOYALTY_PROGRAM'] as const;

function rewardError(details: string) {
  return invalid('invalid_reward', 'Invalid reward', details);
}

/** The type the request names, else the one its single parameters part implies. */
function rewardType(input: { type?: RewardType; parameters: Parameters }): RewardType {
  if (input.type) return input.type;
  const parts = (Object.keys(input.parameters) as (keyof Parameters)[]).filter((part) => input.parameters[part] !== undefined);
  if (parts.length !== 1) throw rewardError('parameters needs exactly one of campaign, coin or product');
  return ({ campaign: 'CAMPAIGN', coin: 'COIN', product: 'MATERIAL' } as const)[parts[0]!];
}

/** A ratio sent as a number or a numeric string, as a number. */
function ratio(value: number | string | undefined, fallback: number): number {
  return value === undefined ? fallback : Number(value);
}

/** Checks the parameters against the type and the catalog; returns them as stored. */
async function resolveParameters(ctx: DomainContext, type: Reward['type'], parameters: Parameters): Promise<StoredRewardParameters> {
  const own = PART_OF[type];
  const foreign = (Object.keys(parameters) as (keyof Parameters)[]).find((part) => part !== own);
  if (foreign) throw rewardError(`A ${type} reward cannot have parameters.${foreign}`);
  if (type === 'CAMPAIGN') {
    if (!parameters.campaign?.id) throw rewardError('A CAMPAIGN reward needs parameters.campaign.id');
    const campaign = await findCampaign(ctx, parameters.campaign.id);
    const campaignType = campaign.campaign_type;
    if (!(REWARDABLE as readonly string[]).includes(campaignType)) throw rewardError(`A ${campaignType} campaign cannot be a reward`);
    const balance = parameters.campaign.balance ?? null;
    if (campaignType === 'DISCOUNT_COUPONS' && balance !== null) throw rewardError('A discount campaign reward has no balance');
    if (campaignType !== 'DISCOUNT_COUPONS' && balance === null) throw rewardError(`A ${campaignType} reward needs parameters.campaign.balance`);
    return { campaign: { id: campaign.id, balance, type: campaignType as (typeof REWARDABLE)[number] } };
  }
  if (type === 'COIN') {
    if (parameters.coin?.exchange_ratio === undefined) throw rewardError('A COIN reward needs parameters.coin.exchange_ratio');
    const coin = { exchange_ratio: ratio(parameters.coin.exchange_ratio, 0), points_ratio: ratio(parameters.coin.points_ratio, 1) };
    if (!(coin.exchange_ratio > 0) || !Number.isInteger(coin.points_ratio) || coin.points_ratio < 1) throw rewardError('parameters.coin needs a positive exchange_ratio and a whole points_ratio of 1 or more');
    return { coin };
  }
  if (!parameters.product?.id) throw rewardError('A MATERIAL reward needs parameters.product.id');
  const product = await ctx.uow.products.get(parameters.product.id);
  if (!product) throw notFound('product', parameters.product.id);
  const skuId = parameters.product.sku_id ?? null;
  if (skuId !== null) {
    const sku = await ctx.uow.skus.get(skuId);
    if (!sku || sku.product_id !== product.id) throw notFound('sku', skuId);
  }
  return { product: { id: product.id, sku_id: skuId } };
}

export async function findReward(ctx: DomainContext, id: string): Promise<Reward> {
  const reward = await ctx.uow.rewards.get(id);
  if (!reward) throw notFound('reward', id);
  return reward;
}

/** A name for a reward created without one: what it gives. */
async function defaultName(ctx: DomainContext, parameters: StoredRewardParameters): Promise<string> {
  if (parameters.campaign) return (await ctx.uow.campaigns.get(parameters.campaign.id))?.name ?? parameters.campaign.id;
  if (parameters.product) return (await ctx.uow.products.get(parameters.product.id))?.name ?? parameters.product.id;
  return 'Pay with points';
}

export async function createReward(ctx: DomainContext, input: RewardCreate): Promise<Reward> {
  const type = rewardType(input);
  if (type !== 'MATERIAL' && input.stock !== undefined && input.stock !== null) throw rewardError('Only MATERIAL rewards have stock');
  const parameters = await resolveParameters(ctx, type, input.parameters);
  return ctx.uow.rewards.insert({
    id: newId('rew'),
    name: input.name ?? (await defaultName(ctx, parameters)),
    type,
    parameters,
    stock: input.stock ?? null,
    redeemed: 0,
    attributes: { image_url: input.attributes?.image_url ?? null, description: input.attributes?.description ?? null },
    metadata: input.metadata ?? {},
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'reward',
  });
}

export async function updateReward(ctx: DomainContext, id: string, input: RewardUpdate): Promise<Reward> {
  const reward = await findReward(ctx, id);
  if (reward.type !== 'MATERIAL' && input.stock !== undefined && input.stock !== null) throw rewardError('Only MATERIAL rewards have stock');
  return ctx.uow.rewards.update({
    ...FRESH,
    ...reward,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.parameters !== undefined && { parameters: await resolveParameters(ctx, reward.type, input.parameters) }),
    ...(input.stock !== undefined && { stock: input.stock }),
    ...(input.attributes !== undefined && { attributes: { ...FRESH, ...reward.attributes, ...input.attributes } }),
    ...(input.metadata !== undefined && { metadata: input.metadata }),
    updated_at: isoNow(ctx.clock),
  });
}

export async function deleteReward(ctx: DomainContext, id: string): Promise<void> {
  const reward = await findReward(ctx, id);
  for (const assignment of await ctx.uow.reward_assignments.findBy('reward_id', reward.id)) await ctx.uow.reward_assignments.delete(assignment.id);
  await ctx.uow.rewards.delete(reward.id);
}

export async function listRewards(ctx: DomainContext, query: PageRequest & { assignment_id?: string }) {
  let only: string | undefined;
  if (query.assignment_id !== undefined) {
    const assignment = await ctx.uow.reward_assignments.get(query.assignment_id);
    if (!assignment) return { rows: [], total: 0 };
    only = assignment.reward_id;
  }
  return ctx.uow.rewards.query({ ...FRESH, ...(only !== undefined && { where: eq('id', only) }), ...pageWindow(query) });
}

export async function findAssignment(ctx: DomainContext, rewardId: string, assignmentId: string): Promise<RewardAssignment> {
  const reward = await findReward(ctx, rewardId);
  const assignment = await ctx.uow.reward_assignments.get(assignmentId);
  if (!assignment || assignment.reward_id !== reward.id) throw notFound('reward_assignment', assignmentId);
  return assignment;
}

export async function createAssignment(ctx: DomainContext, rewardId: string, input: Schemas['RewardAssignmentsCreateRequestBody']): Promise<RewardAssignment> {
  const reward = await findReward(ctx, rewardId);
  const campaign = await findCampaign(ctx, input.campaign);
  const referral = campaign.campaign_type === 'REFERRAL_PROGRAM';
  if (campaign.campaign_type !== 'LOYALTY_PROGRAM' && !referral) {
    throw invalid('invalid_reward_assignment', 'Invalid reward assignment', `Campaign ${campaign.name} is neither a loyalty program nor a referral program`);
  }
  // A referral program gives its rewards to referrers for free; a COIN reward pays orders with points, which a referrer has none of there.
  if (referral && reward.type === 'COIN') throw invalid('invalid_reward_assignment', 'Invalid reward assignment', 'A COIN reward pays with loyalty points; a referral program cannot give it');
  if (reward.type === 'COIN') {
    // A COIN reward's price is its exchange ratio, and the public API lets it carry one validation rule at most.
    if (input.parameters?.loyalty !== undefined) throw invalid('invalid_reward_assignment', 'Invalid reward assignment', 'A COIN reward pays with points at its exchange ratio: it takes no parameters.loyalty');
    if ((input.validation_rules?.length ?? 0) > 1) throw invalid('invalid_reward_assignment', 'Invalid reward assignment', `A COIN reward assignment takes one validation rule at most; ${input.validation_rules!.length} were given`);
  }
  const points = input.parameters?.loyalty?.points;
  if (points === undefined && reward.type !== 'COIN' && !referral) throw invalid('invalid_reward_assignment', 'Missing required parameter', `A ${reward.type} reward in a loyalty program needs parameters.loyalty.points, its cost`);
  const offered = await ctx.uow.reward_assignments.findBy('reward_id', reward.id);
  if (offered.some((assignment) => assignment.related_object_id === campaign.id)) throw duplicate('reward_assignment', 'campaign', campaign.id);
  return ctx.uow.reward_assignments.insert({
    id: newId('rewa'),
    reward_id: reward.id,
    related_object_id: campaign.id,
    related_object_type: 'campaign',
    parameters: { loyalty: { points: points ?? 0, ...(input.parameters?.loyalty?.auto_redeem !== undefined && { auto_redeem: input.parameters.loyalty.auto_redeem }) } },
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'reward_assignment',
  });
}

export async function updateAssignment(ctx: DomainContext, rewardId: string, assignmentId: string, input: Schemas['RewardAssignmentsUpdateRequestBody']) {
  const assignment = await findAssignment(ctx, rewardId, assignmentId);
  const loyalty = input.parameters?.loyalty;
  return ctx.uow.reward_assignments.update({
    ...FRESH,
    ...assignment,
    parameters: {
      loyalty: {
        ...FRESH,
        ...assignment.parameters.loyalty,
        ...(loyalty?.points !== undefined && { points: loyalty.points }),
        ...(loyalty?.auto_redeem !== undefined && { auto_redeem: loyalty.auto_redeem }),
      },
    },
    updated_at: isoNow(ctx.clock),
  });
}

export async function deleteAssignment(ctx: DomainContext, rewardId: string, assignmentId: string): Promise<void> {
  const assignment = await findAssignment(ctx, rewardId, assignmentId);
  await ctx.uow.reward_assignments.delete(assignment.id);
}

export async function listAssignments(ctx: DomainContext, rewardId: string, query: PageRequest) {
  const reward = await findReward(ctx, rewardId);
  return ctx.uow.reward_assignments.query({ index: { field: 'reward_id', value: reward.id }, ...pageWindow(query) });
}

/** The assignments of one loyalty program (the deprecated per-program lists), optionally only one of them. */
export async function listProgramAssignments(ctx: DomainContext, campaignRef: string, query: PageRequest & { assignment_id?: string }) {
  const program = await findProgram(ctx, campaignRef);
  return ctx.uow.reward_assignments.query({
    index: { field: 'related_object_id', value: program.id },
    ...(query.assignment_id !== undefined && { where: eq('id', query.assignment_id) }),
    ...pageWindow(query),
  });
}

/** An assignment of the program in the path (the deprecated per-program operations); another program's is 404. */
export async function findProgramAssignment(ctx: DomainContext, campaignRef: string, assignmentId: string): Promise<RewardAssignment> {
  const program = await findProgram(ctx, campaignRef);
  const assignment = await ctx.uow.reward_assignments.get(assignmentId);
  if (!assignment || assignment.related_object_id !== program.id) throw notFound('reward_assignment', assignmentId);
  return findAssignment(ctx, assignment.reward_id, assignment.id);
}

/** Offers several rewards in one program, as `createAssignment` offers each; all or none (one unit of work). */
export async function createProgramAssignments(
  ctx: DomainContext,
  campaignRef: string,
  items: readonly { reward: string; parameters?: Schemas['RewardAssignmentParameters']; validation_rules?: string[] }[],
): Promise<RewardAssignment[]> {
  const program = await findProgram(ctx, campaignRef);
  const made: RewardAssignment[] = [];
  for (const item of items) {
    made.push(await createAssignment(ctx, item.reward, { campaign: program.id, ...(item.parameters && { parameters: item.parameters }), ...(item.validation_rules && { validation_rules: item.validation_rules }) }));
  }
  return made;
}

/**
 * The rewards the card's program offers, each at its cost in the member's current tier (what a redemption
 * charges); with `affordableOnly`, only those the card's balance pays for now.
 */
export async function memberRewards(ctx: DomainContext, card: VoucherRecord, affordableOnly: boolean) {
  const tier = card.campaign_id ? await currentTier(ctx, card.id) : undefined;
  const balance = card.loyalty_card?.balance ?? 0;
  const rows = [];
  for (const offered of card.campaign_id ? await ctx.uow.reward_assignments.findBy('related_object_id', card.campaign_id) : []) {
    const reward = await ctx.uow.rewards.get(offered.reward_id);
    if (!reward) continue;
    const assignment = inTier(offered, tier);
    // A COIN reward costs whole steps of its points ratio, so one step is what it takes to use it.
    const cost = reward.type === 'COIN' ? (reward.parameters.coin?.points_ratio ?? 1) : assignment.parameters.loyalty.points;
    if (affordableOnly && balance < cost) continue;
    rows.push({ reward, assignment, object: 'loyalty_reward' as const });
  }
  return rows;
}

/** The assignment with the cost a member of the tier pays. */
function inTier(assignment: RewardAssignment, tier: LoyaltyTier | undefined): RewardAssignment {
  const mapping = tier?.rewards?.[assignment.id];
  if (!mapping) return assignment;
  return { ...FRESH, ...assignment, parameters: { loyalty: { points: mapped(assignment.parameters.loyalty.points, mapping) } } };
}

export async function tierRewards(ctx: DomainContext, campaignRef: string, tierId: string) {
  const program = await findProgram(ctx, campaignRef);
  const tier = await findTier(ctx, program.id, tierId);
  const rows = [];
  for (const assignment of await ctx.uow.reward_assignments.findBy('related_object_id', program.id)) {
    const reward = await ctx.uow.rewards.get(assignment.reward_id);
    if (reward) rows.push({ reward, assignment: inTier(assignment, tier), object: 'loyalty_tier_reward' as const });
  }
  return rows;
}

function notEnoughPoints(card: VoucherRecord, cost: number) {
  return invalid('not_enough_points', 'Not enough points', `Card ${card.code} has ${card.loyalty_card?.balance ?? 0} points; the reward costs ${cost}`);
}

/** Gives the member a voucher of the reward's campaign, loaded with the reward's balance. */
async function issueCampaignReward(ctx: DomainContext, card: VoucherRecord, reward: Reward): Promise<VoucherRecord> {
  const target = reward.parameters.campaign!;
  return giveCampaignVoucher(ctx, card.holder_id!, target.id, target.balance ?? null, { reward: { id: reward.id, name: reward.name } });
}

/**
 * Gives a customer what a campaign reward is: `balance` points on their card of a loyalty program (joining
 * it first when they hold none), or a voucher of the campaign published to them, a gift card loaded with
 * `balance`. Loyalty reward redemptions and referral rewards give it alike.
 */
export async function giveCampaignVoucher(
  ctx: DomainContext,
  holder: string,
  campaignId: string,
  balance: number | null,
  details: PointsMove['details'] = {},
): Promise<VoucherRecord> {
  const campaign = await ctx.uow.campaigns.get(campaignId);
  if (!campaign) throw notFound('campaign', campaignId);
  if (campaign.campaign_type === 'LOYALTY_PROGRAM') {
    const held = (await ctx.uow.vouchers.findBy('holder_id', holder)).find((voucher) => voucher.campaign_id === campaign.id);
    const other = held ?? (await enroll(ctx, campaign, holder));
    return (await movePoints(ctx, other, { points: balance ?? 0, type: 'POINTS_ADDITION', operation: 'AUTOMATIC', details })).card;
  }
  const fresh = (await ctx.uow.vouchers.findBy('campaign_id', campaign.id)).find((voucher) => voucher.holder_id === null && voucher.active);
  let voucher = fresh ?? (await createVoucher(ctx, {}, campaign));
  if (campaign.campaign_type === 'GIFT_VOUCHERS' && voucher.gift) {
    const amount = balance ?? 0;
    voucher = { ...FRESH, ...voucher, gift: { ...FRESH, ...voucher.gift, amount, balance: amount } };
  }
  const now = isoNow(ctx.clock);
  const given = await ctx.uow.vouchers.update({ ...FRESH, ...voucher, holder_id: holder, publish_count: voucher.publish_count + 1, updated_at: now });
  await recordEvent(ctx, 'voucher.published', { campaign_id: campaign.id, customer_id: holder, voucher_id: given.id }, { voucher: { id: given.id, code: given.code }, customer: { id: holder } });
  return given;
}

/** The assignment a reward reference names in the card's program. */
async function offeredAssignment(ctx: DomainContext, card: VoucherRecord, ref: string): Promise<RewardAssignment> {
  const direct = await ctx.uow.reward_assignments.get(ref);
  const assignment =
    direct && direct.related_object_id === card.campaign_id
      ? direct
      : (await ctx.uow.reward_assignments.findBy('reward_id', ref)).find((candidate) => candidate.related_object_id === card.campaign_id);
  if (!assignment) throw notFound('reward', ref);
  return assignment;
}

/** The COIN reward a loyalty card pays an order with, by reward or assignment ID. */
export async function coinRewardFor(ctx: DomainContext, card: VoucherRecord, ref: string): Promise<Reward | undefined> {
  const assignment = await offeredAssignment(ctx, card, ref).catch(() => undefined);
  return assignment ? ctx.uow.rewards.get(assignment.reward_id) : undefined;
}

/** A reward redemption as the domain makes it: the vouchers still need their assets, which the HTTP layer adds. */
export type RedemptionDraft = Omit<Redemption, 'voucher' | 'reward'> & {
  reward: Omit<Redemption['reward'], 'voucher'>;
  /** The card after the redemption. */
  card: VoucherView;
  /** For a CAMPAIGN reward, the voucher the member received. */
  issued: VoucherView | null;
};

/** The member as a redemption embeds them. */
async function redemptionCustomer(ctx: DomainContext, customerId: string) {
  const customer = await ctx.uow.customers.get(customerId);
  if (!customer) return null;
  return { id: customer.id, name: customer.name, email: customer.email, source_id: customer.source_id, metadata: customer.metadata, object: 'customer' as const };
}

/** Spends the card's points on a reward of its program. Nothing changes when it is refused. */
export async function redeemReward(ctx: DomainContext, card: VoucherRecord, input: Schemas['LoyaltyRewardRedemptionRequestBody'], channelId: string): Promise<RedemptionDraft> {
  if (!input.reward?.id) throw invalid('invalid_payload', 'Invalid payload', 'Name the reward: reward.id, a reward ID or reward assignment ID');
  const requested = { id: input.reward.id, points: input.reward.points };
  if (!card.holder_id) throw invalid('loyalty_card_not_assigned', 'Loyalty card not assigned', `Card ${card.code} has no holder`);
  if (!card.active) throw invalid('voucher_disabled', 'Voucher is disabled', `Card ${card.code} is disabled`);
  await cardState(ctx, card);
  const tier = await currentTier(ctx, card.id);
  const assignment = inTier(await offeredAssignment(ctx, card, requested.id), tier);
  const reward = await findReward(ctx, assignment.reward_id);
  const balance = card.loyalty_card?.balance ?? 0;
  let cost = assignment.parameters.loyalty.points;
  let order: Redemption['order'] = null;
  let amount: number | null = null;
  let issued: VoucherRecord | undefined;
  /** Records the order the reward was redeemed with, `discount` taken off it, on the redemption. */
  const recordOrder = async (request: NonNullable<typeof input.order>, priced: Awaited<ReturnType<typeof priceItems>>, orderAmount: number, discount: number) => {
    const calculated = {
      amount: orderAmount,
      discount_amount: discount,
      gift_amount: 0,
      total_amount: orderAmount - discount,
      items: priced.map((item) => ({ ...FRESH, ...item, discount_amount: 0, subtotal_amount: item.amount, object: 'order_item' as const })),
      object: 'order' as const,
    };
    const saved = await orderForRedemption(ctx, request, calculated, card.holder_id);
    order = { ...FRESH, ...calculated, id: saved.id, source_id: saved.source_id };
  };
  if (reward.type === 'COIN') {
    const coin = reward.parameters.coin!;
    if (!input.order) throw invalid('missing_order', 'Missing order', 'A COIN reward pays an order: give `order`');
    const items = await priceItems(ctx, input.order);
    const orderAmount = input.order.amount ?? items.reduce((sum, item) => sum + item.amount, 0);
    const payment = coinPayment(coin, orderAmount, Math.min(balance, requested.points ?? balance));
    if (payment.points <= 0) throw notEnoughPoints(card, coin.points_ratio);
    cost = payment.points;
    amount = payment.amount;
    await recordOrder(input.order, items, orderAmount, amount);
  } else if (balance < cost) throw notEnoughPoints(card, cost);
  if (reward.type === 'MATERIAL') {
    if (reward.stock !== null && reward.stock <= 0) throw invalid('reward_out_of_stock', 'Reward out of stock', `Reward ${reward.name} has no stock left`);
  }
  // Any other reward redeemed with an order (the SDKs send one) records it as a redemption's order, undiscounted:
  // the reward is paid for with points, not off the order.
  if (reward.type !== 'COIN' && input.order) {
    const items = await priceItems(ctx, input.order);
    await recordOrder(input.order, items, input.order.amount ?? items.reduce((sum, item) => sum + item.amount, 0), 0);
  }
  const moved = cost > 0
    ? await movePoints(ctx, card, { points: -cost, type: 'POINTS_REDEMPTION', operation: 'MANUAL', details: { reward: { id: reward.id, name: reward.name } } })
    : { card };
  if (reward.type === 'CAMPAIGN') issued = await issueCampaignReward(ctx, moved.card, reward);
  const updatedReward = await ctx.uow.rewards.update({
    ...FRESH,
    ...reward,
    redeemed: (reward.redeemed ?? 0) + 1,
    ...(reward.type === 'MATERIAL' && reward.stock !== null && { stock: reward.stock - 1 }),
  });
  const after = (await ctx.uow.vouchers.get(card.id)) ?? moved.card;
  const customer = await redemptionCustomer(ctx, card.holder_id);
  const product = reward.parameters.product ? ((await ctx.uow.products.get(reward.parameters.product.id)) ?? null) : null;
  const sku = reward.parameters.product?.sku_id ? ((await ctx.uow.skus.get(reward.parameters.product.sku_id)) ?? null) : null;
  const issuedView = issued ? await presentVoucher(ctx, (await ctx.uow.vouchers.get(issued.id)) ?? issued) : null;
  const redemption: RedemptionDraft = {
    id: newId('r'),
    date: isoNow(ctx.clock),
    customer_id: card.holder_id,
    tracking_id: `track_${Buffer.from(card.holder_id).toString('base64url')}`,
    redemption: null,
    related_object_type: 'voucher',
    related_object_id: card.id,
    voucher_code: card.code,
    campaign_id: card.campaign_id!,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: { channel_id: channelId, channel_type: 'API' },
    metadata: input.metadata ?? {},
    order,
    customer,
    ...(amount !== null && { amount }),
    reward: {
      id: reward.id,
      name: reward.name,
      type: reward.type,
      object: 'reward',
      parameters: updatedReward.parameters,
      metadata: updatedReward.metadata,
      created_at: updatedReward.created_at,
      updated_at: updatedReward.updated_at,
      assignment_id: assignment.id,
      customer,
      loyalty_tier_id: tier?.id ?? null,
      product,
      sku,
      points: cost,
      amount,
    },
    loyalty_card: { points: cost, balance: after.loyalty_card?.balance ?? 0 },
    object: 'redemption',
    card: await presentVoucher(ctx, after),
    issued: issuedView,
  };
  const summary = {
    id: reward.id,
    name: reward.name,
    type: reward.type,
    assignment_id: assignment.id,
    points: cost,
    voucher: issued ? { id: issued.id, code: issued.code, type: issued.type, campaign_id: issued.campaign_id! } : null,
    product: reward.parameters.product ? { id: reward.parameters.product.id, sku_id: reward.parameters.product.sku_id ?? null } : null,
    amount,
  };
  await recordCardEvent(ctx, 'customer.reward_redemptions.created', after, { reward: summary, points: cost, balance: after.loyalty_card?.balance ?? 0 });
  await recordEvent(ctx, 'customer.rewarded', { campaign_id: card.campaign_id, customer_id: card.holder_id }, { reward: summary, customer: { id: card.holder_id } });
  return redemption;
}

/**
 * `@voucherify/sdk` (server-side), unmodified, against the target: loyalty programs, their members, earning
 * rules and tiers, and rewards with their assignments. Each request is typed with the SDK's own declarations
 * and filled in completely (`Complete<T>` makes every optional field, however deep, required, so a field the
 * SDK declares and the test leaves out fails to compile); each response is read through the type the SDK
 * declares for it. Methods that reach two operations (with and without the program in the path) are called
 * both ways.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import sdk from '@voucherify/sdk';
import type {
  EarningRule,
  LoyaltiesAddOrRemoveCardBalanceRequestBody,
  LoyaltiesAddOrRemoveCardBalanceResponseBody,
  LoyaltiesAddPoints,
  LoyaltiesAddPointsResponse,
  LoyaltiesCreateCampaign,
  LoyaltiesCreateCampaignResponse,
  LoyaltiesCreateEarningRule,
  LoyaltiesCreateMember,
  LoyaltiesCreateTiersRequestBody,
  LoyaltiesCreateTiersResponseBody,
  LoyaltiesDeleteCampaignParams,
  LoyaltiesDisableEarningRulesResponseBody,
  LoyaltiesEarningRulesResponse,
  LoyaltiesEnableEarningRulesResponseBody,
  LoyaltiesListCardTransactionsRequestQuery,
  LoyaltiesListCardTransactionsResponseBody,
  LoyaltiesListEarningRulesParams,
  LoyaltiesListEarningRulesResponse,
  LoyaltiesListLoyaltyTierEarningRulesRequestQuery,
  LoyaltiesListLoyaltyTierEarningRulesResponseBody,
  LoyaltiesListLoyaltyTierRewardsResponseBody,
  LoyaltiesListMemberActivityParams,
  LoyaltiesListMemberActivityResponse,
  LoyaltiesListMemberLoyaltyTiersResponseBody,
  LoyaltiesListMembersParams,
  LoyaltiesListMembersResponse,
  LoyaltiesListParams,
  LoyaltiesListResponse,
  LoyaltiesListTiersRequestQuery,
  LoyaltiesListTiersResponseBody,
  LoyaltiesRedeemRewardParams,
  LoyaltiesRedeemRewardResponse,
  LoyaltiesTransferPointsRequestBody,
  LoyaltiesTransferPointsResponseBody,
  LoyaltiesUpdateCampaign,
  LoyaltiesUpdateEarningRule,
  LoyaltiesVoucherResponse,
  LoyaltyTier,
  OrdersItem,
  RewardAssignment,
  RewardsCreate,
  RewardsCreateAssignmentCampaignOrMaterialRewardRequestBody,
  RewardsCreateAssignmentCoinRewardRequestBody,
  RewardsCreateResponse,
  RewardsListAssignmentsRequestQuery,
  RewardsListAssignmentsResponseBody,
  RewardsListParams,
  RewardsListResponse,
  RewardsUpdate,
  RewardsUpdateAssignmentRequestBody,
} from '@voucherify/sdk';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { dataMethods } from './sdk-data-methods.js';
import { PROGRAM_OPERATIONS } from './program-operations.js';
import { recording, voucherifySdkMethods } from './sdk-methods.js';
import { because, managementClientFor, skipPart, unique, useTarget } from './target.js';

/** Every field of a request type, however deep, made required (and never null). */
type Complete<T> = T extends (infer Item)[] ? Complete<Item>[] : T extends object ? { [Key in keyof T]-?: Complete<NonNullable<T[Key]>> } : T;

const { VoucherifyServerSide } = sdk;
const NAMESPACES = ['loyalties', 'rewards'];

const ctx = useTarget();
/** Product names and SKU names are unique in a project: this run's own, so the suite can run again on the same server. */
const RUN = unique('run');
const calls = new Set<string>();

function serverSide() {
  const { appId, appToken } = ctx.target.credentials;
  return recording(VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl }), calls);
}

type Client = ReturnType<typeof serverSide>;

/** What a refused SDK call throws, as plain fields. */
async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const { code, key } = error as { code: number; key: string };
    return { code, key };
  }
  throw new Error('the call succeeded');
}

const HOUR = 3_600_000;
const iso = (offset: number) => new Date(Date.now() + offset).toISOString();

async function program(client: Client, extra: Partial<LoyaltiesCreateCampaign> = {}) {
  return client.loyalties.create({ name: unique('SDK club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } }, ...extra });
}

async function member(client: Client, campaignId: string, sourceId = unique('sdk-member')) {
  return client.loyalties.createMember(campaignId, { customer: { source_id: sourceId } });
}

/** The program's cards, held or not. */
async function cardsOf(campaignId: string) {
  const listed = await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaignId } } });
  expect(listed.response.status).toBe(200);
  return listed.data!.vouchers ?? [];
}

async function pay(sourceId: string, amount: number) {
  const order = await ctx.client.POST('/v1/orders', { body: { status: 'PAID', amount, customer: { source_id: sourceId } } });
  expect(order.response.status).toBe(200);
  return order.data!;
}

describe('the SDK: loyalty programs', () => {
  test('when a program is created with every field, read, listed, updated and deleted, then each step is kept', async () => {
    const client = serverSide();
    const body = {
      name: unique('SDK club'),
      start_date: iso(-HOUR),
      expiration_date: iso(365 * 24 * HOUR),
      type: 'STATIC',
      vouchers_count: 2,
      voucher: {
        type: 'LOYALTY_CARD',
        redemption: { quantity: 5 },
        // `balance` is the service's to keep: a new card's balance is its points.
        loyalty_card: { points: 100, balance: 1 },
        // The API spells the code's ending `postfix`; the SDK's `suffix` is not part of it and is ignored.
        code_config: { length: 12, charset: '0123456789', pattern: 'CLUB-####', prefix: 'SDK-', suffix: '-END' },
      },
      metadata: { region: 'EU' },
    } satisfies Complete<LoyaltiesCreateCampaign>;
    const created: LoyaltiesCreateCampaignResponse = await client.loyalties.create(body);
    expect(created).toMatchObject({
      name: body.name,
      campaign_type: 'LOYALTY_PROGRAM',
      type: 'STATIC',
      start_date: body.start_date,
      expiration_date: body.expiration_date,
      metadata: { region: 'EU' },
      active: true,
      object: 'campaign',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100 }, redemption: { quantity: 5 }, code_config: { charset: '0123456789', pattern: 'CLUB-####', prefix: 'SDK-' } },
    });
    expect(created.vouchers_count).toBe(2);

    // The generated cards have no holders yet, so they are vouchers of the program, not members.
    const cards = await cardsOf(created.id);
    expect(cards).toHaveLength(2);
    for (const card of cards) {
      expect(card.code).toMatch(/^SDK-CLUB-\d{4}$/);
      expect(card).toMatchObject({ type: 'LOYALTY_CARD', loyalty_card: { points: 100, balance: 100 }, redemption: { quantity: 5 } });
    }
    expect((await client.loyalties.listMembers(created.id)).total).toBe(0);

    expect(await client.loyalties.get(created.id)).toMatchObject({ id: created.id, name: body.name, vouchers_count: 2 });
    const listParams = { limit: 100, page: 1 } satisfies Complete<LoyaltiesListParams>;
    const listed: LoyaltiesListResponse = await client.loyalties.list(listParams);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'campaigns' });
    expect(listed.campaigns?.map((campaign) => campaign.id)).toContain(created.id);

    const update = {
      id: created.id,
      start_date: iso(-2 * HOUR),
      expiration_date: iso(730 * 24 * HOUR),
      metadata: { region: 'APAC' },
      description: 'Points for every coffee',
      type: 'AUTO_UPDATE',
    } satisfies Complete<LoyaltiesUpdateCampaign>;
    const updated: LoyaltiesCreateCampaignResponse = await client.loyalties.update(update);
    const { id: _id, ...changed } = update;
    expect(updated).toMatchObject({ id: created.id, ...changed });
    expect(await client.loyalties.get(created.id)).toMatchObject(changed);

    const force = { force: true } satisfies Complete<LoyaltiesDeleteCampaignParams>;
    await client.loyalties.delete(created.id, force);
    expect(await refusal(client.loyalties.get(created.id))).toEqual({ code: 404, key: 'not_found' });
    // Deleted for good, its name is free again.
    expect(await program(client, { name: body.name })).toMatchObject({ name: body.name });
  });
});

describe('the SDK: loyalty members', () => {
  test('when a customer joins with a generated card, then the card is theirs and both member addresses read it', async () => {
    const client = serverSide();
    const club = await program(client, { vouchers_count: 1, type: 'STATIC', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 25 } } });
    const [spare] = await cardsOf(club.id);
    expect(spare?.code).toEqual(expect.any(String));
    const sourceId = unique('sdk-joiner');
    const customer = await client.customers.create({ source_id: sourceId, name: 'Joiner' });
    const body = {
      voucher: spare!.code!,
      channel: 'SDK',
      // With `id`, the customer is that one; the other fields describe it as the API's members do.
      customer: { id: customer.object === 'customer' ? customer.id : '', name: 'Joiner', email: 'joiner@example.com', metadata: { via: 'sdk' }, description: 'Joined by SDK', source_id: sourceId },
      metadata: { joined: 'kiosk' },
    } satisfies Complete<LoyaltiesCreateMember>;
    const joined: LoyaltiesVoucherResponse = await client.loyalties.createMember(club.id, body);
    expect(joined).toMatchObject({ code: spare!.code!, campaign_id: club.id, type: 'LOYALTY_CARD', loyalty_card: { points: 25, balance: 25 }, holder_id: body.customer.id });

    const scoped: LoyaltiesVoucherResponse = await client.loyalties.getMember(club.id, joined.code);
    const anywhere: LoyaltiesVoucherResponse = await client.loyalties.getMember(null, joined.code);
    expect(scoped).toMatchObject({ id: joined.id, holder_id: body.customer.id, loyalty_card: { balance: 25 } });
    expect(anywhere).toEqual(scoped);
    // A card of another program is not a member of this one.
    const other = await program(client);
    expect(await refusal(client.loyalties.getMember(other.id, joined.code))).toMatchObject({ code: 404 });
  });

  test('when points are added and removed both ways, transferred and listed, then balances, transactions and activity agree', async () => {
    const client = serverSide();
    const club = await program(client);
    const card = await member(client, club.id);
    const donor = await member(client, club.id);

    const add = {
      points: 50,
      expiration_date: iso(400 * 24 * HOUR),
      expiration_type: 'CUSTOM_DATE',
      reason: 'Welcome bonus',
      source_id: unique('sdk-add'),
    } satisfies Complete<LoyaltiesAddOrRemoveCardBalanceRequestBody>;
    const added: LoyaltiesAddOrRemoveCardBalanceResponseBody = await client.loyalties.addOrRemoveCardBalance(card.code, add, club.id);
    expect(added).toMatchObject({ points: 50, total: 50, balance: 50, object: 'balance', related_object: { type: 'voucher', id: card.id } });
    const removed = await client.loyalties.addOrRemoveCardBalance(card.code, { points: -20, reason: 'Correction' });
    // `total` is what the card has earned: taking points off lowers only the balance.
    expect(removed).toMatchObject({ points: -20, total: 50, balance: 30 });

    const extra = { points: 15 } satisfies Complete<LoyaltiesAddPoints>;
    const more: LoyaltiesAddPointsResponse = await client.loyalties.addPoints(club.id, card.code, extra);
    expect(more).toMatchObject({ points: 15, total: 65, balance: 45, object: 'balance' });

    await client.loyalties.addOrRemoveCardBalance(donor.code, { points: 40 });
    const transfer = [{ code: donor.code, points: 25, reason: 'Family pooling', source_id: unique('sdk-transfer') }] satisfies Complete<LoyaltiesTransferPointsRequestBody>;
    const pooled: LoyaltiesTransferPointsResponseBody = await client.loyalties.transferPoints(club.id, card.code, transfer);
    expect(pooled).toMatchObject({ code: card.code, campaign_id: club.id, type: 'LOYALTY_CARD', loyalty_card: { balance: 70 } });
    expect((await client.loyalties.getMember(null, donor.code)).loyalty_card).toMatchObject({ balance: 15 });

    const all: LoyaltiesListCardTransactionsResponseBody = await client.loyalties.listCardTransactions(card.code, null, { order: 'id' });
    expect(all.data.map((entry) => entry.type)).toEqual(['POINTS_ADDITION', 'POINTS_REMOVAL', 'POINTS_ADDITION', 'POINTS_TRANSFER_IN']);
    expect(all.data[0]).toMatchObject({ reason: 'Welcome bonus', source_id: add.source_id, details: { balance: { points: 50, balance: 50 } } });
    expect(all.data[3]).toMatchObject({ reason: 'Family pooling', source_id: transfer[0]!.source_id });
    // `page` is deprecated in the SDK's own type; the API pages these by cursor, so it is ignored.
    const query = { limit: 2, starting_after_id: all.data[0]!.id, order: 'id', page: 1 } satisfies Complete<LoyaltiesListCardTransactionsRequestQuery>;
    const page: LoyaltiesListCardTransactionsResponseBody = await client.loyalties.listCardTransactions(card.code, club.id, query);
    expect(page).toMatchObject({ object: 'list', data_ref: 'data', has_more: true });
    expect(page.data.map((entry) => entry.id)).toEqual([all.data[1]!.id, all.data[2]!.id]);

    const firstActivity = await client.loyalties.listMemberActivity(null, card.code, { order: 'created_at' });
    expect(firstActivity.data.length).toBeGreaterThanOrEqual(2);
    const activityQuery = { order: 'created_at', starting_after_id: firstActivity.data[0]!.id, limit: 1 } satisfies Complete<LoyaltiesListMemberActivityParams>;
    const activity: LoyaltiesListMemberActivityResponse = await client.loyalties.listMemberActivity(club.id, card.code, activityQuery);
    expect(activity).toMatchObject({ object: 'list', data_ref: 'data', has_more: true });
    expect(activity.data.map((entry) => entry.id)).toEqual([firstActivity.data[1]!.id]);

    const membersQuery = {
      limit: 10,
      page: 1,
      created_at: { before: iso(HOUR), after: iso(-HOUR) },
      // Only cards changed in this window: both cards have been.
      updated_at: { before: iso(HOUR), after: iso(-HOUR) },
    } satisfies Complete<LoyaltiesListMembersParams>;
    const members: LoyaltiesListMembersResponse = await client.loyalties.listMembers(club.id, membersQuery);
    expect(members.vouchers.map((voucher) => voucher.code).sort()).toEqual([card.code, donor.code].sort());
    const none = await client.loyalties.listMembers(club.id, { created_at: { before: iso(-HOUR) } });
    expect(none.vouchers).toEqual([]);
  });
});

describe('the SDK: earning rules and tiers', () => {
  test('when rules for orders, a custom event and a segment are created, changed, switched off and on, then paid orders earn by them', async () => {
    const client = serverSide();
    const club = await program(client);
    const bigOrders = await client.validationRules.create({ name: unique('Orders of 50+'), rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [5000] } } } });

    // One rule cannot carry every field (each event takes its own), so the fields are split by event and
    // each part is checked against the SDK's type without the fields another event owns.
    const byOrder = {
      event: 'order.paid',
      validation_rule_id: bigOrders.id,
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 3 } } },
      source: { banner: '3 points per 10.00' },
    } satisfies Complete<Omit<LoyaltiesCreateEarningRule, 'custom_event' | 'segment'>>;
    const bySegment = {
      event: 'customer.segment.entered',
      loyalty: { type: 'FIXED', points: 5 },
      segment: { id: 'seg_sdk_newcomers' },
    } satisfies Complete<Pick<LoyaltiesCreateEarningRule, 'event' | 'loyalty' | 'segment'>>;
    const rules: LoyaltiesCreateEarningRule[] = [byOrder, bySegment];

    let eventName: string | undefined;
    if (ctx.target.management && ctx.target.projectId) {
      eventName = unique('sdk-reviewed');
      const schema = await managementClientFor(ctx.target).POST('/management/v1/projects/{projectId}/custom-event-schemas', {
        params: { path: { projectId: ctx.target.projectId } },
        body: { name: eventName, schema: { properties: {} } },
      });
      const byEvent = {
        event: eventName,
        loyalty: { type: 'FIXED', points: 4 },
        custom_event: { schema_id: schema.data!.id },
      } satisfies Complete<Pick<LoyaltiesCreateEarningRule, 'event' | 'loyalty' | 'custom_event'>>;
      rules.push(byEvent);
    } else skipPart(because('management', 'projectId'), ['create-earning-rule']);

    const created: LoyaltiesEarningRulesResponse[] = await client.loyalties.createEarningRule(club.id, rules);
    expect(created).toHaveLength(rules.length);
    const [orderRule, segmentRule, eventRule] = created;
    expect(orderRule).toMatchObject({ event: 'order.paid', validation_rule_id: bigOrders.id, loyalty: byOrder.loyalty, source: { banner: byOrder.source.banner, object_id: club.id }, object: 'earning_rule' });
    expect(segmentRule).toMatchObject({ event: 'customer.segment.entered', segment: { id: 'seg_sdk_newcomers' }, loyalty: { type: 'FIXED', points: 5 } });
    if (eventRule) expect(eventRule).toMatchObject({ event: eventName, loyalty: { type: 'FIXED', points: 4 } });

    const read: EarningRule = await client.loyalties.getEarningRule(club.id, orderRule!.id);
    expect(read).toMatchObject({ id: orderRule!.id, active: true, validation_rule_id: bigOrders.id, source: { object_type: 'campaign' } });
    const listQuery = { limit: 1, page: 2 } satisfies Complete<LoyaltiesListEarningRulesParams>;
    const listed: LoyaltiesListEarningRulesResponse = await client.loyalties.listEarningRules(club.id, listQuery);
    expect(listed).toMatchObject({ object: 'list', total: rules.length });
    expect(listed.data).toHaveLength(1);

    // The SDK's update sends `loyalty` as points alone: the API's loyalty type defaults to FIXED.
    const change = { id: segmentRule!.id, validation_rule_id: bigOrders.id, source: { banner: 'Welcome to the segment' }, loyalty: { points: 9 } } satisfies Complete<LoyaltiesUpdateEarningRule>;
    const changed: LoyaltiesEarningRulesResponse = await client.loyalties.updateEarningRule(club.id, change);
    expect(changed).toMatchObject({ id: segmentRule!.id, validation_rule_id: bigOrders.id, source: { banner: 'Welcome to the segment' }, loyalty: { type: 'FIXED', points: 9 } });
    expect(await client.loyalties.getEarningRule(club.id, segmentRule!.id)).toMatchObject({ loyalty: { type: 'FIXED', points: 9 } });

    const sourceId = unique('sdk-earner');
    const card = await member(client, club.id, sourceId);
    const disabled: LoyaltiesDisableEarningRulesResponseBody = await client.loyalties.disableEarningRule(club.id, orderRule!.id);
    expect(disabled).toMatchObject({ id: orderRule!.id, active: false });
    await pay(sourceId, 6000);
    expect((await client.loyalties.getMember(club.id, card.code)).loyalty_card.balance).toBe(0);
    const enabled: LoyaltiesEnableEarningRulesResponseBody = await client.loyalties.enableEarningRule(club.id, orderRule!.id);
    expect(enabled).toMatchObject({ id: orderRule!.id, active: true });
    // 3 points per whole 10.00 of 65.00. (The rule's validation rule is kept, not checked: a documented
    // limit of the reference server.)
    await pay(sourceId, 6500);
    expect((await client.loyalties.getMember(club.id, card.code)).loyalty_card.balance).toBe(18);

    await client.loyalties.deleteEarningRule(club.id, segmentRule!.id);
    expect(await refusal(client.loyalties.getEarningRule(club.id, segmentRule!.id))).toEqual({ code: 404, key: 'not_found' });
  });

  test('when tiers are created with their mappings, then they list, read, map earning rules and rewards, and hold the member by points', async () => {
    const client = serverSide();
    const club = await program(client);
    const [rule] = await client.loyalties.createEarningRule(club.id, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 10 } }]);
    const product = await client.products.create({ name: unique('Tote'), source_id: unique('sdk-tote') });
    const reward = await client.rewards.create({ name: 'Tote bag', type: 'MATERIAL', parameters: { product: { id: product.id } } });
    const assignment = await client.rewards.createAssignment(reward.id, { campaign: club.id, parameters: { loyalty: { points: 40 } } });

    const body = [
      {
        name: 'Bronze',
        earning_rules: { [rule!.id]: { type: 'CUSTOM', points: 12 } },
        rewards: { [assignment.id]: { type: 'CUSTOM', points: 35 } },
        points: { from: 0, to: 99 },
        metadata: { colour: 'brown' },
      },
      {
        name: 'Silver',
        earning_rules: { [rule!.id]: { type: 'MULTIPLY', multiplier: 2 } },
        rewards: { [assignment.id]: { type: 'MULTIPLY', multiplier: 0.5 } },
        points: { from: 100, to: 999 },
        metadata: { colour: 'grey' },
      },
    ] satisfies Complete<LoyaltiesCreateTiersRequestBody>;
    const tiers: LoyaltiesCreateTiersResponseBody = await client.loyalties.createTiers(club.id, body);
    expect(tiers.map((tier) => tier.name)).toEqual(['Bronze', 'Silver']);
    const [bronze, silver] = tiers;
    expect(silver).toMatchObject({ campaign_id: club.id, points: { from: 100, to: 999 }, config: { points: { from: 100, to: 999 } }, metadata: { colour: 'grey' }, object: 'loyalty_tier' });

    const query = { limit: 1, page: 2, order: 'created_at' } satisfies Complete<LoyaltiesListTiersRequestQuery>;
    const listed: LoyaltiesListTiersResponseBody = await client.loyalties.listTiers(club.id, query);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data', total: 2 });
    expect(listed.data.map((tier) => tier.id)).toEqual([silver!.id]);
    const one: LoyaltyTier = await client.loyalties.getTier(club.id, bronze!.id);
    expect(one).toMatchObject({ id: bronze!.id, name: 'Bronze', earning_rules: body[0]!.earning_rules, rewards: body[0]!.rewards });

    const rulesQuery = { limit: 10, page: 1 } satisfies Complete<LoyaltiesListLoyaltyTierEarningRulesRequestQuery>;
    const tierRules: LoyaltiesListLoyaltyTierEarningRulesResponseBody = await client.loyalties.listLoyaltyTierEarningRules(club.id, silver!.id, rulesQuery);
    expect(tierRules).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(tierRules.data[0]).toMatchObject({ id: rule!.id, loyalty: { type: 'FIXED', points: 20 } });
    const tierRewards: LoyaltiesListLoyaltyTierRewardsResponseBody = await client.loyalties.listLoyaltyTierRewards(club.id, bronze!.id);
    expect(tierRewards).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(tierRewards.data[0]).toMatchObject({ reward: { id: reward.id, name: 'Tote bag' }, assignment: { id: assignment.id }, object: 'loyalty_tier_reward' });
    expect((tierRewards.data[0]!.assignment as { parameters?: { loyalty: { points?: number } } }).parameters?.loyalty.points).toBe(35);

    const sourceId = unique('sdk-tiered');
    const card = await member(client, club.id, sourceId);
    await client.loyalties.addOrRemoveCardBalance(card.code, { points: 150 });
    const held: LoyaltiesListMemberLoyaltyTiersResponseBody = await client.loyalties.listMemberLoyaltyTiers(card.code);
    expect(held).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(held.data.map((tier) => tier.id)).toEqual([silver!.id]);
    // In Silver, a paid order earns the rule's 10 points twice over.
    await pay(sourceId, 1000);
    expect((await client.loyalties.getMember(club.id, card.code)).loyalty_card.balance).toBe(170);
  });
});

describe('the SDK: rewards', () => {
  test('when a reward of each kind is created, read, listed, updated and deleted, then each step is kept', async () => {
    const client = serverSide();
    const gifts = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('SDK gift cards'), campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } } })).data!;
    const product = await client.products.create({ name: unique('Grinder'), source_id: unique('sdk-grinder') });
    const sku = await client.products.createSku(product.id, { sku: `Grinder, steel ${RUN}` });

    const attributes = { image_url: 'https://images.example.com/reward.png', description: 'For loyal members' };
    // Only a material reward keeps stock: the others give without running out.
    const campaignReward = {
      name: 'Ten off a gift card',
      attributes,
      type: 'CAMPAIGN',
      parameters: { campaign: { id: gifts.id!, balance: 1000 } },
    } satisfies Complete<Omit<RewardsCreate, 'stock'>> & RewardsCreate;
    const coinReward = {
      name: 'Pay with points',
      attributes,
      type: 'COIN',
      parameters: { coin: { exchange_ratio: 0.5 } },
    } satisfies Complete<Omit<RewardsCreate, 'stock'>> & RewardsCreate;
    // The API names a material reward's SKU `sku_id`; the SDK's `sku` is not part of it and is ignored.
    const materialReward = {
      name: 'Grinder',
      stock: 3,
      attributes,
      type: 'MATERIAL',
      parameters: { product: { id: product.id, sku: sku.id } },
    } satisfies Complete<RewardsCreate>;

    const campaign: RewardsCreateResponse = await client.rewards.create(campaignReward);
    expect(campaign).toMatchObject({ name: campaignReward.name, type: 'CAMPAIGN', parameters: { campaign: { id: gifts.id, balance: 1000, type: 'GIFT_VOUCHERS' } }, attributes, object: 'reward' });
    const coin: RewardsCreateResponse = await client.rewards.create(coinReward);
    expect(coin).toMatchObject({ type: 'COIN', parameters: { coin: { exchange_ratio: 0.5 } } });
    const material: RewardsCreateResponse = await client.rewards.create(materialReward);
    expect(material).toMatchObject({ type: 'MATERIAL', stock: 3, redeemed: 0, parameters: { product: { id: product.id } } });

    expect(await client.rewards.get(material.id)).toMatchObject({ id: material.id, name: 'Grinder', stock: 3 });
    const listQuery = { page: 1, limit: 100 } satisfies Complete<RewardsListParams>;
    const listed: RewardsListResponse = await client.rewards.list(listQuery);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data' });
    expect(listed.data.map((reward) => reward.id)).toEqual(expect.arrayContaining([campaign.id, coin.id, material.id]));

    const update = {
      id: material.id,
      name: `Grinder, steel ${RUN}`,
      stock: 5,
      attributes: { image_url: 'https://images.example.com/grinder.png', description: 'Hand grinder' },
      parameters: { product: { id: product.id, sku: sku.id } },
    } satisfies Complete<RewardsUpdate>;
    const updated: RewardsCreateResponse = await client.rewards.update(update);
    expect(updated).toMatchObject({ id: material.id, name: `Grinder, steel ${RUN}`, stock: 5, attributes: update.attributes });
    expect(await client.rewards.get(material.id)).toMatchObject({ name: `Grinder, steel ${RUN}`, stock: 5 });

    await client.rewards.delete(coin.id);
    expect(await refusal(client.rewards.get(coin.id))).toEqual({ code: 404, key: 'not_found' });
  });

  test('when a reward is offered in programs, repriced and redeemed with an order, then the card pays its points and the stock counts it', async () => {
    const client = serverSide();
    const club = await program(client);
    const other = await program(client);
    const product = await client.products.create({ name: unique('Scarf'), source_id: unique('sdk-scarf'), price: 2500 });
    const reward = await client.rewards.create({ name: 'Scarf', stock: 2, type: 'MATERIAL', parameters: { product: { id: product.id } } });
    const coin = await client.rewards.create({ name: 'Points as money', type: 'COIN', parameters: { coin: { exchange_ratio: 1 } } });
    const rule = await client.validationRules.create({ name: unique('Any order'), rules: { '1': { name: 'order.amount', conditions: { $more_than: [0] } } } });

    const offer = { campaign: club.id, parameters: { loyalty: { points: 60 } } } satisfies Complete<RewardsCreateAssignmentCampaignOrMaterialRewardRequestBody>;
    const offered: RewardAssignment = await client.rewards.createAssignment(reward.id, offer);
    expect(offered).toMatchObject({ reward_id: reward.id, related_object_id: club.id, related_object_type: 'campaign', parameters: { loyalty: { points: 60 } } });
    await client.rewards.createAssignment(reward.id, { campaign: other.id, parameters: { loyalty: { points: 80 } } });
    // The API accepts validation rules for a coin reward's assignment; the reference server does not apply them.
    const coinOffer = { campaign: club.id, validation_rules: [rule.id] } satisfies Complete<RewardsCreateAssignmentCoinRewardRequestBody>;
    expect(await client.rewards.createAssignment(coin.id, coinOffer)).toMatchObject({ reward_id: coin.id, related_object_id: club.id });

    const query = { limit: 1, page: 2 } satisfies Complete<RewardsListAssignmentsRequestQuery>;
    const page: RewardsListAssignmentsResponseBody = await client.rewards.listAssignments(reward.id, query);
    expect(page).toMatchObject({ object: 'list', data_ref: 'data', total: 2 });
    expect(page.data).toHaveLength(1);
    const reprice = { id: offered.id, parameters: { loyalty: { points: 45 } } } satisfies Complete<RewardsUpdateAssignmentRequestBody>;
    const repriced: RewardAssignment = await client.rewards.updateAssignment(reward.id, reprice);
    expect(repriced).toMatchObject({ id: offered.id, parameters: { loyalty: { points: 45 } } });
    expect(await client.rewards.getAssignment(reward.id, offered.id)).toMatchObject({ id: offered.id, parameters: { loyalty: { points: 45 } } });

    const sourceId = unique('sdk-redeemer');
    const card = await member(client, club.id, sourceId);
    await client.loyalties.addOrRemoveCardBalance(card.code, { points: 100 });
    const sku = await client.products.createSku(product.id, { sku: `Scarf, red ${RUN}`, source_id: unique('sdk-scarf-red'), price: 2500 });
    const order = (await ctx.client.POST('/v1/orders', { body: { source_id: unique('sdk-order'), amount: 2500, customer: { source_id: sourceId } } })).data!;
    const item = {
      sku_id: sku.id,
      product_id: product.id,
      related_object: 'sku',
      source_id: product.source_id!,
      discount_quantity: 0,
      initial_quantity: 1,
      quantity: 1,
      price: 2500,
      amount: 2500,
      discount_amount: 0,
      initial_amount: 2500,
      applied_discount_amount: 0,
      subtotal_amount: 2500,
      product: { id: product.id, source_id: product.source_id!, override: false, name: 'Scarf', metadata: { wool: true }, price: 2500 },
      sku: { id: sku.id, source_id: sku.source_id!, override: false, sku: `Scarf, red ${RUN}`, price: 2500 },
      object: 'order_item',
      metadata: { gift_wrap: true },
    } satisfies Complete<OrdersItem>;
    const redeem = {
      reward: { id: reward.id },
      order: { id: order.id!, source_id: order.source_id!, amount: 2500, items: [item], metadata: { till: 3 } },
      metadata: { channel: 'store' },
    } satisfies Complete<LoyaltiesRedeemRewardParams>;
    const redeemed: LoyaltiesRedeemRewardResponse = await client.loyalties.redeemReward(club.id, card.code, redeem);
    expect(redeemed).toMatchObject({ object: 'redemption', result: 'SUCCESS', reward: { id: reward.id, type: 'MATERIAL', assignment_id: offered.id }, voucher: { code: card.code } });
    // The order is recorded on the redemption as sent; points paid for the reward, not the order.
    expect(redeemed.order).toMatchObject({ id: order.id, source_id: order.source_id, amount: 2500, total_amount: 2500 });
    expect((await client.loyalties.getMember(club.id, card.code)).loyalty_card.balance).toBe(55);
    // Stock is what is left to give.
    expect(await client.rewards.get(reward.id)).toMatchObject({ stock: 1, redeemed: 1 });

    // A coin reward pays an order, lines and all, with the points left: 1 point takes 0.01 off.
    const paid = await client.loyalties.redeemReward(club.id, card.code, { reward: { id: coin.id }, order: { amount: 1000, items: [{ sku_id: sku.id, quantity: 1, price: 1000, amount: 1000 }] } });
    expect(paid.order).toMatchObject({ amount: 1000, discount_amount: 55, total_amount: 945, items: [{ sku_id: sku.id, quantity: 1, amount: 1000, object: 'order_item' }] });
    expect((await client.loyalties.getMember(null, card.code)).loyalty_card.balance).toBe(0);

    await client.rewards.deleteAssignment(reward.id, offered.id);
    expect(await refusal(client.rewards.getAssignment(reward.id, offered.id))).toEqual({ code: 404, key: 'not_found' });
    expect(await refusal(client.loyalties.redeemReward(club.id, card.code, { reward: { id: reward.id } }))).toMatchObject({ code: 404 });
  });
});

describe('the SDK: coverage', () => {
  test('every method of loyalties and rewards that reaches the contract was called', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
    const expected = voucherifySdkMethods(contract)
      // Methods reaching the bin, template, referral and deprecated loyalty/customer families are sdk-programs.test.ts's.
      .filter((method) => method.operationId && NAMESPACES.includes(method.name.split('.')[0]!) && !PROGRAM_OPERATIONS.has(method.operationId))
      .map((method) => method.name);
    const called = [...calls].filter((name) => NAMESPACES.includes(name.split('.')[0]!));
    // Imports, bulk jobs and transaction exports are called in sdk-data.test.ts.
    const elsewhere = dataMethods('@voucherify/sdk');
    expect([...new Set(expected)].filter((name) => !called.includes(name) && !elsewhere.includes(name)).sort()).toEqual([]);
  });
});

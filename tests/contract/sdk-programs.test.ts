/**
 * `@voucherify/sdk` (server-side), unmodified, against the target: the methods that reach the operations of
 * the bin, campaign templates, referral holders, permanent customer deletion, the deprecated customer
 * activities and the deprecated loyalty reward assignment, member reward and points expiration operations.
 * Each request is typed with the SDK's own declarations and filled in completely (`Complete<T>`); each
 * response is read through the type the SDK declares for it.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import sdk from '@voucherify/sdk';
import type {
  CustomerActivitiesListQueryParams,
  CustomerActivitiesListResponse,
  CustomersDeletePermanentlyResponseBody,
  LoyaltiesCreateRewardAssignmentResponse,
  LoyaltiesCreateRewardAssignments,
  LoyaltiesGetPointsExpirationRequestQuery,
  LoyaltiesGetPointsExpirationResponseBody,
  LoyaltiesGetRewardDetailsResponseBody,
  LoyaltiesListMemberRewardsRequestQuery,
  LoyaltiesListMemberRewardsResponseBody,
  LoyaltiesListRewardAssignmentsParams,
  LoyaltiesListRewardAssignmentsResponse,
  LoyaltiesUpdateRewardAssignment,
  RewardAssignment,
} from '@voucherify/sdk';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { PROGRAM_OPERATIONS } from './program-operations.js';
import { recording, voucherifySdkMethods } from './sdk-methods.js';
import { known } from './known.js';
import { unique, useTarget } from './target.js';

/** Every field of a request type, however deep, made required (and never null). */
type Complete<T> = T extends (infer Item)[] ? Complete<Item>[] : T extends object ? { [Key in keyof T]-?: Complete<NonNullable<T[Key]>> } : T;

const { VoucherifyServerSide } = sdk;

const ctx = useTarget();
const calls = new Set<string>();

function serverSide() {
  const { appId, appToken } = ctx.target.credentials;
  return recording(VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl }), calls);
}

type Client = ReturnType<typeof serverSide>;

async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const { code, key } = error as { code: number; key: string };
    return { code, key };
  }
  throw new Error('the call succeeded');
}

async function program(client: Client) {
  return client.loyalties.create({ name: unique('SDK legacy club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
}

async function mug(client: Client) {
  const product = await client.products.create({ name: unique('SDK legacy mug') });
  return client.rewards.create({ name: unique('SDK mug reward'), type: 'MATERIAL', stock: 5, parameters: { product: { id: product.id } } });
}

describe('the SDK: customers', () => {
  test('when a customer\'s activities are listed with every parameter and the customer is deleted permanently, then the list and the record are what the engine holds', async () => {
    const client = serverSide();
    const made = known((await ctx.client.POST('/v1/customers', { body: { source_id: unique('sdk-forgotten'), name: 'Forgotten', email: 'forgotten@example.com' } })).data, 'id');
    await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: made.id } }, body: { name: 'Forgotten again' } });
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('SDK activities'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 1 },
      })
    ).data!;
    const [code] = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaign.id } } })).data!.vouchers!;
    await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code!.code! }], customer: { id: made.id }, order: { amount: 1000 } } });

    const everything: CustomerActivitiesListResponse = await client.customers.listActivities(made.id, { limit: 10 });
    expect(everything).toMatchObject({ object: 'list', data_ref: 'data', total: 4 });
    expect(everything.data.map((entry) => entry.type).sort()).toEqual(['customer.created', 'customer.order.paid', 'customer.redemption.succeeded', 'customer.updated']);
    const redemption = everything.data.find((entry) => entry.type === 'customer.redemption.succeeded')!;
    const params = {
      limit: 5,
      order: 'created_at',
      starting_after: '2000-01-01T00:00:00.000Z',
      starting_after_id: redemption.id,
      campaign_type: 'DISCOUNT_COUPONS',
      campaign_id: campaign.id!,
    } satisfies Complete<CustomerActivitiesListQueryParams>;
    // Within the campaign only the redemption is listed: after it, nothing; without the cursor, it alone.
    const afterIt: CustomerActivitiesListResponse = await client.customers.listActivities(made.id, params);
    expect(afterIt).toMatchObject({ total: 1, data: [] });
    const { starting_after_id: _cursor, ...uncursored } = params;
    const inCampaign: CustomerActivitiesListResponse = await client.customers.listActivities(made.id, uncursored);
    expect(inCampaign.data.map((entry) => entry.id)).toEqual([redemption.id]);
    const created = everything.data.find((entry) => entry.type === 'customer.created')!;
    expect(await refusal(client.customers.listActivities(made.id, { ...params, starting_after_id: created.id }))).toEqual({ code: 400, key: 'invalid_query_params' });

    const deleted: CustomersDeletePermanentlyResponseBody = await client.customers.deletePermanently(made.id);
    expect(deleted).toEqual({
      id: expect.stringMatching(/^del_/),
      created_at: expect.any(String),
      related_object_id: made.id,
      related_object: 'customer',
      status: 'DONE',
      data_json: { events: expect.any(Number), customer_events: 4, daily_events: 0, segments: 0, orders: 1, order_events: 1, customer: 1 },
      object: 'pernament_deletion',
    });
    expect(await refusal(client.customers.get(made.id))).toEqual({ code: 404, key: 'not_found' });
    expect(await refusal(client.customers.deletePermanently(made.id))).toEqual({ code: 404, key: 'not_found' });
  });
});

describe('the SDK: loyalty reward assignments, member rewards and points expiration', () => {
  test('when rewards are assigned, listed, read, updated and deleted through the program, then the rewards API sees the same assignments', async () => {
    const client = serverSide();
    const club = await program(client);
    const reward = await mug(client);
    const body = [{ reward: reward.id, parameters: { loyalty: { points: 120 } } }] satisfies Complete<LoyaltiesCreateRewardAssignments>[];
    // The SDK declares a list back; the public API answers with the (first) assignment made, as the contract says.
    const created = (await client.loyalties.createRewardAssignments(club.id, body)) as unknown as LoyaltiesCreateRewardAssignmentResponse;
    expect(created).toMatchObject({ id: expect.stringMatching(/^rewa_/), reward_id: reward.id, related_object_id: club.id, parameters: { loyalty: { points: 120 } }, object: 'reward_assignment' });
    expect(await client.rewards.getAssignment(reward.id, created.id)).toMatchObject({ id: created.id, parameters: { loyalty: { points: 120 } } });

    const query = { limit: 10, page: 1 } satisfies Complete<LoyaltiesListRewardAssignmentsParams>;
    const listed: LoyaltiesListRewardAssignmentsResponse = await client.loyalties.listRewardAssignments(club.id, query);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(listed.data.map((assignment) => assignment.id)).toEqual([created.id]);

    const read: RewardAssignment = await client.loyalties.getRewardAssignment(club.id, created.id);
    expect(read).toMatchObject({ id: created.id, reward_id: reward.id, related_object_type: 'campaign' });
    const details: LoyaltiesGetRewardDetailsResponseBody = await client.loyalties.getRewardDetails(club.id, created.id);
    expect(details).toMatchObject({ id: reward.id, name: reward.name, type: 'MATERIAL', object: 'reward' });

    const change = { id: created.id, parameters: { loyalty: { points: 90 } } } satisfies Complete<LoyaltiesUpdateRewardAssignment>;
    const updated: LoyaltiesCreateRewardAssignmentResponse = await client.loyalties.updateRewardAssignment(club.id, change);
    expect(updated).toMatchObject({ id: created.id, parameters: { loyalty: { points: 90 } }, updated_at: expect.any(String) });
    expect(await client.rewards.getAssignment(reward.id, created.id)).toMatchObject({ parameters: { loyalty: { points: 90 } } });

    await client.loyalties.deleteRewardAssignment(club.id, created.id);
    expect(await refusal(client.rewards.getAssignment(reward.id, created.id))).toEqual({ code: 404, key: 'not_found' });
    expect((await client.loyalties.listRewardAssignments(club.id)).total).toBe(0);
  });

  test('when a member lists rewards and points by expiry with every parameter, then they follow the card\'s balance and buckets', async () => {
    const client = serverSide();
    const club = await program(client);
    const reward = await mug(client);
    await client.loyalties.createRewardAssignments(club.id, [{ reward: reward.id, parameters: { loyalty: { points: 200 } } }]);
    const member = await client.loyalties.createMember(club.id, { customer: { source_id: unique('sdk-legacy-member') } });
    await client.loyalties.addOrRemoveCardBalance(member.code, { points: 150, expiration_type: 'CUSTOM_DATE', expiration_date: '2041-03-31T00:00:00.000Z' });

    // `limit` and `page` are the SDK's; the public API documents only `affordable_only` here, so they are ignored.
    const rewardsQuery = { affordable_only: true, limit: 10, page: 1 } satisfies Complete<LoyaltiesListMemberRewardsRequestQuery>;
    const none: LoyaltiesListMemberRewardsResponseBody = await client.loyalties.listMemberRewards(member.code, rewardsQuery);
    expect(none).toMatchObject({ object: 'list', data_ref: 'data', data: [], total: 0 });
    await client.loyalties.addOrRemoveCardBalance(member.code, { points: 60 });
    const affordable: LoyaltiesListMemberRewardsResponseBody = await client.loyalties.listMemberRewards(member.code, rewardsQuery);
    // The SDK types an assignment as a COIN one (no parameters) or a campaign/material one (with its cost).
    const cost = (assignment: RewardAssignment) => ('parameters' in assignment ? assignment.parameters.loyalty.points : undefined);
    expect(affordable.data.map((entry) => [entry.reward.id, cost(entry.assignment), entry.object])).toEqual([[reward.id, 200, 'loyalty_reward']]);

    const bucketsQuery = { limit: 10, page: 1 } satisfies Complete<LoyaltiesGetPointsExpirationRequestQuery>;
    const buckets: LoyaltiesGetPointsExpirationResponseBody = await client.loyalties.getPointsExpiration(club.id, member.code, bucketsQuery);
    expect(buckets).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(buckets.data).toEqual([
      {
        id: expect.stringMatching(/^lopb_/),
        voucher_id: member.id,
        campaign_id: club.id,
        bucket: { total_points: 150 },
        status: 'ACTIVE',
        expires_at: '2041-03-31',
        created_at: expect.any(String),
        object: 'loyalty_points_bucket',
      },
    ]);
  });

  test('every method that reaches the operations of this file\'s families was called', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
    const expected = voucherifySdkMethods(contract)
      .filter((method) => method.operationId && PROGRAM_OPERATIONS.has(method.operationId))
      .map((method) => method.name);
    expect(expected.length).toBeGreaterThan(0);
    expect([...new Set(expected)].filter((name) => !calls.has(name)).sort()).toEqual([]);
  });
});

/**
 * The deprecated loyalty operations: per-program reward assignments, a member's rewards, a card's points by
 * expiry and a points estimate. Each must agree with the current operations, which read the same engine.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { known } from './known.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function program() {
  const created = await ctx.client.POST('/v1/loyalties', { body: { name: unique('Legacy club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
  expect(created.response.status).toBe(200);
  return known(created.data, 'id', 'name');
}

async function member(campaignId: string, sourceId = unique('legacy-member')) {
  const card = await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId } }, body: { customer: { source_id: sourceId } } });
  expect(card.response.status).toBe(200);
  return known(card.data, 'id', 'code', 'holder_id');
}

async function addPoints(code: string, body: { points: number; expiration_type?: 'CUSTOM_DATE' | 'NON_EXPIRING'; expiration_date?: string }) {
  const result = await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: code } }, body });
  expect(result.response.status).toBe(200);
}

async function materialReward(name = unique('Legacy mug')) {
  const product = (await ctx.client.POST('/v1/products', { body: { name: unique('Legacy product') } })).data!;
  return (await ctx.client.POST('/v1/rewards', { body: { name, type: 'MATERIAL', stock: 10, parameters: { product: { id: product.id! } } } })).data!;
}

describe('reward assignments under /v1/loyalties (deprecated)', () => {
  test('when rewards are assigned, read, updated and deleted through the program, then the current reward assignment operations see the same assignments', async () => {
    const club = await program();
    const [mug, cap] = [await materialReward(), await materialReward()];
    const created = await ctx.client.POST('/v1/loyalties/{campaignId}/rewards', {
      params: { path: { campaignId: club.name } },
      body: [
        { reward: mug.id, parameters: { loyalty: { points: 100 } } },
        { reward: cap.id, parameters: { loyalty: { points: 250 } } },
      ],
    });
    expect(created.response.status).toBe(200);
    const first = created.data!;
    expect(first).toEqual({
      id: expect.stringMatching(/^rewa_/),
      reward_id: mug.id,
      related_object_id: club.id,
      related_object_type: 'campaign',
      parameters: { loyalty: { points: 100 } },
      created_at: expect.any(String),
      updated_at: null,
      object: 'reward_assignment',
    });
    const viaReward = await ctx.client.GET('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: cap.id } } });
    const second = viaReward.data!.data[0]!;
    expect(second).toMatchObject({ reward_id: cap.id, related_object_id: club.id, parameters: { loyalty: { points: 250 } } });

    const listed = await ctx.client.GET('/v1/loyalties/{campaignId}/rewards', { params: { path: { campaignId: club.id } } });
    expect(listed.data).toEqual({ object: 'list', data_ref: 'data', data: [first, second], total: 2 });
    const paged = await ctx.client.GET('/v1/loyalties/{campaignId}/rewards', { params: { path: { campaignId: club.id }, query: { limit: 1, page: 2 } } });
    expect(paged.data).toMatchObject({ data: [second], total: 2 });
    const one = await ctx.client.GET('/v1/loyalties/{campaignId}/rewards', { params: { path: { campaignId: club.id }, query: { assignment_id: second.id } } });
    expect(one.data).toMatchObject({ data: [second], total: 1 });
    const older = await ctx.client.GET('/v1/loyalties/{campaignId}/reward-assignments', { params: { path: { campaignId: club.id }, query: { assignmentId: first.id } } });
    expect(older.data).toEqual({ object: 'list', data_ref: 'data', data: [first], total: 1 });

    const path = { campaignId: club.id, assignmentId: first.id };
    expect((await ctx.client.GET('/v1/loyalties/{campaignId}/rewards/{assignmentId}', { params: { path } })).data).toEqual(first);
    expect((await ctx.client.GET('/v1/loyalties/{campaignId}/reward-assignments/{assignmentId}', { params: { path } })).data).toEqual(first);
    const details = await ctx.client.GET('/v1/loyalties/{campaignId}/reward-assignments/{assignmentId}/reward', { params: { path } });
    expect(details.data).toEqual((await ctx.client.GET('/v1/rewards/{rewardId}', { params: { path: { rewardId: mug.id } } })).data);

    const updated = await ctx.client.PUT('/v1/loyalties/{campaignId}/rewards/{assignmentId}', { params: { path }, body: { parameters: { loyalty: { points: 80, auto_redeem: true } } } });
    expect(updated.data).toEqual({ ...first, parameters: { loyalty: { points: 80, auto_redeem: true } }, updated_at: expect.any(String) });
    expect((await ctx.client.GET('/v1/rewards/{rewardId}/assignments/{assignmentId}', { params: { path: { rewardId: mug.id, assignmentId: first.id } } })).data).toEqual(updated.data);

    expect((await ctx.client.DELETE('/v1/loyalties/{campaignId}/rewards/{assignmentId}', { params: { path } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/rewards/{rewardId}/assignments/{assignmentId}', { params: { path: { rewardId: mug.id, assignmentId: first.id } } })), 404, 'not_found');
    expect((await ctx.client.GET('/v1/loyalties/{campaignId}/rewards', { params: { path: { campaignId: club.id } } })).data?.total).toBe(1);
  });

  test('when an assignment is refused (a duplicate, no points, an unknown reward) or named through another program, then 4xx and nothing is assigned', async () => {
    const club = await program();
    const other = await program();
    const mug = await materialReward();
    const post = (body: unknown, campaignId = club.id) => raw(ctx.target, 'POST', `/v1/loyalties/${campaignId}/rewards`, { body: JSON.stringify(body) });
    expectError(await post([{ reward: mug.id, parameters: { loyalty: { points: 10 } } }, { reward: mug.id, parameters: { loyalty: { points: 20 } } }]), 409, 'duplicate_found');
    expectError(await post([{ reward: mug.id }]), 400, 'invalid_reward_assignment');
    expect(expectError(await post([{ reward: 'rew_nothere', parameters: { loyalty: { points: 1 } } }]), 404, 'not_found').resource_type).toBe('reward');
    expectError(await post([]), 400, 'invalid_payload');
    expectError(await post({ reward: mug.id }), 400, 'invalid_payload');
    expect((await ctx.client.GET('/v1/loyalties/{campaignId}/rewards', { params: { path: { campaignId: club.id } } })).data?.total).toBe(0);
    expectError(await post([{ reward: mug.id, parameters: { loyalty: { points: 5 } } }], 'camp_nothere'), 404, 'not_found');

    const made = (await ctx.client.POST('/v1/loyalties/{campaignId}/rewards', { params: { path: { campaignId: club.id } }, body: [{ reward: mug.id, parameters: { loyalty: { points: 5 } } }] })).data!;
    for (const path of [`/v1/loyalties/${other.id}/rewards/${made.id}`, `/v1/loyalties/${other.id}/reward-assignments/${made.id}`, `/v1/loyalties/${other.id}/reward-assignments/${made.id}/reward`]) {
      expectError(await raw(ctx.target, 'GET', path), 404, 'not_found');
    }
    expectError(await raw(ctx.target, 'PUT', `/v1/loyalties/${other.id}/rewards/${made.id}`, { body: '{"parameters":{"loyalty":{"points":1}}}' }), 404, 'not_found');
    expectError(await raw(ctx.target, 'DELETE', `/v1/loyalties/${other.id}/rewards/${made.id}`), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', `/v1/loyalties/${club.id}/rewards?limit=101`), 400, 'invalid_query_params');
  });
});

describe('a member\'s rewards and points (deprecated)', () => {
  test('when a member lists rewards, then each reward of the program comes with its cost, and affordable_only keeps those the balance pays for', async () => {
    const club = await program();
    const [cheap, dear] = [await materialReward(), await materialReward()];
    await ctx.client.POST('/v1/loyalties/{campaignId}/rewards', {
      params: { path: { campaignId: club.id } },
      body: [
        { reward: cheap.id, parameters: { loyalty: { points: 100 } } },
        { reward: dear.id, parameters: { loyalty: { points: 300 } } },
      ],
    });
    const holder = await member(club.id);
    await addPoints(holder.code, { points: 150 });
    const all = await ctx.client.GET('/v1/loyalties/members/{memberId}/rewards', { params: { path: { memberId: holder.code } } });
    expect(all.data).toMatchObject({ object: 'list', data_ref: 'data', total: 2 });
    expect(all.data!.data.map((entry) => [entry.reward?.id, entry.assignment?.parameters?.loyalty?.points, entry.object])).toEqual([
      [cheap.id, 100, 'loyalty_reward'],
      [dear.id, 300, 'loyalty_reward'],
    ]);
    const affordable = await ctx.client.GET('/v1/loyalties/members/{memberId}/rewards', { params: { path: { memberId: holder.code }, query: { affordable_only: true } } });
    expect(affordable.data!.data.map((entry) => entry.reward?.id)).toEqual([cheap.id]);
    // Redeeming the affordable one works for that cost, as the list says.
    const redeemed = await ctx.client.POST('/v1/loyalties/members/{memberId}/redemption', { params: { path: { memberId: holder.code } }, body: { reward: { id: cheap.id } } });
    expect(redeemed.data).toMatchObject({ loyalty_card: { points: 100, balance: 50 } });
    const none = await ctx.client.GET('/v1/loyalties/members/{memberId}/rewards', { params: { path: { memberId: holder.code }, query: { affordable_only: true } } });
    expect(none.data).toMatchObject({ data: [], total: 0 });
    expectError(await raw(ctx.target, 'GET', '/v1/loyalties/members/NO-SUCH-CARD/rewards'), 404, 'not_found');
  });

  test('when points are added with different expiry and spent, then the buckets list what will expire, soonest first, as the card says', async () => {
    const club = await program();
    const holder = await member(club.id);
    await addPoints(holder.code, { points: 100, expiration_type: 'CUSTOM_DATE', expiration_date: '2040-01-31T00:00:00Z' });
    await addPoints(holder.code, { points: 50, expiration_type: 'CUSTOM_DATE', expiration_date: '2039-06-30T00:00:00Z' });
    await addPoints(holder.code, { points: 20, expiration_type: 'NON_EXPIRING' });
    const path = { campaignId: club.id, memberId: holder.code };
    const listed = await ctx.client.GET('/v1/loyalties/{campaignId}/members/{memberId}/points-expiration', { params: { path } });
    const bucket = (expires: string, points: number) => ({
      id: expect.stringMatching(/^lopb_/),
      voucher_id: holder.id,
      campaign_id: club.id,
      bucket: { total_points: points },
      status: 'ACTIVE',
      expires_at: expires,
      created_at: expect.any(String),
      object: 'loyalty_points_bucket',
    });
    expect(listed.data).toEqual({ object: 'list', data_ref: 'data', data: [bucket('2039-06-30', 50), bucket('2040-01-31', 100)], total: 2 });

    // Spending takes the soonest bucket first.
    await addPoints(holder.code, { points: -60 });
    const after = await ctx.client.GET('/v1/loyalties/{campaignId}/members/{memberId}/points-expiration', { params: { path } });
    expect(after.data).toEqual({ object: 'list', data_ref: 'data', data: [{ ...bucket('2040-01-31', 90), id: listed.data!.data[1]!.id, updated_at: expect.any(String) }], total: 1 });
    const card = await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: holder.code } } });
    expect(card.data?.loyalty_card).toMatchObject({ balance: 110, next_expiration_date: '2040-01-31', next_expiration_points: 90 });
    const beyond = await ctx.client.GET('/v1/loyalties/{campaignId}/members/{memberId}/points-expiration', { params: { path, query: { limit: 1, page: 2 } } });
    expect(beyond.data).toMatchObject({ data: [], total: 1 });
    const other = await program();
    expectError(await raw(ctx.target, 'GET', `/v1/loyalties/${other.id}/members/${holder.code}/points-expiration`), 404, 'not_found');
  });
});

describe('estimate-points (deprecated)', () => {
  test('when points are estimated for an order, then nothing is stored, and paying that order gives the card exactly that many points', async () => {
    const club = await program();
    const rules = await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', {
      params: { path: { campaignId: club.id } },
      body: [
        { event: 'order.paid', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 1 } } }, source: { banner: 'A point per 10.00' } },
        { event: 'order.paid', loyalty: { type: 'FIXED', points: 10 }, source: { banner: 'Ten per order' } },
      ],
    });
    expect(rules.response.status).toBe(200);
    const sourceId = unique('estimating');
    const holder = await member(club.id, sourceId);
    const ordersBefore = (await ctx.client.GET('/v1/orders', { params: { query: { limit: 1 } } })).data!.total;
    const estimate = await ctx.client.POST('/v1/loyalties/{campaignId}/qualifications', {
      params: { path: { campaignId: club.name } },
      body: { customer: { source_id: sourceId }, order: { amount: 12_500, customer_id: null, referrer: { id: 'cust_ignored', object: 'customer' } } },
    });
    expect(estimate.data).toEqual({ campaign: { id: club.id, name: club.name, object: 'campaign' }, points_estimation: 22 });
    expect((await ctx.client.GET('/v1/orders', { params: { query: { limit: 1 } } })).data!.total).toBe(ordersBefore);
    expect((await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: holder.code } } })).data?.loyalty_card).toMatchObject({ balance: 0 });

    await ctx.client.POST('/v1/orders', { body: { status: 'PAID', amount: 12_500, customer: { source_id: sourceId } } });
    expect((await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: holder.code } } })).data?.loyalty_card).toMatchObject({ balance: 22 });

    // A customer the project does not know yet gets the estimate too.
    const stranger = await ctx.client.POST('/v1/loyalties/{campaignId}/qualifications', { params: { path: { campaignId: club.id } }, body: { customer: { source_id: unique('nobody') }, order: { amount: 999 } } });
    expect(stranger.data?.points_estimation).toBe(10);
  });

  test('when the program is unknown or not a loyalty program, or the body lacks the order or customer, then 4xx', async () => {
    const club = await program();
    const coupons = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Not loyalty'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } } })).data!;
    const post = (campaignId: string, body: unknown) => raw(ctx.target, 'POST', `/v1/loyalties/${campaignId}/qualifications`, { body: JSON.stringify(body) });
    expectError(await post('camp_nothere', { customer: { source_id: 'x' }, order: { amount: 1 } }), 404, 'not_found');
    expectError(await post(coupons.id!, { customer: { source_id: 'x' }, order: { amount: 1 } }), 404, 'not_found');
    expectError(await post(club.id, { customer: { source_id: 'x' } }), 400, 'invalid_payload');
    expectError(await post(club.id, { order: { amount: 1 } }), 400, 'invalid_payload');
    expectError(await post(club.id, { customer: { source_id: 'x' }, order: { amount: -1 } }), 400, 'invalid_payload');
  });
});

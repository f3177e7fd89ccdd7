/**
 * Referral codes' holders: the referrer a code is published to, and the referees added by hand or by
 * converting; conversions that follow the program's rule, and the rewards that follow a conversion.
 */
import { describe, expect, test } from '@jest/globals';
import type { components } from '../../generated/openapi.js';
import { expectError, failed } from './expect-error.js';
import { known } from './known.js';
import { clientFor, managementClientFor, raw, runsWith, unique, useTarget } from './target.js';
import { PayloadChecker, startReceiver } from './webhook-receiver.js';

const ctx = useTarget();
const withEvents = runsWith(test, ['management', 'projectId']);
const inProcess = runsWith(test, ['inProcess']);

type HolderPage = components['schemas']['ReferralsHoldersListResponseBody'];
type ReferralProgram = components['schemas']['ReferralProgram'];

async function customer(name: string) {
  const made = await ctx.client.POST('/v1/customers', { body: { source_id: unique(name), name } });
  return known(made.data, 'id', 'source_id');
}

async function giftCampaign() {
  const made = await ctx.client.POST('/v1/campaigns', {
    body: { name: unique('Referee gifts'), campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 100 } } },
  });
  return known(made.data, 'id', 'name');
}

/** A referral program with one code, published to a new referrer. */
async function program(referral: ReferralProgram) {
  const made = await ctx.client.POST('/v1/campaigns', {
    body: {
      name: unique('Referrals'),
      campaign_type: 'REFERRAL_PROGRAM',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 }, code_config: { pattern: 'REF-#####' } },
      referral_program: referral,
      vouchers_count: 1,
    },
  });
  const campaign = known(made.data, 'id', 'name');
  const referrer = await customer('Referrer');
  const published = await ctx.client.POST('/v1/publications', { body: { campaign: { name: campaign.name }, customer: { id: referrer.id } } });
  const code = published.data!.voucher!.code!;
  return { campaign, referrer, code };
}

async function holders(code: string, query = '', campaignId?: string): Promise<HolderPage> {
  const path = campaignId ? `/v1/referrals/${campaignId}/members/${code}/holders` : `/v1/referrals/members/${code}/holders`;
  const result = await raw(ctx.target, 'GET', `${path}${query ? `?${query}` : ''}`);
  expect(result.status).toBe(200);
  return result.body as HolderPage;
}

async function read(customerId: string) {
  return (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId } } })).data!;
}

async function heldIn(customerId: string, campaignId: string) {
  return (await ctx.client.GET('/v1/vouchers', { params: { query: { customer: customerId, campaign_id: campaignId } } })).data!.vouchers!;
}

async function redeem(code: string, customerId: string) {
  const result = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], customer: { id: customerId }, order: { amount: 5000 } } });
  expect(result.response.status).toBe(200);
}

describe('referral code holders', () => {
  test('when a referral code is published and referees are added, then the list holds the referrer and the referees, in ID order, filtered and paged', async () => {
    const { campaign, referrer, code } = await program({ conversion_event_type: 'redemption' });
    const known1 = await customer('Known referee');
    const source = unique('new-referee');
    const added = await ctx.client.POST('/v1/referrals/members/{memberId}/holders', {
      params: { path: { memberId: code } },
      body: { holders: [{ source_id: source, name: 'New referee', email: 'new@example.com' }, { id: known1.id }], metadata: { channel: 'store' } },
    });
    expect(added.response.status).toBe(200);
    const fresh = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: source } } })).data!;
    expect(fresh).toMatchObject({ name: 'New referee', email: 'new@example.com' });
    const voucherId = (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data!.id;
    const entry = (customerId: string, role: 'REFERRER' | 'REFEREE', metadata: Record<string, unknown>) => ({
      id: expect.stringMatching(/^rh_/),
      created_at: expect.any(String),
      redeemable_id: voucherId,
      redeemable_object: 'voucher',
      customer_id: customerId,
      holder_role: role,
      campaign_id: campaign.id,
      campaign_type: 'REFERRAL_PROGRAM',
      voucher_type: 'DISCOUNT_VOUCHER',
      metadata,
      object: 'redeemable_holder',
    });
    expect(added.data).toEqual({ holders: [entry(fresh.id!, 'REFEREE', { channel: 'store' }), entry(known1.id, 'REFEREE', { channel: 'store' })] });

    const all = await holders(code);
    expect(all.total).toBe(3);
    expect(all.data).toEqual(expect.arrayContaining([entry(referrer.id, 'REFERRER', {}), ...added.data!.holders]));
    expect(all.data.map((holder) => holder.id)).toEqual(all.data.map((holder) => holder.id).sort());
    // The typed client reaches the same list (without filters).
    const typed = await ctx.client.GET('/v1/referrals/{campaignId}/members/{memberId}/holders', { params: { path: { campaignId: campaign.name, memberId: code }, query: { order: '-id' } } });
    expect(typed.data?.data.map((holder) => holder.id)).toEqual(all.data.map((holder) => holder.id).reverse());

    const referees = await holders(code, 'filters[holder_role][conditions][$is]=REFEREE');
    expect(referees.data.map((holder) => holder.customer_id).sort()).toEqual([fresh.id, known1.id].sort());
    const first = await holders(code, 'limit=2');
    expect(first).toMatchObject({ total: 3, has_more: true, more_starting_after: first.data[1]!.id });
    const rest = await holders(code, `limit=2&starting_after_id=${first.more_starting_after}`);
    expect([...first.data, ...rest.data].map((holder) => holder.id)).toEqual(all.data.map((holder) => holder.id));
    expect(rest.has_more).toBe(false);
    const one = await holders(code, `filters[junction]=or&filters[customer_id][conditions][$is]=${referrer.id}&filters[id][conditions][$in][]=${added.data!.holders[0]!.id}`);
    expect(one.total).toBe(2);
  });

  test('when a holder is added twice, the referrer is added, a customer or code is unknown, or the body breaks a limit, then 4xx and nothing is added', async () => {
    const { campaign, referrer, code } = await program({ conversion_event_type: 'redemption' });
    const referee = await customer('Referee');
    const add = (body: Record<string, unknown>, path = `/v1/referrals/members/${code}/holders`) => raw(ctx.target, 'POST', path, { body: JSON.stringify(body) });
    expect((await add({ holders: [{ id: referee.id }] })).status).toBe(200);
    expectError(await add({ holders: [{ id: referee.id }] }), 409, 'duplicate_found');
    const other = await customer('Other');
    expectError(await add({ holders: [{ id: other.id }, { id: other.id }] }), 409, 'duplicate_found');
    expectError(await add({ holders: [{ id: other.id }, { id: referrer.id }] }), 400, 'invalid_holder');
    expect(expectError(await add({ holders: [{ id: 'cust_nothere' }] }), 404, 'not_found').resource_type).toBe('customer');
    expectError(await add({ holders: [] }), 400, 'invalid_payload');
    expectError(await add({}), 400, 'invalid_payload');
    expectError(await add({ holders: [{ name: 'x'.repeat(20) }], metadata: 'no' }), 400, 'invalid_payload');
    expect((await holders(code)).total).toBe(2);

    expect(expectError(await add({ holders: [{ id: other.id }] }, '/v1/referrals/members/NO-SUCH-CODE/holders'), 404, 'not_found').resource_type).toBe('referral_code');
    const plain = unique('PLAIN');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: plain } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    expectError(await add({ holders: [{ id: other.id }] }, `/v1/referrals/members/${plain}/holders`), 404, 'not_found');
    const elsewhere = await program({ conversion_event_type: 'redemption' });
    expectError(await add({ holders: [{ id: other.id }] }, `/v1/referrals/${elsewhere.campaign.id}/members/${code}/holders`), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', `/v1/referrals/${elsewhere.campaign.id}/members/${code}/holders`), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', `/v1/referrals/members/${code}/holders?filters[email][conditions][$is]=x`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/referrals/members/${code}/holders?limit=0`), 400, 'invalid_query_params');
    const scoped = await ctx.client.POST('/v1/referrals/{campaignId}/members/{memberId}/holders', {
      params: { path: { campaignId: campaign.id, memberId: code } },
      body: { holders: [{ id: other.id }] },
    });
    expect(scoped.data?.holders).toEqual([expect.objectContaining({ customer_id: other.id, holder_role: 'REFEREE', metadata: {} })]);
  });

  test('when a referee is removed, then the list no longer holds them; the referrer cannot be removed, and an unknown entry is 404', async () => {
    const { campaign, code } = await program({ conversion_event_type: 'redemption' });
    const [a, b] = [await customer('A'), await customer('B')];
    const added = (await ctx.client.POST('/v1/referrals/members/{memberId}/holders', { params: { path: { memberId: code } }, body: { holders: [{ id: a.id }, { id: b.id }] } })).data!.holders;
    const removed = await ctx.client.DELETE('/v1/referrals/members/{memberId}/holders/{holderId}', { params: { path: { memberId: code, holderId: added[0]!.id } } });
    expect(removed.response.status).toBe(204);
    const scoped = await ctx.client.DELETE('/v1/referrals/{campaignId}/members/{memberId}/holders/{holderId}', {
      params: { path: { campaignId: campaign.id, memberId: code, holderId: added[1]!.id } },
    });
    expect(scoped.response.status).toBe(204);
    const left = await holders(code);
    expect(left.data.map((holder) => holder.holder_role)).toEqual(['REFERRER']);
    expectError(failed(await ctx.client.DELETE('/v1/referrals/members/{memberId}/holders/{holderId}', { params: { path: { memberId: code, holderId: left.data[0]!.id } } })), 400, 'invalid_holder');
    expectError(failed(await ctx.client.DELETE('/v1/referrals/members/{memberId}/holders/{holderId}', { params: { path: { memberId: code, holderId: added[0]!.id } } })), 404, 'not_found');
    // A removed referee may be added again.
    expect((await ctx.client.POST('/v1/referrals/members/{memberId}/holders', { params: { path: { memberId: code } }, body: { holders: [{ id: a.id }] } })).response.status).toBe(200);
  });
});

describe('conversions and rewards', () => {
  test('when a referee redeems the code of a program converting on redemption, then the referral counts once, the referee gets the referee reward and the referrer every reward of the program', async () => {
    const gifts = await giftCampaign();
    const club = known(
      (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Referrer club'), campaign_type: 'LOYALTY_PROGRAM', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data,
      'id',
      'name',
    );
    const { campaign, referrer, code } = await program({
      conversion_event_type: 'redemption',
      referee_reward: { related_object_parent: { id: gifts.id }, type: 'GIFT_VOUCHER', amount: 1500 },
    });
    // Two rewards for the referrer: points in the club, and a mug from stock.
    const points = (await ctx.client.POST('/v1/rewards', { body: { name: unique('Club points'), type: 'CAMPAIGN', parameters: { campaign: { id: club.id, balance: 200 } } } })).data!;
    const product = (await ctx.client.POST('/v1/products', { body: { name: unique('Mug') } })).data!;
    const mug = (await ctx.client.POST('/v1/rewards', { body: { name: unique('Mug reward'), type: 'MATERIAL', stock: 5, parameters: { product: { id: product.id! } } } })).data!;
    for (const reward of [points, mug]) {
      const assigned = await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: reward.id } }, body: { campaign: campaign.id } });
      expect(assigned.response.status).toBe(200);
    }
    const referee = await customer('Redeeming referee');
    await ctx.client.POST('/v1/referrals/members/{memberId}/holders', { params: { path: { memberId: code } }, body: { holders: [{ id: referee.id }] } });

    await redeem(code, referee.id);
    const convertedReferee = await read(referee.id);
    expect(convertedReferee.referrals).toEqual({
      total: 1,
      campaigns: [{ campaign_id: campaign.id, referrer_id: referrer.id, related_object_id: expect.stringMatching(/^r_/), related_object_type: 'redemption', date: expect.any(String) }],
    });
    expect((await read(referrer.id)).loyalty).toMatchObject({ referred_customers: 1, campaigns: { [campaign.name]: { referred_customers: 1 } } });
    expect(await heldIn(referee.id, gifts.id)).toEqual([expect.objectContaining({ type: 'GIFT_VOUCHER', gift: expect.objectContaining({ amount: 1500, balance: 1500 }) })]);
    expect(await heldIn(referrer.id, club.id)).toEqual([expect.objectContaining({ type: 'LOYALTY_CARD', loyalty_card: expect.objectContaining({ balance: 200 }) })]);
    expect((await ctx.client.GET('/v1/rewards/{rewardId}', { params: { path: { rewardId: mug.id } } })).data).toMatchObject({ stock: 4, redeemed: 1 });
    const activity = await ctx.client.GET('/v1/customers/{customerId}/activity', { params: { path: { customerId: referrer.id }, query: { type: 'customer.rewarded' } } });
    expect(activity.data?.data).toHaveLength(2);

    // A second redemption by the same referee counts nothing more.
    await redeem(code, referee.id);
    expect((await read(referrer.id)).loyalty).toMatchObject({ referred_customers: 1 });
    expect((await ctx.client.GET('/v1/rewards/{rewardId}', { params: { path: { rewardId: mug.id } } })).data).toMatchObject({ stock: 4, redeemed: 1 });

    // A customer who was not a holder becomes one by converting; the referrer's own redemption counts nothing.
    const walkIn = await customer('Walk-in');
    await redeem(code, walkIn.id);
    expect((await holders(code, 'filters[holder_role][conditions][$is]=REFEREE')).data.map((holder) => holder.customer_id).sort()).toEqual([referee.id, walkIn.id].sort());
    await redeem(code, referrer.id);
    expect((await read(referrer.id)).loyalty).toMatchObject({ referred_customers: 2 });
    expect((await read(referrer.id)).referrals?.total).toBe(0);
  });

  test('when a reward is assigned to a referral program, then it needs no points; a COIN reward is refused', async () => {
    const { campaign } = await program({ conversion_event_type: 'redemption' });
    const coin = (await ctx.client.POST('/v1/rewards', { body: { name: unique('Coins'), type: 'COIN', parameters: { coin: { exchange_ratio: 1, points_ratio: 1 } } } })).data!;
    const refused = await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: coin.id } }, body: { campaign: campaign.id } });
    expectError(failed(refused), 400, 'invalid_reward_assignment');
  });

  withEvents('when a referee holder sends the custom event a program converts on, then the referral counts without naming the code, and the referee reward follows', async () => {
    const event = unique('joined');
    const schema = await managementClientFor(ctx.target).POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      params: { path: { projectId: ctx.target.projectId! } },
      body: { name: event, schema: { properties: {} } },
    });
    expect(schema.response.status).toBe(200);
    const club = known(
      (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Referee club'), campaign_type: 'LOYALTY_PROGRAM', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data,
      'id',
    );
    const { campaign, referrer, code } = await program({
      conversion_event_type: 'custom_event',
      custom_event: { name: event },
      referee_reward: { related_object_parent: { id: club.id }, type: 'LOYALTY_CARD', amount: 300 },
    });
    const referee = await customer('Event referee');
    await ctx.client.POST('/v1/referrals/{campaignId}/members/{memberId}/holders', { params: { path: { campaignId: campaign.id, memberId: code } }, body: { holders: [{ id: referee.id }] } });
    // Redeeming does not convert a program that converts on an event.
    await redeem(code, referee.id);
    expect((await read(referee.id)).referrals?.total).toBe(0);
    const tracked = await ctx.client.POST('/v1/events', { body: { event, customer: { id: referee.id } } });
    expect(tracked.response.status).toBe(200);
    expect((await read(referee.id)).referrals).toMatchObject({ total: 1, campaigns: [{ campaign_id: campaign.id, referrer_id: referrer.id, related_object_type: 'customer_event' }] });
    expect((await read(referrer.id)).loyalty).toMatchObject({ referred_customers: 1 });
    expect(await heldIn(referee.id, club.id)).toEqual([expect.objectContaining({ loyalty_card: expect.objectContaining({ balance: 300 }) })]);
    // Once per program.
    await ctx.client.POST('/v1/events', { body: { event, customer: { id: referee.id } } });
    expect((await read(referrer.id)).loyalty).toMatchObject({ referred_customers: 1 });
    expect(await heldIn(referee.id, club.id)).toEqual([expect.objectContaining({ loyalty_card: expect.objectContaining({ balance: 300 }) })]);
  });

  inProcess('when a referrer is rewarded, then customer.rewarded reaches a webhook with the referrer, the referral code, the program and the reward', async () => {
    const management = managementClientFor(ctx.target);
    const project = (await management.POST('/management/v1/projects', { body: { name: unique('Referral hooks') } })).data!;
    const client = clientFor(ctx.target, { appId: project.server_side_key!.app_id, appToken: project.server_side_key!.app_token });
    const sink = await startReceiver();
    try {
      await management.POST('/management/v1/projects/{projectId}/webhooks', { params: { path: { projectId: project.id! } }, body: { target_url: sink.url, events: ['customer.rewarded'] } });
      const made = (await client.POST('/v1/campaigns', {
        body: { name: 'Hooked referrals', campaign_type: 'REFERRAL_PROGRAM', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 1 },
      })).data!;
      const product = (await client.POST('/v1/products', { body: { name: 'Hooked mug' } })).data!;
      const mug = (await client.POST('/v1/rewards', { body: { name: 'Mug for referrers', type: 'MATERIAL', parameters: { product: { id: product.id! } } } })).data!;
      await client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: mug.id } }, body: { campaign: made.id! } });
      const referrer = (await client.POST('/v1/customers', { body: { source_id: 'hooked-referrer' } })).data!;
      const referee = (await client.POST('/v1/customers', { body: { source_id: 'hooked-referee' } })).data!;
      const code = (await client.POST('/v1/publications', { body: { campaign: { name: made.name! }, customer: { id: referrer.id! } } })).data!.voucher!.code!;
      await client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], customer: { id: referee.id! }, order: { amount: 1000 } } });
      await ctx.target.jobs!.idle();
      expect(sink.received.map((arrival) => arrival.body.type)).toEqual(['customer.rewarded']);
      const body = sink.received[0]!.body;
      expect(new PayloadChecker().violations(body)).toEqual([]);
      expect(body.data).toMatchObject({
        customer: { id: referrer.id },
        voucher: { code, is_referral_code: true },
        campaign: { id: made.id },
        reward: { id: mug.id, type: 'MATERIAL' },
        balance: { points: 0 },
      });
    } finally {
      await sink.close();
    }
  });
});

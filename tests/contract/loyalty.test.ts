import { afterEach, describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { known } from './known.js';
import { startLoyaltyTimer } from '../../server/loyalty-timer.js';
import { because, raw, skip, skipPart, unique, useTarget } from './target.js';

const ctx = useTarget();

afterEach(() => ctx.target.clock?.reset());

const DAY = 86_400_000;

async function program(extra: Record<string, unknown> = {}) {
  const created = await ctx.client.POST('/v1/loyalties', {
    body: { name: unique('Club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } }, ...extra },
  });
  expect(created.response.status).toBe(200);
  return known(created.data, 'id', 'name');
}

async function member(campaignId: string, sourceId = unique('member')) {
  const card = await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId } }, body: { customer: { source_id: sourceId } } });
  expect(card.response.status).toBe(200);
  return known(card.data, 'id', 'code', 'holder_id', 'loyalty_card');
}

async function card(code: string) {
  return (await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: code } } })).data!;
}

async function pay(sourceId: string, amount: number) {
  const order = await ctx.client.POST('/v1/orders', { body: { status: 'PAID', amount, customer: { source_id: sourceId } } });
  expect(order.response.status).toBe(200);
  return order.data!;
}

/**
 * A new program paying fixed points per paid order as pending entries, and one member of it with those orders
 * paid; the entries come in the order of their orders, not of their random IDs, so the scenario acts on the same
 * entry on every server (compare pairs the two runs of it).
 */
async function pendingMember(points: number, pending: { period_type: 'DAY' | 'MONTH'; period_value: number }, orders: number) {
  const club = await program();
  await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', {
    params: { path: { campaignId: club.id } },
    body: [{ event: 'order.paid', loyalty: { type: 'FIXED', points }, pending_points: pending }],
  });
  const sourceId = unique('member');
  const holder = await member(club.id, sourceId);
  const paid: string[] = [];
  for (let i = 0; i < orders; i++) paid.push((await pay(sourceId, 100)).id!);
  const entries = (await ctx.client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: holder.code } } })).data!.data;
  return { holder, entries: entries.sort((x, y) => paid.indexOf(x.order_id!) - paid.indexOf(y.order_id!)) };
}

describe('loyalty program end to end', () => {
  test('pending points from a paid order activate on their day, move the tier, and pay for a reward', async () => {
    const club = await program();
    expect(club).toMatchObject({ campaign_type: 'LOYALTY_PROGRAM', object: 'campaign' });
    const path = { campaignId: club.id };
    const [rule] = (
      await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', {
        params: { path },
        body: [
          {
            event: 'order.paid',
            loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 10 } } },
            source: { banner: '10 points for every 10.00' },
            pending_points: { period_type: 'DAY', period_value: 7 },
          },
        ],
      })
    ).data!;
    const tiers = (
      await ctx.client.POST('/v1/loyalties/{campaignId}/tiers', {
        params: { path },
        body: [
          { name: 'Silver', points: { from: 0, to: 99 } },
          { name: 'Gold', points: { from: 100, to: null } },
        ],
      })
    ).data!;
    const [silver, gold] = tiers;
    const product = (await ctx.client.POST('/v1/products', { body: { name: unique('Mug') } })).data!;
    const reward = (await ctx.client.POST('/v1/rewards', { body: { name: 'Club mug', type: 'MATERIAL', parameters: { product: { id: product.id } }, stock: 5 } })).data!;
    const assignment = (
      await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: reward.id } }, body: { campaign: club.id, parameters: { loyalty: { points: 50 } } } })
    ).data!;

    const sourceId = unique('member');
    const joined = await member(club.id, sourceId);
    expect(joined).toMatchObject({ type: 'LOYALTY_CARD', campaign_id: club.id, loyalty_card: { points: 0, balance: 0 } });
    const memberTiers = await ctx.client.GET('/v1/loyalties/members/{memberId}/tiers', { params: { path: { memberId: joined.code } } });
    expect(memberTiers.data?.data.map((tier) => tier.name)).toEqual(['Silver']);

    const order = await pay(sourceId, 12_000);
    const lists = await Promise.all([
      ctx.client.GET('/v1/loyalties/{campaignId}/pending-points', { params: { path } }),
      ctx.client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: joined.code } } }),
      ctx.client.GET('/v1/loyalties/{campaignId}/members/{memberId}/pending-points', { params: { path: { ...path, memberId: joined.code } } }),
    ]);
    const activates = new Date(Date.now() + 7 * DAY).toISOString().slice(0, 10);
    for (const list of lists) {
      expect(list.data).toMatchObject({ object: 'list', data_ref: 'data', has_more: false });
      expect(list.data?.data).toEqual([
        {
          id: expect.stringMatching(/^lopp_/),
          voucher_id: joined.id,
          campaign_id: club.id,
          customer_id: joined.holder_id,
          order_id: order.id,
          points: 120,
          activates_at: activates,
          created_at: expect.any(String),
          updated_at: null,
          details: {
            holder_loyalty_tier: { id: silver!.id, name: 'Silver' },
            event: {
              id: expect.any(String),
              type: 'customer.order.paid',
              group_id: expect.any(String),
              entity_id: joined.holder_id,
              created_at: expect.any(String),
              category: 'EFFECT',
              event_source: { channel: 'API', api_key: { name: expect.any(String), app_id: ctx.target.credentials.appId } },
            },
            earning_rule: { id: rule!.id, source: { banner: '10 points for every 10.00' } },
            order: { id: order.id, source_id: null },
          },
        },
      ]);
    }
    expect((await card(joined.code)).loyalty_card).toMatchObject({ points: 0, balance: 0 });

    if (!ctx.target.clock) return skipPart(because('inProcess')); // the rest moves the server's clock
    ctx.target.clock.travelTo(new Date(Date.now() + 8 * DAY));
    expect((await card(joined.code)).loyalty_card).toMatchObject({ points: 120, balance: 120 });
    for (const list of await Promise.all([
      ctx.client.GET('/v1/loyalties/{campaignId}/pending-points', { params: { path } }),
      ctx.client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: joined.code } } }),
    ])) {
      expect(list.data?.data).toEqual([]);
    }
    const activity = (await ctx.client.GET('/v1/loyalties/members/{memberId}/activity', { params: { path: { memberId: joined.code }, query: { limit: 100 } } })).data!;
    const types = activity.data.map((entry) => entry.type);
    expect(types).toEqual(
      expect.arrayContaining(['customer.order.paid', 'customer.loyalty.card.pending_points.added', 'customer.loyalty.card.pending_points.activated', 'customer.loyalty.tier.upgraded']),
    );
    const upgrade = activity.data.find((entry) => entry.type === 'customer.loyalty.tier.upgraded')!;
    expect(upgrade.data!.data).toMatchObject({ loyalty_tier_from: { id: silver!.id }, loyalty_tier_to: { id: gold!.id }, customer: { id: joined.holder_id }, campaign: { id: club.id } });
    expect(upgrade.data!.event_source).toEqual({ channel: 'AUTOMATION' });
    const paid = activity.data.find((entry) => entry.type === 'customer.order.paid')!;
    expect(paid.data!.data).toMatchObject({ customer: { id: joined.holder_id, object: 'customer' }, campaign: { id: club.id, object: 'campaign' }, order: { id: order.id } });
    expect(paid.data!.event_source).toEqual({ channel: 'API', api_key: { name: expect.any(String), app_id: ctx.target.credentials.appId } });

    // The campaign-scoped path lists the same entries; oldest first, a cursor walks them one by one.
    const scoped = (await ctx.client.GET('/v1/loyalties/{campaignId}/members/{memberId}/activity', { params: { path: { ...path, memberId: joined.code }, query: { limit: 100 } } })).data!;
    expect(scoped.data).toEqual(activity.data);
    const walked: string[] = [];
    for (let cursor: string | undefined, pages = 0; pages < 50; pages++) {
      const page = (
        await ctx.client.GET('/v1/loyalties/{campaignId}/members/{memberId}/activity', {
          params: { path: { ...path, memberId: joined.code }, query: { limit: 2, order: 'created_at', ...(cursor && { starting_after_id: cursor }) } },
        })
      ).data!;
      walked.push(...page.data.map((entry) => entry.id!));
      if (!page.has_more) break;
      cursor = page.more_starting_after!;
    }
    expect(walked).toEqual(activity.data.map((entry) => entry.id).reverse());
    expect(types.indexOf('customer.loyalty.tier.upgraded')).toBeLessThan(types.indexOf('customer.order.paid'));
    const nowTiers = await ctx.client.GET('/v1/loyalties/members/{memberId}/tiers', { params: { path: { memberId: joined.code } } });
    expect(nowTiers.data?.data).toEqual([expect.objectContaining({ id: gold!.id, expiration: expect.objectContaining({ tier_id: gold!.id }) })]);
    const goldRewards = await ctx.client.GET('/v1/loyalties/{campaignId}/tiers/{loyaltyTierId}/rewards', { params: { path: { ...path, loyaltyTierId: gold!.id } } });
    expect(goldRewards.data).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    const byName = await ctx.client.GET('/v1/loyalties/{campaignId}/tiers/{loyaltyTierId}/rewards', { params: { path: { campaignId: club.name, loyaltyTierId: gold!.id } } });
    expect(byName.data).toEqual(goldRewards.data);
    expect(goldRewards.data?.data[0]).toMatchObject({ reward: { id: reward.id }, assignment: { id: assignment.id, parameters: { loyalty: { points: 50 } } }, object: 'loyalty_tier_reward' });

    const redeemed = await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/redemption', {
      params: { path: { ...path, memberId: joined.code } },
      body: { reward: { id: reward.id } },
    });
    expect(redeemed.data).toMatchObject({ result: 'SUCCESS', reward: { id: reward.id, points: 50, product: { id: product.id } }, loyalty_card: { points: 50, balance: 70 } });
    expect((await card(joined.code)).loyalty_card).toMatchObject({ points: 120, balance: 70 });
    expect((await ctx.client.GET('/v1/rewards/{rewardId}', { params: { path: { rewardId: reward.id } } })).data).toMatchObject({ stock: 4, redeemed: 1 });
    const after = (await ctx.client.GET('/v1/loyalties/members/{memberId}/activity', { params: { path: { memberId: joined.code }, query: { limit: 3 } } })).data!;
    expect(after.data.map((entry) => entry.type)).toEqual(expect.arrayContaining(['customer.reward_redemptions.created', 'customer.loyalty.tier.downgraded']));
  // Many calls in a row (members, orders, days of settling): on a loaded machine it outlasts the default timeout.
  }, 90_000);

  test('cursor paging over more than 100 pending entries returns each exactly once, in order', async () => {
    const club = await program();
    await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', {
      params: { path: { campaignId: club.id } },
      body: [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 3 }, pending_points: { period_type: 'DAY', period_value: 30 } }],
    });
    const sourceId = unique('shopper');
    const joined = await member(club.id, sourceId);
    for (let i = 0; i < 105; i++) await pay(sourceId, 100);
    for (const order of ['id', '-id'] as const) {
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = (
          await ctx.client.GET('/v1/loyalties/members/{memberId}/pending-points', {
            params: { path: { memberId: joined.code }, query: { limit: 40, order, ...(after && { starting_after_id: after }) } },
          })
        ).data!;
        seen.push(...page.data.map((entry) => entry.id));
        if (!page.has_more) break;
        after = page.more_starting_after;
      }
      expect(seen).toHaveLength(105);
      expect(new Set(seen).size).toBe(105);
      const sorted = [...seen].sort();
      expect(seen).toEqual(order === 'id' ? sorted : sorted.reverse());
    }
    const campaignPage = (await ctx.client.GET('/v1/loyalties/{campaignId}/pending-points', { params: { path: { campaignId: club.id }, query: { limit: 100 } } })).data!;
    expect(campaignPage.data).toHaveLength(100);
    expect(campaignPage.has_more).toBe(true);
    // Walked to its end: which 100 of the 105 come first is up to their random IDs (compare merges the walk).
    const campaignRest = await ctx.client.GET('/v1/loyalties/{campaignId}/pending-points', {
      params: { path: { campaignId: club.id }, query: { limit: 100, starting_after_id: campaignPage.more_starting_after! } },
    });
    expect(campaignRest.data).toMatchObject({ has_more: false, data: expect.any(Array) });
    expect(campaignRest.data!.data).toHaveLength(5);
  });
});

describe('loyalty cards', () => {
  test('points are added, taken, transferred and listed as transactions, and never go negative', async () => {
    const club = await program();
    const a = await member(club.id);
    const b = await member(club.id);
    const added = await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: a.code } }, body: { points: 500, reason: 'welcome' } });
    expect(added.data).toEqual({ points: 500, total: 500, balance: 500, type: 'loyalty_card', object: 'balance', operation_type: 'MANUAL', related_object: { type: 'voucher', id: a.id } });
    const taken = await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/balance', { params: { path: { campaignId: club.id, memberId: a.code } }, body: { points: -200 } });
    expect(taken.data).toMatchObject({ points: -200, total: 500, balance: 300 });
    const tooMuch = await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: a.code } }, body: { points: -301 } });
    expectError(failed(tooMuch), 400, 'invalid_add_balance_params');
    expect((await card(a.code)).loyalty_card?.balance).toBe(300);

    const moved = await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/transfers', {
      params: { path: { campaignId: club.id, memberId: b.code } },
      body: [{ code: a.code, points: 120, reason: 'pooling' }],
    });
    expect(moved.data?.loyalty_card).toMatchObject({ balance: 120 });
    expect((await card(a.code)).loyalty_card?.balance).toBe(180);
    const overdrawn = await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/transfers', {
      params: { path: { campaignId: club.id, memberId: b.code } },
      body: [{ code: a.code, points: 100 }, { code: a.code, points: 100 }],
    });
    expectError(failed(overdrawn), 400, 'invalid_add_balance_params');
    expect((await card(a.code)).loyalty_card?.balance).toBe(180);
    expect((await card(b.code)).loyalty_card?.balance).toBe(120);

    const history = (await ctx.client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: a.code }, query: { limit: 2 } } })).data!;
    expect(history.data.map((entry) => entry.type)).toEqual(['POINTS_TRANSFER_OUT', 'POINTS_REMOVAL']);
    expect(history.data[0]).toMatchObject({ details: { destination_voucher: { code: b.code }, balance: { balance: 180 } }, related_transaction_id: expect.stringMatching(/^vtx_/) });
    const rest = (await ctx.client.GET('/v1/loyalties/{campaignId}/members/{memberId}/transactions', {
      params: { path: { campaignId: club.id, memberId: a.code }, query: { starting_after_id: history.more_starting_after! } },
    })).data!;
    expect(rest.data.map((entry) => entry.type)).toEqual(['POINTS_ADDITION']);
    expect(rest.has_more).toBe(false);
  });

  test('points expire under the program rules and next_expiration_* tell when', async () => {
    if (!ctx.target.clock) return skip(because('inProcess'));
    ctx.target.clock.travelTo(new Date('2030-01-10T12:00:00Z'));
    const club = await program({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } } } });
    const holder = await member(club.id);
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 40 } });
    expect((await card(holder.code)).loyalty_card).toEqual({ points: 40, balance: 40, next_expiration_date: '2030-02-28', next_expiration_points: 40 });
    ctx.target.clock.travelTo(new Date('2030-02-28T23:00:00Z'));
    expect((await card(holder.code)).loyalty_card?.balance).toBe(40);
    ctx.target.clock.travelTo(new Date('2030-03-01T00:30:00Z'));
    expect((await card(holder.code)).loyalty_card).toEqual({ points: 40, balance: 0, next_expiration_date: null, next_expiration_points: null });
    const history = (await ctx.client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: holder.code } } })).data!;
    expect(history.data[0]).toMatchObject({ type: 'POINTS_EXPIRATION', details: { balance: { points: -40, balance: 0, operation_type: 'AUTOMATIC' } } });
  });

  test('a pending entry activates on its date by itself, before any request arrives', async () => {
    const { store, clock, projectId } = ctx.target;
    if (!store || !clock || !projectId) return skip(because('inProcess'));
    const { holder, entries: [entry] } = await pendingMember(40, { period_type: 'DAY', period_value: 2 }, 1);
    expect(entry).toMatchObject({ points: 40, voucher_id: holder.id });

    // Read the storage directly: any API request would settle the project itself and prove nothing.
    const stored = () =>
      store.transaction(projectId, async (uow) => ({ pending: (await uow.pending_points.get(entry!.id)) !== undefined, balance: (await uow.vouchers.get(holder.id))?.loyalty_card?.balance }));
    const settledBy = async (deadline: number) => {
      let seen = await stored();
      while (seen.pending && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = await stored();
      }
      return seen;
    };
    const stop = startLoyaltyTimer(store, clock, 10);
    try {
      // A day early the timer leaves it alone; on its date the timer moves it onto the card.
      clock.travelTo(new Date(Date.now() + DAY));
      expect(await settledBy(Date.now() + 200)).toEqual({ pending: true, balance: 0 });
      clock.travelTo(new Date(Date.now() + 3 * DAY));
      expect(await settledBy(Date.now() + 5_000)).toEqual({ pending: false, balance: 40 });
    } finally {
      stop();
    }
    expect(await card(holder.code)).toMatchObject({ loyalty_card: { points: 40, balance: 40 } });
  });

  test('pending entries can be adjusted, activated early or canceled', async () => {
    const { holder, entries: [first, second] } = await pendingMember(10, { period_type: 'MONTH', period_value: 1 }, 2);
    const pending = { memberId: holder.code, pendingPointsId: first!.id };
    const adjusted = await ctx.client.POST('/v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/balance', { params: { path: pending }, body: { points: 5 } });
    expect(adjusted.data).toEqual({
      points: 5,
      total: 15,
      balance: 0,
      type: 'loyalty_card',
      object: 'balance',
      operation_type: 'MANUAL',
      related_object: { type: 'voucher', id: holder.id },
    });
    const listed = (await ctx.client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: holder.code } } })).data!.data;
    expect(listed.find((entry) => entry.id === first!.id)).toMatchObject({ points: 15, updated_at: expect.any(String) });
    const below = await ctx.client.POST('/v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/balance', { params: { path: pending }, body: { points: -16 } });
    expectError(failed(below), 400, 'invalid_add_balance_params');
    const activated = await ctx.client.POST('/v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/activate', { params: { path: pending } });
    expect(activated.data).toMatchObject({ points: 15, balance: 15, operation_type: 'MANUAL' });
    const canceled = await ctx.client.POST('/v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/cancel', { params: { path: { ...pending, pendingPointsId: second!.id } } });
    expect(canceled.response.status).toBe(204);
    expect((await ctx.client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: holder.code } } })).data?.data).toEqual([]);
    expect((await card(holder.code)).loyalty_card?.balance).toBe(15);
    const again = await ctx.client.POST('/v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/activate', { params: { path: pending } });
    expectError(failed(again), 404, 'not_found');
  });

  test('bad input gets a 4xx in the error shape', async () => {
    const club = await program();
    const holder = await member(club.id);
    for (const limit of ['0', '101']) {
      expectError(await raw(ctx.target, 'GET', `/v1/loyalties/${club.id}/pending-points?limit=${limit}`), 400, 'invalid_query_params');
      expectError(await raw(ctx.target, 'GET', `/v1/loyalties/members/${holder.code}/activity?limit=${limit}`), 400, 'invalid_query_params');
    }
    expectError(failed(await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: 'NO-SUCH-CARD' } } })), 404, 'not_found');
    expectError(failed(await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: 'NO-SUCH-CARD' } }, body: { points: 5 } })), 404, 'not_found');
    expectError(await raw(ctx.target, 'POST', `/v1/loyalties/members/${holder.code}/balance`, { body: JSON.stringify({ points: 0 }) }), 400, 'invalid_payload');
    const other = await program();
    expectError(failed(await ctx.client.GET('/v1/loyalties/{campaignId}/members/{memberId}', { params: { path: { campaignId: other.id, memberId: holder.code } } })), 404, 'not_found');
    const discount = await ctx.client.POST('/v1/campaigns', { body: { name: unique('Not loyalty'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } } });
    expectError(failed(await ctx.client.GET('/v1/loyalties/{campaignId}', { params: { path: { campaignId: discount.data!.id! } } })), 404, 'not_found');
    const noRatio = await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', {
      params: { path: { campaignId: club.id } },
      body: [{ event: 'order.paid', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_ITEMS_QUANTITY' } }],
    });
    expectError(failed(noRatio), 400, 'invalid_earning_rule');
    const overlapping = await ctx.client.POST('/v1/loyalties/{campaignId}/tiers', {
      params: { path: { campaignId: club.id } },
      body: [{ name: 'A', points: { from: 0, to: 100 } }, { name: 'B', points: { from: 100, to: null } }],
    });
    expectError(failed(overlapping), 400, 'invalid_loyalty_tier');
    expect((await ctx.client.GET('/v1/loyalties/{campaignId}/tiers', { params: { path: { campaignId: club.id } } })).data?.total).toBe(0);
  });
});

describe('earning rules and rewards', () => {
  test('earning rules are created, read, updated, disabled, listed and deleted; a disabled rule gives nothing', async () => {
    const club = await program();
    const path = { campaignId: club.id };
    const [rule] = (await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', { params: { path }, body: [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 25 } }] })).data!;
    expect(rule).toMatchObject({ id: expect.stringMatching(/^ern_/), active: true, pending_points: null, source: { object_id: club.id, object_type: 'campaign' }, object: 'earning_rule' });
    const ruleId = rule!.id;
    const sourceId = unique('member');
    const holder = await member(club.id, sourceId);
    await pay(sourceId, 1000);
    expect((await card(holder.code)).loyalty_card?.balance).toBe(25);
    const disabled = await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules/{earningRuleId}/disable', { params: { path: { ...path, earningRuleId: ruleId } } });
    expect(disabled.data?.active).toBe(false);
    await pay(sourceId, 1000);
    expect((await card(holder.code)).loyalty_card?.balance).toBe(25);
    await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules/{earningRuleId}/enable', { params: { path: { ...path, earningRuleId: ruleId } } });
    const updated = await ctx.client.PUT('/v1/loyalties/{campaignId}/earning-rules/{earningRuleId}', {
      params: { path: { ...path, earningRuleId: ruleId } },
      body: { loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 100, points: 1 } }, max_points: 30 } },
    });
    expect(updated.data).toMatchObject({ loyalty: { type: 'PROPORTIONAL', max_points: 30 }, updated_at: expect.any(String) });
    await pay(sourceId, 10_000);
    expect((await card(holder.code)).loyalty_card?.balance).toBe(55);
    const listed = await ctx.client.GET('/v1/loyalties/{campaignId}/earning-rules', { params: { path } });
    expect(listed.data).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect((await ctx.client.DELETE('/v1/loyalties/{campaignId}/earning-rules/{earningRuleId}', { params: { path: { ...path, earningRuleId: ruleId } } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/loyalties/{campaignId}/earning-rules/{earningRuleId}', { params: { path: { ...path, earningRuleId: ruleId } } })), 404, 'not_found');
  });

  test('a campaign reward gives the member a loaded gift card; rewards are updated, listed and refused without points', async () => {
    const club = await program();
    const gifts = await ctx.client.POST('/v1/campaigns', { body: { name: unique('Gift cards'), campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } } });
    const reward = (await ctx.client.POST('/v1/rewards', { body: { name: 'Gift 25', type: 'CAMPAIGN', parameters: { campaign: { id: gifts.data!.id, balance: 2500 } } } })).data!;
    expect(reward).toMatchObject({ type: 'CAMPAIGN', parameters: { campaign: { id: gifts.data!.id, balance: 2500, type: 'GIFT_VOUCHERS' } }, stock: null, redeemed: 0 });
    const noBalance = await ctx.client.POST('/v1/rewards', { body: { name: 'Broken', type: 'CAMPAIGN', parameters: { campaign: { id: gifts.data!.id } } } });
    expectError(failed(noBalance), 400, 'invalid_reward');
    const wrongPart = await ctx.client.POST('/v1/rewards', { body: { name: 'Broken', type: 'COIN', parameters: { campaign: { id: gifts.data!.id, balance: 1 } } } });
    expectError(failed(wrongPart), 400, 'invalid_reward');
    const renamed = await ctx.client.PUT('/v1/rewards/{rewardId}', { params: { path: { rewardId: reward.id } }, body: { name: 'Gift 25.00', metadata: { tier: 'any' } } });
    expect(renamed.data).toMatchObject({ name: 'Gift 25.00', metadata: { tier: 'any' }, updated_at: expect.any(String) });
    const assignment = (await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: reward.id } }, body: { campaign: club.name, parameters: { loyalty: { points: 300 } } } })).data!;
    const twice = await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: reward.id } }, body: { campaign: club.id, parameters: { loyalty: { points: 1 } } } });
    expectError(failed(twice), 409, 'duplicate_found');
    const holder = await member(club.id);
    const poor = await ctx.client.POST('/v1/loyalties/members/{memberId}/redemption', { params: { path: { memberId: holder.code } }, body: { reward: { id: assignment.id } } });
    expectError(failed(poor), 400, 'not_enough_points');
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 400 } });
    const redeemed = await ctx.client.POST('/v1/loyalties/members/{memberId}/redemption', { params: { path: { memberId: holder.code } }, body: { reward: { id: assignment.id } } });
    expect(redeemed.data).toMatchObject({ reward: { type: 'CAMPAIGN', points: 300, voucher: { type: 'GIFT_VOUCHER', campaign_id: gifts.data!.id } }, loyalty_card: { balance: 100 } });
    const gift = await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: redeemed.data!.reward.voucher!.code! } } });
    expect(gift.data).toMatchObject({ holder_id: holder.holder_id, gift: { amount: 2500, balance: 2500 } });
    const updatedCost = await ctx.client.PUT('/v1/rewards/{rewardId}/assignments/{assignmentId}', { params: { path: { rewardId: reward.id, assignmentId: assignment.id } }, body: { parameters: { loyalty: { points: 10 } } } });
    expect(updatedCost.data?.parameters?.loyalty?.points).toBe(10);
    const listed = await ctx.client.GET('/v1/rewards', { params: { query: { assignment_id: assignment.id } } });
    expect(listed.data?.data.map((item) => item.id)).toEqual([reward.id]);
    expect((await ctx.client.DELETE('/v1/rewards/{rewardId}', { params: { path: { rewardId: reward.id } } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/rewards/{rewardId}/assignments/{assignmentId}', { params: { path: { rewardId: reward.id, assignmentId: assignment.id } } })), 404, 'not_found');
  });

  test('an assignment is refused as the public API refuses it: a COIN reward with parameters.loyalty or two validation rules, a MATERIAL one without parameters', async () => {
    const club = await program();
    const coin = (await ctx.client.POST('/v1/rewards', { body: { name: 'Points as money', type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } } } })).data!;
    const assign = (rewardId: string, body: Record<string, unknown>) => ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId } }, body: { campaign: club.id, ...body } as never });
    expectError(failed(await assign(coin.id, { parameters: { loyalty: { points: 10 } } })), 400, 'invalid_reward_assignment');
    const rules = [];
    for (const name of ['First rule', 'Second rule']) rules.push((await ctx.client.POST('/v1/validation-rules', { body: { name: unique(name), rules: { '1': { name: 'order.amount', conditions: { $more_than: [100] } }, logic: '1' } } })).data!.id!);
    expectError(failed(await assign(coin.id, { validation_rules: rules })), 400, 'invalid_reward_assignment');
    expect((await assign(coin.id, { validation_rules: rules.slice(0, 1) })).response.status).toBe(200);
    const product = (await ctx.client.POST('/v1/products', { body: { name: unique('Mug') } })).data!;
    const material = (await ctx.client.POST('/v1/rewards', { body: { name: 'Mug', type: 'MATERIAL', parameters: { product: { id: product.id! } } } })).data!;
    const missing = expectError(failed(await assign(material.id, {})), 400, 'invalid_reward_assignment');
    expect(missing.message).toBe('Missing required parameter');
    expect(missing.details).toContain('parameters.loyalty.points');
    expect((await ctx.client.GET('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: material.id } } })).data?.total).toBe(0);
  });

  test('a loyalty card pays part of an order with points through a COIN reward, and a rollback gives them back', async () => {
    const club = await program();
    const coin = (await ctx.client.POST('/v1/rewards', { body: { name: 'Pay with points', type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } } } })).data!;
    await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: coin.id } }, body: { campaign: club.id } });
    const holder = await member(club.id);
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 250 } });
    const redeemables = [{ object: 'voucher' as const, id: holder.code, reward: { id: coin.id, points: 200 } }];
    const validated = await ctx.client.POST('/v1/validations', { body: { redeemables, order: { amount: 5000 } } });
    expect(validated.data).toMatchObject({ valid: true, order: { amount: 5000, discount_amount: 2000, total_amount: 3000 } });
    expect(validated.data?.redeemables[0]?.result).toEqual({ discount_amount: 2000, loyalty_card: { points: 200, balance: 250 } });
    const missing = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: holder.code }], order: { amount: 5000 } } });
    expect(missing.data?.inapplicable_redeemables?.[0]?.result.error?.key).toBe('missing_reward');
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables, order: { amount: 5000 } } });
    expect(redeemed.data?.redemptions?.[0]).toMatchObject({ amount: 2000, loyalty_card: { points: 200 } });
    expect((await card(holder.code)).loyalty_card?.balance).toBe(50);
    const poorHolder = await member(club.id);
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: poorHolder.code } }, body: { points: 9 } });
    const poor = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: poorHolder.code, reward: { id: coin.id } }], order: { amount: 5000 } } });
    expectError(failed(poor), 400, 'not_enough_points');
    const rolledBack = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: redeemed.data!.parent_redemption!.id } } });
    expect(rolledBack.response.status).toBe(200);
    expect((await card(holder.code)).loyalty_card?.balance).toBe(250);
    const history = (await ctx.client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: holder.code }, query: { limit: 2 } } })).data!;
    expect(history.data.map((entry) => entry.type)).toEqual(['POINTS_REFUND', 'POINTS_REDEMPTION']);
    const activity = (await ctx.client.GET('/v1/loyalties/members/{memberId}/activity', { params: { path: { memberId: holder.code }, query: { limit: 2 } } })).data!;
    const holderAndProgram = { customer: expect.objectContaining({ id: holder.holder_id }), campaign: expect.objectContaining({ id: club.id }) };
    expect(activity.data.map((entry) => ({ type: entry.type, data: entry.data!.data }))).toEqual([
      { type: 'redemption.rollback.succeeded', data: expect.objectContaining({ ...holderAndProgram, points: 200, redemption: { id: redeemed.data!.redemptions![0]!.id } }) },
      { type: 'redemption.succeeded', data: expect.objectContaining({ ...holderAndProgram, points: 200, redemption: { id: redeemed.data!.redemptions![0]!.id } }) },
    ]);
  });

  test('programs are listed, updated and deleted with their members', async () => {
    const club = await program({ vouchers_count: 3 });
    const holder = await member(club.id);
    expect(holder.code).toBeDefined();
    const members = await ctx.client.GET('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id } } });
    expect(members.data).toMatchObject({ object: 'list', data_ref: 'vouchers', total: 1 });
    const updated = await ctx.client.PUT('/v1/loyalties/{campaignId}', { params: { path: { campaignId: club.id } }, body: { description: 'Members earn points' } });
    expect(updated.data).toMatchObject({ description: 'Members earn points', vouchers_count: 3 });
    const listed = await ctx.client.GET('/v1/loyalties', { params: { query: { limit: 100, order: '-created_at' } } });
    expect(listed.data?.campaigns?.every((campaign) => campaign.campaign_type === 'LOYALTY_PROGRAM')).toBe(true);
    expect((await ctx.client.DELETE('/v1/loyalties/{campaignId}', { params: { path: { campaignId: club.id } } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: holder.code } } })), 404, 'not_found');
  });
});

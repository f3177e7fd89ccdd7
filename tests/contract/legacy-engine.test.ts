/**
 * The deprecated single-object operations, answered by their replacements' engine, and the remaining
 * redemption, publication and customer operations: a parent's rollbacks, publishing by link and from the
 * client side, and what a customer holds.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, runsWith, unique, useTarget } from './target.js';

const ctx = useTarget();

type Body = Record<string, any>;

async function post(path: string, body?: unknown) {
  return raw(ctx.target, 'POST', path, body === undefined ? {} : { body: JSON.stringify(body) });
}

async function get(path: string) {
  return raw(ctx.target, 'GET', path);
}

async function voucher(body: Record<string, unknown>, code = unique('LEG')) {
  const created = await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: body as never });
  expect(created.response.status).toBe(200);
  return created.data!;
}

async function campaign(body: Record<string, unknown>) {
  const created = await ctx.client.POST('/v1/campaigns', { body: { name: unique('Legacy'), ...body } as never });
  expect(created.response.status).toBe(200);
  return created.data!;
}

async function rule(conditions: Record<string, unknown>, message?: string) {
  const created = await ctx.client.POST('/v1/validation-rules', {
    body: { name: unique('Rule'), rules: { '1': { name: 'order.amount', conditions }, logic: '1' }, ...(message && { error: { message } }) } as never,
  });
  expect(created.response.status).toBe(200);
  return created.data!;
}

async function assign(ruleId: string, type: 'voucher' | 'campaign' | 'promotion_tier', id: string) {
  const made = await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: ruleId } }, body: { related_object_type: type, related_object_id: id } });
  expect(made.response.status).toBe(200);
}

async function summaryOf(campaignId: string) {
  return (await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId } } })).data!;
}

async function promotionTier(tier: Record<string, unknown>) {
  const promotion = await campaign({ campaign_type: 'PROMOTION' });
  const created = await ctx.client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: promotion.id! } }, body: { name: unique('Tier'), ...tier } as never });
  expect(created.response.status).toBe(200);
  return created.data!;
}

describe('deprecated voucher validation and redemption', () => {
  test('when a campaign voucher is validated on its own, then it answers as one redeemable of a validation, counted, in the older shape', async () => {
    const coupons = await campaign({ campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } }, vouchers_count: 1 });
    const code = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: coupons.id } } })).data!.vouchers![0]!.code!;
    const customer = unique('legacy-buyer');
    const valid = await post(`/v1/vouchers/${code}/validate`, { customer: { source_id: customer }, order: { amount: 12005 }, metadata: { till: 4 } });
    expect(valid.status).toBe(200);
    expect(valid.body).toEqual({
      valid: true,
      code,
      campaign: coupons.name,
      campaign_id: coupons.id,
      discount: { type: 'PERCENT', percent_off: 10 },
      order: expect.objectContaining({ amount: 12005, discount_amount: 1201, total_amount: 10804, object: 'order' }),
      start_date: null,
      expiration_date: null,
      tracking_id: expect.stringMatching(/^track_/),
      metadata: {},
    });
    // The same request through the replacement gives the same discount and order.
    const stacked = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }], customer: { source_id: customer }, order: { amount: 12005 } } });
    expect(stacked.data!.order).toEqual((valid.body as Body).order);
    expect(await summaryOf(coupons.id!)).toMatchObject({ validations: 2, validations_succeeded: 2 });
  });

  test('when the voucher does not apply, then the answer is still 200, with valid false, the verdict\'s error and its reason', async () => {
    const minimum = await rule({ $more_than: [10000] }, 'Orders over 100.00 only');
    const limited = await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } });
    await assign(minimum.id, 'voucher', limited.id!);
    const small = await post(`/v1/vouchers/${limited.code}/validate`, { order: { amount: 2000 } });
    expect(small.status).toBe(200);
    expect(small.body).toEqual({
      valid: false,
      code: limited.code,
      reason: expect.stringContaining(minimum.id),
      error: { code: 400, key: 'order_rules_violated', message: 'Order does not match validation rules', details: expect.any(String), resource_id: limited.code, resource_type: 'voucher', error: { message: 'Orders over 100.00 only' } },
      tracking_id: expect.stringMatching(/^track_/),
      metadata: {},
    });
    // An amount given as text, as the older reference types it, is read as a number.
    expect((await post(`/v1/vouchers/${limited.code}/validate`, { order: { amount: '20000' } })).body).toMatchObject({ valid: true, order: { amount: 20000, discount_amount: 500 } });
    expectError(await post('/v1/vouchers/NO-SUCH-CODE/validate', { order: { amount: 2000 } }), 404, 'not_found');
    expectError(await post(`/v1/vouchers/${limited.code}/validate`, { order: { amount: 'lots' } }), 400, 'invalid_payload');
  });

  test('when gift and loyalty cards are validated, then they show their credit, or the points and reward they pay with', async () => {
    const gift = await voucher({ type: 'GIFT_VOUCHER', gift: { amount: 5000 } });
    const giftVerdict = await post(`/v1/vouchers/${gift.code}/validate`, { order: { amount: 3000 }, gift: { credits: 2000 } });
    expect(giftVerdict.body).toMatchObject({
      valid: true,
      gift: { amount: 5000, subtracted_amount: 0, balance: 5000, effect: 'APPLY_TO_ORDER' },
      order: { amount: 3000, gift_amount: 2000, total_amount: 1000 },
    });
    expect((await post(`/v1/vouchers/${gift.code}/validate`, { order: { amount: 3000 }, gift: { credits: 9000 } })).body).toMatchObject({ valid: false, error: { key: 'gift_amount_exceeded' } });

    const club = await ctx.client.POST('/v1/loyalties', { body: { name: unique('Legacy club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
    const coin = (await ctx.client.POST('/v1/rewards', { body: { name: unique('Legacy coin'), type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } } } })).data!;
    const assignment = (await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: coin.id } }, body: { campaign: club.data!.id! } })).data!;
    const owner = unique('legacy-member');
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.data!.id! } }, body: { customer: { source_id: owner } } })).data!;
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 100 } });
    // The customer may come inside the order, as the older operations allowed.
    const paying = await post(`/v1/vouchers/${card.code}/validate`, { order: { amount: 700, customer: { source_id: owner } }, reward: { assignment_id: assignment.id } });
    expect(paying.body).toMatchObject({
      valid: true,
      loyalty: { points_cost: 70 },
      reward: { id: coin.id, assignment_id: assignment.id, points: 70 },
      order: { amount: 700, discount_amount: 700, total_amount: 0, customer_id: card.holder_id },
    });
    expect((await post(`/v1/vouchers/${card.code}/validate`, { order: { amount: 700 } })).body).toMatchObject({ valid: false, error: { key: 'missing_reward' } });
  });

  test('when a validation names a LOCK session, then it holds the voucher for the session, as the replacement does', async () => {
    const single = await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, redemption: { quantity: 1 } });
    const held = await post(`/v1/vouchers/${single.code}/validate`, { order: { amount: 2000 }, session: { type: 'LOCK', ttl: 15, ttl_unit: 'MINUTES' } });
    expect(held.body).toMatchObject({ valid: true, session: { key: expect.stringMatching(/^ssn_/), type: 'LOCK', ttl: 15, ttl_unit: 'MINUTES' } });
    const key = (held.body as Body).session.key as string;
    expect((await post(`/v1/vouchers/${single.code}/validate`, { order: { amount: 2000 } })).body).toMatchObject({ valid: false, error: { key: 'quantity_exceeded' } });
    const refused = await post(`/v1/vouchers/${single.code}/redemption`, { order: { amount: 2000 } });
    expectError(refused, 400, 'quantity_exceeded');
    const redeemed = await post(`/v1/vouchers/${single.code}/redemption`, { order: { amount: 2000 }, session: { key } });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({ session: { key }, result: 'SUCCESS' });
  });

  test('when a voucher is redeemed on its own, then it is one redemption of the engine, under a parent, and a refusal is recorded', async () => {
    const single = await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, redemption: { quantity: 1 } });
    const buyer = unique('legacy-redeemer');
    const redeemed = await raw(ctx.target, 'POST', `/v1/vouchers/${single.code}/redemption?tracking_id=${buyer}`, { body: JSON.stringify({ order: { source_id: unique('legacy-order'), amount: 3000 }, metadata: { till: 2 } }) });
    expect(redeemed.status).toBe(200);
    const redemption = redeemed.body as Body;
    expect(redemption).toMatchObject({
      id: expect.stringMatching(/^r_/),
      object: 'redemption',
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      amount: 500,
      metadata: { till: 2 },
      tracking_id: buyer,
      related_object_type: 'voucher',
      related_object_id: single.id,
      redemption: expect.stringMatching(/^r_/),
      voucher: { code: single.code, redemption: { quantity: 1, redeemed_quantity: 1 } },
      order: { amount: 3000, discount_amount: 500, total_amount: 2500, status: 'PAID' },
    });
    const parent = await ctx.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId: redemption.redemption } } });
    expect(parent.data).toMatchObject({ related_object_type: 'redemption', result: 'SUCCESS' });

    expectError(await post(`/v1/vouchers/${single.code}/redemption`, { order: { amount: 3000 } }), 400, 'quantity_exceeded');
    const entries = (await ctx.client.GET('/v1/vouchers/{code}/redemption', { params: { path: { code: single.code! } } })).data!;
    expect(entries.redemption_entries!.map((entry) => entry.result)).toEqual(['FAILURE', 'SUCCESS']);
    expectError(await post('/v1/vouchers/NO-SUCH-CODE/redemption', {}), 404, 'not_found');
  });

  test("when a redemption is refused by a rule with a message of its own, then the error carries the rule's message", async () => {
    const rule = (
      await ctx.client.POST('/v1/validation-rules', {
        body: { name: unique('Members only'), rules: { '1': { name: 'customer.metadata', property: 'member', conditions: { $is: ['yes'] } } }, error: { message: 'Only for members of the club' } },
      })
    ).data!;
    const guarded = await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } });
    await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: rule.id } }, body: { related_object_type: 'voucher', related_object_id: guarded.code! } });
    const refused = expectError(await post(`/v1/vouchers/${guarded.code}/redemption`, { customer: { source_id: unique('not-a-member') }, order: { amount: 3000 } }), 400, 'customer_rules_violated');
    expect(refused).toMatchObject({ error: { message: 'Only for members of the club' }, details: expect.stringContaining(rule.id), resource_id: guarded.code });
  });

  runsWith(test, ['client'])('when the client side validates by query and redeems by code, then the answers are those of the server-side operations', async () => {
    const product = (await ctx.client.POST('/v1/products', { body: { source_id: unique('legacy-prod'), name: unique('Legacy product'), price: 1500 } })).data!;
    const code = (await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 20 }, redemption: { quantity: 1 } })).code!;
    const buyer = unique('client-buyer');
    const query = `code=${code}&customer=${buyer}&item[0][product_id]=${product.id}&item[0][quantity]=2&item[1][price]=1000&item[1][quantity]=1&metadata[page]=cart&session_type=LOCK&session_ttl=10&session_ttl_unit=MINUTES`;
    const validated = await get(`/client/v1/validate?${query}`);
    expect(validated.status).toBe(200);
    expect(validated.body).toMatchObject({
      valid: true,
      code,
      discount: { type: 'PERCENT', percent_off: 20 },
      order: { amount: 4000, discount_amount: 800, total_amount: 3200, items: [{ product_id: product.id, quantity: 2, amount: 3000 }, { price: 1000, amount: 1000 }] },
      session: { key: expect.stringMatching(/^ssn_/), ttl: 10, ttl_unit: 'MINUTES' },
    });
    // A validation creates no customer, here as in the replacement: the plain `customer` named one not seen before.
    expect((await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: buyer } } })).response.status).toBe(404);
    const byOrder = await get(`/client/v1/validate?code=${code}&order[amount]=2500&session_key=${(validated.body as Body).session.key}`);
    expect(byOrder.body).toMatchObject({ valid: true, order: { amount: 2500, discount_amount: 500 } });
    expectError(await get('/client/v1/validate?amount=2500'), 400, 'missing_code');

    const redeemed = await raw(ctx.target, 'POST', `/client/v1/redeem?code=${code}`, { body: JSON.stringify({ order: { amount: 2500 }, session: { key: (validated.body as Body).session.key } }) });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({ object: 'redemption', related_object_type: 'voucher', voucher: { code }, amount: 500 });
    expectError(await raw(ctx.target, 'POST', `/client/v1/redeem?code=${code}`, { body: JSON.stringify({ order: { amount: 2500 } }) }), 400, 'quantity_exceeded');
    expectError(await raw(ctx.target, 'POST', '/client/v1/redeem', { body: JSON.stringify({ order: { amount: 2500 } }) }), 400, 'missing_code');
  });
});

describe('deprecated promotion tier validation and redemption', () => {
  test('when a tier is validated on its own, then it answers with what it takes off, or why it does not apply', async () => {
    const tier = await promotionTier({ banner: 'Ten off', action: { discount: { type: 'AMOUNT', amount_off: 1000 } }, metadata: { shelf: 'A' } });
    const minimum = await rule({ $more_than_or_equal: [5000] });
    await assign(minimum.id, 'promotion_tier', tier.id!);
    const valid = await post(`/v1/promotions/tiers/${tier.id}/validation`, { order: { amount: 8000 } });
    expect(valid.status).toBe(200);
    expect(valid.body).toEqual({
      valid: true,
      id: tier.id,
      object: 'promotion_tier',
      name: tier.name,
      banner: 'Ten off',
      discount: { type: 'AMOUNT', amount_off: 1000 },
      start_date: null,
      expiration_date: null,
      campaign: { id: tier.campaign_id, start_date: null, expiration_date: null, active: true, object: 'campaign' },
      hierarchy: 1,
      metadata: { shelf: 'A' },
      category_id: null,
      tracking_id: expect.stringMatching(/^track_/),
      order: expect.objectContaining({ amount: 8000, discount_amount: 1000, total_amount: 7000 }),
      discount_amount: 1000,
      applied_discount_amount: 1000,
    });
    const small = await post(`/v1/promotions/tiers/${tier.id}/validation`, { order: { amount: 2000 } });
    expect(small.body).toMatchObject({ valid: false, id: tier.id, reason: expect.any(String), error: { code: 400, key: 'order_rules_violated' } });
    expect(await summaryOf(tier.campaign_id!)).toMatchObject({ validations: 2, validations_succeeded: 1, validations_failed: 1 });
    expectError(await post('/v1/promotions/tiers/promo_unknown/validation', { order: { amount: 2000 } }), 404, 'not_found');
  });

  test('when promotions are validated, then each tier is checked on its own and those that apply are listed by hierarchy', async () => {
    const shelf = unique('shelf');
    const promotion = await campaign({ campaign_type: 'PROMOTION' });
    const tiers = [];
    for (const [amountOff, minimum] of [[300, 0], [700, 5000], [900, 20000]] as const) {
      const made = (await ctx.client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: promotion.id! } }, body: { name: unique('Level'), action: { discount: { type: 'AMOUNT', amount_off: amountOff } }, metadata: { shelf } } as never })).data!;
      if (minimum > 0) await assign((await rule({ $more_than_or_equal: [minimum] })).id, 'promotion_tier', made.id!);
      tiers.push(made);
    }
    const customer = unique('promo-shopper');
    const checked = await raw(ctx.target, 'POST', `/v1/promotions/validation?filters[metadata][shelf]=${shelf}`, {
      body: JSON.stringify({ customer: { source_id: customer }, order: { amount: 8000 } }),
    });
    expect(checked.status).toBe(200);
    const body = checked.body as Body;
    expect(body).toMatchObject({ valid: true, tracking_id: expect.stringMatching(/^track_/) });
    expect(body.promotions.map((entry: Body) => [entry.id, entry.valid, entry.discount_amount, entry.order.total_amount])).toEqual([
      [tiers[0]!.id, true, 300, 7700],
      [tiers[1]!.id, true, 700, 7300],
    ]);
    // The customer was created, as qualifications create one.
    expect((await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer } } })).response.status).toBe(200);
    const only = await raw(ctx.target, 'POST', `/v1/promotions/validation?filters[promotion_id][conditions][$in][]=${tiers[1]!.id}&filters[promotion_id][conditions][$in][]=${tiers[2]!.id}`, {
      body: JSON.stringify({ order: { amount: 30000 }, options: { expand: ['category'] } }),
    });
    expect((only.body as Body).promotions.map((entry: Body) => entry.id)).toEqual([tiers[1]!.id, tiers[2]!.id]);
    expect((only.body as Body).promotions[0]).toMatchObject({ categories: null, campaign: { categories: null } });
    const none = await raw(ctx.target, 'POST', `/v1/promotions/validation?filters[metadata][shelf]=${unique('empty')}`, { body: JSON.stringify({ order: { amount: 8000 } }) });
    expect(none.body).toEqual({ valid: false, tracking_id: expect.stringMatching(/^track_/), promotions: [] });
    // Nothing was counted: these checks are qualifications, not validations.
    expect(await summaryOf(promotion.id!)).toMatchObject({ validations: 0 });
  });

  test('when a tier is redeemed on its own, then its redemption is the engine\'s and its summary counts it', async () => {
    const tier = await promotionTier({ action: { discount: { type: 'PERCENT', percent_off: 10 } } });
    const redeemed = await post(`/v1/promotions/tiers/${tier.id}/redemption`, { customer: { source_id: unique('tier-buyer') }, order: { amount: 5000 }, metadata: { till: 1 } });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({
      object: 'redemption',
      result: 'SUCCESS',
      amount: 500,
      related_object_type: 'promotion_tier',
      related_object_id: tier.id,
      promotion_tier: { id: tier.id, summary: { redemptions: { total_redeemed: 1 } } },
      order: { amount: 5000, discount_amount: 500 },
    });
    expect(redeemed.body).not.toHaveProperty('voucher');
    await ctx.client.POST('/v1/promotions/tiers/{promotionTierId}/disable', { params: { path: { promotionTierId: tier.id! } } });
    expectError(await post(`/v1/promotions/tiers/${tier.id}/redemption`, { order: { amount: 5000 } }), 400, 'promotion_inactive');
    expectError(await post('/v1/promotions/tiers/promo_unknown/redemption', {}), 404, 'not_found');
  });
});

describe('deprecated qualification examinations', () => {
  test('when a customer\'s vouchers are examined, then those that would apply to the order are listed, sorted and limited', async () => {
    const owner = unique('wallet-owner');
    const coupons = await campaign({ campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } }, vouchers_count: 3 });
    const codes: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const published = await ctx.client.POST('/v1/publications', { body: { customer: { source_id: owner }, campaign: { name: coupons.name! } } });
      codes.push(published.data!.voucher!.code!);
    }
    await ctx.client.POST('/v1/vouchers/{code}/disable', { params: { path: { code: codes[1]! } } });
    const examined = await raw(ctx.target, 'POST', '/v1/vouchers/qualification?order=-code&limit=5', { body: JSON.stringify({ customer: { source_id: owner }, order: { amount: 1000 } }) });
    expect(examined.status).toBe(200);
    const list = examined.body as Body;
    expect(list).toMatchObject({ object: 'list', data_ref: 'data', total: 2, tracking_id: expect.stringMatching(/^track_/), created_at: expect.any(String) });
    expect(list.data.map((entry: Body) => entry.code)).toEqual([codes[0], codes[2]].sort().reverse());
    expect(list.data[0]).toMatchObject({ object: 'voucher', holder_id: expect.stringMatching(/^cust_/), assets: { qr: { url: expect.any(String) } } });
    const limited = await raw(ctx.target, 'POST', '/v1/vouchers/qualification?limit=1', { body: JSON.stringify({ customer: { source_id: owner }, order: { amount: 1000 } }) });
    expect(limited.body).toMatchObject({ total: 2, data: [{ code: codes[0] }] });
    const nobody = await post('/v1/vouchers/qualification', { order: { amount: 1000 } });
    expect(nobody.body).toMatchObject({ object: 'list', data: [], total: 0 });
    expectError(await raw(ctx.target, 'POST', '/v1/vouchers/qualification?limit=51', { body: '{}' }), 400, 'invalid_query_params');
  });

  test('when campaigns are examined, then those with a free voucher that would apply are listed', async () => {
    const minimum = await rule({ $more_than: [5000] });
    const bigOrders = await campaign({ campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 1, metadata: { examined: true } });
    await assign(minimum.id, 'campaign', bigOrders.id!);
    const anyOrder = await campaign({ campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } }, vouchers_count: 1 });
    const given = await campaign({ campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 1 });
    await ctx.client.POST('/v1/publications', { body: { customer: { source_id: unique('taker') }, campaign: { name: given.name! } } });
    const ids = async (amount: number) => {
      const examined = await raw(ctx.target, 'POST', '/v1/campaigns/qualification?limit=50&order=-created_at', { body: JSON.stringify({ customer: { source_id: unique('examiner') }, order: { amount } }) });
      expect(examined.status).toBe(200);
      return (examined.body as Body).data.map((entry: Body) => entry.id) as string[];
    };
    const small = await ids(3000);
    expect(small).toContain(anyOrder.id);
    expect(small).not.toContain(bigOrders.id);
    expect(small).not.toContain(given.id);
    const big = await ids(9000);
    expect(big).toContain(bigOrders.id);
    expect(big.indexOf(anyOrder.id!)).toBeLessThan(big.indexOf(bigOrders.id!));
    // Newest first and a page of 50: a shared project (the kit's) holds many other campaigns.
    const examined = await post('/v1/campaigns/qualification?limit=50&order=-created_at', { order: { amount: 9000 } });
    const entry = (examined.body as Body).data.find((candidate: Body) => candidate.id === bigOrders.id);
    expect(entry).toMatchObject({
      name: bigOrders.name,
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: null } },
      categories: null,
      metadata: { examined: true },
      validation_rules_assignments: { total: 1, data: [{ rule_id: minimum.id }] },
      object: 'campaign',
    });
  });
});

describe('rollbacks of a parent redemption', () => {
  test('when a parent is rolled back, then every child gets a rollback, the counters go back, and the answer lists them all', async () => {
    const first = await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, redemption: { quantity: 1 } });
    const gift = await voucher({ type: 'GIFT_VOUCHER', gift: { amount: 2000 } });
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: first.code! }, { object: 'voucher', id: gift.code! }], order: { amount: 3000 } } });
    expect(redeemed.response.status).toBe(200);
    const parentId = redeemed.data!.parent_redemption!.id!;
    const childIds = redeemed.data!.redemptions!.map((child) => child.id);
    const rolled = await raw(ctx.target, 'POST', `/v1/redemptions/${parentId}/rollbacks?reason=Cancelled`, { body: JSON.stringify({ metadata: { desk: 7 } }) });
    expect(rolled.status).toBe(200);
    const body = rolled.body as Body;
    expect(body.rollbacks.map((entry: Body) => entry.redemption)).toEqual(childIds);
    expect(body.rollbacks[0]).toMatchObject({ object: 'redemption_rollback', reason: 'Cancelled', metadata: { desk: 7 }, related_object_type: 'voucher', voucher: { code: first.code }, amount: 500 });
    expect(body.rollbacks[1]).toMatchObject({ gift: { amount: 2000 }, voucher: { code: gift.code, gift: { balance: 2000 } } });
    expect(body.parent_rollback).toMatchObject({ id: expect.stringMatching(/^rr_/), redemption: parentId, related_object_type: 'redemption', amount: 500, gift_amount: 2000 });
    expect(body.order).toMatchObject({ amount: 3000, total_discount_amount: 500 });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: first.code! } } })).data!.redemption).toMatchObject({ redeemed_quantity: 0 });

    expectError(await post(`/v1/redemptions/${parentId}/rollbacks`, {}), 400, 'already_rolled_back');
    expectError(await post(`/v1/redemptions/${childIds[0]}/rollbacks`, {}), 400, 'invalid_rollback_params');
    expectError(await post('/v1/redemptions/r_unknown/rollbacks', {}), 404, 'not_found');
  });
});

describe('publications by link and from the client side', () => {
  test('when a publication comes in the query, then it is the same publication as the body would make', async () => {
    const coupons = await campaign({ campaign_type: 'DISCOUNT_COUPONS', type: 'STATIC', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 3 });
    const customer = unique('link-customer');
    const source = unique('link-pub');
    const published = await get(`/v1/publications/create?customer[source_id]=${customer}&customer[name]=Link%20Reader&campaign[name]=${encodeURIComponent(coupons.name!)}&source_id=${source}&metadata[newsletter]=nov`);
    expect(published.status).toBe(200);
    const publication = published.body as Body;
    expect(publication).toMatchObject({
      id: expect.stringMatching(/^pub_/),
      object: 'publication',
      source_id: source,
      metadata: { newsletter: 'nov' },
      channel: 'API',
      result: 'SUCCESS',
      customer: { source_id: customer, name: 'Link Reader' },
      voucher: { campaign: coupons.name, holder_id: publication.customer_id },
    });
    // The same link again returns the same publication.
    const again = await get(`/v1/publications/create?customer[source_id]=${customer}&campaign[name]=${encodeURIComponent(coupons.name!)}&source_id=${source}`);
    expect((again.body as Body).id).toBe(publication.id);
    const two = await get(`/v1/publications/create?customer[source_id]=${customer}&campaign[name]=${coupons.id}&campaign[count]=2`);
    expect((two.body as Body).vouchers).toHaveLength(2);
    expectError(await get(`/v1/publications/create?customer[source_id]=${customer}&campaign[name]=${coupons.id}`), 400, 'no_voucher_suitable_for_publication');
    // Without a customer there is no one to publish to: the query's checks or the engine refuse it.
    const nobody = await get(`/v1/publications/create?campaign[name]=${coupons.id}`);
    expect(nobody.status).toBe(400);
    expect(['invalid_query_params', 'invalid_customer']).toContain((nobody.body as Body).key);
    expectError(await get(`/v1/publications/create?customer[source_id]=${customer}&source_id=${unique('nothing')}`), 400, 'invalid_publish_params');
  });

  runsWith(test, ['client'])('when the client side publishes, then the voucher goes to the customer as with the server-side operation', async () => {
    const code = (await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } })).code!;
    const customer = unique('client-publish');
    const published = await raw(ctx.target, 'POST', '/client/v1/publish', { body: JSON.stringify({ customer: { source_id: customer }, voucher: code, channel: 'Web widget' }) });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ object: 'publication', channel: 'Web widget', voucher: { code, holder_id: (published.body as Body).customer_id } });
    expect((await ctx.client.GET('/v1/publications', { params: { query: { voucher: code } } })).data!.total).toBe(1);
  });
});

describe('a customer\'s redeemables', () => {
  test('when a customer holds vouchers, then each is listed with its state, a page at a time, and filters narrow the list', async () => {
    const customer = unique('holder');
    const gift = await voucher({ type: 'GIFT_VOUCHER', gift: { amount: 1000 } });
    const used = await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 1 } });
    const later = await voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, start_date: '2099-01-01T00:00:00.000Z' });
    for (const held of [gift, used, later]) await ctx.client.POST('/v1/publications', { body: { customer: { source_id: customer }, voucher: held.code! } });
    await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: used.code! }], customer: { source_id: customer }, order: { amount: 1000 } } });
    const listed = await ctx.client.GET('/v1/customers/{customerId}/redeemables', { params: { path: { customerId: customer } } });
    expect(listed.response.status).toBe(200);
    const list = listed.data!;
    expect(list).toMatchObject({ object: 'list', data_ref: 'data', total: 3, has_more: false });
    const ids = list.data.map((entry) => entry.id);
    expect(ids).toEqual([...ids].sort());
    const byVoucher = Object.fromEntries(list.data.map((entry) => [entry.redeemable_id, entry]));
    expect(byVoucher[gift.id!]).toMatchObject({
      id: expect.stringMatching(/^rh_/),
      redeemable_object: 'voucher',
      holder_role: 'OWNER',
      campaign_id: null,
      campaign_type: null,
      voucher_type: 'GIFT_VOUCHER',
      redeemable: { type: 'voucher', status: 'ACTIVE', voucher: { code: gift.code, gift: { balance: 1000 } } },
    });
    expect(byVoucher[used.id!]!.redeemable.status).toBe('USED');
    expect(byVoucher[later.id!]!.redeemable.status).toBe('NOT_ACTIVE_YET');

    const first = (await ctx.client.GET('/v1/customers/{customerId}/redeemables', { params: { path: { customerId: customer }, query: { limit: 2, order: '-id' } } })).data!;
    expect(first).toMatchObject({ total: 3, has_more: true, more_starting_after: first.data[1]!.id });
    expect(first.data.map((entry) => entry.id)).toEqual([...ids].reverse().slice(0, 2));
    const next = (await ctx.client.GET('/v1/customers/{customerId}/redeemables', { params: { path: { customerId: customer }, query: { limit: 2, order: '-id', starting_after_id: first.more_starting_after! } } })).data!;
    expect(next).toMatchObject({ has_more: false, data: [{ id: ids[0] }] });
    expect(next).not.toHaveProperty('more_starting_after');

    const gifts = await get(`/v1/customers/${customer}/redeemables?filters[voucher_type][conditions][$is]=GIFT_VOUCHER`);
    expect((gifts.body as Body).data.map((entry: Body) => entry.redeemable_id)).toEqual([gift.id]);
    expectError(await get(`/v1/customers/${customer}/redeemables?filters[amount][conditions][$is]=1`), 400, 'invalid_query_params');
    expectError(await get(`/v1/customers/${customer}/redeemables?starting_after_id=rh_unknown`), 400, 'invalid_query_params');
    expectError(failed(await ctx.client.GET('/v1/customers/{customerId}/redeemables', { params: { path: { customerId: unique('nobody') } } })), 404, 'not_found');
  });
});

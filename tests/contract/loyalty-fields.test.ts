/**
 * What real clients send to the loyalty API and what it documents: whole programs, members named by their
 * fields, balance changes with an expiry, every earning calculation, and objects sent back as read.
 */
import { afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { known } from './known.js';
import { because, managementClientFor, raw, skip, unique, useTarget } from './target.js';

const ctx = useTarget();

afterEach(() => ctx.target.clock?.reset());

/** Sends a body as a client writes it, outside the typed client; the answer as JSON. */
async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const answer = await raw(ctx.target, method, path, body === undefined ? {} : { body: JSON.stringify(body) });
  return answer as { status: number; body: any };
}

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

async function transactions(code: string, query: Record<string, unknown> = {}) {
  return (await ctx.client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: code }, query } })).data!;
}

async function rule(campaignId: string, body: Record<string, unknown>) {
  const created = await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', { params: { path: { campaignId } }, body: [body as never] });
  expect(created.response.status).toBe(200);
  return created.data![0]!;
}

async function pay(order: Record<string, unknown>) {
  const paid = await ctx.client.POST('/v1/orders', { body: { status: 'PAID', ...order } as never });
  expect(paid.response.status).toBe(200);
  return paid.data!;
}

describe('loyalty programs as clients send them', () => {
  test('when a program is created with campaign_type LOYALTY_PROGRAM and the other documented campaign fields, then it is a loyalty program', async () => {
    const name = unique('Whole program');
    const created = await send('POST', '/v1/loyalties', {
      name,
      campaign_type: 'LOYALTY_PROGRAM',
      description: 'Points on coffee',
      type: 'STANDALONE',
      join_once: true,
      auto_join: false,
      use_voucher_metadata_schema: true,
      vouchers_count: 1,
      activity_duration_after_publishing: 'P30D',
      access_settings: { assign: { areas_ids: ['area_1'] } },
      metadata: { region: 'north' },
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { length: 8, charset: '0123456789', prefix: 'CF-' } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name, campaign_type: 'LOYALTY_PROGRAM', type: 'AUTO_UPDATE', description: 'Points on coffee', join_once: true, metadata: { region: 'north' } });
    const read = await ctx.client.GET('/v1/loyalties/{campaignId}', { params: { path: { campaignId: created.body.id } } });
    expect(read.data).toMatchObject({ id: created.body.id, campaign_type: 'LOYALTY_PROGRAM' });
  });

  test('when another campaign_type is sent, then the program is refused with 400', async () => {
    const refused = await send('POST', '/v1/loyalties', { name: unique('Wrong'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    expect(refused.status).toBe(400);
  });

  test('when a program is created with neither name nor voucher, then it gets a name and cards of 0 points', async () => {
    const created = await send('POST', '/v1/loyalties', {});
    expect(created.status).toBe(200);
    expect(created.body.name).toMatch(/^Loyalty program /);
    const holder = await member(created.body.id);
    expect(holder.loyalty_card).toMatchObject({ points: 0, balance: 0 });
  });

  test('when a program as GET returns it is PUT back, then only updated_at changes', async () => {
    const club = await program({ description: 'Before', metadata: { region: 'north' }, join_once: true });
    const before = (await ctx.client.GET('/v1/loyalties/{campaignId}', { params: { path: { campaignId: club.id } } })).data!;
    const put = await send('PUT', `/v1/loyalties/${club.id}`, before);
    expect(put.status).toBe(200);
    const after = (await ctx.client.GET('/v1/loyalties/{campaignId}', { params: { path: { campaignId: club.id } } })).data!;
    expect(after.updated_at).not.toBeNull();
    expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
  });

  test('when unset_metadata_fields names keys, then they leave the program and the rest stays', async () => {
    const club = await program({ metadata: { region: 'north', tier: 'a' } });
    const put = await ctx.client.PUT('/v1/loyalties/{campaignId}', { params: { path: { campaignId: club.id } }, body: { unset_metadata_fields: ['tier'], loyalty_tiers_expiration: { qualification_type: 'BALANCE' } } });
    expect(put.response.status).toBe(200);
    expect(put.data?.metadata).toEqual({ region: 'north' });
  });
});

describe('members', () => {
  test('when a customer is named only by name and email, then the API creates that customer and gives them a card', async () => {
    const club = await program();
    const email = `${unique('jane')}@example.com`;
    const joined = await ctx.client.POST('/v1/loyalties/{campaignId}/members', {
      params: { path: { campaignId: club.id } },
      body: { customer: { name: 'Jane Member', email }, channel: 'store', metadata: null, voucher: null },
    });
    expect(joined.response.status).toBe(200);
    const customer = await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: joined.data!.holder_id! } } });
    expect(customer.data).toMatchObject({ name: 'Jane Member', email, source_id: null });
    const activity = (await ctx.client.GET('/v1/loyalties/members/{memberId}/activity', { params: { path: { memberId: joined.data!.code! } } })).data!;
    const published = activity.data.find((entry) => entry.type === 'voucher.published');
    expect(published?.data?.data).toMatchObject({ channel: 'store', customer: { id: joined.data!.holder_id } });
  });

  test('when explicit nulls mean none, then the member joins as without them', async () => {
    const club = await program();
    const sourceId = unique('nulls');
    const joined = await send('POST', `/v1/loyalties/${club.id}/members`, {
      customer: { id: null, source_id: sourceId, name: null, email: null, address: null },
      voucher: null,
      metadata: null,
      channel: null,
      source_id: null,
    });
    expect(joined.status).toBe(200);
    expect(joined.body.metadata).toEqual({});
    const holder = await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: joined.body.holder_id } } });
    expect(holder.data?.source_id).toBe(sourceId);
  });

  test('when members are listed by code, ids, range and code order, then only those cards come', async () => {
    const club = await program();
    const first = await member(club.id);
    const second = await member(club.id);
    const byCode = await ctx.client.GET('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id }, query: { code: second.code } } });
    expect(byCode.data?.vouchers?.map((voucher) => voucher.code)).toEqual([second.code]);
    const byIds = await ctx.client.GET('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id }, query: { ids: [first.id] } } });
    expect(byIds.data?.vouchers?.map((voucher) => voucher.id)).toEqual([first.id]);
    const ordered = await ctx.client.GET('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id }, query: { order: 'code' } } });
    expect(ordered.data?.vouchers?.map((voucher) => voucher.code)).toEqual([first.code, second.code].sort());
    const none = await ctx.client.GET('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id }, query: { created_at: { before: '2000-01-01' } } } });
    expect(none.data?.vouchers).toEqual([]);
  });
});

describe('balance changes', () => {
  test('when points are added with an expiration date, then they expire at the end of that day and the transaction keeps reason and source_id', async () => {
    if (!ctx.target.clock) return skip(because('inProcess'));
    ctx.target.clock.travelTo(new Date('2031-05-10T12:00:00Z'));
    const club = await program();
    const holder = await member(club.id);
    const added = await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/balance', {
      params: { path: { campaignId: club.id, memberId: holder.code } },
      body: { points: 30, expiration_type: 'CUSTOM_DATE', expiration_date: '2031-05-20T00:00:00Z', reason: 'Welcome gift', source_id: 'crm-123' },
    });
    expect(added.data).toMatchObject({ points: 30, balance: 30, operation_type: 'MANUAL' });
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 5, expiration_type: 'NON_EXPIRING' } });
    expect((await card(holder.code)).loyalty_card).toMatchObject({ balance: 35, next_expiration_date: '2031-05-20', next_expiration_points: 30 });
    const [, addition] = (await transactions(holder.code)).data;
    expect(addition).toMatchObject({ type: 'POINTS_ADDITION', reason: 'Welcome gift', source_id: 'crm-123', source: 'API' });
    ctx.target.clock.travelTo(new Date('2031-05-20T23:30:00Z'));
    expect((await card(holder.code)).loyalty_card?.balance).toBe(35);
    ctx.target.clock.travelTo(new Date('2031-05-21T00:30:00Z'));
    expect((await card(holder.code)).loyalty_card).toMatchObject({ points: 35, balance: 5, next_expiration_date: null });
    expect((await transactions(holder.code)).data[0]).toMatchObject({ type: 'POINTS_EXPIRATION', details: { balance: { points: -30, balance: 5 } } });
  });

  test('when a balance change sends X-Voucherify-Channel, then its transaction records that channel as source, and no transaction has an object field', async () => {
    const club = await program();
    const holder = await member(club.id);
    const path = { memberId: holder.code };
    const fromSdk = await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path }, body: { points: 12 }, headers: { 'X-Voucherify-Channel': 'Node.js-SDK' } });
    expect(fromSdk.response.status).toBe(200);
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path }, body: { points: -2 } });
    const [removal, addition] = (await transactions(holder.code)).data;
    expect(addition).toMatchObject({ type: 'POINTS_ADDITION', source: 'Node.js-SDK' });
    expect(removal).toMatchObject({ type: 'POINTS_REMOVAL', source: 'API' });
    for (const transaction of [addition, removal]) expect(transaction).not.toHaveProperty('object');
  });

  test('when an expiration date has passed or is missing for CUSTOM_DATE, then the change is refused and nothing moves', async () => {
    const club = await program();
    const holder = await member(club.id);
    const past = await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 10, expiration_date: '2001-01-01T00:00:00Z' } });
    expectError(failed(past), 400, 'invalid_add_balance_params');
    const missing = await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 10, expiration_type: 'CUSTOM_DATE' } });
    expectError(failed(missing), 400, 'invalid_add_balance_params');
    expect((await card(holder.code)).loyalty_card?.balance).toBe(0);
  });

  test('when transactions are filtered and ordered, then only the matching ones come in that order', async () => {
    const club = await program();
    const holder = await member(club.id);
    for (const points of [1, 2, 3]) await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points } });
    const newest = (await transactions(holder.code)).data;
    expect(newest.map((entry) => entry.details?.balance?.points)).toEqual([3, 2, 1]);
    const oldest = (await transactions(holder.code, { order: 'id' })).data;
    expect(oldest.map((entry) => entry.details?.balance?.points)).toEqual([1, 2, 3]);
    const picked = await send('GET', `/v1/loyalties/members/${holder.code}/transactions?filters[id][conditions][$in]=${newest[0]!.id}`);
    expect(picked.body.data.map((entry: { id: string }) => entry.id)).toEqual([newest[0]!.id]);
    const refused = await send('GET', `/v1/loyalties/members/${holder.code}/transactions?filters[id][conditions][$near]=x`);
    expect(refused.status).toBe(400);
  });
});

describe('transfers and tiers', () => {
  test('when points move between cards, then each transaction shows the other card as it was', async () => {
    const club = await program();
    const target = await member(club.id);
    const source = await member(club.id);
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: source.code } }, body: { points: 40 } });
    const moved = await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/transfers', {
      params: { path: { campaignId: club.id, memberId: target.code } },
      body: [{ code: source.code, points: 15, reason: 'Pooling', source_id: 'pool-7' }],
    });
    expect(moved.data?.loyalty_card).toMatchObject({ balance: 15 });
    const [incoming] = (await transactions(target.code)).data;
    expect(incoming).toMatchObject({
      type: 'POINTS_TRANSFER_IN',
      reason: 'Pooling',
      source_id: 'pool-7',
      details: { source_voucher: { id: source.id, code: source.code, type: 'LOYALTY_CARD', campaign_id: club.id, holder_id: source.holder_id, loyalty_card: { balance: 25 }, object: 'voucher' } },
    });
    const [outgoing] = (await transactions(source.code)).data;
    expect(outgoing).toMatchObject({ type: 'POINTS_TRANSFER_OUT', details: { destination_voucher: { code: target.code, object: 'voucher' } }, related_transaction_id: incoming!.id });
  });

  test('when a tier mapping lacks its type or number, then the tiers are refused; tiers list by creation when asked', async () => {
    const club = await program();
    const created = await rule(club.id, { loyalty: { type: 'FIXED', points: 5 } });
    const untyped = await send('POST', `/v1/loyalties/${club.id}/tiers`, [{ name: 'Gold', points: { from: 100 }, earning_rules: { [created.id]: { multiplier: 2 } } }]);
    expectError(untyped, 400, 'invalid_loyalty_tier');
    const numberless = await send('POST', `/v1/loyalties/${club.id}/tiers`, [{ name: 'Gold', points: { from: 100 }, earning_rules: { [created.id]: { type: 'CUSTOM' } } }]);
    expectError(numberless, 400, 'invalid_loyalty_tier');
    expect((await send('POST', `/v1/loyalties/${club.id}/tiers`, [{ name: 'Gold', points: { from: 100 } }])).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const made = await send('POST', `/v1/loyalties/${club.id}/tiers`, [{ name: 'Base', points: { to: 99 } }]);
    expect(made.status).toBe(200);
    expect(made.body[0].points).toEqual({ from: 0, to: 99 });
    const byRange = await ctx.client.GET('/v1/loyalties/{campaignId}/tiers', { params: { path: { campaignId: club.id } } });
    expect(byRange.data?.data.map((tier) => tier.name)).toEqual(['Base', 'Gold']);
    const newest = await ctx.client.GET('/v1/loyalties/{campaignId}/tiers', { params: { path: { campaignId: club.id }, query: { order: '-created_at' } } });
    expect(newest.data?.data.map((tier) => tier.name)).toEqual(['Base', 'Gold']);
    const oldest = await ctx.client.GET('/v1/loyalties/{campaignId}/tiers', { params: { path: { campaignId: club.id }, query: { order: 'created_at' } } });
    expect(oldest.data?.data.map((tier) => tier.name)).toEqual(['Gold', 'Base']);
  });

  test('when a tier comes with points: {}, as the public API takes it, then it is made without a range, overlaps no tier and holds no member', async () => {
    const club = await program();
    expect((await send('POST', `/v1/loyalties/${club.id}/tiers`, [{ name: 'Everyone', points: { from: 0 } }])).status).toBe(200);
    const bare = await send('POST', `/v1/loyalties/${club.id}/tiers`, [{ name: 'Unranged', points: {} }, { name: 'Also unranged', points: {} }]);
    expect(bare.status).toBe(200);
    expect(bare.body.map((tier: { points: unknown }) => tier.points)).toEqual([{}, {}]);
    const holder = await member(club.id);
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 40 } });
    const tiers = await ctx.client.GET('/v1/loyalties/members/{memberId}/tiers', { params: { path: { memberId: holder.code } } });
    expect(tiers.data?.data.map((tier) => tier.name)).toEqual(['Everyone']);
  });
});

describe('earning rules', () => {
  const EVENT = unique('nights_booked');

  beforeAll(async () => {
    if (!ctx.target.projectId) return;
    const management = managementClientFor(ctx.target);
    const created = await management.POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      params: { path: { projectId: ctx.target.projectId } },
      body: { name: EVENT, schema: { properties: { nights: { type: 'number', optional: true } } } },
    });
    expect(created.response.status).toBe(200);
  });

  test('when a rule counts order metadata, then a paid order earns points per step of that number', async () => {
    const club = await program();
    await rule(club.id, { event: 'order.paid', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_METADATA', order: { metadata: { every: 2, points: 5, property: 'cups' } } } });
    const sourceId = unique('meta');
    const holder = await member(club.id, sourceId);
    await pay({ amount: 1000, customer: { source_id: sourceId }, metadata: { cups: 7 } });
    expect((await card(holder.code)).loyalty_card?.balance).toBe(15);
    const [earned] = (await transactions(holder.code)).data;
    expect(earned).toMatchObject({ type: 'POINTS_ACCRUAL', details: { earning_rule: { source: { banner: null } }, event: { type: 'customer.order.paid' } } });
  });

  test('when a rule counts customer metadata, then any of its events earns points per step of the customer value', async () => {
    const club = await program();
    await rule(club.id, { event: 'order.paid', loyalty: { type: 'PROPORTIONAL', calculation_type: 'CUSTOMER_METADATA', customer: { metadata: { every: 1, points: 3, property: 'visits' } } } });
    const sourceId = unique('cust');
    await ctx.client.POST('/v1/customers', { body: { source_id: sourceId, metadata: { visits: 4 } } });
    const holder = await member(club.id, sourceId);
    await pay({ amount: 100, customer: { source_id: sourceId } });
    expect((await card(holder.code)).loyalty_card?.balance).toBe(12);
  });

  test('when a rule counts the subtotal of some items, then only the matching lines count', async () => {
    const club = await program();
    const product = (await ctx.client.POST('/v1/products', { body: { name: unique('Beans'), price: 2000 } })).data!;
    await rule(club.id, {
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_ITEMS_SUBTOTAL_AMOUNT', order_items: { subtotal_amount: { every: 1000, points: 1, applicable_to: [{ object: 'product', id: product.id }] } } },
    });
    const sourceId = unique('items');
    const holder = await member(club.id, sourceId);
    await pay({ customer: { source_id: sourceId }, items: [{ product_id: product.id, quantity: 2, price: 2000 }, { source_id: unique('other'), quantity: 1, price: 5000 }] });
    expect((await card(holder.code)).loyalty_card?.balance).toBe(4);
  });

  test('when a custom event rule counts event metadata, then the event earns points per step and names its schema', async () => {
    if (!ctx.target.projectId) return skip(because('management', 'projectId'));
    const schemas = await managementClientFor(ctx.target).GET('/management/v1/projects/{projectId}/custom-event-schemas', { params: { path: { projectId: ctx.target.projectId } } });
    const schema = schemas.data!.data.find((entry) => entry.name === EVENT)!;
    const club = await program();
    const created = await rule(club.id, { custom_event: { schema_id: schema.id }, loyalty: { type: 'PROPORTIONAL', calculation_type: 'CUSTOM_EVENT_METADATA', custom_event: { metadata: { every: 1, points: 10, property: 'nights' } } } });
    expect(created).toMatchObject({ event: EVENT, custom_event: { schema_id: schema.id } });
    const sourceId = unique('guest');
    const holder = await member(club.id, sourceId);
    const tracked = await ctx.client.POST('/v1/events', { body: { event: EVENT, customer: { source_id: sourceId }, metadata: { nights: 3 } } });
    expect(tracked.response.status).toBe(200);
    expect((await card(holder.code)).loyalty_card?.balance).toBe(30);
    expect((await transactions(holder.code)).data[0]).toMatchObject({ details: { custom_event: { type: EVENT }, event_schema: { id: schema.id, name: EVENT } } });
  });

  test('when a rule has its own expiration rules, then the points it gives expire by them', async () => {
    if (!ctx.target.clock) return skip(because('inProcess'));
    ctx.target.clock.travelTo(new Date('2031-01-15T12:00:00Z'));
    const club = await program();
    await rule(club.id, { loyalty: { type: 'FIXED', points: 8 }, expiration_rules: { period_type: 'MONTH', period_value: 2, rounding_type: 'END_OF_MONTH' } });
    const sourceId = unique('expiring');
    const holder = await member(club.id, sourceId);
    await pay({ amount: 100, customer: { source_id: sourceId } });
    expect((await card(holder.code)).loyalty_card).toMatchObject({ balance: 8, next_expiration_date: '2031-03-31', next_expiration_points: 8 });
  });

  test('when a measure lacks its ratio or an order measure sits on a custom event, then the rule is refused', async () => {
    const club = await program();
    const missing = await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', { params: { path: { campaignId: club.id } }, body: [{ loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_METADATA' } }] });
    expectError(failed(missing), 400, 'invalid_earning_rule');
    const misplaced = await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', {
      params: { path: { campaignId: club.id } },
      body: [{ event: 'some_event', loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_METADATA', order: { metadata: { every: 1, points: 1, property: 'x' } } } }],
    });
    expectError(failed(misplaced), 400, 'invalid_earning_rule');
    const noLoyalty = await send('POST', `/v1/loyalties/${club.id}/earning-rules`, [{ event: 'order.paid' }]);
    expect(noLoyalty.status).toBe(400);
  });

  test('when an earning rule as GET returns it is PUT back, then only updated_at changes', async () => {
    const club = await program();
    const created = await rule(club.id, { loyalty: { type: 'FIXED', points: 5, points_formula: 'fixed' }, source: { banner: 'Five' }, validation_rule_id: null, pending_points: { period_value: 3 } });
    expect(created.pending_points).toEqual({ period_type: 'DAY', period_value: 3 });
    const before = (await ctx.client.GET('/v1/loyalties/{campaignId}/earning-rules/{earningRuleId}', { params: { path: { campaignId: club.id, earningRuleId: created.id } } })).data!;
    const put = await send('PUT', `/v1/loyalties/${club.id}/earning-rules/${created.id}`, before);
    expect(put.status).toBe(200);
    expect({ ...put.body, updated_at: null }).toEqual({ ...before, updated_at: null });
    expect(put.body.updated_at).not.toBeNull();
  });
});

describe('rewards', () => {
  test('when a reward as GET returns it is PUT back, then only updated_at changes', async () => {
    const created = await ctx.client.POST('/v1/rewards', { body: { name: unique('Coins'), parameters: { coin: { exchange_ratio: '50', points_ratio: '2' } } } });
    expect(created.data).toMatchObject({ type: 'COIN', parameters: { coin: { exchange_ratio: 50, points_ratio: 2 } } });
    const before = (await ctx.client.GET('/v1/rewards/{rewardId}', { params: { path: { rewardId: created.data!.id } } })).data!;
    const put = await send('PUT', `/v1/rewards/${before.id}`, before);
    expect(put.status).toBe(200);
    expect({ ...put.body, updated_at: null }).toEqual({ ...before, updated_at: null });
  });

  test('when a material reward is redeemed, then the redemption shows the member, the card, the product and the tier', async () => {
    const product = (await ctx.client.POST('/v1/products', { body: { name: unique('Mug'), price: 1500 } })).data!;
    const reward = (await ctx.client.POST('/v1/rewards', { body: { parameters: { product: { id: product.id } }, stock: 3 } })).data!;
    expect(reward).toMatchObject({ type: 'MATERIAL', name: product.name });
    const club = await program();
    const assignment = await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: reward.id } }, body: { campaign: club.id, parameters: { loyalty: { points: 20, auto_redeem: false } } } });
    expect(assignment.data?.parameters).toEqual({ loyalty: { points: 20, auto_redeem: false } });
    const sourceId = unique('redeemer');
    const holder = await member(club.id, sourceId);
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 50 } });
    const redeemed = await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/redemption', { params: { path: { campaignId: club.id, memberId: holder.code } }, body: { reward: { id: reward.id } } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data).toMatchObject({
      customer: { id: holder.holder_id, source_id: sourceId, object: 'customer' },
      tracking_id: expect.stringMatching(/^track_/),
      redemption: null,
      voucher: { code: holder.code, loyalty_card: { balance: 30 } },
      reward: { id: reward.id, object: 'reward', assignment_id: assignment.data!.id, loyalty_tier_id: null, voucher: null, sku: null, product: { id: product.id, name: product.name }, customer: { id: holder.holder_id } },
      loyalty_card: { points: 20 },
    });
    const missing = await send('POST', `/v1/loyalties/members/${holder.code}/redemption`, {});
    expect(missing.status).toBe(400);
  });
});

/**
 * Customer segments: static ones hold the customers given; auto-update and passive ones hold whoever
 * matches their filter now. Validation rules can require a segment, and the customers list filters by one.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function customer(metadata: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const made = await ctx.client.POST('/v1/customers', { body: { source_id: unique('seg-cust'), metadata, ...extra } as never });
  expect(made.response.status).toBe(200);
  return made.data!;
}

async function segment(body: Record<string, unknown>) {
  const made = await ctx.client.POST('/v1/segments', { body: body as never });
  expect(made.response.status).toBe(200);
  return made.data!;
}

async function segmentsOf(customerId: string) {
  const listed = await ctx.client.GET('/v1/customers/{customerId}/segments', { params: { path: { customerId } } });
  expect(listed.response.status).toBe(200);
  return listed.data!;
}

async function membersOf(segmentId: string) {
  const listed = await ctx.client.GET('/v1/customers', { params: { query: { segment_id: segmentId, limit: 100 } } });
  expect(listed.response.status).toBe(200);
  return listed.data!.customers!.map((row) => row.id);
}

/** A filter on a metadata key, unique to the test so other tests' customers never match it. */
function tierFilter(key: string, value: string) {
  return { junction: 'AND', [`metadata.${key}`]: { conditions: { $is: [value] } } };
}

describe('segments', () => {
  test('when a static segment is created, then it holds exactly the customers given, reads back, lists and deletes', async () => {
    const first = await customer();
    const second = await customer();
    const outsider = await customer();
    const made = await segment({ name: 'Launch guests', type: 'static', customers: [first.id, second.source_id, first.source_id] });
    expect(made).toEqual({ id: expect.stringMatching(/^seg_/), name: 'Launch guests', created_at: expect.any(String), type: 'static', filter: null, object: 'segment' });
    expect((await ctx.client.GET('/v1/segments/{segmentId}', { params: { path: { segmentId: made.id! } } })).data).toEqual(made);
    expect((await membersOf(made.id!)).sort()).toEqual([first.id, second.id].sort());
    expect(await segmentsOf(first.id!)).toEqual({ object: 'list', data_ref: 'data', data: [{ id: made.id, name: 'Launch guests', object: 'segment' }], total: 1 });
    expect((await segmentsOf(outsider.source_id!)).total).toBe(0);

    // A deleted customer leaves the segment.
    await ctx.client.DELETE('/v1/customers/{customerId}', { params: { path: { customerId: second.id! } } });
    expect(await membersOf(made.id!)).toEqual([first.id]);

    const deleted = await ctx.client.DELETE('/v1/segments/{segmentId}', { params: { path: { segmentId: made.id! } } });
    expect(deleted.response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/segments/{segmentId}', { params: { path: { segmentId: made.id! } } })), 404, 'not_found');
    expectError(failed(await ctx.client.DELETE('/v1/segments/{segmentId}', { params: { path: { segmentId: made.id! } } })), 404, 'not_found');
    expect(expectError(await raw(ctx.target, 'GET', `/v1/customers?segment_id=${made.id}`), 404, 'not_found').resource_type).toBe('segment');
    expect((await segmentsOf(first.id!)).total).toBe(0);
  });

  test('when an auto-update segment is created, then it follows customers as their metadata changes, and records their entering and leaving', async () => {
    const key = `tier_${unique('k').slice(2)}`;
    const gold = await customer({ [key]: 'gold' });
    const silver = await customer({ [key]: 'silver' });
    const made = await segment({ name: 'Gold', type: 'auto-update', filter: tierFilter(key, 'gold') });
    expect(made).toMatchObject({ type: 'auto-update', filter: { junction: 'and', [`metadata.${key}`]: { conditions: { $is: ['gold'] } } } });
    expect(await membersOf(made.id!)).toEqual([gold.id]);

    await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: silver.id! } }, body: { metadata: { [key]: 'gold' } } });
    await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: gold.id! } }, body: { metadata: { [key]: 'silver' } } });
    expect(await membersOf(made.id!)).toEqual([silver.id]);
    expect((await segmentsOf(silver.id!)).data).toEqual([{ id: made.id, name: 'Gold', object: 'segment' }]);
    expect((await segmentsOf(gold.id!)).data).toEqual([]);

    const activity = async (customerId: string) =>
      (await ctx.client.GET('/v1/customers/{customerId}/activity', { params: { path: { customerId }, query: { limit: 100 } } })).data!.data.map((entry) => entry.type);
    expect(await activity(silver.id!)).toContain('customer.segment.entered');
    expect(await activity(gold.id!)).toContain('customer.segment.left');

    // A customer created matching the filter enters at once.
    const newcomer = await customer({ [key]: 'gold' });
    expect((await segmentsOf(newcomer.id!)).total).toBe(1);
    expect(await activity(newcomer.id!)).toContain('customer.segment.entered');
  });

  test('when a passive segment matches, then it holds the customer without recording entering', async () => {
    const key = `vip_${unique('k').slice(2)}`;
    const made = await segment({ name: 'VIP', type: 'passive', filter: tierFilter(key, 'yes') });
    const vip = await customer({ [key]: 'yes' });
    expect(await membersOf(made.id!)).toEqual([vip.id]);
    const types = (await ctx.client.GET('/v1/customers/{customerId}/activity', { params: { path: { customerId: vip.id! } } })).data!.data.map((entry) => entry.type);
    expect(types).not.toContain('customer.segment.entered');
  });

  test('when filters use other customer fields, then they match as documented', async () => {
    const city = unique('Town');
    const spender = await customer({}, { address: { city } });
    await customer({}, { address: { city: unique('Elsewhere') } });
    await ctx.client.POST('/v1/orders', { body: { status: 'PAID', amount: 12000, customer: { id: spender.id } } });
    const byCity = await segment({ type: 'auto-update', filter: { 'address.city': { conditions: { $is: [city] } } } });
    expect(byCity.name).toBe(byCity.id);
    expect(await membersOf(byCity.id!)).toEqual([spender.id]);
    const bySpend = await segment({ type: 'passive', filter: { junction: 'and', 'address.city': { conditions: { $is: [city] } }, 'summary.orders.total_amount': { conditions: { $more_than: [10000] } } } });
    expect(await membersOf(bySpend.id!)).toEqual([spender.id]);
    // Either field: a customer of the town who spent nothing, and one who spent much elsewhere.
    const local = await customer({}, { address: { city } });
    const away = await customer({}, { address: { city: unique('Far') } });
    await ctx.client.POST('/v1/orders', { body: { status: 'PAID', amount: 99_000_000, customer: { id: away.id } } });
    const byEither = await segment({ type: 'passive', filter: { junction: 'or', 'address.city': { conditions: { $is: [city] } }, 'summary.orders.total_amount': { conditions: { $more_than: [98_000_000] } } } });
    expect(new Set(await membersOf(byEither.id!))).toEqual(new Set([spender.id, local.id, away.id]));
  });

  test('when a segment names an unknown customer, lacks its filter, or filters on an unknown field or operator, then it is refused; fields of the other kind are ignored', async () => {
    const known = await customer();
    const create = (body: Record<string, unknown>) => raw(ctx.target, 'POST', '/v1/segments', { body: JSON.stringify(body) });
    expectError(await create({ name: 'x', type: 'static', customers: ['cust_missing'] }), 404, 'not_found');
    // A field of the other kind of segment is ignored.
    const mixedStatic = await create({ name: 'x', type: 'static', customers: [known.id], filter: { 'metadata.a': { conditions: { $is: ['b'] } } } });
    expect(mixedStatic.body).toMatchObject({ type: 'static', filter: null });
    const mixedFiltered = await create({ name: 'x', type: 'auto-update', customers: [known.id], filter: { 'metadata.a': { conditions: { $is: ['b'] } } } });
    expect(mixedFiltered.body).toMatchObject({ type: 'auto-update', filter: { 'metadata.a': { conditions: { $is: ['b'] } } } });
    expect(await membersOf((mixedFiltered.body as { id: string }).id)).toEqual([]);
    expectError(await create({ name: 'x', type: 'auto-update' }), 400, 'invalid_segment');
    expectError(await create({ name: 'x', type: 'auto-update', filter: { junction: 'and' } }), 400, 'invalid_segment');
    expectError(await create({ name: 'x', type: 'auto-update', filter: { shoe_size: { conditions: { $is: [42] } } } }), 400, 'invalid_segment');
    expectError(await create({ name: 'x', type: 'auto-update', filter: { name: { conditions: { $sounds_like: ['Ann'] } } } }), 400, 'invalid_segment');
    expectError(await create({ name: 'x', type: 'dynamic', filter: { name: { conditions: { $is: ['Ann'] } } } }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'GET', '/v1/customers/cust_missing/segments'), 404, 'not_found');
  });

  test('when segments are listed, then limit, order, filters and ids apply and total counts the matches', async () => {
    const prefix = unique('List');
    const made = [];
    for (const [index, type] of (['static', 'auto-update', 'static'] as const).entries()) {
      made.push(await segment({ name: `${prefix} ${index}`, type, ...(type === 'static' ? { customers: [] } : { filter: tierFilter('list_test', prefix) }) }));
    }
    const byName = await raw(ctx.target, 'GET', `/v1/segments?filters[name][conditions][$starts_with]=${encodeURIComponent(prefix)}&order=-created_at&limit=2`);
    expect(byName.status).toBe(200);
    expect(byName.body).toMatchObject({ object: 'list', data_ref: 'data', total: 3 });
    expect((byName.body as { data: { id: string }[] }).data.map((row) => row.id)).toEqual([made[2]!.id, made[1]!.id]);
    const staticOnes = await raw(ctx.target, 'GET', `/v1/segments?filters[name][conditions][$starts_with]=${encodeURIComponent(prefix)}&filters[type][conditions][$is]=static`);
    expect((staticOnes.body as { data: { id: string }[] }).data.map((row) => row.id)).toEqual([made[0]!.id, made[2]!.id]);
    const byIds = await ctx.client.GET('/v1/segments', { params: { query: { ids: [made[1]!.id!, 'seg_missing'] } } });
    expect(byIds.data!.data!.map((row) => row.id)).toEqual([made[1]!.id]);
    expectError(await raw(ctx.target, 'GET', '/v1/segments?filters[colour][conditions][$is]=red'), 400, 'invalid_query_params');
  });

  test('when a voucher or a campaign requires an auto-update segment, then it follows the customer in and out of the segment', async () => {
    const key = `club_${unique('k').slice(2)}`;
    const member = await customer({ [key]: 'in' });
    const outsider = await customer({ [key]: 'out' });
    const made = await segment({ name: 'Club', type: 'auto-update', filter: tierFilter(key, 'in') });
    const rule = await ctx.client.POST('/v1/validation-rules', {
      body: { name: 'Club only', rules: { '1': { name: 'customer.segment', conditions: { $is: [made.id!] } }, logic: '1' } } as never,
    });
    expect(rule.response.status).toBe(200);
    const code = unique('SEG');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, validation_rules: [rule.data!.id] } as never });
    const validate = async (customerId: string) =>
      (await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 }, customer: { id: customerId } } })).data!;

    expect((await validate(member.id!)).valid).toBe(true);
    const refused = await validate(outsider.id!);
    expect(refused.valid).toBe(false);
    expect(refused.inapplicable_redeemables![0]!.result.error).toMatchObject({ key: 'customer_rules_violated' });

    // The member leaves and the outsider joins: the voucher follows them.
    await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: member.id! } }, body: { metadata: { [key]: 'out' } } });
    await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: outsider.id! } }, body: { metadata: { [key]: 'in' } } });
    expect((await validate(member.id!)).valid).toBe(false);
    expect((await validate(outsider.id!)).valid).toBe(true);
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 }, customer: { id: outsider.id! } } });
    expect(redeemed.response.status).toBe(200);
    const refusedRedemption = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 }, customer: { id: member.id! } } });
    expectError(failed(refusedRedemption), 400, 'customer_rules_violated');

    // A campaign that targets the segment through its rules follows it the same way, for every voucher in it.
    const campaign = await ctx.client.POST('/v1/campaigns', {
      body: {
        name: unique('Club campaign'),
        campaign_type: 'DISCOUNT_COUPONS',
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } },
        vouchers_count: 1,
        validation_rules: [rule.data!.id],
      } as never,
    });
    expect(campaign.response.status).toBe(200);
    const campaignCode = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaign.data!.id! } } })).data!.vouchers![0]!.code!;
    const validateCampaign = async (customerId: string) =>
      (await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: campaignCode }], order: { amount: 5000 }, customer: { id: customerId } } })).data!.valid;
    expect(await validateCampaign(outsider.id!)).toBe(true);
    expect(await validateCampaign(member.id!)).toBe(false);

    // A rule requiring a segment that no longer exists holds for nobody.
    await ctx.client.DELETE('/v1/segments/{segmentId}', { params: { path: { segmentId: made.id! } } });
    expect((await validate(outsider.id!)).valid).toBe(false);
    expect(await validateCampaign(outsider.id!)).toBe(false);
  });

  test('when a customer enters a segment a loyalty program rewards, then the member earns the points', async () => {
    const key = `earn_${unique('k').slice(2)}`;
    const made = await segment({ name: 'Earners', type: 'auto-update', filter: tierFilter(key, 'yes') });
    const program = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('SegClub'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never })).data!;
    const rules = await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', {
      params: { path: { campaignId: program.id! } },
      body: [{ event: 'customer.segment.entered', segment: { id: made.id! }, loyalty: { type: 'FIXED', points: 40 } }] as never,
    });
    expect(rules.response.status).toBe(200);
    const sourceId = unique('seg-member');
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: program.id! } }, body: { customer: { source_id: sourceId } } })).data!;
    const balance = async () => (await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: card.code! } } })).data!.loyalty_card!.points;
    expect(await balance()).toBe(0);
    await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } }, body: { metadata: { [key]: 'yes' } } });
    expect(await balance()).toBe(40);
    const transactions = (await ctx.client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: card.code! } } })).data!.data;
    expect(transactions[0]).toMatchObject({ type: 'POINTS_ACCRUAL', details: { segment: { id: made.id, name: 'Earners' }, event: { type: 'customer.segment.entered' } } });
    // Staying in the segment earns nothing more.
    await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } }, body: { name: 'Still in' } });
    expect(await balance()).toBe(40);
  });
});

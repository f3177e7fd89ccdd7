import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

describe('list-customer-activity', () => {
  test('when a customer is created and updated, then cursor pages list every event exactly once, in order', async () => {
    const made = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('active'), name: 'v0' } })).data!;
    for (let i = 1; i <= 12; i++) {
      await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: made.id! } }, body: { name: `v${i}` } });
    }
    const collect = async (order: 'created_at' | '-created_at') => {
      const seen: { id?: string; type?: string; created_at?: string }[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await ctx.client.GET('/v1/customers/{customerId}/activity', {
          params: { path: { customerId: made.source_id! }, query: { limit: 5, order, ...(cursor && { starting_after_id: cursor }) } },
        });
        expect(result.data).toMatchObject({ object: 'list', data_ref: 'data' });
        seen.push(...result.data!.data);
        if (!result.data!.has_more) {
          expect(result.data).not.toHaveProperty('more_starting_after');
          break;
        }
        cursor = result.data!.more_starting_after;
        expect(cursor).toBe(result.data!.data.at(-1)?.id);
      }
      return seen;
    };
    const newestFirst = await collect('-created_at');
    expect(newestFirst).toHaveLength(13);
    expect(new Set(newestFirst.map((e) => e.id)).size).toBe(13);
    expect(newestFirst.at(-1)).toMatchObject({ type: 'customer.created', data: { data: { customer: { id: made.id } }, event_source: { channel: 'API' } } });
    expect(newestFirst.slice(0, 12).every((e) => e.type === 'customer.updated')).toBe(true);
    const oldestFirst = await collect('created_at');
    expect(oldestFirst.map((e) => e.id)).toEqual(newestFirst.map((e) => e.id).reverse());
    const times = oldestFirst.map((e) => e.created_at!);
    expect([...times].sort()).toEqual(times);
  });

  test('when the cursor, limit or customer is wrong, then 4xx', async () => {
    const made = (await ctx.client.POST('/v1/customers', { body: { name: 'x' } })).data!;
    const badCursor = await ctx.client.GET('/v1/customers/{customerId}/activity', {
      params: { path: { customerId: made.id! }, query: { starting_after_id: 'evt_not_here' } },
    });
    expectError(failed(badCursor), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${made.id}/activity?limit=0`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${made.id}/activity?limit=101`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${made.id}/activity?order=name`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/customers/cust_missing/activity'), 404, 'not_found');
  });
});

describe('list-customer-activity filters', () => {
  test('when the customer redeems a code, then the entry has the public name, group and source, and every filter narrows the list', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('filtered') } })).data!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('Activity'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } }, vouchers_count: 1 } as never,
      })
    ).data!;
    const code = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaign.id } } })).data!.vouchers![0]!.code!;
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, customer: { id: customer.id } } });
    expect(redeemed.response.status).toBe(200);
    const redemptionId = redeemed.data!.redemptions![0]!.id;

    const list = async (query: Record<string, string>) => {
      const result = await ctx.client.GET('/v1/customers/{customerId}/activity', { params: { path: { customerId: customer.id! }, query: { limit: 100, ...query } as never } });
      expect(result.response.status).toBe(200);
      return result.data!.data;
    };
    const everything = await list({});
    const redemption = everything.find((entry) => entry.type === 'customer.redemption.succeeded')!;
    expect(redemption).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'customer.redemption.succeeded',
      data: { data: expect.objectContaining({ redemption: { id: redemptionId } }), event_source: { channel: 'API', api_key: expect.objectContaining({ app_id: expect.any(String) }) } },
      created_at: expect.any(String),
      group_id: expect.any(String),
    });
    const created = everything.find((entry) => entry.type === 'customer.created')!;
    expect(created.group_id).not.toBe(redemption.group_id);

    expect((await list({ type: 'customer.redemption.succeeded' })).map((entry) => entry.id)).toEqual([redemption.id]);
    expect((await list({ campaign_id: campaign.id! })).map((entry) => entry.id)).toEqual([redemption.id]);
    expect((await list({ campaign_type: 'DISCOUNT_COUPONS' })).map((entry) => entry.id)).toEqual([redemption.id]);
    expect(await list({ campaign_type: 'GIFT_VOUCHERS' })).toEqual([]);
    const actions = (await list({ category: 'ACTION' })).map((entry) => entry.type);
    expect(actions).toEqual(expect.arrayContaining(['customer.created', 'customer.redemption.succeeded']));
    expect((await list({ category: 'EFFECT' })).every((entry) => !actions.includes(entry.type))).toBe(true);
    // From a millisecond after the creation: the redemption's own time would split its entries (the paid order's
    // comes a few milliseconds before it on a slower store, in the same one on a fast one).
    const sinceCreation = (await list({ start_date: new Date(Date.parse(created.created_at!) + 1).toISOString() })).map((entry) => entry.type);
    expect(sinceCreation).not.toContain('customer.created');
    expect(sinceCreation).toContain('customer.redemption.succeeded');
    expect((await list({ end_date: created.created_at! })).map((entry) => entry.id)).toEqual([created.id]);
  });

  test('when a filter value is not one the API names, then 400 invalid_query_params', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { name: 'x' } })).data!;
    for (const query of ['type=voucher.created', 'category=SIDE', 'campaign_type=BOGUS', 'start_date=yesterday']) {
      expectError(await raw(ctx.target, 'GET', `/v1/customers/${customer.id}/activity?${query}`), 400, 'invalid_query_params');
    }
  });
});

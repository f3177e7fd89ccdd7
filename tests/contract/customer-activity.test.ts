import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

describe('list-customer-activity', () => {
  test('when a customer is created and updated, then cursor pages list every event exactly once, in order', async () => {
    const made = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('active'), name: 'v0' } })).data!;
    for (let i = 1; i <= 12; i++) {
      await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: made.id } }, body: { name: `v${i}` } });
    }
    const collect = async (order: 'created_at' | '-created_at') => {
      const seen: { id: string; type: string; created_at: string }[] = [];
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
    expect(newestFirst.at(-1)).toMatchObject({ type: 'customer.created', object: 'customer_activity', data: { customer: { id: made.id } } });
    expect(newestFirst.slice(0, 12).every((e) => e.type === 'customer.updated')).toBe(true);
    const oldestFirst = await collect('created_at');
    expect(oldestFirst.map((e) => e.id)).toEqual(newestFirst.map((e) => e.id).reverse());
    const times = oldestFirst.map((e) => e.created_at);
    expect([...times].sort()).toEqual(times);
  });

  test('when the cursor, limit or customer is wrong, then 4xx', async () => {
    const made = (await ctx.client.POST('/v1/customers', { body: { name: 'x' } })).data!;
    const badCursor = await ctx.client.GET('/v1/customers/{customerId}/activity', {
      params: { path: { customerId: made.id }, query: { starting_after_id: 'evt_not_here' } },
    });
    expectError(failed(badCursor), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${made.id}/activity?limit=0`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${made.id}/activity?limit=101`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${made.id}/activity?order=name`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/customers/cust_missing/activity'), 404, 'not_found');
  });
});

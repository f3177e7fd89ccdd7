import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

describe('publications', () => {
  test('when codes are published until the campaign runs out, then the last free code goes and then none', async () => {
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('Publish'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 2 },
      })
    ).data!;
    const sourceId = unique('pub-customer');
    const first = await ctx.client.POST('/v1/publications', { body: { customer: { source_id: sourceId, name: 'New Person' }, campaign: { name: campaign.name }, metadata: { via: 'test' } } });
    expect(first.response.status).toBe(200);
    const customer = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })).data!;
    expect(customer.name).toBe('New Person');
    expect(first.data).toMatchObject({
      id: expect.stringMatching(/^pub_/),
      customer_id: customer.id,
      campaign_id: campaign.id,
      result: 'SUCCESS',
      metadata: { via: 'test' },
      voucher: { holder_id: customer.id, publish: { count: 1 } },
      object: 'publication',
    });
    const last = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.id } } });
    expect(last.data?.voucher_code).not.toBe(first.data?.voucher_code);
    const none = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.name } } });
    expectError(failed(none), 400, 'no_voucher_suitable_for_publication');
    const held = await ctx.client.GET('/v1/vouchers', { params: { query: { customer: sourceId, order: 'code' } } });
    expect(held.data?.vouchers?.map((v) => v.code).sort()).toEqual([first.data!.voucher_code, last.data!.voucher_code].sort());
    const summary = (await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: campaign.id } } })).data!;
    expect(summary).toMatchObject({ publications: 3, publications_succeeded: 2, publications_failed: 1 });
    const listed = await ctx.client.GET('/v1/publications', { params: { query: { campaign: campaign.name, order: 'created_at' } } });
    expect(listed.data?.publications.map((p) => p.id)).toEqual([first.data!.id, last.data!.id]);
    expect(listed.data?.total).toBe(2);
  });

  test('when a specific code is published, then the same customer may get it again but another may not', async () => {
    const code = unique('PUBCODE');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    const owner = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('owner') } })).data!;
    const other = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('other') } })).data!;
    expect((await ctx.client.POST('/v1/publications', { body: { customer: { id: owner.id }, voucher: code } })).response.status).toBe(200);
    const again = await ctx.client.POST('/v1/publications', { body: { customer: { id: owner.id }, voucher: code } });
    expect(again.data?.voucher?.publish?.count).toBe(2);
    expectError(failed(await ctx.client.POST('/v1/publications', { body: { customer: { id: other.id }, voucher: code } })), 400, 'invalid_publish_params');
    const afterOwner = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: owner.id } } })).data!;
    expect(afterOwner.summary.redemptions.gift.amount_to_go).toBe(1000);
  });

  test('when the input is incomplete or names nothing, then 4xx', async () => {
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer: { source_id: 'x' } }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ voucher: 'X' }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer: {}, voucher: 'X' }) }), 400, 'invalid_customer');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer: { id: 'cust_nope' }, voucher: 'X' }) }), 404, 'not_found');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer: { source_id: unique('c') }, campaign: { name: 'no such campaign' } }) }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/v1/publications?limit=0'), 400, 'invalid_query_params');
  });
});

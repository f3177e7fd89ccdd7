import { describe, expect, test } from '@jest/globals';
import { expectError } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

describe('qualifications', () => {
  test('when a customer holds vouchers and tiers exist, then only those that would apply are returned', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('qual') } })).data!;
    const good = unique('QGOOD');
    const expired = unique('QEXP');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: good } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } } });
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: expired } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 }, expiration_date: '2000-01-01T00:00:00.000Z' } });
    for (const code of [good, expired]) await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, voucher: code } });

    const wallet = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 2000 }, scenario: 'CUSTOMER_WALLET' } });
    expect(wallet.response.status).toBe(200);
    expect(wallet.data).toMatchObject({
      redeemables: { object: 'list', data_ref: 'data', total: 1, has_more: false, data: [{ id: good, object: 'voucher', status: 'APPLICABLE', result: { discount_amount: 300 } }] },
      order: { amount: 2000, discount_amount: 0 },
      object: 'qualification',
    });

    const promotion = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('QualPromo'), campaign_type: 'PROMOTION' } })).data!;
    const tier = (
      await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
        params: { path: { campaignId: promotion.id } },
        body: { name: 'Big orders', hierarchy: 1, action: { discount: { type: 'PERCENT', percent_off: 10 } } },
      })
    ).data!;
    const rule = (await ctx.client.POST('/v1/validation-rules', { body: { name: 'Over 100', rules: { '1': { name: 'order.amount', conditions: { $more_than: [10000] } } } } })).data!;
    await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', {
      params: { path: { validationRuleId: rule.id } },
      body: { related_object_type: 'promotion_tier', related_object_id: tier.id },
    });
    const small = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 2000 }, options: { limit: 50 } } });
    expect(small.data?.redeemables.data.map((r) => r.id)).not.toContain(tier.id);
    const big = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 20000 }, options: { limit: 50 } } });
    const ids = big.data!.redeemables.data.map((r) => r.id);
    expect(ids).toContain(tier.id);
    expect(ids).toContain(good);
    expect(ids).not.toContain(expired);
    const limited = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 20000 }, options: { limit: 1 } } });
    expect(limited.data?.redeemables).toMatchObject({ has_more: true });
    expect(limited.data?.redeemables.data).toHaveLength(1);
  });

  test('when the body is bad, then 400', async () => {
    expectError(await raw(ctx.target, 'POST', '/v1/qualifications', { body: JSON.stringify({ scenario: 'EVERYTHING' }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/qualifications', { body: JSON.stringify({ options: { limit: 51 } }) }), 400, 'invalid_payload');
  });
});

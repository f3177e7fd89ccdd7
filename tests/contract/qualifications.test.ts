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
      redeemables: { object: 'list', data_ref: 'data', total: 1, has_more: false, data: [{ id: good, object: 'voucher', created_at: expect.any(String), result: { discount_amount: 300 } }] },
      order: { amount: 2000, discount_amount: 0 },
      object: 'qualification',
    });

    const promotion = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('QualPromo'), campaign_type: 'PROMOTION' } })).data!;
    const tier = (
      await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
        params: { path: { campaignId: promotion.id! } },
        body: { name: 'Big orders', hierarchy: 1, action: { discount: { type: 'PERCENT', percent_off: 10 } } },
      })
    ).data!;
    const rule = (await ctx.client.POST('/v1/validation-rules', { body: { name: 'Over 100', rules: { '1': { name: 'order.amount', conditions: { $more_than: [10000] } } } } })).data!;
    await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', {
      params: { path: { validationRuleId: rule.id } },
      body: { related_object_type: 'promotion_tier', related_object_id: tier.id },
    });
    const small = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 2000 }, options: { limit: 50 } } });
    expect(small.data?.redeemables?.data.map((r) => r.id)).not.toContain(tier.id);
    const big = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 20000 }, options: { limit: 50 } } });
    const ids = big.data!.redeemables!.data.map((r) => r.id);
    expect(ids).toContain(tier.id);
    expect(ids).toContain(good);
    expect(ids).not.toContain(expired);
    const limited = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 20000 }, options: { limit: 1 } } });
    expect(limited.data?.redeemables).toMatchObject({ has_more: true });
    expect(limited.data?.redeemables?.data).toHaveLength(1);

    // Expanded, each tier names itself; a banner is a string where the tier has one, and absent where it has none.
    const bannered = (
      await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
        params: { path: { campaignId: promotion.id! } },
        body: { name: 'Every order', banner: 'Five off every order', hierarchy: 2, action: { discount: { type: 'AMOUNT', amount_off: 500 } } },
      })
    ).data!;
    const named = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 20000 }, options: { limit: 50, expand: ['redeemable'] } } });
    expect(named.response.status).toBe(200);
    const entries = named.data!.redeemables!.data;
    expect(entries.find((r) => r.id === bannered.id)).toMatchObject({ name: 'Every order', banner: 'Five off every order' });
    expect(entries.find((r) => r.id === tier.id)).toMatchObject({ name: 'Big orders' });
    expect(entries.find((r) => r.id === tier.id)).not.toHaveProperty('banner');
  });

  test('when the scenario is ALL, then standalone vouchers the customer may use are returned with the held ones; others are not', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('qual-all') } })).data!;
    const someone = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('qual-other') } })).data!;
    const [open, theirs, small] = [unique('QOPEN'), unique('QTHEIRS'), unique('QMIN')];
    for (const code of [open, theirs, small]) {
      await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 200 } } });
    }
    await ctx.client.POST('/v1/publications', { body: { customer: { id: someone.id }, voucher: theirs } });
    const rule = (await ctx.client.POST('/v1/validation-rules', { body: { name: unique('Over 500'), rules: { '1': { name: 'order.amount', conditions: { $more_than: [50000] } } } } })).data!;
    await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: rule.id } }, body: { related_object_type: 'voucher', related_object_id: small } });
    const filters = { resource_id: { conditions: { $in: [open, theirs, small] } } };
    const all = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 3000 }, scenario: 'ALL', options: { limit: 50, filters } } as never });
    expect(all.response.status).toBe(200);
    // The open one applies; the one published to someone else and the one whose rule the order misses do not.
    expect(all.data!.redeemables!.data.map((entry) => [entry.id, entry.result?.discount_amount])).toEqual([[open, 200]]);
    const wallet = await ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 3000 }, scenario: 'CUSTOMER_WALLET', options: { limit: 50, filters } } as never });
    expect(wallet.data!.redeemables!.data).toEqual([]);
  });

  test('when the body is bad, then 400', async () => {
    expectError(await raw(ctx.target, 'POST', '/v1/qualifications', { body: JSON.stringify({ scenario: 'EVERYTHING' }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/qualifications', { body: JSON.stringify({ options: { limit: 101 } }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/qualifications', { body: JSON.stringify({ options: { filters: { amount: { conditions: { $is: ['1'] } } } } }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/qualifications', { body: JSON.stringify({ options: { filters: { code: { conditions: { $near: ['A'] } } } } }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/qualifications', { body: JSON.stringify({ customer: { id: 'cust_nope' } }) }), 404, 'not_found');
  });

  test('when the customer is named only by details, then it is created and its tracking ID answers', async () => {
    const email = `${unique('qualifier')}@example.com`;
    const result = await ctx.client.POST('/v1/qualifications', { body: { customer: { name: 'Katherine Johnson', email }, order: { amount: 1000 }, scenario: 'CUSTOMER_WALLET' } });
    expect(result.response.status).toBe(200);
    const listed = (await ctx.client.GET('/v1/customers', { params: { query: { email } } })).data!;
    expect(listed.customers).toHaveLength(1);
    expect(listed.customers[0]).toMatchObject({ name: 'Katherine Johnson', email });
    expect(result.data?.tracking_id).toBe(`track_${Buffer.from(listed.customers[0]!.id!).toString('base64url')}`);
    const anonymous = await ctx.client.POST('/v1/qualifications', { body: { tracking_id: 'track_anon-7', order: { amount: 1000 }, scenario: 'CUSTOMER_WALLET' } });
    expect(anonymous.data?.tracking_id).toBe('track_anon-7');
  });

  test('when options filter, expand, sort and page, then the answer follows them', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('qual-opts') } })).data!;
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('Qual category'), hierarchy: 2 } })).data!;
    const codes: string[] = [];
    for (const [off, extra] of [
      [100, {}],
      [900, { category_id: category.id, metadata: { tier: 'gold' } }],
      [500, {}],
    ] as const) {
      const code = unique('QOPT');
      await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: off }, ...extra } });
      await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, voucher: code } });
      codes.push(code);
    }
    const ask = (options: Record<string, unknown>) =>
      ctx.client.POST('/v1/qualifications', { body: { customer: { id: customer.id }, order: { amount: 5000 }, scenario: 'CUSTOMER_WALLET', options } as never });

    const filtered = (await ask({ filters: { category_id: { conditions: { $in: [category.id] } } }, expand: ['redeemable', 'category'] })).data!;
    expect(filtered.redeemables!.data).toEqual([
      expect.objectContaining({ id: codes[1], name: codes[1], metadata: { tier: 'gold' }, categories: [expect.objectContaining({ id: category.id })] }),
    ]);
    const excluded = (await ask({ filters: { junction: 'AND', code: { conditions: { $is_not: [codes[0]] } }, resource_type: { conditions: { $is: ['voucher'] } } } })).data!;
    expect(excluded.redeemables!.data.map((r) => r.id)).toEqual([codes[1], codes[2]]);
    expect(excluded.redeemables!.data[0]).not.toHaveProperty('categories');
    const best = (await ask({ sorting_rule: 'BEST_DEAL', limit: 100 })).data!;
    expect(best.redeemables!.data.map((r) => r.result?.discount_amount)).toEqual([900, 500, 100]);
    const rules = (await ask({ expand: ['validation_rules'], limit: 1 })).data!;
    expect(rules.redeemables!.data[0]).toMatchObject({ validation_rules_assignments: { object: 'list', data_ref: 'data', data: [], total: 0 } });

    const first = (await ask({ limit: 2 })).data!.redeemables!;
    expect(first).toMatchObject({ total: 3, has_more: true, more_starting_after: expect.any(String) });
    const next = (await ask({ limit: 2, starting_after: first.more_starting_after })).data!.redeemables!;
    expect(next).toMatchObject({ total: 3, has_more: false });
    expect([...first.data, ...next.data].map((r) => r.id)).toEqual(codes);
    expect(next).not.toHaveProperty('more_starting_after');
  });
});

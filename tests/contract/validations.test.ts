import { afterEach, describe, expect, test } from '@jest/globals';
import { expectError } from './expect-error.js';
import { raw, skip, unique, useTarget } from './target.js';

const ctx = useTarget();

afterEach(() => ctx.target.clock?.reset());

async function discountVoucher(discount: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const code = unique('VAL');
  const result = await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount, ...extra } as never });
  expect(result.response.status).toBe(200);
  return code;
}

async function validate(body: Record<string, unknown>) {
  const result = await ctx.client.POST('/v1/validations', { body: body as never });
  expect(result.response.status).toBe(200);
  return result.data!;
}

async function assign(ruleBody: Record<string, unknown>, type: 'voucher' | 'campaign' | 'promotion_tier', id: string) {
  const rule = (await ctx.client.POST('/v1/validation-rules', { body: ruleBody as never })).data!;
  await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', {
    params: { path: { validationRuleId: rule.id } },
    body: { related_object_type: type, related_object_id: id },
  });
  return rule;
}

describe('validations', () => {
  test('when a campaign voucher is validated on an order, then the discount and totals are computed and counted', async () => {
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('ValCampaign'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } }, vouchers_count: 1 },
      })
    ).data!;
    const code = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaign.id } } })).data!.vouchers![0]!.code!;
    const result = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 12005 } });
    expect(result).toMatchObject({
      valid: true,
      redeemables: [{ status: 'APPLICABLE', id: code, object: 'voucher', result: { discount: { type: 'PERCENT', percent_off: 10 }, discount_amount: 1201 }, campaign_id: campaign.id }],
      inapplicable_redeemables: [],
      order: { amount: 12005, discount_amount: 1201, gift_amount: 0, total_amount: 10804, object: 'order' },
      tracking_id: expect.stringMatching(/^track_/),
      object: 'validation',
    });
    await validate({ redeemables: [{ object: 'voucher', id: code }, { object: 'voucher', id: 'NO-SUCH-CODE' }], order: { amount: 100 } });
    const summary = (await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: campaign.id } } })).data!;
    expect(summary).toMatchObject({ validations: 2, validations_succeeded: 1, validations_failed: 1, redemptions: 0 });
  });

  test('when redeemables stack, then each discount applies to what the previous ones left', async () => {
    const amount = await discountVoucher({ type: 'AMOUNT', amount_off: 2000 });
    const percent = await discountVoucher({ type: 'PERCENT', percent_off: 50, amount_limit: 3000 });
    const result = await validate({ redeemables: [{ object: 'voucher', id: amount }, { object: 'voucher', id: percent }], order: { amount: 10000 } });
    expect(result.redeemables.map((r) => r.result.discount_amount)).toEqual([2000, 3000]);
    expect(result.order).toMatchObject({ discount_amount: 5000, total_amount: 5000 });
  });

  test('when items are given, then the amount is their sum and item and unit discounts use them', async () => {
    const product = (await ctx.client.POST('/v1/products', { body: { source_id: unique('val-prod'), price: 1500 } })).data!;
    const unit = await discountVoucher({ type: 'UNIT', unit_off: 1, unit_type: product.id });
    const result = await validate({
      redeemables: [{ object: 'voucher', id: unit }],
      order: { items: [{ product_id: product.source_id, quantity: 2 }, { quantity: 1, price: 1000 }] },
    });
    expect(result.order).toMatchObject({ amount: 4000, discount_amount: 1500, total_amount: 2500 });
    expect(result.order.items[0]).toMatchObject({ product_id: product.id, quantity: 2, price: 1500, amount: 3000 });
  });

  test('when fixed-price and item-effect discounts meet an order with items, then each takes what its effect says', async () => {
    // Lines: 2 × 1500 = 3000 and 1 × 1000 = 1000; the order is worth 4000.
    const order = { items: [{ quantity: 2, price: 1500 }, { quantity: 1, price: 1000 }] };
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ type: 'FIXED', fixed_amount: 2500 }, 1500], // the order costs 2500
      [{ type: 'FIXED', fixed_amount: 1200, effect: 'APPLY_TO_ITEMS' }, 600], // each unit costs at most 1200: 300 × 2 + 0
      [{ type: 'AMOUNT', amount_off: 1200, effect: 'APPLY_TO_ITEMS' }, 2200], // 1200 off each line, the second worth 1000
      [{ type: 'AMOUNT', amount_off: 700, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }, 2100], // 700 off each of 3 units
      [{ type: 'AMOUNT', amount_off: 700, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }, 700], // spread once
      [{ type: 'PERCENT', percent_off: 15, effect: 'APPLY_TO_ITEMS' }, 600], // 450 + 150
    ];
    for (const [discount, expected] of cases) {
      const code = await discountVoucher(discount);
      const result = await validate({ redeemables: [{ object: 'voucher', id: code }], order });
      expect({ discount, off: result.redeemables[0]?.result.discount_amount }).toEqual({ discount, off: expected });
      expect(result.order).toMatchObject({ amount: 4000, discount_amount: expected, total_amount: 4000 - expected });
    }
    // Redeeming one records the same totals on the order.
    const code = await discountVoucher({ type: 'AMOUNT', amount_off: 700, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' });
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: order as never } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions[0]).toMatchObject({ amount: 2100, result: 'SUCCESS' });
    const stored = (await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: redeemed.data!.order.id! } } })).data!;
    expect(stored).toMatchObject({ amount: 4000, discount_amount: 2100, total_amount: 1900 });
  });

  test('when a rule rejects an order below an amount, then the voucher is inapplicable with the custom message', async () => {
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('Min spend'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } },
      })
    ).data!;
    const code = await discountVoucher({ type: 'AMOUNT', amount_off: 500 }, { campaign_id: campaign.id });
    await assign(
      { name: 'Min 50.00', rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [5000] }, error: { message: 'Spend at least 50.00' } } } },
      'voucher',
      code,
    );
    const small = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 3000 } });
    expect(small).toMatchObject({
      valid: false,
      redeemables: [],
      inapplicable_redeemables: [{ status: 'INAPPLICABLE', id: code, result: { error: { code: 400, key: 'order_rules_violated', error: { message: 'Spend at least 50.00' } } } }],
      order: { amount: 3000, discount_amount: 0, total_amount: 3000 },
    });
    const big = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 } });
    expect(big.valid).toBe(true);
    const summary = await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: campaign.id } } });
    expect(summary.data).toMatchObject({ validations: 2, validations_succeeded: 1, validations_failed: 1, redemptions: 0 });
  });

  test('when a customer rule fails, then customer_rules_violated; when one redeemable fails, the others are skipped', async () => {
    const code = await discountVoucher({ type: 'AMOUNT', amount_off: 500 });
    await assign(
      { name: 'Gold only', rules: { '1': { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } } }, error: { message: 'Gold members only' } },
      'voucher',
      code,
    );
    const silver = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('silver'), metadata: { tier: 'silver' } } })).data!;
    const other = await discountVoucher({ type: 'AMOUNT', amount_off: 100 });
    const result = await validate({ redeemables: [{ object: 'voucher', id: other }, { object: 'voucher', id: code }], order: { amount: 5000 }, customer: { source_id: silver.source_id } });
    expect(result.valid).toBe(false);
    expect(result.redeemables).toEqual([{ status: 'SKIPPED', id: other, object: 'voucher', result: {}, campaign_id: null }]);
    expect(result.inapplicable_redeemables[0]?.result.error).toMatchObject({ key: 'customer_rules_violated', error: { message: 'Gold members only' } });
    const gold = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 }, customer: { source_id: silver.source_id, metadata: { tier: 'gold' } } });
    expect(gold.valid).toBe(true);
  });

  test('when vouchers are unknown, disabled, not started or expired, then each says why', async () => {
    const disabled = await discountVoucher({ type: 'AMOUNT', amount_off: 1 }, { active: false });
    const future = await discountVoucher({ type: 'AMOUNT', amount_off: 1 }, { start_date: '2999-01-01T00:00:00.000Z' });
    const past = await discountVoucher({ type: 'AMOUNT', amount_off: 1 }, { expiration_date: '2000-01-01T00:00:00.000Z' });
    const result = await validate({
      redeemables: [
        { object: 'voucher', id: 'NO-SUCH' },
        { object: 'voucher', id: disabled },
        { object: 'voucher', id: future },
        { object: 'voucher', id: past },
        { object: 'promotion_tier', id: 'promo_nope' },
      ],
      order: { amount: 100 },
    });
    expect(result.inapplicable_redeemables.map((r) => [r.result.error?.code, r.result.error?.key])).toEqual([
      [404, 'resource_not_found'],
      [400, 'voucher_disabled'],
      [400, 'voucher_not_active'],
      [400, 'voucher_expired'],
      [404, 'resource_not_found'],
    ]);
  });

  test('when a gift card pays, then it covers at most its balance and the order, and a too-large request fails', async () => {
    const code = unique('GIFTVAL');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 5000 } } });
    const all = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 12000 } });
    expect(all.redeemables[0]?.result.gift).toEqual({ credits: 5000, balance: 5000 });
    expect(all.order).toMatchObject({ discount_amount: 0, gift_amount: 5000, total_amount: 7000 });
    const part = await validate({ redeemables: [{ object: 'voucher', id: code, gift: { credits: 2000 } }], order: { amount: 12000 } });
    expect(part.order).toMatchObject({ gift_amount: 2000, total_amount: 10000 });
    const small = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 1500 } });
    expect(small.order).toMatchObject({ gift_amount: 1500, total_amount: 0 });
    const tooMuch = await validate({ redeemables: [{ object: 'voucher', id: code, gift: { credits: 6000 } }], order: { amount: 12000 } });
    expect(tooMuch.inapplicable_redeemables[0]?.result.error?.key).toBe('gift_amount_exceeded');
  });

  test('when a promotion tier applies only on Fridays 16:00-18:00, then validation follows the clock', async () => {
    if (!ctx.target.clock) return skip('the target clock cannot be moved', ['validate-stacked-discounts']);
    const campaign = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Happy'), campaign_type: 'PROMOTION' } })).data!;
    const tier = (
      await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
        params: { path: { campaignId: campaign.id } },
        body: {
          name: 'Happy hour',
          action: { discount: { type: 'AMOUNT', amount_off: 700 } },
          validity_day_of_week: [5],
          validity_hours: { daily: [{ start_time: '16:00', expiration_time: '18:00', days_of_week: [5] }] },
        },
      })
    ).data!;
    const check = async (moment: string) => {
      ctx.target.clock!.travelTo(new Date(moment));
      return validate({ redeemables: [{ object: 'promotion_tier', id: tier.id }], order: { amount: 5000 } });
    };
    expect((await check('2026-11-27T16:30:00Z')).order.discount_amount).toBe(700); // Friday
    expect((await check('2026-11-27T18:30:00Z')).inapplicable_redeemables[0]?.result.error?.key).toBe('promotion_not_active_now');
    expect((await check('2026-11-26T16:30:00Z')).inapplicable_redeemables[0]?.result.error?.key).toBe('promotion_not_active_now'); // Thursday
    await ctx.client.POST('/v1/promotions/tiers/{promotionTierId}/disable', { params: { path: { promotionTierId: tier.id } } });
    expect((await check('2026-11-27T16:30:00Z')).inapplicable_redeemables[0]?.result.error?.key).toBe('promotion_inactive');
    const summary = await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: campaign.id } } });
    expect(summary.data).toMatchObject({ validations: 4, validations_succeeded: 1, validations_failed: 3, redemptions: 0 });
    const counted = (await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: tier.id } } })).data!;
    expect(counted.summary).toEqual({ redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } });
  });

  test.each([
    ['no redeemables', { redeemables: [] }],
    ['31 redeemables', { redeemables: Array.from({ length: 31 }, (_, i) => ({ object: 'voucher', id: `C${i}` })) }],
    ['an unknown redeemable kind', { redeemables: [{ object: 'coupon', id: 'X' }] }],
    ['a negative order amount', { redeemables: [{ object: 'voucher', id: 'X' }], order: { amount: -1 } }],
    ['a zero item quantity', { redeemables: [{ object: 'voucher', id: 'X' }], order: { items: [{ quantity: 0, price: 1 }] } }],
  ])('when the body has %s, then 400 invalid_payload', async (_, body) => {
    expectError(await raw(ctx.target, 'POST', '/v1/validations', { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });
});

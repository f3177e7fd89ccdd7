import { afterEach, describe, expect, test } from '@jest/globals';
import { expectError } from './expect-error.js';
import { because, raw, skip, unique, useTarget } from './target.js';

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
      order: { amount: 12005, discount_amount: 1201, gift_amount: 0, total_amount: 10804, object: 'order' },
      tracking_id: expect.stringMatching(/^track_/),
      object: 'validation',
    });
    // Empty lists are left out, as the public API leaves them out.
    expect(result).not.toHaveProperty('inapplicable_redeemables');
    expect(result).not.toHaveProperty('skipped_redeemables');
    await validate({ redeemables: [{ object: 'voucher', id: code }, { object: 'voucher', id: 'NO-SUCH-CODE' }], order: { amount: 100 } });
    const summary = (await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: campaign.id! } } })).data!;
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
    // A unit discount is item-level: it shows on the line and in items_discount_amount, not in discount_amount.
    expect(result.order).toMatchObject({ amount: 4000, discount_amount: 0, items_discount_amount: 1500, total_discount_amount: 1500, total_amount: 2500 });
    expect(result.order!.items![0]).toMatchObject({ product_id: product.id, quantity: 2, price: 1500, amount: 3000, discount_amount: 1500, subtotal_amount: 1500 });
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
      expect(result.order).toMatchObject({ amount: 4000, total_discount_amount: expected, total_applied_discount_amount: expected, total_amount: 4000 - expected });
      // Order-level (the fixed price of the order) or item-level (every item effect), never both.
      const itemLevel = discount.effect !== undefined;
      expect([result.order!.discount_amount, result.order!.items_discount_amount]).toEqual(itemLevel ? [0, expected] : [expected, 0]);
      if (itemLevel) expect(result.order!.items!.reduce((sum, item) => sum + (item.discount_amount ?? 0), 0)).toBe(expected);
    }
    // Redeeming one records the same totals on the order.
    const code = await discountVoucher({ type: 'AMOUNT', amount_off: 700, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' });
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: order as never } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions![0]).toMatchObject({ amount: 2100, result: 'SUCCESS' });
    const stored = (await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: redeemed.data!.order!.id! } } })).data!;
    expect(stored).toMatchObject({ amount: 4000, discount_amount: 0, items_discount_amount: 2100, total_discount_amount: 2100, total_amount: 1900 });
    expect(stored.items!.map((item) => [item.discount_amount, item.subtotal_amount])).toEqual([
      [1400, 1600],
      [700, 300],
    ]);
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
    // An invalid validation lists every redeemable with its status and reasons, and the inapplicable ones again.
    const inapplicable = { status: 'INAPPLICABLE', id: code, result: { error: { code: 400, key: 'order_rules_violated', error: { message: 'Spend at least 50.00' } } } };
    expect(small).toMatchObject({
      valid: false,
      redeemables: [inapplicable],
      inapplicable_redeemables: [{ status: 'INAPPLICABLE', id: code, result: { error: { code: 400, key: 'order_rules_violated', error: { message: 'Spend at least 50.00' } } } }],
      order: { amount: 3000, discount_amount: 0, total_amount: 3000 },
    });
    const big = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 } });
    expect(big.valid).toBe(true);
    const summary = await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: campaign.id! } } });
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
    const skipped = { status: 'SKIPPED', id: other, object: 'voucher', result: { details: { key: 'preceding_validation_failed', message: expect.any(String) } }, campaign_id: null };
    // Every redeemable is listed with its status: the one that would have applied is skipped, the other says why not.
    expect(result.redeemables).toEqual([skipped, result.inapplicable_redeemables?.[0]]);
    expect(result.redeemables.map((redeemable) => redeemable.status)).toEqual(['SKIPPED', 'INAPPLICABLE']);
    expect(result.skipped_redeemables).toEqual([skipped]);
    expect(result.inapplicable_redeemables?.[0]?.result.error).toMatchObject({ key: 'customer_rules_violated', error: { message: 'Gold members only' }, resource_id: code, resource_type: 'voucher' });
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
    expect(result.inapplicable_redeemables!.map((r) => [r.result.error?.code, r.result.error?.key])).toEqual([
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
    expect(tooMuch.inapplicable_redeemables?.[0]?.result.error?.key).toBe('gift_amount_exceeded');
  });

  test('when a promotion tier applies only on Fridays 16:00-18:00, then validation follows the clock', async () => {
    if (!ctx.target.clock) return skip(because('inProcess'), ['validate-stacked-discounts']);
    const campaign = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Happy'), campaign_type: 'PROMOTION' } })).data!;
    const tier = (
      await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
        params: { path: { campaignId: campaign.id! } },
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
    expect((await check('2026-11-27T16:30:00Z')).order?.discount_amount).toBe(700); // Friday
    expect((await check('2026-11-27T18:30:00Z')).inapplicable_redeemables?.[0]?.result.error?.key).toBe('promotion_not_active_now');
    expect((await check('2026-11-26T16:30:00Z')).inapplicable_redeemables?.[0]?.result.error?.key).toBe('promotion_not_active_now'); // Thursday
    await ctx.client.POST('/v1/promotions/tiers/{promotionTierId}/disable', { params: { path: { promotionTierId: tier.id! } } });
    expect((await check('2026-11-27T16:30:00Z')).inapplicable_redeemables?.[0]?.result.error?.key).toBe('promotion_inactive');
    const summary = await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: campaign.id! } } });
    expect(summary.data).toMatchObject({ validations: 4, validations_succeeded: 1, validations_failed: 3, redemptions: 0 });
    const counted = (await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: tier.id! } } })).data!;
    expect(counted.summary).toEqual({ redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } });
  });

  test.each([
    ['no redeemables', { redeemables: [] }],
    ['31 redeemables', { redeemables: Array.from({ length: 31 }, (_, i) => ({ object: 'voucher', id: `C${i}` })) }],
    ['an unknown redeemable kind', { redeemables: [{ object: 'coupon', id: 'X' }] }],
    ['a negative order amount', { redeemables: [{ object: 'voucher', id: 'X' }], order: { amount: -1 } }],
    ['a negative item quantity', { redeemables: [{ object: 'voucher', id: 'X' }], order: { items: [{ quantity: -1, price: 1 }] } }],
    ['a promotion stack with a non-string ID', { redeemables: [{ object: 'promotion_stack', id: 7 }] }],
  ])('when the body has %s, then 400 invalid_payload', async (_, body) => {
    expectError(await raw(ctx.target, 'POST', '/v1/validations', { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });
});

describe('validations: stacking rules, sessions and options', () => {
  test('when a validation is answered, then it carries the stacking rules the engine applies', async () => {
    const code = await discountVoucher({ type: 'AMOUNT', amount_off: 100 });
    const result = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 } });
    expect(result.stacking_rules).toEqual({
      redeemables_limit: 30,
      applicable_redeemables_limit: 5,
      applicable_redeemables_per_category_limit: 1,
      applicable_redeemables_category_limits: {},
      applicable_exclusive_redeemables_limit: 1,
      applicable_exclusive_redeemables_per_category_limit: 1,
      exclusive_categories: [],
      joint_categories: [],
      redeemables_application_mode: 'ALL',
      redeemables_sorting_rule: 'REQUESTED_ORDER',
      redeemables_products_application_mode: 'STACK',
      redeemables_no_effect_rule: 'REDEEM_ANYWAY',
      no_effect_skip_categories: [],
      no_effect_redeem_anyway_categories: [],
      redeemables_rollback_order_mode: 'WITHOUT_ORDER',
    });
  });

  test('when more than five redeemables apply, then the sixth is skipped and not applied; a redemption leaves it unredeemed', async () => {
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(await discountVoucher({ type: 'AMOUNT', amount_off: 100 }));
    const body = { redeemables: codes.map((id) => ({ object: 'voucher', id })), order: { amount: 10000 } };
    const result = await validate(body);
    expect(result.valid).toBe(true);
    expect(result.redeemables.map((r) => r.status)).toEqual(['APPLICABLE', 'APPLICABLE', 'APPLICABLE', 'APPLICABLE', 'APPLICABLE', 'SKIPPED']);
    expect(result.skipped_redeemables).toEqual([expect.objectContaining({ id: codes[5], status: 'SKIPPED', result: { details: expect.objectContaining({ key: 'applicable_redeemables_limit_exceeded' }) } })]);
    expect(result.order).toMatchObject({ discount_amount: 500, total_amount: 9500 });

    const redeemed = await ctx.client.POST('/v1/redemptions', { body: body as never });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions!.map((r) => r.voucher?.code)).toEqual(codes.slice(0, 5));
    expect(redeemed.data!.skipped_redeemables).toEqual([expect.objectContaining({ id: codes[5], status: 'SKIPPED' })]);
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: codes[5]! } } })).data?.redemption?.redeemed_quantity).toBe(0);
  });

  test('when two redeemables of one category apply, then only the first does; expanded verdicts name them and their category', async () => {
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('Stacking'), hierarchy: 1 } })).data!;
    const first = await discountVoucher({ type: 'AMOUNT', amount_off: 300 }, { category_id: category.id, metadata: { channel: 'web' } });
    const second = await discountVoucher({ type: 'AMOUNT', amount_off: 200 }, { category_id: category.id });
    const plain = await discountVoucher({ type: 'AMOUNT', amount_off: 100 });
    const result = await validate({
      redeemables: [first, second, plain].map((id) => ({ object: 'voucher', id })),
      order: { amount: 5000 },
      options: { expand: ['redeemable', 'category'] },
    });
    expect(result.redeemables.map((r) => [r.id, r.status])).toEqual([
      [first, 'APPLICABLE'],
      [second, 'SKIPPED'],
      [plain, 'APPLICABLE'],
    ]);
    expect(result.redeemables[1]?.result.details?.key).toBe('applicable_redeemables_per_category_limit_exceeded');
    expect(result.redeemables[0]).toMatchObject({ name: first, metadata: { channel: 'web' }, categories: [{ id: category.id, name: category.name, object: 'category' }] });
    expect(result.redeemables[2]?.categories).toEqual([]);
    expect(result.order).toMatchObject({ discount_amount: 400, total_amount: 4600 });
    const bare = await validate({ redeemables: [{ object: 'voucher', id: plain }], order: { amount: 5000 } });
    expect(bare.redeemables[0]).not.toHaveProperty('categories');
    expect(bare.redeemables[0]).not.toHaveProperty('name');
  });

  test('when a session is given, then it is echoed with defaults, recorded on the redemption, and options are accepted', async () => {
    const code = await discountVoucher({ type: 'AMOUNT', amount_off: 100 });
    const locked = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, session: { type: 'LOCK' } });
    expect(locked.session).toEqual({ key: expect.stringMatching(/^ssn_/), type: 'LOCK', ttl: 7, ttl_unit: 'DAYS' });
    const named = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, session: { key: 'ssn_till-4', type: 'LOCK', ttl: 2, ttl_unit: 'HOURS' } });
    expect(named.session).toEqual({ key: 'ssn_till-4', type: 'LOCK', ttl: 2, ttl_unit: 'HOURS' });
    expect(await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 } })).not.toHaveProperty('session');
    const redeemed = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, session: { key: 'ssn_till-4' }, options: { expand: ['order', 'redemption'] } },
    });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions![0]).toMatchObject({ session: { key: 'ssn_till-4' } });
    expect(redeemed.data!.parent_redemption).toMatchObject({ session: { key: 'ssn_till-4' } });
  });

  test('when customer, order and metadata are explicitly null, then they mean none', async () => {
    const code = await discountVoucher({ type: 'AMOUNT', amount_off: 100 });
    const result = await validate({ redeemables: [{ object: 'voucher', id: code }], customer: null, order: null, metadata: null });
    expect(result).toMatchObject({ valid: true, order: { amount: 0, total_amount: 0, items: [] } });
    expect(result.order).not.toHaveProperty('customer_id');
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], customer: null, order: { amount: 500, metadata: null }, metadata: null } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions![0]).toMatchObject({ customer: null, customer_id: null, metadata: {}, amount: 100 });
  });

  test('when a promotion stack is named, then it is inapplicable: this service has none', async () => {
    const result = await validate({ redeemables: [{ object: 'promotion_stack', id: 'stack_1' }] });
    expect(result.valid).toBe(false);
    expect(result.inapplicable_redeemables).toEqual([
      expect.objectContaining({ id: 'stack_1', object: 'promotion_stack', status: 'INAPPLICABLE', result: { error: expect.objectContaining({ code: 404, key: 'resource_not_found' }) } }),
    ]);
  });
});

describe('validations: unit discounts', () => {
  async function pricedProduct(price: number) {
    return (await ctx.client.POST('/v1/products', { body: { source_id: unique('unit-prod'), name: unique('Unit product'), price } })).data!;
  }

  test('when ADD_MISSING_ITEMS meets an order short of units, then the missing units are added for free and the present ones made free', async () => {
    const product = await pricedProduct(800);
    const code = await discountVoucher({ type: 'UNIT', unit_off: 3, unit_type: product.id, effect: 'ADD_MISSING_ITEMS' });
    const result = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { items: [{ product_id: product.id, quantity: 1 }, { quantity: 1, price: 1000 }] } });
    expect(result.redeemables[0]?.result.discount_amount).toBe(2400);
    // The order grows by the two added units (1600) and the discount takes all three back.
    expect(result.order).toMatchObject({ initial_amount: 1800, amount: 3400, items_discount_amount: 2400, total_amount: 1000 });
    expect(result.order!.items![0]).toMatchObject({
      product_id: product.id,
      initial_quantity: 1,
      quantity: 3,
      discount_quantity: 3,
      applied_quantity: 2,
      applied_quantity_amount: 1600,
      initial_amount: 800,
      amount: 2400,
      discount_amount: 2400,
      subtotal_amount: 0,
      application_details: [{ source_index: 0, target_index: 0, target_applied_quantity: 2, target_applied_quantity_amount: 1600, target_applied_discount_amount: 2400 }],
    });

    // With enough units already there, nothing is added: the units are taken off the order.
    const enough = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { items: [{ product_id: product.id, quantity: 4 }] } });
    expect(enough.order).toMatchObject({ amount: 3200, items_discount_amount: 2400, total_amount: 800 });
    expect(enough.order!.items![0]).toMatchObject({ quantity: 4, discount_quantity: 3, discount_amount: 2400 });
    expect(enough.order!.items![0]).not.toHaveProperty('applied_quantity');
  });

  test('when ADD_NEW_ITEMS names a product the order lacks, then a free line is added and a redemption stores it', async () => {
    const product = await pricedProduct(500);
    const code = await discountVoucher({ type: 'UNIT', unit_off: 2, unit_type: product.id, effect: 'ADD_NEW_ITEMS' });
    const body = { redeemables: [{ object: 'voucher', id: code }], order: { items: [{ quantity: 1, price: 3000 }] } };
    const result = await validate(body);
    expect(result.order).toMatchObject({ initial_amount: 3000, amount: 4000, items_discount_amount: 1000, total_amount: 3000 });
    expect(result.order!.items).toHaveLength(2);
    expect(result.order!.items![1]).toMatchObject({ product_id: product.id, related_object: 'product', quantity: 2, initial_quantity: 0, price: 500, amount: 1000, discount_amount: 1000 });

    const redeemed = await ctx.client.POST('/v1/redemptions', { body: body as never });
    expect(redeemed.response.status).toBe(200);
    const stored = (await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: redeemed.data!.order!.id! } } })).data!;
    expect(stored).toMatchObject({ amount: 4000, initial_amount: 3000, items_discount_amount: 1000, total_amount: 3000 });
    expect(stored.items![1]).toMatchObject({ id: expect.stringMatching(/^ordli_/), product_id: product.id, quantity: 2, discount_quantity: 2, discount_amount: 1000 });
  });

  test('when ADD_MANY_ITEMS gives several products, each with its own effect, then every one is computed', async () => {
    const shirt = await pricedProduct(2000);
    const socks = await pricedProduct(300);
    const discount = {
      type: 'UNIT',
      effect: 'ADD_MANY_ITEMS',
      units: [
        { unit_off: 1, unit_type: shirt.id, effect: 'ADD_MISSING_ITEMS', product: { id: shirt.id, name: shirt.name } },
        { unit_off: 2, unit_type: socks.id, effect: 'ADD_NEW_ITEMS', product: { id: socks.id, name: socks.name } },
      ],
    };
    const code = unique('MANY');
    const created = await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount } as never });
    const kept = created.data?.discount as { units?: unknown[] } | null | undefined;
    if (created.response.status !== 200 || !kept?.units) {
      return skip('the Discount schema does not take ADD_MANY_ITEMS with units yet (the voucher area adds them)', ['validate-stacked-discounts']);
    }
    const result = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { items: [{ product_id: shirt.id, quantity: 1 }] } });
    expect(result.redeemables[0]?.result.discount_amount).toBe(2600);
    expect(result.order).toMatchObject({ initial_amount: 2000, amount: 2600, items_discount_amount: 2600, total_amount: 0 });
  });
});

/**
 * What real clients send to the voucher operations: defaults they leave out, server-owned fields they send
 * back, explicit nulls, validation rules assigned at creation, whole vouchers PUT back, multi-unit
 * discounts, and the fields of a balance change.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function create(code: string, body: Record<string, unknown>) {
  const result = await raw(ctx.target, 'POST', `/v1/vouchers/${encodeURIComponent(code)}`, { body: JSON.stringify(body) });
  expect({ status: result.status, body: result.body }).toEqual({ status: 200, body: expect.anything() });
  return result.body as Record<string, any>;
}

async function read(code: string) {
  const result = await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } });
  expect(result.response.status).toBe(200);
  return result.data!;
}

async function rule(name = unique('Rule')) {
  const result = await ctx.client.POST('/v1/validation-rules', {
    body: { name, rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [1000] } }, logic: '1' } } as never,
  });
  expect(result.response.status).toBe(200);
  return result.data!;
}

describe('defaults and server-owned fields', () => {
  test('when a standalone voucher has no type, then it is a DISCOUNT_VOUCHER; a lone gift or card tells its own type', async () => {
    const discount = await create(unique('NOTYPE'), { discount: { type: 'AMOUNT', amount_off: 700 } });
    expect(discount).toMatchObject({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 700 }, gift: null, loyalty_card: null });
    const gift = await create(unique('NOTYPE-GIFT'), { gift: { amount: 1200 } });
    expect(gift).toMatchObject({ type: 'GIFT_VOUCHER', gift: { amount: 1200, balance: 1200 }, discount: null });
    const card = await create(unique('NOTYPE-CARD'), { loyalty_card: { points: 30 } });
    expect(card).toMatchObject({ type: 'LOYALTY_CARD', loyalty_card: { points: 30, balance: 30 } });
    // Neither a discount nor anything else: a discount voucher without its discount.
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${unique('NOTYPE-NONE')}`, { body: '{"metadata":{"a":1}}' }), 400, 'invalid_voucher');
  });

  test('when a gift or loyalty card is sent with its own balance and counters, then they are ignored and the balance follows the amount', async () => {
    const giftCode = unique('OWNED-GIFT');
    const gift = await create(giftCode, { type: 'GIFT_VOUCHER', gift: { amount: 4000, balance: 999999, subtracted_amount: 12, effect: 'APPLY_TO_ITEMS' } });
    expect(gift.gift).toEqual({ amount: 4000, subtracted_amount: 0, balance: 4000, effect: 'APPLY_TO_ITEMS' });
    const cardCode = unique('OWNED-CARD');
    const card = await create(cardCode, {
      type: 'LOYALTY_CARD',
      loyalty_card: { points: 150, balance: 7, next_expiration_date: '2030-01-01', next_expiration_points: 5, pending_points: 9, expired_points: 3, subtracted_points: 2 },
      redemption: { quantity: null, redeemed_quantity: 40, redeemed_points: 40 },
    });
    expect(card.loyalty_card).toEqual({ points: 150, balance: 150, next_expiration_date: null, next_expiration_points: null });
    expect(card.redemption).toMatchObject({ quantity: null, redeemed_quantity: 0, redeemed_points: 0 });
    expect((await read(cardCode)).loyalty_card).toEqual(card.loyalty_card);
    // A fraction of the smallest unit has no meaning in money ×100: it is rounded.
    expect((await create(unique('FRACTION'), { type: 'GIFT_VOUCHER', gift: { amount: 1234.6 } })).gift).toMatchObject({ amount: 1235, balance: 1235 });
  });

  test('when a voucher leaves out validity hours, holder and categories, or sends partial validity settings, then it is made and reads back', async () => {
    const code = unique('PARTIAL');
    const made = await create(code, {
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 12.5 },
      start_date: '2026-01-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1W' },
      validity_hours: { daily: [{ start_time: '09:00', days_of_week: [1, 2] }, { expiration_time: '06:00' }] },
    });
    expect(made).toMatchObject({
      holder_id: null,
      categories: [],
      validity_timeframe: { interval: 'P1W' },
      validity_hours: { daily: [{ start_time: '09:00', days_of_week: [1, 2] }, { expiration_time: '06:00' }] },
      discount: { type: 'PERCENT', percent_off: 12.5 },
    });
    expect(await read(code)).toEqual(made);
  });
});

describe('explicit nulls', () => {
  test('when a voucher is created with nulls where a client means none, then they mean none', async () => {
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('NullCat'), hierarchy: 2 } })).data!;
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: {
          name: unique('NullCampaign'),
          campaign_type: 'DISCOUNT_COUPONS',
          category_id: category.id,
          start_date: '2026-01-01T00:00:00.000Z',
          voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 3 } },
        },
      })
    ).data!;
    const standalone = await create(unique('NULLS'), {
      type: null,
      campaign: null,
      campaign_id: null,
      category: null,
      discount: { type: 'AMOUNT', amount_off: 100 },
      gift: null,
      loyalty_card: null,
      start_date: null,
      expiration_date: null,
      validity_timeframe: null,
      validity_day_of_week: null,
      validity_hours: null,
      active: null,
      additional_info: null,
      metadata: null,
      redemption: null,
      validation_rules: null,
    });
    expect(standalone).toMatchObject({ type: 'DISCOUNT_VOUCHER', campaign_id: null, category_id: null, active: true, metadata: {}, redemption: { quantity: null } });
    const joined = await create(unique('NULLS-JOIN'), { campaign_id: campaign.id, category: null, start_date: null, metadata: null, redemption: null });
    // Null means none, not even the campaign's; a null redemption is as if left out (the template's limit).
    expect(joined).toMatchObject({ campaign_id: campaign.id, category_id: null, categories: [], start_date: null, metadata: {}, redemption: { quantity: 3 } });
  });

  test('when a voucher is updated with nulls, then fields that can be empty are cleared and the others kept', async () => {
    const code = unique('NULL-UPD');
    await create(code, {
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 300 },
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2027-01-01T00:00:00.000Z',
      additional_info: 'note',
      metadata: { keep: true },
      redemption: { quantity: 4 },
    });
    const result = await raw(ctx.target, 'PUT', `/v1/vouchers/${code}`, {
      body: JSON.stringify({ type: null, discount: null, active: null, metadata: null, redemption: null, start_date: null, expiration_date: null, additional_info: null, category: null }),
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 300 },
      active: true,
      metadata: { keep: true },
      redemption: { quantity: 4 },
      start_date: null,
      additional_info: null,
      category_id: null,
    });
    // A cleared expiration date leaves the key out, as the public API does (update-voucher's description).
    expect(result.body).not.toHaveProperty('expiration_date');
    expect(await read(code)).toEqual(result.body);
    const cleared = await raw(ctx.target, 'PUT', `/v1/vouchers/${code}`, { body: JSON.stringify({ redemption: { quantity: null } }) });
    expect((cleared.body as { redemption: unknown }).redemption).toMatchObject({ quantity: null });
    expectError(await raw(ctx.target, 'PUT', `/v1/vouchers/${code}`, { body: '{"type":"GIFT_VOUCHER"}' }), 400, 'invalid_voucher');
  });
});

describe('a whole voucher sent back', () => {
  test.each([
    ['discount voucher', { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 900 }, start_date: '2026-01-01T00:00:00.000Z', validity_timeframe: { interval: 'P1D', duration: 'PT2H' }, metadata: { a: 1 } }],
    ['gift card', { type: 'GIFT_VOUCHER', gift: { amount: 2500 }, validity_day_of_week: [1, 5], additional_info: 'front desk' }],
    ['loyalty card', { type: 'LOYALTY_CARD', loyalty_card: { points: 40 }, validity_hours: { daily: [{ start_time: '08:00', expiration_time: '20:00', days_of_week: [1] }] } }],
  ])('when a %s as GET returns it is PUT back, then only updated_at changes', async (_, body) => {
    const code = unique('ROUNDTRIP');
    await create(code, body);
    const before = await read(code);
    const put = await raw(ctx.target, 'PUT', `/v1/vouchers/${code}`, { body: JSON.stringify(before) });
    expect(put.status).toBe(200);
    const after = await read(code);
    expect(after).toEqual({ ...before, updated_at: expect.any(String) });
    expect(after.updated_at).not.toBeNull();
  });
});

describe('validation rules at creation', () => {
  test('when a voucher is created with validation_rules, then they are assigned as an assignment would, and listed on the voucher', async () => {
    const first = await rule();
    const second = await rule();
    const code = unique('RULED');
    const made = await create(code, { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, validation_rules: [first.id, second.id, first.id] });
    expect(made.validation_rules_assignments).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [
        expect.objectContaining({ rule_id: first.id, related_object_id: made.id, related_object_type: 'voucher', object: 'validation_rules_assignment' }),
        expect.objectContaining({ rule_id: second.id, related_object_id: made.id, related_object_type: 'voucher', object: 'validation_rules_assignment' }),
      ],
      total: 2,
    });
    expect((await read(code)).validation_rules_assignments).toEqual(made.validation_rules_assignments);
    const assignments = await ctx.client.GET('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: first.id } } });
    expect(assignments.data?.data?.map((each) => each.related_object_id)).toEqual([made.id]);
    // The assignment can be taken away like any other, and the voucher shows it.
    const assignmentId = made.validation_rules_assignments.data[0].id as string;
    await ctx.client.DELETE('/v1/validation-rules/{validationRuleId}/assignments/{assignmentId}', { params: { path: { validationRuleId: first.id, assignmentId } } });
    expect((await read(code)).validation_rules_assignments?.total).toBe(1);
  });

  test('when a rule is unknown, then 404 and no voucher is made', async () => {
    const code = unique('RULED-BAD');
    const result = await raw(ctx.target, 'POST', `/v1/vouchers/${code}`, {
      body: JSON.stringify({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, validation_rules: ['val_missing'] }),
    });
    expectError(result, 404, 'not_found');
    expectError(failed(await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })), 404, 'not_found');
  });
});

describe('unit discounts', () => {
  test('when a voucher gives units of several products (ADD_MANY_ITEMS), then it is made and reads back as sent', async () => {
    const code = unique('UNITS');
    const discount = {
      type: 'UNIT',
      effect: 'ADD_MANY_ITEMS',
      units: [
        { unit_off: 1, unit_type: 'prod_0a9f9aeddb019a42db', effect: 'ADD_MISSING_ITEMS', product: { id: 'prod_0a9f9aeddb019a42db', name: 'Beans' } },
        { unit_off: 2, unit_type: 'sku_0b7d7dfb05cbe5c616', effect: 'ADD_NEW_ITEMS' },
      ],
    };
    const made = await create(code, { type: 'DISCOUNT_VOUCHER', discount });
    expect(made.discount).toEqual(discount);
    expect((await read(code)).discount).toEqual(discount);
    const single = await create(unique('UNIT'), { discount: { type: 'UNIT', unit_off: 1, unit_type: 'prod_0a9f9aeddb019a42db', effect: 'ADD_SAME_ITEMS' } });
    expect(single.discount).toEqual({ type: 'UNIT', unit_off: 1, unit_type: 'prod_0a9f9aeddb019a42db', effect: 'ADD_SAME_ITEMS' });
    const bad = { type: 'DISCOUNT_VOUCHER', discount: { type: 'UNIT', effect: 'ADD_MANY_ITEMS', units: [{ unit_off: 1 }] } };
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${unique('UNITS-BAD')}`, { body: JSON.stringify(bad) }), 400, 'invalid_payload');
  });
});

describe('balance changes', () => {
  test('when a gift card balance changes with a reason and source_id, then they are accepted and the response is a MANUAL change', async () => {
    const code = unique('BAL-GIFT');
    await create(code, { type: 'GIFT_VOUCHER', gift: { amount: 1000 } });
    const added = await ctx.client.POST('/v1/vouchers/{code}/balance', {
      params: { path: { code } },
      body: { amount: 500, reason: 'Goodwill', source_id: unique('adjust') },
    });
    expect(added.data).toEqual({
      amount: 500,
      total: 1500,
      balance: 1500,
      type: 'gift_voucher',
      operation_type: 'MANUAL',
      object: 'balance',
      related_object: { type: 'voucher', id: expect.stringMatching(/^v_/) },
    });
    await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code } }, body: { amount: -300, reason: null, source_id: null } });
    expect((await read(code)).gift).toEqual({ amount: 1500, subtracted_amount: 300, balance: 1200, effect: 'APPLY_TO_ORDER' });
  });

  test('when a loyalty card takes amount, reason and source_id, then the points move and the transaction keeps the reason and source_id; expiry settings are ignored', async () => {
    const code = unique('BAL-CARD');
    await create(code, { type: 'LOYALTY_CARD', loyalty_card: { points: 10 } });
    const sourceId = unique('manual');
    const added = await ctx.client.POST('/v1/vouchers/{code}/balance', {
      params: { path: { code } },
      body: { amount: 25, reason: 'Welcome bonus', source_id: sourceId, expiration_type: 'NON_EXPIRING', expiration_date: '2030-01-01T00:00:00.000Z' },
    });
    expect(added.data).toMatchObject({ amount: 25, total: 35, balance: 35, type: 'loyalty_card', operation_type: 'MANUAL', object: 'balance' });
    expect((await read(code)).loyalty_card).toMatchObject({ points: 35, balance: 35, next_expiration_date: null });
    const transactions = await ctx.client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: code } } });
    expect(transactions.data?.data?.[0]).toMatchObject({ reason: 'Welcome bonus', source_id: sourceId, type: 'POINTS_ADDITION' });
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${code}/balance`, { body: '{"amount":1,"expiration_type":"SOMEDAY"}' }), 400, 'invalid_payload');
  });
});

import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

const minimumAmount = {
  name: 'Orders of 50.00 and more',
  rules: { '1': { name: 'order.amount' as const, conditions: { $more_than_or_equal: [5000] } }, logic: '1' },
  error: { message: 'Spend at least 50.00' },
};

async function rule(body: Record<string, unknown> = minimumAmount) {
  const result = await ctx.client.POST('/v1/validation-rules', { body: body as never });
  expect(result.response.status).toBe(200);
  return result.data!;
}

async function voucher() {
  const code = unique('VR');
  await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
  return code;
}

const EMPTY_APPLICABLE_TO = { excluded: [], included: [], included_all: false };

/** A rule that nests a set under rule 1 and has a fact with `property: null`, in the inventory's shape. */
const nested = {
  name: 'Big orders with two items, or members',
  type: 'expression',
  context_type: 'campaign.promotion.discount.apply_to_order',
  rules: {
    '1': {
      name: 'order.amount',
      property: null,
      conditions: { $more_than_or_equal: [5000] },
      error: { message: 'Spend at least 50.00' },
      rules: {
        '1': { name: 'order.items.count', property: null, conditions: { $more_than_or_equal: [2] }, error: { message: 'Buy two items' } },
        '2': { name: 'order.metadata', property: 'channel', conditions: { $in: ['store'] } },
        logic: '1 or 2',
      },
    },
    logic: '1',
  },
  error: { message: 'Not for this order' },
  applicable_to: {
    excluded: [{ object: 'sku', id: 'sku_0a1b2c3d4e5f6a7b8c', effect: 'APPLY_TO_EVERY' }],
    included: [{ object: 'product', id: 'prod_0b2c4d6e8f1a3c5e7a', source_id: 'beans', effect: 'APPLY_TO_CHEAPEST', quantity_limit: 2, target: 'UNIT' }],
    included_all: false,
  },
  bundle_rules: { limit: 2 },
};

async function validateWith(ruleBody: Record<string, unknown>, order: Record<string, unknown>) {
  const made = await rule(ruleBody);
  const code = await voucher();
  await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', {
    params: { path: { validationRuleId: made.id } },
    body: { related_object_type: 'voucher', related_object_id: code },
  });
  const result = await raw(ctx.target, 'POST', '/v1/validations', { body: JSON.stringify({ redeemables: [{ object: 'voucher', id: code }], order }) });
  expect(result.status).toBe(200);
  const body = result.body as { valid: boolean; inapplicable_redeemables?: { result: { error?: { key: string; error?: { message: string } } } }[] };
  return { valid: body.valid, error: body.inapplicable_redeemables?.[0]?.result.error };
}

describe('validation rules', () => {
  test('when created, read, updated and deleted, then each step shows', async () => {
    const made = await rule();
    expect(made).toEqual({
      id: expect.stringMatching(/^val_/),
      ...minimumAmount,
      applicable_to: EMPTY_APPLICABLE_TO,
      type: 'expression',
      context_type: 'global',
      created_at: expect.any(String),
      updated_at: null,
      assignments_count: 0,
      object: 'validation_rules',
    });
    const path = { validationRuleId: made.id };
    expect((await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path } })).data).toEqual(made);
    const updated = await ctx.client.PUT('/v1/validation-rules/{validationRuleId}', {
      params: { path },
      body: {
        name: 'Complex',
        error: null,
        rules: {
          '1': { name: 'order.amount', conditions: { $more_than: [100] } },
          '2': { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] }, error: { message: 'Gold only' } },
          '3': { name: 'order.items.count', conditions: { $more_than_or_equal: [3] } },
          logic: '(1 AND 2) or 3',
        },
      },
    });
    expect(updated.data).toMatchObject({ name: 'Complex', error: null, updated_at: expect.any(String) });
    const list = await ctx.client.GET('/v1/validation-rules', { params: { query: { order: '-created_at', limit: 1 } } });
    expect(list.data?.data[0]?.id).toBe(made.id);
    expect((await ctx.client.DELETE('/v1/validation-rules/{validationRuleId}', { params: { path } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path } })), 404, 'not_found');
  });

  test('when a rule nests rules, has property null, applicable_to, a context and bundle limit, then it is stored and returned as sent', async () => {
    const made = await rule(nested);
    expect(made).toEqual({
      id: expect.stringMatching(/^val_/),
      ...nested,
      created_at: expect.any(String),
      updated_at: null,
      assignments_count: 0,
      object: 'validation_rules',
    });
    expect((await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path: { validationRuleId: made.id } } })).data).toEqual(made);
    const listed = await ctx.client.GET('/v1/validation-rules', { params: { query: { start_date: made.created_at, end_date: made.created_at, limit: 100 } } });
    expect(listed.data?.data).toContainEqual(made);
  });

  test('when a whole rule as GET returns it is PUT back, then it is accepted and only updated_at changes', async () => {
    const made = await rule(nested);
    const path = { validationRuleId: made.id };
    const code = await voucher();
    await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path }, body: { voucher: code } });
    const before = (await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path } })).data!;
    const put = await raw(ctx.target, 'PUT', `/v1/validation-rules/${made.id}`, { body: JSON.stringify(before) });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...before, updated_at: expect.any(String) });
    expect((put.body as { updated_at: string }).updated_at).not.toBe(before.updated_at);
    expect((await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path } })).data).toEqual(put.body);
  });

  test('when an update sends null, then rules, error, applicable_to and bundle_rules are cleared', async () => {
    const made = await rule(nested);
    const updated = await ctx.client.PUT('/v1/validation-rules/{validationRuleId}', {
      params: { path: { validationRuleId: made.id } },
      body: { rules: null, error: null, applicable_to: null, bundle_rules: null },
    });
    expect(updated.response.status).toBe(200);
    const { bundle_rules: _gone, ...kept } = made;
    expect(updated.data).toEqual({ ...kept, rules: {}, error: null, applicable_to: EMPTY_APPLICABLE_TO, updated_at: expect.any(String) });
  });

  test('when a rule is created without rules, then its set is empty and validation passes it', async () => {
    const made = await rule({ name: 'Only narrows the discount', applicable_to: nested.applicable_to });
    expect(made).toMatchObject({ rules: {}, error: null, applicable_to: nested.applicable_to });
    expect(await validateWith({ name: 'Empty set', rules: { logic: '' } }, { amount: 100 })).toEqual({ valid: true, error: undefined });
  });

  test('when nested rules are assigned, then validation fails on the outer conditions with their message', async () => {
    const failing = await validateWith(nested, { amount: 4000, items: [{ product_id: 'prod_x', quantity: 1, price: 2000 }, { product_id: 'prod_y', quantity: 1, price: 2000 }] });
    expect(failing).toEqual({ valid: false, error: expect.objectContaining({ key: 'order_rules_violated', error: { message: 'Spend at least 50.00' } }) });
    const passing = await validateWith(nested, { amount: 6000, items: [{ product_id: 'prod_x', quantity: 1, price: 3000 }, { product_id: 'prod_y', quantity: 1, price: 3000 }] });
    expect(passing).toEqual({ valid: true, error: undefined });
  });

  test('when the outer conditions hold but the nested set does not, then validation fails with the nested message', async () => {
    const result = await validateWith(nested, { amount: 6000, items: [{ product_id: 'prod_x', quantity: 1, price: 6000 }], metadata: { channel: 'web' } });
    expect(result).toEqual({ valid: false, error: expect.objectContaining({ key: 'order_rules_violated', error: { message: 'Buy two items' } }) });
  });

  test('when a rule names a fact the server cannot evaluate, then it is stored, and validation fails on it rather than passing', async () => {
    const unknown = { name: 'customer.segment', property: null, conditions: { $is: ['seg_1a2b3c4d5e6f7a8b9c'] } };
    const made = await rule({ name: 'Segment members', rules: { '1': unknown } });
    expect(made.rules).toEqual({ '1': unknown });
    const alone = await validateWith({ name: 'Segment', rules: { '1': unknown } }, { amount: 100 });
    expect(alone).toEqual({ valid: false, error: expect.objectContaining({ key: 'customer_rules_violated' }) });
    // Logic can still route around it: the known branch decides.
    const either = { '1': unknown, '2': { name: 'order.amount', conditions: { $more_than: [50] } }, logic: '1 or 2' };
    expect(await validateWith({ name: 'Segment or amount', rules: either }, { amount: 100 })).toEqual({ valid: true, error: undefined });
  });

  test('when a list operator gives one value alone, then the rule is stored as sent and validation reads a list of that one value', async () => {
    const channel = { name: 'order.metadata', property: 'channel', conditions: { $in: 'store' } };
    const amount = { name: 'order.amount', conditions: { $not_in: 100 } };
    const made = await rule({ name: 'Store orders', rules: { '1': channel, '2': amount } });
    expect(made.rules).toEqual({ '1': channel, '2': amount });
    const stored = await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path: { validationRuleId: made.id } } });
    expect(stored.data?.rules).toEqual({ '1': channel, '2': amount });
    const body = { name: 'Store orders', rules: { '1': channel, '2': amount } };
    expect(await validateWith(body, { amount: 2000, metadata: { channel: 'store' } })).toEqual({ valid: true, error: undefined });
    expect(await validateWith(body, { amount: 2000, metadata: { channel: 'web' } })).toEqual({ valid: false, error: expect.objectContaining({ key: 'order_rules_violated' }) });
    expect(await validateWith(body, { amount: 100, metadata: { channel: 'store' } })).toEqual({ valid: false, error: expect.objectContaining({ key: 'order_rules_violated' }) });
  });

  test('when a list operator names a collection alone, then validation reads it as a list of one', async () => {
    const beans = (await ctx.client.POST('/v1/products', { body: { name: unique('Beans'), price: 1000 } })).data!;
    const tea = (await ctx.client.POST('/v1/products', { body: { name: unique('Tea'), price: 1000 } })).data!;
    const collection = (await ctx.client.POST('/v1/product-collections', { body: { name: unique('Beans'), type: 'STATIC', products: [{ id: beans.id, object: 'product' }] } })).data!;
    const body = { name: 'Beans only', rules: { '1': { name: 'collection.id', conditions: { $in: collection.id } } } };
    expect(await validateWith(body, { amount: 1000, items: [{ product_id: beans.id, quantity: 1, price: 1000 }] })).toEqual({ valid: true, error: undefined });
    expect(await validateWith(body, { amount: 1000, items: [{ product_id: tea.id, quantity: 1, price: 1000 }] })).toMatchObject({ valid: false });
  });

  test('when bundle rules give only their logic and limit, then they are stored and returned as sent', async () => {
    const made = await rule({ ...minimumAmount, bundle_rules: { logic: '', limit: 3 } });
    expect(made.bundle_rules).toEqual({ logic: '', limit: 3 });
  });

  test('when rules are listed by name or within dates, then the order and the window hold', async () => {
    const prefix = unique('Sorted');
    const second = await rule({ ...minimumAmount, name: `${prefix} B` });
    const first = await rule({ ...minimumAmount, name: `${prefix} A` });
    const from = second.created_at;
    const byName = await ctx.client.GET('/v1/validation-rules', { params: { query: { order: 'name', start_date: from, limit: 100 } } });
    const names = byName.data!.data.map((each) => each.name).filter((name) => name.startsWith(prefix));
    expect(names).toEqual([first.name, second.name]);
    const descending = await ctx.client.GET('/v1/validation-rules', { params: { query: { order: '-name', start_date: from, limit: 100 } } });
    expect(descending.data!.data.map((each) => each.name).filter((name) => name.startsWith(prefix))).toEqual([second.name, first.name]);
    const before = await ctx.client.GET('/v1/validation-rules', { params: { query: { end_date: '2000-01-01T00:00:00.000Z' } } });
    expect(before.data).toMatchObject({ data: [], total: 0 });
  });

  test.each([
    ['logic naming an undefined rule', { '1': minimumAmount.rules['1'], logic: '1 and 2' }],
    ['unbalanced parentheses', { '1': minimumAmount.rules['1'], logic: '(1' }],
    ['a dangling operator', { '1': minimumAmount.rules['1'], logic: '1 and ' }],
    ['empty parentheses', { '1': minimumAmount.rules['1'], logic: '1 and ()' }],
    ['logic with words', { '1': minimumAmount.rules['1'], logic: '1 xor 1' }],
    ['metadata without a property', { '1': { name: 'order.metadata', conditions: { $is: ['x'] } } }],
    ['metadata with a null property', { '1': { name: 'customer.metadata', property: null, conditions: { $is: ['x'] } } }],
    ['an unknown operator', { '1': { name: 'order.amount', conditions: { $about: [1] } } }],
    ['a documented operator the server cannot evaluate', { '1': { name: 'order.amount', conditions: { $dow: [1] } } }],
    ['a rule without a name', { '1': { conditions: { $is: [1] } } }],
    ['a rule without conditions', { '1': { name: 'order.amount' } }],
    ['a rule key that is not a number', { first: { name: 'order.amount', conditions: { $is: [1] } } }],
    ['a nested set naming an undefined rule', { '1': { ...minimumAmount.rules['1'], rules: { '1': minimumAmount.rules['1'], logic: '1 or 3' } } }],
    ['a nested unknown operator', { '1': { ...minimumAmount.rules['1'], rules: { '1': { name: 'order.amount', conditions: { $timeframe: ['x'] } } } } }],
    ['a list operator given an object, which the server cannot evaluate', { '1': { name: 'order.metadata', property: 'channel', conditions: { $in: { store: true } } } }],
    ['a nested list operator given an object', { '1': { ...minimumAmount.rules['1'], rules: { '1': { name: 'order.amount', conditions: { $not_in: { from: 1 } } } } } }],
  ])('when the rules have %s, then 400 invalid_validation_rules', async (_, rules) => {
    const result = await ctx.client.POST('/v1/validation-rules', { body: { name: 'bad', rules } as never });
    expectError(failed(result), 400, 'invalid_validation_rules');
  });

  test('when the rule has numbered bundle rules, which the server cannot evaluate, then 400 invalid_validation_rules', async () => {
    const bundle = { limit: 1, '1': { name: 'order.items.any', conditions: { $is: [{ id: 'prod_x', type: 'product_or_sku', object: 'product' }] } } };
    expectError(await raw(ctx.target, 'POST', '/v1/validation-rules', { body: JSON.stringify({ name: 'bundle', bundle_rules: bundle }) }), 400, 'invalid_validation_rules');
  });

  test.each([
    ['no name', { rules: minimumAmount.rules }],
    ['an unknown type', { name: 'x', type: 'fancy' }],
    ['an unknown context type', { name: 'x', context_type: 'campaign.lottery' }],
    ['a condition of the wrong shape', { name: 'x', rules: { '1': { name: 'order.amount', conditions: { $is: 5 } } } }],
    ['two values for a single-value operator', { name: 'x', rules: { '1': { name: 'order.amount', conditions: { $more_than: [1, 2] } } } }],
    ['a bundle limit above 100', { name: 'x', bundle_rules: { limit: 101 } }],
  ])('when the body has %s, then 400 invalid_payload', async (_, body) => {
    expectError(await raw(ctx.target, 'POST', '/v1/validation-rules', { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });
});

describe('assignments', () => {
  test('when a rule is assigned to a voucher by code and a campaign by name, then both lists show it, counted', async () => {
    const made = await rule();
    const code = await voucher();
    const campaign = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('RuleCampaign'), campaign_type: 'PROMOTION' } })).data!;
    const path = { validationRuleId: made.id };
    const toVoucher = await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', {
      params: { path },
      body: { related_object_type: 'voucher', related_object_id: code },
    });
    const voucherId = (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data!.id;
    expect(toVoucher.data).toEqual({
      id: expect.stringMatching(/^asgm_/),
      rule_id: made.id,
      related_object_id: voucherId,
      related_object_type: 'voucher',
      created_at: expect.any(String),
      object: 'validation_rules_assignment',
    });
    const toCampaign = await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', {
      params: { path },
      body: { related_object_type: 'campaign', related_object_id: campaign.name },
    });
    expect(toCampaign.data).toMatchObject({ related_object_id: campaign.id, related_object_type: 'campaign' });

    const ofRule = await ctx.client.GET('/v1/validation-rules/{validationRuleId}/assignments', { params: { path, query: { order: 'created_at' } } });
    expect(ofRule.data).toEqual({ object: 'list', data_ref: 'data', data: [toVoucher.data, toCampaign.data], total: 2 });
    const newestFirst = await ctx.client.GET('/v1/validation-rules/{validationRuleId}/assignments', { params: { path, query: { limit: 1 } } });
    expect(newestFirst.data).toMatchObject({ data: [toCampaign.data], total: 2 });
    const secondPage = await ctx.client.GET('/v1/validation-rules/{validationRuleId}/assignments', { params: { path, query: { limit: 1, page: 2 } } });
    expect(secondPage.data).toMatchObject({ data: [toVoucher.data], total: 2 });
    const past = await ctx.client.GET('/v1/validation-rules/{validationRuleId}/assignments', { params: { path, query: { limit: 1, page: 3 } } });
    expect(past.data).toMatchObject({ data: [], total: 2 });
    const byObject = await ctx.client.GET('/v1/validation-rules-assignments', { params: { query: { related_object_id: campaign.id } } });
    expect(byObject.data).toEqual({ object: 'list', data_ref: 'data', data: [toCampaign.data], total: 1 });
    const byRule = await ctx.client.GET('/v1/validation-rules-assignments', { params: { query: { rule: made.id } } });
    expect(byRule.data?.total).toBe(2);
    expect((await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path } })).data?.assignments_count).toBe(2);

    await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code } } });
    const afterVoucherGone = await ctx.client.GET('/v1/validation-rules/{validationRuleId}/assignments', { params: { path } });
    expect(afterVoucherGone.data).toMatchObject({ data: [toCampaign.data], total: 1 });
    const unassigned = await ctx.client.DELETE('/v1/validation-rules/{validationRuleId}/assignments/{assignmentId}', {
      params: { path: { validationRuleId: made.id, assignmentId: toCampaign.data!.id } },
    });
    expect(unassigned.response.status).toBe(204);
    expect((await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path } })).data?.assignments_count).toBe(0);
  });

  test('when the rule is unknown, then its assignment list is empty with total 0', async () => {
    const result = await ctx.client.GET('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: 'val_unknown' } } });
    expect(result.response.status).toBe(200);
    expect(result.data).toEqual({ object: 'list', data_ref: 'data', data: [], total: 0 });
  });

  test('when the assignment is repeated, or names nothing, then 409 or 404; deleting the rule drops its assignments', async () => {
    const made = await rule();
    const code = await voucher();
    const path = { validationRuleId: made.id };
    const body = { related_object_type: 'voucher' as const, related_object_id: code };
    await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path }, body });
    expectError(failed(await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path }, body })), 409, 'duplicate_found');
    for (const [type, id] of [['voucher', 'NOPE'], ['campaign', 'camp_nope'], ['promotion_tier', 'promo_nope']] as const) {
      const result = await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', {
        params: { path },
        body: { related_object_type: type, related_object_id: id },
      });
      expect(expectError(failed(result), 404, 'not_found').resource_type).toBe(type);
    }
    expectError(failed(await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: 'val_nope' } }, body })), 404, 'not_found');
    // The short form names one object under its kind; the same voucher again is the same duplicate, and mixed forms are refused.
    expectError(await raw(ctx.target, 'POST', `/v1/validation-rules/${made.id}/assignments`, { body: JSON.stringify({ voucher: code }) }), 409, 'duplicate_found');
    for (const mixed of [{ voucher: code, campaign: 'camp_x' }, { voucher: code, related_object_type: 'voucher', related_object_id: code }, {}]) {
      expectError(await raw(ctx.target, 'POST', `/v1/validation-rules/${made.id}/assignments`, { body: JSON.stringify(mixed) }), 400, 'invalid_payload');
    }
    const short = await raw(ctx.target, 'POST', `/v1/validation-rules/${(await rule()).id}/assignments`, { body: JSON.stringify({ voucher: code }) });
    expect(short).toMatchObject({ status: 200, body: { related_object_type: 'voucher', object: 'validation_rules_assignment' } });
    expectError(await raw(ctx.target, 'DELETE', `/v1/validation-rules/${made.id}/assignments/asgm_nope`), 404, 'not_found');
    await ctx.client.DELETE('/v1/validation-rules/{validationRuleId}', { params: { path } });
    const left = await ctx.client.GET('/v1/validation-rules-assignments', { params: { query: { rule: made.id } } });
    expect(left.data?.total).toBe(0);
  });

  test('when an assignment names only related_object_id, then it is a voucher; force=true replaces a repeated one', async () => {
    const made = await rule();
    const code = await voucher();
    const first = await raw(ctx.target, 'POST', `/v1/validation-rules/${made.id}/assignments`, { body: JSON.stringify({ related_object_id: code }) });
    expect(first).toMatchObject({ status: 200, body: { rule_id: made.id, related_object_type: 'voucher' } });
    const firstId = (first.body as { id: string }).id;
    const forced = await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', {
      params: { path: { validationRuleId: made.id }, query: { force: true } },
      body: { related_object_type: 'voucher', related_object_id: code },
    });
    expect(forced.response.status).toBe(200);
    expect(forced.data?.id).not.toBe(firstId);
    const listed = await ctx.client.GET('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: made.id } } });
    expect(listed.data).toEqual({ object: 'list', data_ref: 'data', data: [forced.data], total: 1 });
  });

  test.each([['earning_rule'], ['distribution'], ['reward_assignment']])(
    'when a rule is assigned to a %s, which this server never checks rules for, then 400 invalid_related_object_type',
    async (type) => {
      const made = await rule();
      const body = JSON.stringify({ related_object_type: type, related_object_id: 'ern_0a1b2c3d4e5f' });
      expectError(await raw(ctx.target, 'POST', `/v1/validation-rules/${made.id}/assignments`, { body }), 400, 'invalid_related_object_type');
    },
  );

  test.each([['limit=0'], ['limit=101'], ['page=0'], ['page=101'], ['order=updated_at']])(
    'when assignment lists get %s, then 400 invalid_query_params',
    async (query) => {
      expectError(await raw(ctx.target, 'GET', `/v1/validation-rules/val_x/assignments?${query}`), 400, 'invalid_query_params');
      expectError(await raw(ctx.target, 'GET', `/v1/validation-rules-assignments?${query}`), 400, 'invalid_query_params');
    },
  );
});

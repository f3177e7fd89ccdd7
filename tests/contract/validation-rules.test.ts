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

describe('validation rules', () => {
  test('when created, read, updated and deleted, then each step shows', async () => {
    const made = await rule();
    expect(made).toEqual({
      id: expect.stringMatching(/^val_/),
      ...minimumAmount,
      type: 'basic',
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

  test.each([
    ['logic naming an undefined rule', { '1': minimumAmount.rules['1'], logic: '1 and 2' }],
    ['unbalanced parentheses', { '1': minimumAmount.rules['1'], logic: '(1' }],
    ['a dangling operator', { '1': minimumAmount.rules['1'], logic: '1 and ' }],
    ['empty parentheses', { '1': minimumAmount.rules['1'], logic: '1 and ()' }],
    ['metadata without a property', { '1': { name: 'order.metadata', conditions: { $is: ['x'] } } }],
    ['an unknown operator', { '1': { name: 'order.amount', conditions: { $about: [1] } } }],
    ['a rule key that is not a number', { first: { name: 'order.amount', conditions: { $is: [1] } } }],
  ])('when the rules have %s, then 400 invalid_validation_rules', async (_, rules) => {
    const result = await ctx.client.POST('/v1/validation-rules', { body: { name: 'bad', rules } as never });
    expectError(failed(result), 400, 'invalid_validation_rules');
  });

  test.each([
    ['no rules', { name: 'x' }],
    ['an unknown fact', { name: 'x', rules: { '1': { name: 'weather.sunny', conditions: { $is: [true] } } } }],
    ['logic with words', { name: 'x', rules: { '1': { name: 'order.amount', conditions: { $is: [1] } }, logic: '1 xor 1' } }],
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

  test.each([['limit=0'], ['limit=101'], ['page=0'], ['page=101'], ['order=updated_at']])(
    'when assignment lists get %s, then 400 invalid_query_params',
    async (query) => {
      expectError(await raw(ctx.target, 'GET', `/v1/validation-rules/val_x/assignments?${query}`), 400, 'invalid_query_params');
      expectError(await raw(ctx.target, 'GET', `/v1/validation-rules-assignments?${query}`), 400, 'invalid_query_params');
    },
  );
});

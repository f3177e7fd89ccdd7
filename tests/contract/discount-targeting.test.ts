/**
 * Product-targeted discounts over HTTP: each case of tests/support/discount-cases.ts (carts whose amounts the
 * public API's discount guides fix) made through the API (products, SKUs, collections, a validation rule with the
 * case's `applicable_to`, a voucher it is assigned to) and validated; every line's discount and the order's sums
 * are checked. The same table runs in process against the engine (tests/unit/discount-cases.test.ts).
 */
import { describe, expect, test } from '@jest/globals';
import { DISCOUNT_CASES } from '../support/discount-cases.js';
import { asserted, expectedOf, runCase, type DiscountBackend } from '../support/discount-runner.js';
import { known } from './known.js';
import { unique, useTarget } from './target.js';

const ctx = useTarget();

/** Each call's answer, required to be a success. */
function ok<T>(result: { data?: T; response: Response }): T {
  expect(result.response.status).toBe(200);
  return result.data!;
}

const backend: DiscountBackend = {
  createProduct: async (body) => known(ok(await ctx.client.POST('/v1/products', { body })), 'id'),
  createSku: async (productId, body) => known(ok(await ctx.client.POST('/v1/products/{productId}/skus', { params: { path: { productId } }, body })), 'id'),
  createCollection: async (body) => known(ok(await ctx.client.POST('/v1/product-collections', { body })), 'id'),
  createRule: async (body) => known(ok(await ctx.client.POST('/v1/validation-rules', { body })), 'id'),
  createVoucher: async (body, ruleId) => {
    const code = unique('TGT');
    ok(await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: body as never }));
    ok(await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: ruleId } }, body: { related_object_type: 'voucher', related_object_id: code } }));
    return { code };
  },
  validate: async (body) => ok(await ctx.client.POST('/v1/validations', { body })),
};

describe('product-targeted discounts, validated over HTTP', () => {
  test.each(DISCOUNT_CASES.map((testCase) => [testCase.name, testCase] as const))('%s', async (_name, testCase) => {
    const { outcome, response } = await runCase(testCase, backend);
    expect(asserted(testCase, outcome)).toEqual(expectedOf(testCase));
    // The lines' discounts add up to the order's item discounts, and each applicable redeemable lists what it reached.
    if (response.valid) {
      expect(outcome.lines.reduce((sum, value) => sum + value, 0)).toBe(outcome.itemsDiscount);
      for (const verdict of response.redeemables.filter((each) => each.status === 'APPLICABLE')) {
        expect(verdict.applicable_to).toMatchObject({ object: 'list', data_ref: 'data' });
        expect(verdict.order?.total_applied_discount_amount).toBe(verdict.result.discount_amount);
      }
    }
  });
});

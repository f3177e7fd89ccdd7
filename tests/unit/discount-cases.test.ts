/**
 * Product-targeted discounts in process: each case of tests/support/discount-cases.ts made with the domain's own
 * operations on a memory store and evaluated by the engine, without HTTP; every line's discount and the order's
 * sums are checked. The same table runs over HTTP in tests/contract/discount-targeting.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import { createCollection } from '../../server/domain/catalog/collections.js';
import { createProduct } from '../../server/domain/catalog/products.js';
import { createSku } from '../../server/domain/catalog/skus.js';
import { OffsetClock } from '../../server/domain/clock.js';
import type { DomainContext } from '../../server/domain/context.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { assignValidationRule, createValidationRule } from '../../server/domain/validation-rules.js';
import { validate } from '../../server/domain/validations.js';
import { createVoucher } from '../../server/domain/vouchers.js';
import { MemoryStore } from '../../server/store/memory.js';
import { DISCOUNT_CASES } from '../support/discount-cases.js';
import { asserted, expectedOf, runCase, type DiscountBackend } from '../support/discount-runner.js';

const store = new MemoryStore(SCHEMA);
const clock = new OffsetClock();
const PROJECT = 'proj_discount_cases';
await store.createProject(PROJECT);
const unit = <R>(work: (ctx: DomainContext) => Promise<R>) => store.transaction(PROJECT, (uow) => work({ uow, clock }));

const backend: DiscountBackend = {
  createProduct: (body) => unit((ctx) => createProduct(ctx, body)),
  createSku: (productId, body) => unit((ctx) => createSku(ctx, productId, body)),
  createCollection: (body) => unit((ctx) => createCollection(ctx, body)),
  createRule: (body) => unit((ctx) => createValidationRule(ctx, body)),
  createVoucher: (body, ruleId) =>
    unit(async (ctx) => {
      const voucher = await createVoucher(ctx, body as never);
      await assignValidationRule(ctx, ruleId, { related_object_type: 'voucher', related_object_id: voucher.code } as never);
      return { code: voucher.code };
    }),
  validate: (body) => unit((ctx) => validate(ctx, body)),
};

describe('product-targeted discounts, evaluated in process', () => {
  test.each(DISCOUNT_CASES.map((testCase) => [testCase.name, testCase] as const))('%s', async (_name, testCase) => {
    const { outcome } = await runCase(testCase, backend);
    expect(asserted(testCase, outcome)).toEqual(expectedOf(testCase));
  });
});

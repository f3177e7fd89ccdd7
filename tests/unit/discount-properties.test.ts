/**
 * Properties of item discounts over any order, any targeting and any discount: no line gives more than it has
 * left, the lines' shares add up to what the discount takes, and nothing takes more than is left of the order.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { applyDiscount, type Discount, type DiscountLine } from '../../server/domain/discounts.js';
import { allotments, narrows, type Targeting } from '../../server/domain/targets.js';

const PRODUCTS = ['prod_a', 'prod_b', 'prod_c'];

const lineArbitrary: fc.Arbitrary<DiscountLine> = fc
  .record({
    product: fc.constantFrom(...PRODUCTS),
    sku: fc.option(fc.constantFrom('sku_1', 'sku_2'), { nil: null }),
    quantity: fc.integer({ min: 0, max: 12 }),
    price: fc.integer({ min: 0, max: 50_000 }),
    taken: fc.integer({ min: 0, max: 100 }),
  })
  .map(({ product, sku, quantity, price, taken }) => ({
    product_id: product,
    sku_id: sku,
    quantity,
    price,
    amount: quantity * price,
    // What earlier discounts of the request took already: up to the whole line.
    discount_amount: Math.floor((quantity * price * taken) / 100),
  }));

const limit = fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined });
const entryArbitrary = fc.record(
  {
    object: fc.constantFrom('product' as const, 'sku' as const),
    id: fc.constantFrom(...PRODUCTS, 'sku_1', 'sku_2'),
    effect: fc.constantFrom('APPLY_TO_EVERY' as const, 'APPLY_TO_CHEAPEST' as const, 'APPLY_FROM_CHEAPEST' as const, 'APPLY_TO_MOST_EXPENSIVE' as const, 'APPLY_FROM_MOST_EXPENSIVE' as const),
    target: fc.constantFrom('ITEM' as const, 'UNIT' as const),
    skip_initially: fc.integer({ min: 0, max: 3 }),
    repeat: fc.integer({ min: 1, max: 3 }),
    quantity_limit: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    aggregated_quantity_limit: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
    amount_limit: limit,
    aggregated_amount_limit: limit,
    price: fc.option(fc.integer({ min: 0, max: 30_000 }), { nil: undefined }),
  },
  { requiredKeys: ['object', 'id', 'effect'] },
);
const targetingArbitrary: fc.Arbitrary<Targeting | undefined> = fc.option(
  fc.record({ included: fc.array(entryArbitrary, { maxLength: 3 }), excluded: fc.array(entryArbitrary, { maxLength: 2 }), included_all: fc.boolean() }),
  { nil: undefined },
);
const ITEM_EFFECTS = ['APPLY_TO_ITEMS', 'APPLY_TO_ITEMS_BY_QUANTITY', 'APPLY_TO_ITEMS_PROPORTIONALLY', 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY'] as const;
const discountArbitrary: fc.Arbitrary<Discount> = fc.oneof(
  fc.record({ type: fc.constant('AMOUNT'), amount_off: fc.integer({ min: 0, max: 40_000 }), effect: fc.constantFrom(...ITEM_EFFECTS), aggregated_amount_limit: limit }, { requiredKeys: ['type', 'amount_off', 'effect'] }),
  fc.record({ type: fc.constant('PERCENT'), percent_off: fc.integer({ min: 0, max: 100 }), effect: fc.constant('APPLY_TO_ITEMS'), amount_limit: limit, aggregated_amount_limit: limit }, { requiredKeys: ['type', 'percent_off', 'effect'] }),
  fc.record({ type: fc.constant('FIXED'), fixed_amount: fc.integer({ min: 0, max: 30_000 }), effect: fc.constant('APPLY_TO_ITEMS') }),
) as fc.Arbitrary<Discount>;

describe('item discounts, for any order, targeting and discount', () => {
  test('no line gives more than it has left, the shares add up to the total, and the total is at most what is left of the order', () => {
    fc.assert(
      fc.property(fc.array(lineArbitrary, { maxLength: 6 }), targetingArbitrary, discountArbitrary, fc.boolean(), (lines, targeting, discount, ofWhatIsLeft) => {
        const left = lines.reduce((sum, line) => sum + line.amount - (line.discount_amount ?? 0), 0);
        const reach = { allotments: allotments(targeting, lines, new Map()), narrowed: narrows(targeting), ofWhatIsLeft };
        const effect = applyDiscount(discount, left, lines, undefined, left, reach);
        if (!effect.itemLevel) return;
        for (const [index, line] of lines.entries()) {
          expect(effect.perLine[index]!).toBeGreaterThanOrEqual(0);
          expect(effect.perLine[index]!).toBeLessThanOrEqual(line.amount - (line.discount_amount ?? 0));
        }
        expect(effect.perLine.reduce((sum, share) => sum + share, 0)).toBe(effect.total);
        expect(effect.total).toBeLessThanOrEqual(left);
      }),
      { numRuns: 500 },
    );
  });

  test('a line no entry reaches, or an excluded one, is never discounted', () => {
    fc.assert(
      fc.property(fc.array(lineArbitrary, { maxLength: 6 }), targetingArbitrary, discountArbitrary, (lines, targeting, discount) => {
        const found = allotments(targeting, lines, new Map());
        const reached = new Set(found.flatMap((allotment) => allotment.order));
        const effect = applyDiscount(discount, Infinity, lines, undefined, Infinity, { allotments: found, narrowed: narrows(targeting), ofWhatIsLeft: true });
        if (!effect.itemLevel) return;
        for (const index of lines.keys()) if (!reached.has(index)) expect(effect.perLine[index]).toBe(0);
        for (const entry of targeting?.excluded ?? []) {
          for (const [index, line] of lines.entries()) {
            if ((entry.object === 'product' && line.product_id === entry.id) || (entry.object === 'sku' && line.sku_id === entry.id)) expect(reached.has(index)).toBe(false);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  test('an entry never takes more units of a line than the line has, nor more than its caps', () => {
    fc.assert(
      fc.property(fc.array(lineArbitrary, { maxLength: 6 }), targetingArbitrary, (lines, targeting) => {
        for (const allotment of allotments(targeting, lines, new Map())) {
          let total = 0;
          for (const [index, units] of allotment.units.entries()) {
            expect(units).toBeLessThanOrEqual(lines[index]!.quantity);
            if (allotment.entry?.quantity_limit !== undefined) expect(units).toBeLessThanOrEqual(allotment.entry.quantity_limit);
            total += units;
          }
          if (allotment.entry?.aggregated_quantity_limit !== undefined) expect(total).toBeLessThanOrEqual(allotment.entry.aggregated_quantity_limit);
        }
      }),
      { numRuns: 500 },
    );
  });
});

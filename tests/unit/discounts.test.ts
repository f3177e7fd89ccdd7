import { describe, expect, test } from '@jest/globals';
import { discountAmount, percentOf, type PricedItem } from '../../server/domain/discounts.js';

const items: PricedItem[] = [
  { product_id: 'prod_a', sku_id: null, quantity: 2, price: 1005, amount: 2010 },
  { product_id: 'prod_b', sku_id: 'sku_b', quantity: 1, price: 3333, amount: 3333 },
];

describe('discounts', () => {
  test('percentages round half up to a whole minor unit', () => {
    expect(percentOf(1005, 10)).toBe(101); // 100.5 → 101
    expect(percentOf(1004, 10)).toBe(100); // 100.4 → 100
    expect(percentOf(3333, 15)).toBe(500); // 499.95 → 500
  });

  test('amount, percent with a limit, fixed and unit discounts', () => {
    expect(discountAmount({ type: 'AMOUNT', amount_off: 1000 }, 5343, items)).toBe(1000);
    expect(discountAmount({ type: 'AMOUNT', amount_off: 9000 }, 5343, items)).toBe(5343);
    expect(discountAmount({ type: 'PERCENT', percent_off: 50 }, 5343, items)).toBe(2672);
    expect(discountAmount({ type: 'PERCENT', percent_off: 50, amount_limit: 2000 }, 5343, items)).toBe(2000);
    expect(discountAmount({ type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS' }, 5343, items)).toBe(201 + 333);
    expect(discountAmount({ type: 'FIXED', fixed_amount: 5000 }, 5343, items)).toBe(343);
    expect(discountAmount({ type: 'FIXED', fixed_amount: 9000 }, 5343, items)).toBe(0);
    expect(discountAmount({ type: 'UNIT', unit_off: 1, unit_type: 'sku_b' }, 5343, items)).toBe(3333);
    expect(discountAmount({ type: 'UNIT', unit_off: 1, unit_type: 'prod_missing' }, 5343, items)).toBe(0);
    expect(discountAmount({ type: 'AMOUNT', amount_off: 800, effect: 'APPLY_TO_ITEMS', aggregated_amount_limit: 1500 }, 5343, items)).toBe(1500);
  });

  test('amount effects: per line, per unit, spread once, and once when there are no items', () => {
    // Per line: 800 off each of the two lines.
    expect(discountAmount({ type: 'AMOUNT', amount_off: 800, effect: 'APPLY_TO_ITEMS' }, 5343, items)).toBe(1600);
    // Per unit: 800 × 2 units of the first line, 800 × 1 of the second.
    expect(discountAmount({ type: 'AMOUNT', amount_off: 800, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }, 5343, items)).toBe(2400);
    // Per unit, but never more than a line is worth: 2010 + 3000.
    expect(discountAmount({ type: 'AMOUNT', amount_off: 3000, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }, 5343, items)).toBe(5010);
    expect(discountAmount({ type: 'AMOUNT', amount_off: 800, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }, 5343, items)).toBe(800);
    expect(discountAmount({ type: 'AMOUNT', amount_off: 800, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' }, 5343, items)).toBe(800);
    for (const effect of ['APPLY_TO_ITEMS', 'APPLY_TO_ITEMS_BY_QUANTITY'] as const) {
      expect(discountAmount({ type: 'AMOUNT', amount_off: 800, effect }, 5343, [])).toBe(800);
    }
    expect(discountAmount({ type: 'FIXED', fixed_amount: 1000, effect: 'APPLY_TO_ITEMS' }, 5343, items)).toBe(10 + 2333);
    expect(discountAmount({ type: 'FIXED', fixed_amount: 1000, effect: 'APPLY_TO_ITEMS' }, 5343, [])).toBe(4343);
  });
});

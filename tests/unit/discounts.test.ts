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
});

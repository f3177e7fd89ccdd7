import { describe, expect, test } from '@jest/globals';
import { applyDiscount, unitIds, type CatalogUnit, type Discount, type DiscountLine } from '../../server/domain/discounts.js';

// Unit discounts as the public API shapes them; the contract's Discount schema gains `units` in the voucher area.
const discount = (shape: Record<string, unknown>) => shape as unknown as Discount;

const catalog: Record<string, CatalogUnit> = {
  prod_cap: { product_id: 'prod_cap', sku_id: null, price: 1500 },
  sku_socks_m: { product_id: 'prod_socks', sku_id: 'sku_socks_m', price: 400 },
  prod_unpriced: { product_id: 'prod_unpriced', sku_id: null, price: null },
};
const find = (id: string) => catalog[id];

const lines = (): DiscountLine[] => [
  { product_id: 'prod_shirt', sku_id: null, quantity: 2, price: 2500, amount: 5000 },
  { product_id: 'prod_socks', sku_id: 'sku_socks_m', quantity: 1, price: 400, amount: 400 },
];

describe('unit discounts', () => {
  test('ADD_MISSING_ITEMS makes the units the order has free and adds only the missing ones', () => {
    const effect = applyDiscount(discount({ type: 'UNIT', unit_off: 3, unit_type: 'prod_shirt', effect: 'ADD_MISSING_ITEMS' }), 5400, lines(), find);
    expect(effect).toMatchObject({ total: 7500, itemLevel: true, addedAmount: 2500, addedUnits: [1, 0], freeUnits: [3, 0], perLine: [7500, 0] });
    expect(effect.lines[0]).toMatchObject({ quantity: 3, amount: 7500 });
    // Enough units already: nothing added.
    const present = applyDiscount(discount({ type: 'UNIT', unit_off: 1, unit_type: 'prod_shirt' }), 5400, lines(), find);
    expect(present).toMatchObject({ total: 2500, addedAmount: 0, addedUnits: [0, 0], freeUnits: [1, 0] });
  });

  test('ADD_NEW_ITEMS always adds, as a new line when the order has none of the product', () => {
    const effect = applyDiscount(discount({ type: 'UNIT', unit_off: 2, unit_type: 'prod_cap', effect: 'ADD_NEW_ITEMS' }), 5400, lines(), find);
    expect(effect).toMatchObject({ total: 3000, addedAmount: 3000, addedUnits: [0, 0, 2], freeUnits: [0, 0, 2], perLine: [0, 0, 3000] });
    expect(effect.lines[2]).toEqual({ product_id: 'prod_cap', sku_id: null, quantity: 2, price: 1500, amount: 3000, discount_quantity: 0, discount_amount: 0 });
  });

  test('ADD_MANY_ITEMS applies each unit with its own effect and product or SKU', () => {
    const many = discount({
      type: 'UNIT',
      effect: 'ADD_MANY_ITEMS',
      units: [
        { unit_off: 1, unit_type: 'prod_shirt', effect: 'ADD_MISSING_ITEMS', product: { id: 'prod_shirt', name: 'Shirt' } },
        { unit_off: 2, unit_type: 'sku_socks_m', effect: 'ADD_MISSING_ITEMS', sku: { id: 'sku_socks_m', name: 'Socks M' } },
        { unit_off: 1, unit_type: 'prod_cap', effect: 'ADD_NEW_ITEMS', product: { id: 'prod_cap', name: 'Cap' } },
      ],
    });
    const effect = applyDiscount(many, 5400, lines(), find);
    // Shirt: 1 present, free (2500). Socks: 1 present, 1 added, both free (800). Cap: added, free (1500).
    expect(effect).toMatchObject({ total: 4800, addedAmount: 1900, addedUnits: [0, 1, 1], freeUnits: [1, 2, 1], perLine: [2500, 800, 1500] });
    expect(effect.lines.map((line) => [line.product_id, line.sku_id, line.quantity, line.amount])).toEqual([
      ['prod_shirt', null, 2, 5000],
      ['prod_socks', 'sku_socks_m', 2, 800],
      ['prod_cap', null, 1, 1500],
    ]);
    expect(unitIds(many)).toEqual(['prod_shirt', 'prod_shirt', 'sku_socks_m', 'sku_socks_m', 'prod_cap', 'prod_cap']);
  });

  test('units already made free by an earlier discount do not count as present', () => {
    const earlier: DiscountLine[] = [{ product_id: 'prod_shirt', sku_id: null, quantity: 1, price: 2500, amount: 2500, discount_quantity: 1, discount_amount: 2500 }];
    const effect = applyDiscount(discount({ type: 'UNIT', unit_off: 1, unit_type: 'prod_shirt', effect: 'ADD_MISSING_ITEMS' }), 0, earlier, find);
    expect(effect).toMatchObject({ total: 2500, addedUnits: [1], addedAmount: 2500 });
    expect(effect.lines[0]).toMatchObject({ quantity: 2, amount: 5000 });
  });

  test('a unit without a known price gives nothing, and units the order had never take more than is left of it', () => {
    expect(applyDiscount(discount({ type: 'UNIT', unit_off: 1, unit_type: 'prod_unpriced', effect: 'ADD_NEW_ITEMS' }), 5400, lines(), find)).toMatchObject({ total: 0, addedAmount: 0 });
    expect(applyDiscount(discount({ type: 'UNIT', unit_off: 1, unit_type: 'prod_nowhere' }), 5400, lines(), find)).toMatchObject({ total: 0 });
    const capped = applyDiscount(discount({ type: 'UNIT', unit_off: 2, unit_type: 'prod_shirt' }), 3000, lines(), find);
    expect(capped.total).toBe(3000);
    expect(capped.perLine).toEqual([3000, 0]);
  });

  test('item effects of amount discounts split per line, proportional ones to the whole minor unit', () => {
    const proportional = applyDiscount({ type: 'AMOUNT', amount_off: 1001, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }, 5400, lines());
    expect(proportional.perLine).toEqual([927, 74]);
    expect(proportional.total).toBe(1001);
    const byQuantity = applyDiscount({ type: 'AMOUNT', amount_off: 300, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' }, 5400, lines());
    expect(byQuantity.perLine).toEqual([200, 100]);
    expect(applyDiscount({ type: 'AMOUNT', amount_off: 300 }, 5400, lines())).toMatchObject({ total: 300, itemLevel: false, perLine: [0, 0] });
  });
});

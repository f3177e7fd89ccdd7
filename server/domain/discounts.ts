/**
 * Discount arithmetic. All money is integers ×100; percentages round half up to a whole minor unit,
 * and no discount takes more than what is left of the order.
 */
import type { components } from '../../generated/openapi.js';

export type Discount = components['schemas']['Discount'];

export interface PricedItem {
  product_id: string | null;
  sku_id: string | null;
  quantity: number;
  price: number | null;
  amount: number;
}

export function percentOf(amount: number, percent: number): number {
  return Math.floor((amount * percent) / 100 + 0.5);
}

type AmountDiscount = Extract<Discount, { type: 'AMOUNT' }>;

/**
 * The sum an AMOUNT discount takes before the order caps it. APPLY_TO_ITEMS takes the sum off each item
 * line and APPLY_TO_ITEMS_BY_QUANTITY off each unit, neither more than the line is worth; the
 * proportional effects split the one sum over the items, so they take it once, as APPLY_TO_ORDER does.
 * An order without items has nothing to take from item by item, so every effect takes the sum once.
 */
function amountOff(discount: AmountDiscount, items: readonly PricedItem[]): number {
  if (items.length === 0) return discount.amount_off;
  switch (discount.effect) {
    case 'APPLY_TO_ITEMS':
      return items.reduce((sum, item) => sum + Math.min(discount.amount_off, item.amount), 0);
    case 'APPLY_TO_ITEMS_BY_QUANTITY':
      return items.reduce((sum, item) => sum + Math.min(discount.amount_off * item.quantity, item.amount), 0);
    default:
      return discount.amount_off;
  }
}

/** What the discount takes off `remaining`, given the order's items for item-based discounts. */
export function discountAmount(discount: Discount, remaining: number, items: readonly PricedItem[]): number {
  let off: number;
  switch (discount.type) {
    case 'AMOUNT':
      off = amountOff(discount, items);
      if (discount.aggregated_amount_limit !== undefined) off = Math.min(off, discount.aggregated_amount_limit);
      break;
    case 'PERCENT': {
      off =
        discount.effect === 'APPLY_TO_ITEMS' && items.length > 0
          ? items.reduce((sum, item) => sum + percentOf(item.amount, discount.percent_off), 0)
          : percentOf(remaining, discount.percent_off);
      if (discount.amount_limit !== undefined) off = Math.min(off, discount.amount_limit);
      break;
    }
    case 'FIXED':
      off =
        discount.effect === 'APPLY_TO_ITEMS' && items.length > 0
          ? items.reduce((sum, item) => sum + Math.max(0, item.amount - discount.fixed_amount * item.quantity), 0)
          : Math.max(0, remaining - discount.fixed_amount);
      break;
    case 'UNIT': {
      // One unit kind, or several (`ADD_MANY_ITEMS` with `units`): each gives its units of its product or SKU.
      const units = 'units' in discount ? discount.units : [discount];
      off = units.reduce((sum, unit) => {
        const item = items.find((line) => line.product_id === unit.unit_type || line.sku_id === unit.unit_type);
        const unitPrice = item?.price ?? (item ? Math.floor(item.amount / item.quantity) : 0);
        return sum + unitPrice * (unit.unit_off ?? 0);
      }, 0);
      break;
    }
  }
  return Math.max(0, Math.min(off, remaining));
}

/**
 * Discount arithmetic. All money is integers ×100; percentages round half up to a whole minor unit,
 * and no discount takes more than what is left of the order.
 *
 * A discount is either order-level (it takes a sum off the order as a whole) or item-level (it takes its
 * sum off particular lines, or gives units of a product for free); the order keeps the two apart
 * (`discount_amount`, `items_discount_amount`), so `applyDiscount` says which one it was and, for an
 * item-level one, what it took off each line.
 */
import type { components } from '../../generated/openapi.js';
import { allotments, unitPrice, type Allotment } from './targets.js';

export type Discount = components['schemas']['Discount'];

export interface PricedItem {
  product_id: string | null;
  sku_id: string | null;
  quantity: number;
  price: number | null;
  amount: number;
}

/** A line while discounts apply to it: what earlier discounts of the request already took. */
export interface DiscountLine extends PricedItem {
  /** Units earlier unit discounts made free. */
  discount_quantity?: number;
  /** What earlier item discounts took off the line. */
  discount_amount?: number;
}

/** A product or SKU of the catalog that a unit discount gives, for a line the order does not have yet. */
export interface CatalogUnit {
  product_id: string | null;
  sku_id: string | null;
  price: number | null;
}

export interface DiscountEffect {
  /** What the discount takes off the order in all. */
  total: number;
  /** Whether the discount worked on the lines (item effects, free units) rather than on the order as a whole. */
  itemLevel: boolean;
  /** The lines after the discount: units it added raise a line's quantity and amount; new lines come last. */
  lines: DiscountLine[];
  /** By line of `lines`: what the discount took off it. */
  perLine: number[];
  /** By line of `lines`: units the discount added to it. */
  addedUnits: number[];
  /** By line of `lines`: units the discount made free. */
  freeUnits: number[];
  /** Value of the units added, which raises the order's amount by as much. */
  addedAmount: number;
}

/**
 * One effect of a unit discount, as the public API shapes it: `unit_type` (a product or SKU ID) and
 * `unit_off` units, with the product or SKU named again in `product`/`sku`. The contract's Discount
 * schema belongs to the voucher area; this is the part of it the engine reads.
 */
interface UnitEffect {
  unit_off?: number;
  unit_type: string;
  effect?: string;
  product?: { id?: string };
  sku?: { id?: string };
}
type UnitDiscount = UnitEffect & { type: 'UNIT'; units?: UnitEffect[] };
type AmountDiscount = Extract<Discount, { type: 'AMOUNT' }>;

export function percentOf(amount: number, percent: number): number {
  return Math.floor((amount * percent) / 100 + 0.5);
}

/** What is left of a line for item discounts to take. */
function lineLeft(line: DiscountLine): number {
  return Math.max(0, line.amount - (line.discount_amount ?? 0));
}

/** Splits `total` over the lines in proportion to `weights`, whole minor units, the remainders to the largest fractions. */
function proportional(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) return weights.map(() => 0);
  const exact = weights.map((weight) => (total * weight) / sum);
  const shares = exact.map(Math.floor);
  let rest = total - shares.reduce((a, b) => a + b, 0);
  const order = exact.map((value, index) => ({ index, fraction: value - Math.floor(value) })).sort((a, b) => b.fraction - a.fraction || a.index - b.index);
  for (const { index } of order) {
    if (rest <= 0) break;
    shares[index]! += 1;
    rest -= 1;
  }
  return shares;
}

/** Takes shares back from the last lines until the sum is at most `cap`. */
function capShares(shares: number[], cap: number): number[] {
  const out = [...shares];
  let excess = out.reduce((a, b) => a + b, 0) - cap;
  for (let index = out.length - 1; index >= 0 && excess > 0; index--) {
    const back = Math.min(out[index]!, excess);
    out[index]! -= back;
    excess -= back;
  }
  return out;
}

function orderLevel(total: number, lines: DiscountLine[]): DiscountEffect {
  const zeros = lines.map(() => 0);
  return { total, itemLevel: false, lines, perLine: zeros, addedUnits: [...zeros], freeUnits: [...zeros], addedAmount: 0 };
}

function itemLevel(shares: number[], lines: DiscountLine[], remaining: number): DiscountEffect {
  const perLine = capShares(shares, remaining);
  const zeros = lines.map(() => 0);
  return { total: perLine.reduce((a, b) => a + b, 0), itemLevel: true, lines, perLine, addedUnits: zeros, freeUnits: [...zeros], addedAmount: 0 };
}

/** How far a discount reaches into the order's lines (targets.ts), and how it counts what a line has left. */
export interface Reach {
  /** What each targeting entry reached; every unit of every line when the discount's redeemable has no targeting. */
  allotments: readonly Allotment[];
  /** Whether a targeting narrowed the discount: then an item effect is the default of amount, percent and fixed discounts. */
  narrowed: boolean;
  /**
   * Whether an item effect takes its share of what is left of a line after the redeemables before it
   * (`DISCOUNTED_AMOUNT`) or of the line's amount (`INITIAL_AMOUNT`); never more than is left either way.
   */
  ofWhatIsLeft: boolean;
}

/** Every unit of every line, in request order: a discount whose redeemable has no targeting reaches all of them. */
export function wholeReach(lines: readonly DiscountLine[], ofWhatIsLeft = true): Reach {
  return { allotments: allotments(undefined, lines, new Map()), narrowed: false, ofWhatIsLeft };
}

/** The effect a discount works by: its own, or the default (item effects when a targeting narrows it). */
export function effectOf(discount: Discount, narrowed: boolean): string {
  if (discount.effect) return discount.effect;
  if (discount.type === 'UNIT') return 'ADD_MISSING_ITEMS';
  return narrowed ? 'APPLY_TO_ITEMS' : 'APPLY_TO_ORDER';
}

/** The value of `units` of a line: its whole amount when they are all its units, else that many at its unit price. */
function valueOf(line: DiscountLine, units: number): number {
  return units >= line.quantity ? line.amount : Math.round(unitPrice(line) * units);
}

/** The most an item effect may take from the reached units of a line: their value, less what is taken already as `reach` says. */
function baseOf(line: DiscountLine, units: number, reach: Reach): number {
  const value = valueOf(line, units);
  return reach.ofWhatIsLeft ? Math.min(value, lineLeft(line)) : value;
}

type ItemDiscount = Exclude<Discount, { type: 'UNIT' }>;

/**
 * The share of an item effect for each line, before the discount's own caps: per reached line (`APPLY_TO_ITEMS`),
 * per reached unit (`APPLY_TO_ITEMS_BY_QUANTITY`), one sum split over the reached lines by value or by units
 * (the proportional effects), a percentage of each reached line, or the drop to a new price of each reached
 * unit (fixed). Each entry's own caps apply to its lines: `amount_limit` per line, `aggregated_amount_limit`
 * over its lines in the order it took them. No line gives more than it has left.
 */
function itemShares(discount: ItemDiscount, effect: string, lines: readonly DiscountLine[], reach: Reach): number[] {
  const shares = lines.map(() => 0);
  const reached = reach.allotments.flatMap((allotment) => allotment.order.map((index) => ({ index, units: allotment.units[index]!, entry: allotment.entry })));
  if (effect === 'APPLY_TO_ITEMS_PROPORTIONALLY' || effect === 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY') {
    const amountOff = (discount as AmountDiscount).amount_off;
    const weights = reached.map(({ index, units }) => (effect === 'APPLY_TO_ITEMS_PROPORTIONALLY' ? baseOf(lines[index]!, units, reach) : units));
    const split = proportional(amountOff, weights);
    for (const [position, { index }] of reached.entries()) shares[index]! += split[position]!;
  } else {
    for (const { index, units, entry } of reached) {
      const line = lines[index]!;
      const base = baseOf(line, units, reach);
      let share = 0;
      switch (discount.type) {
        case 'AMOUNT':
          share = Math.min(effect === 'APPLY_TO_ITEMS_BY_QUANTITY' ? discount.amount_off * units : discount.amount_off, base);
          break;
        case 'PERCENT':
          share = percentOf(base, discount.percent_off);
          // A percentage's own limit caps what it takes from each line.
          if (discount.amount_limit !== undefined) share = Math.min(share, discount.amount_limit);
          break;
        case 'FIXED': {
          const price = entry?.price ?? discount.fixed_amount;
          share = Math.max(0, valueOf(line, units) - Math.round(price * units));
          break;
        }
      }
      shares[index]! += Math.max(0, Math.min(share, base));
    }
  }
  // The entries' own caps, each over the lines it reached.
  for (const allotment of reach.allotments) {
    const entry = allotment.entry;
    if (!entry) continue;
    let left = entry.aggregated_amount_limit ?? Infinity;
    for (const index of allotment.order) {
      let share = shares[index]!;
      if (entry.amount_limit !== undefined) share = Math.min(share, entry.amount_limit);
      share = Math.max(0, Math.min(share, left));
      left -= share;
      shares[index] = share;
    }
  }
  return shares.map((share, index) => Math.min(share, lineLeft(lines[index]!)));
}

/** The line a unit effect gives units of: by SKU when it names one, otherwise by product or SKU ID. */
function unitLine(lines: DiscountLine[], effect: UnitEffect): number {
  const skuId = effect.sku?.id;
  if (skuId) return lines.findIndex((line) => line.sku_id === skuId);
  return lines.findIndex((line) => line.product_id === effect.unit_type || line.sku_id === effect.unit_type);
}

/**
 * A UNIT discount gives `unit_off` units of a product or SKU for free. `ADD_MISSING_ITEMS` (the default)
 * makes free units the order already has and adds only the ones it lacks; `ADD_NEW_ITEMS` (and
 * `ADD_SAME_ITEMS`, taken the same way here) always adds them; `ADD_MANY_ITEMS` does this for each of its
 * `units`, each with its own effect. Units already made free by an earlier discount of the request do not
 * count as present. Added units raise the order's amount by their value, and the discount takes exactly
 * that back, so they cost nothing; units the order had are taken off what is left of it. A unit whose
 * price is unknown (no price on the line, none in the catalog) gives nothing.
 */
function unitEffect(discount: UnitDiscount, remaining: number, given: DiscountLine[], catalog: (id: string) => CatalogUnit | undefined): DiscountEffect {
  const lines = given.map((line) => ({ ...line }));
  const effects = discount.effect === 'ADD_MANY_ITEMS' ? (discount.units ?? []) : [discount];
  const addedUnits = lines.map(() => 0);
  const freeUnits = lines.map(() => 0);
  const perLine = lines.map(() => 0);
  let addedAmount = 0;
  let fromOrder = 0;
  for (const effect of effects) {
    const units = Math.max(0, Math.floor(effect.unit_off ?? 1));
    if (units === 0) continue;
    let index = unitLine(lines, effect);
    const line = index >= 0 ? lines[index]! : undefined;
    const known = line ? undefined : catalog(effect.sku?.id ?? effect.product?.id ?? effect.unit_type);
    const price = line ? (line.price ?? (line.quantity > 0 ? Math.floor(line.amount / line.quantity) : null)) : (known?.price ?? null);
    if (price === null) continue;
    const present = line ? Math.max(0, line.quantity - (line.discount_quantity ?? 0) - freeUnits[index]!) : 0;
    const add = effect.effect === 'ADD_NEW_ITEMS' || effect.effect === 'ADD_SAME_ITEMS' ? units : Math.max(0, units - present);
    if (index < 0) {
      lines.push({ product_id: known?.product_id ?? null, sku_id: known?.sku_id ?? null, quantity: 0, price, amount: 0, discount_quantity: 0, discount_amount: 0 });
      addedUnits.push(0);
      freeUnits.push(0);
      perLine.push(0);
      index = lines.length - 1;
    }
    const target = lines[index]!;
    target.quantity += add;
    target.amount += add * price;
    addedUnits[index]! += add;
    freeUnits[index]! += units;
    perLine[index]! += units * price;
    addedAmount += add * price;
    fromOrder += (units - add) * price;
  }
  // Added units pay for themselves; units the order had come out of what is left of it.
  const total = perLine.reduce((a, b) => a + b, 0) - Math.max(0, fromOrder - remaining);
  return { total, itemLevel: true, lines, perLine: capShares(perLine, total), addedUnits, freeUnits, addedAmount };
}

/**
 * What the discount does to an order with `remaining` left to pay and these lines. `catalog` finds the
 * products and SKUs a unit discount may add when the order has no line of them. `percentBase` is what an
 * order-level percentage is a percentage of (what is left, unless the stacking rules say the order's initial
 * amount); it never takes more than is left. `reach` says which lines and units an item effect reaches (every
 * unit of every line when not given). An order without lines has nothing to take from line by line: an item
 * effect of an amount or fixed discount then takes its sum from the order, once.
 */
export function applyDiscount(
  discount: Discount,
  remaining: number,
  lines: readonly DiscountLine[],
  catalog: (id: string) => CatalogUnit | undefined = () => undefined,
  percentBase: number = remaining,
  reach: Reach = wholeReach(lines),
): DiscountEffect {
  const current = [...lines];
  if (discount.type === 'UNIT') return unitEffect(discount as UnitDiscount, remaining, current, catalog);
  if (discount.type !== 'AMOUNT' && discount.type !== 'PERCENT' && discount.type !== 'FIXED') return orderLevel(0, current);
  const effect = effectOf(discount, reach.narrowed);
  const onItems = effect !== 'APPLY_TO_ORDER' && (current.length > 0 || reach.narrowed);
  if (!onItems) {
    switch (discount.type) {
      case 'AMOUNT': {
        const limit = discount.aggregated_amount_limit ?? Infinity;
        return orderLevel(Math.min(discount.amount_off, limit, remaining), current);
      }
      case 'PERCENT': {
        const off = percentOf(percentBase, discount.percent_off);
        return orderLevel(Math.min(discount.amount_limit ?? Infinity, off, remaining), current);
      }
      case 'FIXED':
        return orderLevel(Math.max(0, remaining - discount.fixed_amount), current);
    }
  }
  const shares = itemShares(discount, effect, current, reach);
  // The discount's own cap over all its lines, taken in request order.
  const aggregated = discount.type === 'PERCENT' || discount.type === 'AMOUNT' ? discount.aggregated_amount_limit : undefined;
  return itemLevel(aggregated === undefined ? shares : capShares(shares, aggregated), current, remaining);
}

/** What the discount takes off `remaining`, given the order's items for item-based discounts. */
export function discountAmount(discount: Discount, remaining: number, items: readonly PricedItem[]): number {
  return applyDiscount(discount, remaining, items).total;
}

/** The product and SKU IDs a unit discount may need from the catalog. */
export function unitIds(discount: Discount): string[] {
  if (discount.type !== 'UNIT') return [];
  const unit = discount as UnitDiscount;
  const effects = unit.effect === 'ADD_MANY_ITEMS' ? (unit.units ?? []) : [unit];
  return effects.flatMap((effect) => [effect.unit_type, effect.product?.id, effect.sku?.id].filter((id): id is string => typeof id === 'string'));
}

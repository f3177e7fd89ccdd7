/**
 * Carts and discounts whose amounts the public API's discount guides fix: one table, run in process against the
 * engine (tests/unit/discount-cases.test.ts) and over HTTP against any target (tests/contract/discount-targeting
 * .test.ts). The carts and names are ours; the arithmetic is the documented one. Each case names its catalog by
 * keys, which a runner turns into the IDs it made, and asserts the discount of every line and the order's sums.
 */
import type { components } from '../../generated/openapi.js';

type Discount = components['schemas']['Discount'];
type Entry = components['schemas']['ValidationRuleApplicableToItem'];

export interface CatalogProduct {
  key: string;
  price: number;
  metadata?: Record<string, unknown>;
  skus?: { key: string; price: number }[];
}

export interface CatalogCollection {
  key: string;
  /** A static collection of these products and SKUs (by key)… */
  members?: { object: 'product' | 'sku'; key: string }[];
  /** …or an auto-update one of the products and SKUs whose `metadata.brand` is this. */
  brand?: string;
}

/** An `applicable_to` entry naming a product, SKU or collection by key, with its effect and limits. */
export type EntrySpec = Omit<Entry, 'id'> & { key: string };

export interface RedeemableSpec {
  discount: Discount;
  included?: EntrySpec[];
  excluded?: EntrySpec[];
  included_all?: boolean;
  /** Rules of the same validation rule, besides its targets. */
  rules?: Record<string, unknown>;
}

export interface DiscountCase {
  name: string;
  products: CatalogProduct[];
  collections?: CatalogCollection[];
  /** Each becomes a standalone voucher with its own validation rule; they are validated together, in this order. */
  redeemables: RedeemableSpec[];
  order: { items: { key: string; quantity: number; price: number }[]; amount?: number };
  expect: {
    valid?: boolean;
    /** Each line's `discount_amount`, in order. */
    lines?: number[];
    /** What each redeemable took off (its `discount_amount`), in order. */
    redeemables?: number[];
    /** Each redeemable's status, in order. */
    statuses?: string[];
    totalDiscount: number;
    itemsDiscount?: number;
    orderDiscount?: number;
    totalAmount?: number;
  };
}

const percent = (percent_off: number, more: Partial<Discount> = {}): Discount => ({ type: 'PERCENT', percent_off, ...more }) as Discount;
const amount = (amount_off: number, more: Partial<Discount> = {}): Discount => ({ type: 'AMOUNT', amount_off, ...more }) as Discount;
const fixed = (fixed_amount: number, more: Partial<Discount> = {}): Discount => ({ type: 'FIXED', fixed_amount, ...more }) as Discount;

/** Four products a kitchen shop sells, with two SKUs of the kettle. */
const SHOP: CatalogProduct[] = [
  { key: 'pan', price: 4000, metadata: { brand: 'Ironside' } },
  { key: 'knife', price: 2500, metadata: { brand: 'Ironside' } },
  { key: 'board', price: 1500, metadata: { brand: 'Woodley' } },
  { key: 'apron', price: 1000, metadata: { brand: 'Woodley' } },
  { key: 'kettle', price: 3000, skus: [{ key: 'kettle-red', price: 3200 }, { key: 'kettle-steel', price: 3600 }] },
];

const line = (key: string, quantity: number, price: number) => ({ key, quantity, price });

export const DISCOUNT_CASES: DiscountCase[] = [
  {
    name: 'when 10% off item subtotals targets one product, then only its line is discounted',
    products: SHOP,
    redeemables: [{ discount: percent(10, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'product', key: 'pan' }] }],
    order: { items: [line('pan', 1, 1000), line('knife', 1, 3000)] },
    expect: { lines: [100, 0], redeemables: [100], totalDiscount: 100, itemsDiscount: 100, totalAmount: 3900 },
  },
  {
    name: 'when no effect is given but the rule targets products, then the discount works on their lines',
    products: SHOP,
    redeemables: [{ discount: percent(20), included: [{ object: 'product', key: 'board' }] }],
    order: { items: [line('board', 2, 1500), line('pan', 1, 4000)] },
    expect: { lines: [600, 0], totalDiscount: 600, itemsDiscount: 600 },
  },
  {
    name: 'when an amount is split by line value over three of four lines, then the fourth gets nothing',
    products: SHOP,
    redeemables: [
      {
        discount: amount(1000, { effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }),
        included: [
          { object: 'product', key: 'pan' },
          { object: 'product', key: 'knife' },
          { object: 'product', key: 'board' },
        ],
      },
    ],
    order: { items: [line('pan', 1, 4000), line('knife', 2, 2500), line('board', 1, 1000), line('apron', 1, 1000)] },
    expect: { lines: [400, 500, 100, 0], totalDiscount: 1000, itemsDiscount: 1000 },
  },
  {
    name: 'when an amount is split by units, then each line takes its share of the units',
    products: SHOP,
    redeemables: [{ discount: amount(1200, { effect: 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' }), included_all: true }],
    order: { items: [line('pan', 1, 4000), line('board', 2, 1500), line('apron', 3, 1000)] },
    expect: { lines: [200, 400, 600], totalDiscount: 1200 },
  },
  {
    name: 'when a split does not come out even, then the whole minor units left go to the largest fractions, the first line among equals',
    products: SHOP,
    redeemables: [{ discount: amount(1000, { effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' }), included_all: true }],
    order: { items: [line('board', 1, 1500), line('apron', 1, 1500), line('knife', 1, 1500)] },
    expect: { lines: [334, 333, 333], totalDiscount: 1000 },
  },
  {
    name: 'when an amount is taken off each unit with a per-line unit cap, then only that many units are discounted',
    products: SHOP,
    redeemables: [{ discount: amount(500, { effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }), included: [{ object: 'product', key: 'knife', quantity_limit: 2 }] }],
    order: { items: [line('knife', 3, 2500)] },
    expect: { lines: [1000], totalDiscount: 1000 },
  },
  {
    name: 'when units are capped over all matching lines, then the cap is spent in request order',
    products: SHOP,
    collections: [{ key: 'woodley', brand: 'Woodley' }],
    redeemables: [{ discount: amount(100, { effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }), included: [{ object: 'products_collection', key: 'woodley', aggregated_quantity_limit: 3 }] }],
    order: { items: [line('board', 2, 1500), line('pan', 1, 4000), line('apron', 2, 1000)] },
    expect: { lines: [200, 0, 100], totalDiscount: 300 },
  },
  {
    name: 'when a percentage has an amount limit, then it caps each line, not the order',
    products: SHOP,
    redeemables: [{ discount: percent(20, { effect: 'APPLY_TO_ITEMS', amount_limit: 300 }), included_all: true }],
    order: { items: [line('apron', 1, 1000), line('pan', 1, 5000)] },
    expect: { lines: [200, 300], totalDiscount: 500 },
  },
  {
    name: "when an entry limits the discount per line and over its lines, then both caps hold",
    products: SHOP,
    redeemables: [
      {
        discount: amount(1000, { effect: 'APPLY_TO_ITEMS' }),
        included: [
          { object: 'product', key: 'pan', amount_limit: 800 },
          { object: 'product', key: 'kettle', aggregated_amount_limit: 1500 },
        ],
      },
    ],
    order: { items: [line('pan', 1, 4000), line('kettle-red', 1, 3200), line('kettle-steel', 1, 3600)] },
    expect: { lines: [800, 1000, 500], totalDiscount: 2300 },
  },
  {
    name: 'when the discount caps all its lines together, then they take it in request order',
    products: SHOP,
    redeemables: [{ discount: amount(2000, { effect: 'APPLY_TO_ITEMS', aggregated_amount_limit: 4500 }), included_all: true }],
    order: { items: [line('pan', 1, 4000), line('knife', 1, 2500), line('board', 1, 1500)] },
    expect: { lines: [2000, 2000, 500], totalDiscount: 4500 },
  },
  {
    name: 'when every item is included but one product is excluded, then its line is left alone',
    products: SHOP,
    redeemables: [{ discount: percent(10, { effect: 'APPLY_TO_ITEMS' }), included_all: true, excluded: [{ object: 'product', key: 'knife' }] }],
    order: { items: [line('pan', 1, 1000), line('knife', 1, 2000), line('board', 1, 3000)] },
    expect: { lines: [100, 0, 300], totalDiscount: 400 },
  },
  {
    name: 'when a collection is included and one of its products excluded, then the exclusion wins',
    products: SHOP,
    collections: [{ key: 'ironside', brand: 'Ironside' }],
    redeemables: [{ discount: percent(50, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'products_collection', key: 'ironside' }], excluded: [{ object: 'product', key: 'pan' }] }],
    order: { items: [line('pan', 1, 4000), line('knife', 1, 2500), line('apron', 1, 1000)] },
    expect: { lines: [0, 1250, 0], totalDiscount: 1250 },
  },
  {
    name: 'when a product is targeted, then it covers its SKUs; a SKU entry covers that SKU alone',
    products: SHOP,
    redeemables: [
      { discount: percent(10, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'product', key: 'kettle' }] },
      { discount: amount(100, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'sku', key: 'kettle-steel' }] },
    ],
    order: { items: [line('kettle-red', 1, 3200), line('kettle-steel', 1, 3600), line('pan', 1, 4000)] },
    expect: { lines: [320, 460, 0], redeemables: [680, 100], totalDiscount: 780 },
  },
  {
    name: 'when a static collection holds a product, then its SKUs are in too',
    products: SHOP,
    collections: [{ key: 'gifts', members: [{ object: 'product', key: 'kettle' }, { object: 'product', key: 'apron' }] }],
    redeemables: [{ discount: amount(300, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'products_collection', key: 'gifts' }] }],
    order: { items: [line('kettle-steel', 1, 3600), line('apron', 1, 1000), line('knife', 1, 2500)] },
    expect: { lines: [300, 300, 0], totalDiscount: 600 },
  },
  {
    name: 'when the discount goes to the cheapest line only, then the other lines keep their price',
    products: SHOP,
    redeemables: [{ discount: amount(500, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'products_collection', key: 'all', effect: 'APPLY_TO_CHEAPEST' }] }],
    collections: [{ key: 'all', members: [{ object: 'product', key: 'pan' }, { object: 'product', key: 'knife' }, { object: 'product', key: 'board' }] }],
    order: { items: [line('pan', 1, 4000), line('board', 1, 1500), line('knife', 1, 2500)] },
    expect: { lines: [0, 500, 0], totalDiscount: 500 },
  },
  {
    name: 'when units are counted and the most expensive one alone is discounted, then one unit of the dearest line is',
    products: SHOP,
    redeemables: [{ discount: amount(400, { effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }), included_all: false, included: [{ object: 'product', key: 'knife', effect: 'APPLY_TO_MOST_EXPENSIVE', target: 'UNIT' }, { object: 'product', key: 'board' }] }],
    order: { items: [line('knife', 2, 2500), line('board', 3, 1500)] },
    expect: { lines: [400, 1200], totalDiscount: 1600 },
  },
  {
    name: 'when lines are taken from the most expensive, the first skipped and then every other one, then the 2nd and 4th are discounted',
    products: SHOP,
    redeemables: [{ discount: amount(500, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'products_collection', key: 'all', effect: 'APPLY_FROM_MOST_EXPENSIVE', skip_initially: 1, repeat: 2 }] }],
    collections: [{ key: 'all', members: [{ object: 'product', key: 'pan' }, { object: 'product', key: 'knife' }, { object: 'product', key: 'board' }, { object: 'product', key: 'apron' }] }],
    order: { items: [line('board', 1, 1500), line('pan', 1, 4000), line('apron', 1, 1000), line('knife', 1, 2500)] },
    expect: { lines: [0, 0, 500, 500], totalDiscount: 1000 },
  },
  {
    name: 'when units are counted with one skipped and every third taken, then the 2nd, 5th and 8th units are discounted',
    products: SHOP,
    redeemables: [{ discount: amount(100, { effect: 'APPLY_TO_ITEMS_BY_QUANTITY' }), included: [{ object: 'product', key: 'apron', target: 'UNIT', skip_initially: 1, repeat: 3 }] }],
    order: { items: [line('apron', 10, 1000)] },
    expect: { lines: [300], totalDiscount: 300 },
  },
  {
    name: 'when a new price is set for a product, then each of its units drops to it, and lines already cheaper are left alone',
    products: SHOP,
    redeemables: [{ discount: fixed(1500, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'product', key: 'knife' }, { object: 'product', key: 'apron' }] }],
    order: { items: [line('knife', 2, 2500), line('apron', 1, 1000), line('pan', 1, 4000)] },
    expect: { lines: [2000, 0, 0], totalDiscount: 2000 },
  },
  {
    name: "when an entry sets its own new price, then it wins over the discount's",
    products: SHOP,
    redeemables: [{ discount: fixed(1500, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'product', key: 'pan', price: 3000 }, { object: 'product', key: 'knife' }] }],
    order: { items: [line('pan', 1, 4000), line('knife', 1, 2500)] },
    expect: { lines: [1000, 1000], totalDiscount: 2000 },
  },
  {
    name: 'when 10% off the order comes before a 20% off orders of 100.00 or more, then the 20% sees 94.50 left and does not apply',
    products: SHOP,
    redeemables: [
      { discount: percent(10) },
      { discount: percent(20), rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [10000] } } } },
    ],
    order: { items: [line('pan', 1, 4000), line('knife', 1, 2500), line('board', 2, 2000)] },
    expect: { valid: false, statuses: ['SKIPPED', 'INAPPLICABLE'], totalDiscount: 0, totalAmount: 10500 },
  },
  {
    name: 'when the 20% off orders of 100.00 or more comes first, then both apply, the 10% to what the 20% left',
    products: SHOP,
    redeemables: [
      { discount: percent(20), rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [10000] } } } },
      { discount: percent(10) },
    ],
    order: { items: [line('pan', 1, 4000), line('knife', 1, 2500), line('board', 2, 2000)] },
    expect: { valid: true, redeemables: [2100, 840], totalDiscount: 2940, orderDiscount: 2940, totalAmount: 7560 },
  },
  {
    name: 'when a percentage of items follows an amount off one line, then it is a percentage of what is left of that line',
    products: SHOP,
    redeemables: [
      { discount: amount(1000, { effect: 'APPLY_TO_ITEMS' }), included: [{ object: 'product', key: 'pan' }] },
      { discount: percent(10, { effect: 'APPLY_TO_ITEMS' }), included_all: true },
    ],
    order: { items: [line('pan', 1, 4000), line('knife', 1, 2500)] },
    expect: { lines: [1300, 250], redeemables: [1000, 550], totalDiscount: 1550, itemsDiscount: 1550 },
  },
];

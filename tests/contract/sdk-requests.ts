/**
 * What the `@voucherify/sdk` scenarios share: requests with every field the SDK's types declare, the objects
 * they name (made through the typed client, outside the SDK, so each SDK file records only its own
 * namespaces), and the check that a file called every method of its namespaces.
 */
import { expect } from '@jest/globals';
import type {
  CustomerRequest,
  Order,
  OrderItem,
  OrdersItem,
  QualificationsCheckEligibilityRequestBody,
  RedemptionsRedeemStackableParams,
  StackableRedeemableParams,
  ValidationsValidateStackableParams,
} from '@voucherify/sdk';
import { readFileSync } from 'node:fs';
import type { ApiClient } from '../../client/index.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { voucherifySdkMethods } from './sdk-methods.js';
import { unique } from './target.js';

/** Every field at every depth, so that a request leaving out one the SDK declares does not compile. */
export type Every<T> = T extends (infer Item)[] ? Every<Item>[] : T extends object ? { [Key in keyof T]-?: Every<T[Key]> } : T;

/** What a refused SDK call throws, as plain fields. */
export async function refusal(call: Promise<unknown>): Promise<{ code: number; key: string }> {
  try {
    await call;
  } catch (error) {
    const { code, key } = error as { code: number; key: string };
    return { code, key };
  }
  throw new Error('the call succeeded');
}

/**
 * The `@voucherify/sdk` methods of `namespaces` that reach an operation of the contract and were not called,
 * leaving out those `excused` names (each with its reason in the calling file).
 */
export function uncalled(calls: Set<string>, namespaces: string[], excused: string[] = []): string[] {
  const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
  const inScope = voucherifySdkMethods(contract).filter((method) => method.operationId && namespaces.includes(method.name.slice(0, method.name.lastIndexOf('.'))));
  const expected = [...new Set(inScope.map((method) => method.name))].sort();
  expect(expected.length).toBeGreaterThan(0);
  return expected.filter((name) => !calls.has(name) && !excused.includes(name));
}

export interface Goods {
  product: { id: string; source_id: string; name: string };
  sku: { id: string; source_id: string; sku: string };
}

/** A product with one SKU. */
export async function catalog(api: ApiClient): Promise<Goods> {
  const product = (await api.POST('/v1/products', { body: { name: unique('SDK mug'), source_id: unique('sdk-mug'), price: 3000, metadata: {} } })).data!;
  const sku = (
    await api.POST('/v1/products/{productId}/skus', { params: { path: { productId: product.id! } }, body: { sku: unique('Blue mug'), source_id: unique('sdk-mug-blue'), price: 2500 } })
  ).data!;
  return { product: { id: product.id!, source_id: product.source_id!, name: product.name! }, sku: { id: sku.id!, source_id: sku.source_id!, sku: sku.sku! } };
}

/** A customer. */
export async function customer(api: ApiClient): Promise<{ id: string; source_id: string }> {
  const made = (await api.POST('/v1/customers', { body: { source_id: unique('sdk-buyer'), name: 'Old name' } })).data!;
  return { id: made.id!, source_id: made.source_id! };
}

/** Every field of the SDK's customer request, for a customer that exists. */
export function customerRequest(known: { id: string; source_id: string }, name: string): Every<CustomerRequest> {
  return {
    id: known.id,
    source_id: known.source_id,
    name,
    description: 'Regular at the shop',
    email: `${known.source_id}@example.com`,
    phone: '+48 600 100 200',
    // The API documents both; `birthday` is the older name of `birthdate`.
    birthday: '1990-04-02',
    birthdate: '1990-04-02',
    address: { city: 'Warsaw', state: 'Mazovia', line_1: 'Prosta 1', line_2: 'Floor 2', country: 'Poland', postal_code: '00-850' },
    metadata: { segment: 'regulars' },
  };
}

/** An order line for the SKU, at 25.00 each, with every field the SDK's order item declares. */
export function orderItem({ product, sku }: Goods, quantity: number): Every<OrdersItem> {
  return {
    sku_id: sku.id,
    product_id: product.id,
    related_object: 'sku',
    source_id: sku.source_id,
    // Quantities and amounts the service computes (discounted, initial, applied, subtotal) are accepted and
    // ignored: the order's lines are worked out from `quantity` and `price`.
    discount_quantity: 0,
    initial_quantity: quantity,
    quantity,
    price: 2500,
    amount: 2500 * quantity,
    discount_amount: 0,
    initial_amount: 2500 * quantity,
    applied_discount_amount: 0,
    subtotal_amount: 2500 * quantity,
    product: { id: product.id, source_id: product.source_id, override: false, name: product.name, metadata: {}, price: 3000 },
    sku: { id: sku.id, source_id: sku.source_id, override: false, sku: sku.sku, price: 2500 },
    object: 'order_item',
    metadata: { gift_wrap: true },
  };
}

export interface Redeemables {
  /** A standalone voucher taking 5.00 off the order. */
  discount: string;
  /** A gift card holding 30.00. */
  gift: string;
  /** A loyalty card with 200 points, in the program named `club`, paying through the COIN reward `coin`. */
  card: string;
  club: string;
  coin: string;
  /** The COIN reward's assignment to the program: 10 points for every 1.00. */
  assignment: string;
  /** A promotion tier taking 3.00 off the order. */
  tier: string;
}

/** A discount voucher, a gift card, a loyalty card paying through a COIN reward, and a promotion tier. */
export async function redeemables(api: ApiClient): Promise<Redeemables> {
  const discount = unique('SDK-STACK');
  expect((await api.POST('/v1/vouchers/{code}', { params: { path: { code: discount } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } })).response.status).toBe(200);
  const gift = unique('SDK-GC');
  expect((await api.POST('/v1/vouchers/{code}', { params: { path: { code: gift } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 3000 } } })).response.status).toBe(200);
  const club = (await api.POST('/v1/loyalties', { body: { name: unique('SDK coin club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
  const coin = (await api.POST('/v1/rewards', { body: { name: unique('SDK pay with points'), type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } } } })).data!;
  const assignment = (await api.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: coin.id! } }, body: { campaign: club.id! } })).data!;
  const card = (await api.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: unique('sdk-member') } } })).data!;
  await api.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 200 } });
  const promotion = await api.POST('/v1/campaigns', {
    body: { name: unique('SDK stack promotion'), campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'Three off', banner: 'Save 3', action: { discount: { type: 'AMOUNT', amount_off: 300 } } }] } },
  });
  const tier = promotion.data!.promotion!.tiers![0]!.id!;
  return { discount, gift, card: card.code!, club: club.name!, coin: coin.id!, assignment: assignment.id!, tier };
}

/**
 * The request validation and redemption both take (server-side and client-side alike), with every field the
 * SDK declares, over the four redeemables: an order of two SKUs at 25.00 for an existing customer.
 */
export async function stackable(api: ApiClient) {
  const goods = await catalog(api);
  const buyer = await customer(api);
  const codes = await redeemables(api);
  const voucher = { object: 'voucher', id: codes.discount } satisfies StackableRedeemableParams;
  const tier = { object: 'promotion_tier', id: codes.tier } satisfies StackableRedeemableParams;
  // A gift card takes `gift` and a loyalty card `reward`; each carries every field of its own.
  const giftCard = { object: 'voucher', id: codes.gift, gift: { credits: 1000 } } satisfies Every<Omit<StackableRedeemableParams, 'reward'>>;
  const loyaltyCard = {
    object: 'voucher',
    id: codes.card,
    // `assignment_id` is the SDK's; the API documents the assignment's ID in `reward.id`, and ignores the other.
    reward: { id: codes.assignment, assignment_id: codes.assignment, points: 100 },
  } satisfies Every<Omit<StackableRedeemableParams, 'gift'>>;
  const body = {
    options: { expand: ['order', 'redeemable', 'redemption'] },
    redeemables: [voucher, tier, giftCard, loyaltyCard],
    session: { key: unique('ssn_sdk'), type: 'LOCK', ttl: 2, ttl_unit: 'HOURS' },
    // The SDK's order also takes a customer, which the API's order here does not document (the request's own
    // `customer` is the one that counts); the server ignores it.
    order: { source_id: unique('sdk-stack-order'), status: 'CREATED', customer: customerRequest(buyer, 'Stacker'), amount: 5000, discount_amount: 0, items: [orderItem(goods, 2)], metadata: { till: 9 } },
    customer: customerRequest(buyer, 'Stacker'),
    metadata: { campaign_source: 'sdk' },
    // Each redeemable above carries every field of its kind (a voucher or tier needs none of `gift`, `reward`).
  } satisfies Every<Omit<ValidationsValidateStackableParams, 'redeemables'>> &
    Pick<ValidationsValidateStackableParams, 'redeemables'> &
    Every<Omit<RedemptionsRedeemStackableParams, 'redeemables'>>;
  return { body, buyer, codes, goods };
}

/**
 * A qualification request with every field the SDK declares, for a customer holding the discount voucher,
 * whose filters let through that voucher and the promotion tier of `redeemables` (the other two are not
 * the customer's, or are filtered out).
 */
export async function qualification(api: ApiClient) {
  const goods = await catalog(api);
  const buyer = await customer(api);
  const referrer = await customer(api);
  const codes = await redeemables(api);
  const order = (await api.POST('/v1/orders', { body: { source_id: unique('sdk-q-order'), amount: 5000 } })).data!;
  // Qualification looks at the promotion tiers and at the vouchers the customer holds.
  expect((await api.POST('/v1/publications', { body: { voucher: codes.discount, customer: { id: buyer.id } } })).response.status).toBe(200);
  // The SDK's item here (OrderItem) is the order item without the applied and subtotal amounts.
  const { subtotal_amount: _subtotal, applied_discount_amount: _applied, ...item } = orderItem(goods, 2);
  const body = {
    customer: customerRequest(buyer, 'Qualifier'),
    order: {
      id: order.id!,
      source_id: order.source_id!,
      status: 'CREATED',
      amount: 5000,
      discount_amount: 0,
      initial_amount: 5000,
      items: [item satisfies Every<OrderItem>],
      // The SDK's Order also declares a customer and a referrer; the API's qualification order has neither
      // (the customer is the request's own), so the server ignores them.
      customer: customerRequest(buyer, 'Qualifier'),
      customer_id: buyer.id,
      referrer: customerRequest(referrer, 'Referrer'),
      referrer_id: referrer.id,
      metadata: { till: 1 },
    } satisfies Every<Order>,
    // `mode` is the SDK's; the API does not document it, and the server ignores it.
    mode: 'BASIC',
    tracking_id: unique('sdk-q-tracking'),
    scenario: 'ALL',
    options: {
      limit: 50,
      starting_after: '2000-01-01T00:00:00.000Z',
      // Every filter field the SDK declares, each with a condition that lets the wanted redeemables through.
      // The API takes a list for every operator, even those that need no value ($has_value, $is_unknown).
      filters: {
        junction: 'and',
        category_id: { conditions: { $is_unknown: [] } },
        campaign_id: { conditions: { $not_in: ['camp_none'] } },
        resource_id: { conditions: { $in: [codes.discount, codes.tier] } },
        resource_type: { conditions: { $in: ['voucher', 'promotion_tier'] } },
        voucher_type: { conditions: { $is_not: ['GIFT_VOUCHER'] } },
        code: { conditions: { $not_in: [codes.gift] } },
      },
      expand: ['redeemable', 'category', 'validation_rules'],
      sorting_rule: 'BEST_DEAL',
    },
    metadata: { asked_from: 'sdk' },
  } satisfies Required<QualificationsCheckEligibilityRequestBody>;
  return { body, buyer, codes };
}

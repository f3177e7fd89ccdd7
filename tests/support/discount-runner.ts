/**
 * Runs a case of discount-cases.ts through a backend (the engine in process, or a server over HTTP): makes its
 * catalog, collections, rules and vouchers under names of its own, validates its order, and reads back what the
 * case asserts.
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import type { DiscountCase, EntrySpec } from './discount-cases.js';

type Schemas = components['schemas'];

/** What a runner needs of the server or engine under test. */
export interface DiscountBackend {
  createProduct(body: Schemas['ProductsCreateRequestBody']): Promise<{ id: string }>;
  createSku(productId: string, body: Schemas['ProductsSkusCreateRequestBody']): Promise<{ id: string }>;
  createCollection(body: Schemas['ProductCollectionsCreateRequestBody']): Promise<{ id: string }>;
  createRule(body: Schemas['ValidationRulesCreateRequestBody']): Promise<{ id: string }>;
  createVoucher(body: Schemas['VouchersCreateRequestBody'], ruleId: string): Promise<{ code: string }>;
  validate(body: Schemas['ValidationsValidateRequestBody']): Promise<Schemas['ValidationsValidateResponseBody']>;
}

/** What a case asserts, read from a validation's answer. */
export interface Outcome {
  valid: boolean;
  lines: number[];
  redeemables: (number | undefined)[];
  statuses: string[];
  totalDiscount: number;
  itemsDiscount: number;
  orderDiscount: number;
  totalAmount: number;
}

export async function runCase(testCase: DiscountCase, backend: DiscountBackend): Promise<{ outcome: Outcome; response: Schemas['ValidationsValidateResponseBody'] }> {
  const tag = randomBytes(4).toString('hex');
  const ids = new Map<string, { object: 'product' | 'sku' | 'products_collection'; id: string }>();
  const brand = (name: unknown) => (typeof name === 'string' ? `${name}-${tag}` : name);
  for (const product of testCase.products) {
    const made = await backend.createProduct({
      source_id: `${product.key}-${tag}`,
      name: `${product.key} ${tag}`,
      price: product.price,
      metadata: { ...product.metadata, ...(product.metadata?.brand !== undefined && { brand: brand(product.metadata.brand) }) },
    });
    ids.set(product.key, { object: 'product', id: made.id });
    for (const sku of product.skus ?? []) {
      const madeSku = await backend.createSku(made.id, { source_id: `${sku.key}-${tag}`, sku: `${sku.key} ${tag}`, price: sku.price });
      ids.set(sku.key, { object: 'sku', id: madeSku.id });
    }
  }
  for (const collection of testCase.collections ?? []) {
    const body = collection.members
      ? { type: 'STATIC', name: `${collection.key}-${tag}`, products: collection.members.map((member) => ({ id: ids.get(member.key)!.id, object: member.object })) }
      : { type: 'AUTO_UPDATE', name: `${collection.key}-${tag}`, filter: { junction: 'and', 'metadata.brand': { conditions: { $is: [brand(collection.brand)] } } } };
    const made = await backend.createCollection(body as Schemas['ProductCollectionsCreateRequestBody']);
    ids.set(collection.key, { object: 'products_collection', id: made.id });
  }
  const entry = ({ key, ...rest }: EntrySpec) => ({ ...rest, id: ids.get(key)!.id });
  const codes: string[] = [];
  for (const [index, redeemable] of testCase.redeemables.entries()) {
    const rule = await backend.createRule({
      name: `case ${tag} ${index}`,
      ...(redeemable.rules && { rules: redeemable.rules }),
      applicable_to: { included: (redeemable.included ?? []).map(entry), excluded: (redeemable.excluded ?? []).map(entry), included_all: redeemable.included_all ?? false },
    } as Schemas['ValidationRulesCreateRequestBody']);
    const voucher = await backend.createVoucher({ type: 'DISCOUNT_VOUCHER', discount: redeemable.discount } as Schemas['VouchersCreateRequestBody'], rule.id);
    codes.push(voucher.code);
  }
  const items = testCase.order.items.map((item) => {
    const named = ids.get(item.key)!;
    return { ...(named.object === 'sku' ? { sku_id: named.id } : { product_id: named.id }), quantity: item.quantity, price: item.price };
  });
  const response = await backend.validate({
    redeemables: codes.map((code) => ({ object: 'voucher' as const, id: code })),
    order: { items, ...(testCase.order.amount !== undefined && { amount: testCase.order.amount }) },
  });
  const byCode = (code: string) => response.redeemables.find((verdict) => verdict.id === code);
  const order = response.order!;
  return {
    response,
    outcome: {
      valid: response.valid,
      lines: (order.items ?? []).map((item) => item.discount_amount ?? 0),
      redeemables: codes.map((code) => byCode(code)?.result.discount_amount),
      statuses: codes.map((code) => byCode(code)?.status ?? 'missing'),
      totalDiscount: order.total_discount_amount ?? 0,
      itemsDiscount: order.items_discount_amount ?? 0,
      orderDiscount: order.discount_amount ?? 0,
      totalAmount: order.total_amount ?? 0,
    },
  };
}

/** The part of an outcome a case asserts, so a failure shows every number the case names at once. */
export function asserted(testCase: DiscountCase, outcome: Outcome): Partial<Outcome> {
  const { expect: expected } = testCase;
  return {
    valid: outcome.valid,
    ...(expected.lines && { lines: outcome.lines }),
    ...(expected.redeemables && { redeemables: outcome.redeemables }),
    ...(expected.statuses && { statuses: outcome.statuses }),
    totalDiscount: outcome.totalDiscount,
    ...(expected.itemsDiscount !== undefined && { itemsDiscount: outcome.itemsDiscount }),
    ...(expected.orderDiscount !== undefined && { orderDiscount: outcome.orderDiscount }),
    ...(expected.totalAmount !== undefined && { totalAmount: outcome.totalAmount }),
  };
}

/** What a case expects, in the shape `asserted` gives. */
export function expectedOf(testCase: DiscountCase): Partial<Outcome> {
  const { valid = true, ...rest } = testCase.expect;
  return { valid, ...rest };
}

/**
 * The promotion engine: decides, for an order and a customer, which redeemables apply and what each
 * gives. Validation reports the verdicts; redemption applies them. Both call `evaluate`.
 *
 * Redeemables apply one after another to what is left of the order, under the project's stacking rules
 * (see stacking-rules.ts; the defaults when it has none): how many may apply, in all and per category,
 * exclusive and joint categories, the order they apply in, what a redeemable without effect does, and
 * whether one inapplicable redeemable stops the others (`ALL`) or not (`PARTIAL`). What validation sessions
 * hold of a voucher (sessions.ts) is unavailable to every request but those naming the session.
 */
import type { components } from '../../generated/openapi.js';
import { categoryFields } from './categories.js';
import type { DomainContext } from './context.js';
import { invalid } from './errors.js';
import type { Customer } from './customers.js';
import { applyDiscount, unitIds, type CatalogUnit, type Discount, type DiscountLine, type PricedItem } from './discounts.js';
import { conditionValues, matchesConditions, matchesFilter, type Conditions, type FilterDefinition } from './filters.js';
import type { PromotionStackRecord } from './promotion-stacks.js';
import type { PromotionTierRecord } from './promotion-tiers.js';
import { evaluateRuleSet } from './rule-logic.js';
import { segmentsOf } from './segments.js';
import { randomBase64url } from './ids.js';
import { heldByOthers } from './sessions.js';
import { effectiveStackingRules, type StackingSettings } from './stacking-rules.js';
import type { ValidationRuleRecord } from './validation-rules.js';
import { coinPayment, coinRewardFor } from './loyalty/rewards.js';
import { validityAt, type ValidityVerdict } from './validity.js';
import type { VoucherRecord } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

type Schemas = components['schemas'];
type Request = Schemas['ValidationsValidateRequestBody'];
type OrderRequest = Schemas['OrderRequest'];
type ItemRequest = Schemas['OrderItemRequest'];
export type Verdict = Schemas['ValidationRedeemable'];
type RedeemableError = Schemas['RedeemableError'];
type Detail = NonNullable<Schemas['OrderItemCalculated']['application_details']>[number];

/** A line of the order being evaluated: what the client sent, and what the redeemables did to it. */
export interface Line extends DiscountLine {
  /** The line's ID when it comes from a stored order. */
  id?: string;
  source_id?: string;
  related_object?: 'product' | 'sku';
  product?: Schemas['OrderItemProduct'];
  sku?: Schemas['OrderItemSku'];
  metadata?: Record<string, unknown>;
  initial_quantity: number;
  initial_amount: number;
  discount_quantity: number;
  discount_amount: number;
  /** Position in the request; lines a discount added have none. */
  index: number | null;
  details: Detail[];
}

/** The loyalty reward a card paid with, as the redemption records it. */
export type RewardSnapshot = Schemas['RedemptionReward'];

export interface Applied {
  request: Request['redeemables'][number];
  voucher?: VoucherRecord;
  tier?: PromotionTierRecord;
  campaignId: string | null;
  discount: number;
  /** Whether the discount was item-level (counted in the order's `items_discount_amount`). */
  itemLevel: boolean;
  giftCredits: number;
  /** Loyalty points a card pays with. */
  points: number;
  reward?: RewardSnapshot;
}

/** A redeemable that did not apply, with the voucher or tier it named when there is one. */
export interface Failure {
  verdict: Verdict;
  voucher?: VoucherRecord;
  tier?: PromotionTierRecord;
}

export interface Evaluation {
  valid: boolean;
  /** The applicable and skipped verdicts, in request order. */
  redeemables: Verdict[];
  skipped: Verdict[];
  inapplicable: Verdict[];
  failures: Failure[];
  applied: Applied[];
  order: Schemas['OrderCalculated'];
  /** The order's sums, as `order` shows them. */
  totals: { amount: number; initialAmount: number; orderDiscount: number; itemsDiscount: number; gift: number };
  lines: Line[];
  /** The stored order the request named by reference only, whose lines the evaluation used. */
  storedOrderId: string | null;
  customerId: string | null;
  customer: Customer | undefined;
  trackingId: string;
  /** The stacking rules the request ran under. */
  stackingRules: StackingSettings;
}

interface Facts {
  amount: number;
  items: PricedItem[];
  orderMetadata: Record<string, unknown>;
  customerMetadata: Record<string, unknown>;
  /** The segments that hold the customer. */
  segmentIds: () => Promise<string[]>;
}

function failure(code: number, key: string, message: string, details: string, custom?: string): RedeemableError {
  return { code, key, message, details, ...(custom && { error: { message: custom } }) };
}

const VOUCHER_VALIDITY: Record<Exclude<ValidityVerdict, { valid: true }>['reason'], [string, string]> = {
  disabled: ['voucher_disabled', 'Voucher is disabled'],
  not_started: ['voucher_not_active', 'Voucher is not active yet'],
  expired: ['voucher_expired', 'Voucher has expired'],
  outside_timeframe: ['voucher_not_active_now', 'Voucher is not active now'],
  wrong_day: ['voucher_not_active_now', 'Voucher is not active now'],
  outside_hours: ['voucher_not_active_now', 'Voucher is not active now'],
};

const TIER_VALIDITY: typeof VOUCHER_VALIDITY = {
  disabled: ['promotion_inactive', 'Promotion is inactive'],
  not_started: ['promotion_not_active_now', 'Promotion is not active now'],
  expired: ['promotion_not_active_now', 'Promotion is not active now'],
  outside_timeframe: ['promotion_not_active_now', 'Promotion is not active now'],
  wrong_day: ['promotion_not_active_now', 'Promotion is not active now'],
  outside_hours: ['promotion_not_active_now', 'Promotion is not active now'],
};

const wholeOrNull = (value: number | undefined): number | null => (value === undefined ? null : Math.round(value));

/**
 * The request's order lines with catalog IDs and prices filled in. A line names its product or SKU by
 * `product_id`/`sku_id`, by `product`/`sku` (ID or `source_id`), or by `source_id` with `related_object`;
 * its price is its own, its product's or SKU's as the line describes it, or the catalog's.
 */
export async function readLines(ctx: DomainContext, items: readonly ItemRequest[] | undefined): Promise<Line[]> {
  const lines: Line[] = [];
  for (const [index, item] of (items ?? []).entries()) {
    const bySource = item.source_id !== undefined;
    const productRef = item.product_id ?? item.product?.id ?? item.product?.source_id ?? (bySource && item.related_object !== 'sku' ? item.source_id : undefined);
    const skuRef = item.sku_id ?? item.sku?.id ?? item.sku?.source_id ?? (bySource && item.related_object === 'sku' ? item.source_id : undefined);
    const product = productRef ? ((await ctx.uow.products.get(productRef)) ?? (await ctx.uow.products.getBy('source_id', productRef))) : undefined;
    const sku = skuRef ? ((await ctx.uow.skus.get(skuRef)) ?? (await ctx.uow.skus.getBy('source_id', skuRef))) : undefined;
    const quantity = item.quantity ?? 1;
    const price = item.price ?? wholeOrNull(item.sku?.price) ?? wholeOrNull(item.product?.price) ?? sku?.price ?? product?.price ?? null;
    const amount = item.amount ?? (price ?? 0) * quantity;
    const skuId = sku?.id ?? skuRef ?? null;
    lines.push({
      product_id: product?.id ?? sku?.product_id ?? productRef ?? null,
      sku_id: skuId,
      ...(item.source_id !== undefined && { source_id: item.source_id }),
      ...((skuId !== null || product || productRef) && { related_object: skuId !== null ? ('sku' as const) : ('product' as const) }),
      ...(item.product && { product: item.product }),
      ...(item.sku && { sku: item.sku }),
      ...(item.metadata && { metadata: item.metadata }),
      quantity,
      price,
      amount,
      initial_quantity: quantity,
      initial_amount: amount,
      discount_quantity: 0,
      discount_amount: 0,
      index,
      details: [],
    });
  }
  return lines;
}

/** Order lines with catalog IDs and prices filled in. */
export async function priceItems(ctx: DomainContext, order: { items?: ItemRequest[] } | null | undefined): Promise<PricedItem[]> {
  return (await readLines(ctx, order?.items)).map(({ product_id, sku_id, quantity, price, amount }) => ({ product_id, sku_id, quantity, price, amount }));
}

export async function inCollection(ctx: DomainContext, collectionId: string, item: PricedItem): Promise<boolean> {
  const collection = await ctx.uow.product_collections.get(collectionId);
  if (!collection) return false;
  if (collection.type === 'STATIC') {
    return (collection.products ?? []).some((member) => member.id === item.product_id || member.id === item.sku_id);
  }
  const filter = collection.filter as unknown as FilterDefinition;
  const records = [
    item.product_id ? await ctx.uow.products.get(item.product_id) : undefined,
    item.sku_id ? await ctx.uow.skus.get(item.sku_id) : undefined,
  ];
  return records.some((record) => record !== undefined && matchesFilter(record, filter));
}

type RuleCondition = { name: string; property?: string | null; conditions: Conditions; error?: { message?: string }; rules?: Record<string, unknown> | null };

/** Redemption counts a rule can test: all successful ones of the object, and the customer's own. */
interface Counts {
  total: number;
  byCustomer: () => Promise<number>;
}

async function ruleHolds(ctx: DomainContext, rule: RuleCondition, facts: Facts, counts: Counts): Promise<boolean> {
  switch (rule.name) {
    case 'order.amount':
      return matchesConditions(facts.amount, rule.conditions);
    case 'order.items.count':
      return matchesConditions(facts.items.length, rule.conditions);
    case 'order.items.quantity':
    case 'product.quantity':
      return matchesConditions(facts.items.reduce((sum, item) => sum + item.quantity, 0), rule.conditions);
    case 'order.metadata':
      return matchesConditions(facts.orderMetadata[rule.property ?? ''], rule.conditions);
    case 'customer.metadata':
      return matchesConditions(facts.customerMetadata[rule.property ?? ''], rule.conditions);
    case 'customer.segment':
      return matchesConditions(await facts.segmentIds(), rule.conditions);
    case 'product.id':
      return matchesConditions(facts.items.map((item) => item.product_id).filter(Boolean), rule.conditions);
    case 'sku.id':
      return matchesConditions(facts.items.map((item) => item.sku_id).filter(Boolean), rule.conditions);
    case 'collection.id': {
      const ids: string[] = [];
      for (const item of facts.items) {
        for (const [operator, values] of Object.entries(rule.conditions)) {
          if (!['$is', '$in'].includes(operator)) continue;
          for (const value of conditionValues(values)) if (await inCollection(ctx, String(value), item)) ids.push(String(value));
        }
      }
      return matchesConditions(ids, rule.conditions);
    }
    case 'redemption.count':
      return matchesConditions(counts.total, rule.conditions);
    case 'redemption.count.per_customer':
      return matchesConditions(await counts.byCustomer(), rule.conditions);
    default:
      // A segment or other fact the engine does not know never holds.
      return false;
  }
}

/** The first failing assigned rule, as an error; undefined when all hold. */
async function brokenRule(ctx: DomainContext, objectIds: string[], facts: Facts, counts: Counts): Promise<RedeemableError | undefined> {
  const ruleIds = new Set<string>();
  for (const id of objectIds) for (const assignment of await ctx.uow.validation_rule_assignments.findBy('related_object_id', id)) ruleIds.add(assignment.rule_id);
  for (const ruleId of ruleIds) {
    const rule = (await ctx.uow.validation_rules.get(ruleId)) as ValidationRuleRecord | undefined;
    if (!rule) continue;
    // Nested rule sets hold when their own logic does (see evaluateRuleSet).
    const { holds, failed } = await evaluateRuleSet<RuleCondition>(rule.rules as Record<string, unknown>, (condition) =>
      ruleHolds(ctx, condition, facts, counts),
    );
    if (holds) continue;
    const custom = failed?.error?.message ?? rule.error?.message;
    const subject = failed?.name.split('.')[0];
    const [key, message] =
      subject === 'customer'
        ? ['customer_rules_violated', 'Customer does not match validation rules']
        : subject === 'redemption'
          ? ['redemption_rules_violated', 'Redemption does not match validation rules']
          : ['order_rules_violated', 'Order does not match validation rules'];
    return failure(
      400,
      key,
      message,
      `Validation rule ${rule.id} (${rule.name}) is not met${failed ? `: ${failed.name}` : ''}`,
      custom,
    );
  }
  return undefined;
}

/**
 * The order as the request names it. An order given only by reference (`id` or `source_id`, with neither
 * `amount` nor `items`) is the stored one: its amount, items and metadata are what discounts and rules see,
 * so redeeming onto an order created earlier neither prices it at zero nor overwrites its amount.
 */
async function effectiveOrder(ctx: DomainContext, order: OrderRequest | null | undefined): Promise<{ order: OrderRequest | undefined; storedId: string | null }> {
  if (!order) return { order: undefined, storedId: null };
  if (order.amount !== undefined || (order.items?.length ?? 0) > 0) return { order, storedId: null };
  const stored = order.id ? await ctx.uow.orders.get(order.id) : order.source_id ? await ctx.uow.orders.getBy('source_id', order.source_id) : undefined;
  if (!stored) return { order, storedId: null };
  return {
    order: {
      ...FRESH,
      ...order,
      amount: stored.amount,
      items: stored.items.map((item) => ({
        ...FRESH,
        ...(item.product_id !== null && { product_id: item.product_id }),
        ...(item.sku_id !== null && { sku_id: item.sku_id }),
        ...(item.source_id !== undefined && { source_id: item.source_id }),
        ...(item.product && { product: item.product }),
        ...(item.sku && { sku: item.sku }),
        ...(item.metadata && { metadata: item.metadata }),
        quantity: item.quantity,
        ...(item.price !== null && { price: item.price }),
        amount: item.amount,
      })),
      metadata: { ...FRESH, ...stored.metadata, ...order.metadata },
    },
    storedId: stored.id,
  };
}

/** The catalog products and SKUs the unit discounts of the request may add to the order. */
async function unitCatalog(ctx: DomainContext, discounts: Discount[]): Promise<(id: string) => CatalogUnit | undefined> {
  const known = new Map<string, CatalogUnit>();
  const ids = new Set<string>();
  for (const discount of discounts) for (const id of unitIds(discount)) ids.add(id);
  for (const id of ids) {
    const sku = await ctx.uow.skus.get(id);
    if (sku) {
      const product = await ctx.uow.products.get(sku.product_id);
      known.set(id, { product_id: sku.product_id, sku_id: sku.id, price: sku.price ?? product?.price ?? null });
      continue;
    }
    const product = await ctx.uow.products.get(id);
    if (product) known.set(id, { product_id: product.id, sku_id: null, price: product.price ?? null });
  }
  return (id) => known.get(id);
}

/** The category a voucher or tier falls under for the per-category limit: its own, or its campaign's. */
async function categoryOf(ctx: DomainContext, own: string | null | undefined, campaignId: string | null | undefined): Promise<string | null> {
  if (own) return own;
  const campaign = campaignId ? await ctx.uow.campaigns.get(campaignId) : undefined;
  return campaign?.category_id ?? null;
}

/** The reward assignment (and so the tier, if any) through which a card's program offers a reward. */
async function rewardAssignment(ctx: DomainContext, card: VoucherRecord, ref: string, rewardId: string) {
  const direct = await ctx.uow.reward_assignments.get(ref);
  if (direct && direct.related_object_id === card.campaign_id) return direct;
  return (await ctx.uow.reward_assignments.findBy('reward_id', rewardId)).find((candidate) => candidate.related_object_id === card.campaign_id);
}

/** The few customer fields an embedding object shows, without those the customer does not have. */
export function simpleCustomer(customer: Customer): Schemas['SimpleCustomer'] {
  return {
    id: customer.id,
    ...(customer.name !== null && { name: customer.name }),
    ...(customer.email !== null && { email: customer.email }),
    ...(customer.source_id !== null && { source_id: customer.source_id }),
    metadata: customer.metadata,
    object: 'customer',
  };
}

export function trackingIdOf(customerId: string): string {
  return `track_${Buffer.from(customerId).toString('base64url')}`;
}

/** A line as a calculated order shows it: the fields it has, with what the request's redeemables did. */
function presentLine(line: Line): Schemas['OrderItemCalculated'] {
  const subtotal = Math.max(0, line.amount - line.discount_amount);
  const added = line.quantity - line.initial_quantity;
  return {
    ...FRESH,
    ...(line.id !== undefined && { id: line.id }),
    ...(line.sku_id !== null && { sku_id: line.sku_id }),
    ...(line.product_id !== null && { product_id: line.product_id }),
    ...(line.related_object && { related_object: line.related_object }),
    ...(line.source_id !== undefined && { source_id: line.source_id }),
    quantity: line.quantity,
    ...(line.discount_quantity > 0 && { discount_quantity: line.discount_quantity }),
    initial_quantity: line.initial_quantity,
    amount: line.amount,
    discount_amount: line.discount_amount,
    applied_discount_amount: line.discount_amount,
    ...(line.discount_quantity > 0 && { applied_discount_quantity: line.discount_quantity }),
    ...(added > 0 && { applied_quantity: added, applied_quantity_amount: line.amount - line.initial_amount }),
    initial_amount: line.initial_amount,
    ...(line.price !== null && { price: line.price }),
    subtotal_amount: subtotal,
    ...(line.product && { product: line.product }),
    ...(line.sku && { sku: line.sku }),
    ...(line.metadata && { metadata: line.metadata }),
    ...(line.details.length > 0 && { application_details: line.details }),
    object: 'order_item',
  };
}

const SKIP_MESSAGES: Record<string, string> = {
  preceding_validation_failed: 'Another redeemable of the request is inapplicable, so none applies',
  applicable_redeemables_limit_exceeded: 'Applicable redeemables limit exceeded',
  applicable_redeemables_per_category_limit_exceeded: 'Applicable redeemables limit per category exceeded',
  applicable_exclusive_redeemables_limit_exceeded: 'Applicable exclusive redeemables limit exceeded',
  applicable_exclusive_redeemables_per_category_limit_exceeded: 'Applicable exclusive redeemables limit per category exceeded',
  exclusion_rules_not_met: 'A redeemable of an exclusive category applies, and this one is neither exclusive nor joint',
  no_effect: 'The redeemable takes nothing off the order, and the stacking rules skip such redeemables',
};

function skippedVerdict(verdict: Verdict, key: string): Verdict {
  const { result: _result, ...rest } = verdict;
  return { ...FRESH, ...rest, status: 'SKIPPED', result: { details: { key, message: SKIP_MESSAGES[key]! } } };
}

/** A redeemable of the request with what it names, and the category stacking rules count it under. */
interface Subject {
  requested: Request['redeemables'][number];
  /** Position in the request, which breaks ties when sorting. */
  position: number;
  voucher?: VoucherRecord;
  tier?: PromotionTierRecord;
  stack?: PromotionStackRecord;
  /** A stack's tiers, in the order they apply; undefined where a tier no longer exists. */
  stackTiers?: (PromotionTierRecord | undefined)[];
  category: { id: string; hierarchy: number } | null;
  exclusive: boolean;
  joint: boolean;
}

/**
 * The order redeemables apply in: those of exclusive categories first, then as the rules' sorting says
 * (the request's order, or category hierarchy with uncategorized ones last), the request's order among equals.
 */
function applicationOrder(subjects: Subject[], rules: StackingSettings): Subject[] {
  const rank = (subject: Subject) => (rules.redeemables_sorting_rule === 'CATEGORY_HIERARCHY' ? (subject.category?.hierarchy ?? Infinity) : 0);
  return [...subjects].sort((a, b) => Number(b.exclusive) - Number(a.exclusive) || rank(a) - rank(b) || a.position - b.position);
}

/** Tally of what has applied so far, for the stacking limits. */
interface Tally {
  applied: number;
  exclusive: number;
  byCategory: Map<string, number>;
  exclusiveByCategory: Map<string, number>;
}

/** The stacking limit a redeemable that would apply runs into, if any (the key of its skip). */
function limitReached(subject: Subject, rules: StackingSettings, tally: Tally): string | undefined {
  if (tally.exclusive > 0 && !subject.exclusive && !subject.joint) return 'exclusion_rules_not_met';
  if (tally.applied >= rules.applicable_redeemables_limit) return 'applicable_redeemables_limit_exceeded';
  const category = subject.category?.id;
  if (subject.exclusive) {
    if (tally.exclusive >= rules.applicable_exclusive_redeemables_limit) return 'applicable_exclusive_redeemables_limit_exceeded';
    const perCategory = rules.applicable_exclusive_redeemables_per_category_limit;
    if (category && perCategory !== null && (tally.exclusiveByCategory.get(category) ?? 0) >= perCategory) {
      return 'applicable_exclusive_redeemables_per_category_limit_exceeded';
    }
  }
  if (category) {
    const limit = rules.applicable_redeemables_category_limits[category] ?? rules.applicable_redeemables_per_category_limit ?? Infinity;
    if ((tally.byCategory.get(category) ?? 0) >= limit) return 'applicable_redeemables_per_category_limit_exceeded';
  }
  return undefined;
}

function count(subject: Subject, tally: Tally): void {
  tally.applied += 1;
  const category = subject.category?.id;
  if (category) tally.byCategory.set(category, (tally.byCategory.get(category) ?? 0) + 1);
  if (subject.exclusive) {
    tally.exclusive += 1;
    if (category) tally.exclusiveByCategory.set(category, (tally.exclusiveByCategory.get(category) ?? 0) + 1);
  }
}

/** Whether a redeemable that takes nothing off the order is skipped: its category's rule, else the project's. */
function skipsNoEffect(subject: Subject, rules: StackingSettings): boolean {
  const category = subject.category?.id;
  if (category && rules.no_effect_skip_categories.includes(category)) return true;
  if (category && rules.no_effect_redeem_anyway_categories.includes(category)) return false;
  return rules.redeemables_no_effect_rule === 'SKIP';
}

/** Whether an order-level percentage is of the order's initial amount rather than of what is left of it. */
function ofInitialAmount(subject: Subject, rules: StackingSettings): boolean {
  const category = subject.category?.id;
  if (category && rules.initial_amount_mode_categories.includes(category)) return true;
  if (category && rules.discounted_amount_mode_categories.includes(category)) return false;
  return rules.discount_calculation_mode === 'INITIAL_AMOUNT';
}

/** The categories a verdict lists, each marked joint or exclusive where the stacking rules name it so. */
async function verdictCategories(ctx: DomainContext, categoryId: string | null | undefined, rules: StackingSettings): Promise<Schemas['Category'][]> {
  const { categories } = await categoryFields(ctx, categoryId ?? null);
  return categories.map((category) => ({
    ...FRESH,
    ...category,
    ...(rules.exclusive_categories.includes(category.id) && { stacking_rules_type: 'EXCLUSIVE' as const }),
    ...(rules.joint_categories.includes(category.id) && { stacking_rules_type: 'JOINT' as const }),
  }));
}

/**
 * Evaluates the request's redeemables under the project's stacking rules. More redeemables than the rules'
 * `redeemables_limit` is a refused request (400), not a verdict.
 */
export async function evaluate(ctx: DomainContext, given: Request): Promise<Evaluation> {
  const rules = await effectiveStackingRules(ctx);
  if (given.redeemables.length > rules.redeemables_limit) {
    throw invalid(
      'invalid_payload',
      'Invalid payload',
      `redeemables: the project's stacking rules allow at most ${rules.redeemables_limit} redeemables in one request, and this one has ${given.redeemables.length}`,
    );
  }
  const { order: requestOrder, storedId } = await effectiveOrder(ctx, given.order);
  const expand = new Set(given.options?.expand ?? []);
  const now = ctx.clock.now();
  const customerRef = given.customer ?? undefined;
  const customer = customerRef?.id
    ? await ctx.uow.customers.get(customerRef.id)
    : customerRef?.source_id
      ? await ctx.uow.customers.getBy('source_id', customerRef.source_id)
      : undefined;
  let lines = await readLines(ctx, requestOrder?.items);
  const initialAmount = requestOrder?.amount ?? lines.reduce((sum, line) => sum + line.amount, 0);
  let segments: string[] | undefined;
  const facts: Facts = {
    amount: initialAmount,
    items: lines.map(({ product_id, sku_id, quantity, price, amount }) => ({ product_id, sku_id, quantity, price, amount })),
    orderMetadata: requestOrder?.metadata ?? {},
    customerMetadata: { ...FRESH, ...(customer?.metadata ?? {}), ...(customerRef?.metadata ?? {}) },
    // The stored customer's segments, with the metadata the request gives it; worked out once, when a rule asks.
    segmentIds: async () => {
      if (!customer) return [];
      segments ??= (await segmentsOf(ctx, customer, customerRef?.metadata ? facts.customerMetadata : undefined)).map((segment) => segment.id);
      return segments;
    },
  };
  const countsFor = (objectId: string, total: number): Counts => ({
    total,
    byCustomer: async () => {
      if (!customer) return 0;
      const own = await ctx.uow.redemptions.findBy('related_object_id', objectId);
      return own.filter((entry) => entry.object === 'redemption' && entry.customer_id === customer.id && entry.status === 'SUCCEEDED').length;
    },
  });

  // Collected first, so the catalog lookups of unit discounts happen once and the order of application is known.
  const subjects: Subject[] = [];
  for (const [position, requested] of given.redeemables.entries()) {
    const subject: Subject = { requested, position, category: null, exclusive: false, joint: false };
    if (requested.object === 'voucher') {
      const voucher = await ctx.uow.vouchers.getBy('code', requested.id);
      if (voucher) subject.voucher = voucher;
    } else if (requested.object === 'promotion_tier') {
      const tier = await ctx.uow.promotion_tiers.get(requested.id);
      if (tier) subject.tier = tier;
    } else {
      const stack = await ctx.uow.promotion_stacks.get(requested.id);
      if (stack) {
        subject.stack = stack;
        subject.stackTiers = await Promise.all(stack.tiers.ids.map((id) => ctx.uow.promotion_tiers.get(id)));
      }
    }
    const subjectCampaign = subject.voucher?.campaign_id ?? subject.tier?.campaign_id ?? subject.stack?.campaign_id ?? null;
    const categoryId = await categoryOf(ctx, (subject.voucher ?? subject.tier ?? subject.stack)?.category_id, subjectCampaign);
    const category = categoryId ? await ctx.uow.categories.get(categoryId) : undefined;
    if (category) {
      subject.category = { id: category.id, hierarchy: category.hierarchy };
      subject.exclusive = rules.exclusive_categories.includes(category.id);
      subject.joint = rules.joint_categories.includes(category.id);
    }
    subjects.push(subject);
  }
  // Loops rather than flatMap here and below: V8 runs flatMap on its generic path, which was about 3 µs of
  // every validation in make bench's profile.
  const discounts: Discount[] = [];
  for (const { voucher, tier, stackTiers } of subjects) {
    if (voucher?.discount) discounts.push(voucher.discount);
    if (tier?.action?.discount) discounts.push(tier.action.discount);
    for (const stackTier of stackTiers ?? []) if (stackTier?.action?.discount) discounts.push(stackTier.action.discount);
  }
  const catalog = await unitCatalog(ctx, discounts);

  let amount = initialAmount;
  let remaining = initialAmount;
  let giftTotal = 0;
  const tally: Tally = { applied: 0, exclusive: 0, byCategory: new Map(), exclusiveByCategory: new Map() };
  const verdicts: { verdict: Verdict; applied: Applied[]; voucher?: VoucherRecord; tier?: PromotionTierRecord }[] = [];

  for (const subject of applicationOrder(subjects, rules)) {
    const { requested, voucher, tier, stack } = subject;
    const base = { id: requested.id, object: requested.object };
    const campaignId = voucher?.campaign_id ?? tier?.campaign_id ?? stack?.campaign_id ?? null;
    const campaign = campaignId ? await ctx.uow.campaigns.get(campaignId) : undefined;
    const reject = (error: RedeemableError, failing?: PromotionTierRecord) =>
      verdicts.push({
        verdict: { ...FRESH, ...base, status: 'INAPPLICABLE', result: { error: { ...FRESH, ...error, resource_id: requested.id, resource_type: requested.object } }, campaign_id: campaignId },
        applied: [],
        ...(voucher && { voucher }),
        ...((failing ?? tier) && { tier: failing ?? tier }),
      });
    // What a verdict says of its redeemable beyond the result, as `options.expand` asks.
    const described = async (): Promise<Partial<Verdict>> => ({
      ...FRESH,
      ...(expand.has('redeemable') && {
        name: stack?.name ?? tier?.name ?? voucher?.code ?? requested.id,
        ...(campaign && { campaign_name: campaign.name }),
        metadata: (voucher ?? tier)?.metadata ?? {},
      }),
      ...(expand.has('category') && { categories: await verdictCategories(ctx, (voucher ?? tier ?? stack)?.category_id, rules) }),
    });
    const skip = async (key: string) => {
      const verdict: Verdict = { ...FRESH, ...base, status: 'APPLICABLE', result: {}, campaign_id: campaignId, ...(await described()) };
      verdicts.push({ verdict: skippedVerdict(verdict, key), applied: [], ...(voucher && { voucher }), ...(tier && { tier }) });
    };
    /** Applies a discount to the order as it stands, and says what it gives. */
    const discounting = (discount: Discount | undefined) => {
      if (!discount) return { off: 0, added: 0, itemLevel: false, commit: () => {} };
      // Under `ONCE`, a line an earlier redeemable discounted has nothing left for item-level discounts.
      const open =
        rules.redeemables_products_application_mode === 'ONCE'
          ? lines.map((line) => (line.discount_amount > 0 || line.discount_quantity > 0 ? { ...FRESH, ...line, discount_amount: line.amount } : line))
          : lines;
      const left = remaining - giftTotal;
      const effect = applyDiscount(discount, left, open, catalog, ofInitialAmount(subject, rules) ? initialAmount : left);
      return {
        off: effect.total,
        added: effect.addedAmount,
        itemLevel: effect.itemLevel,
        commit: () => {
          lines = effect.lines.map((line, index) => {
            const previous = lines[index];
            const current: Line = previous
              ? { ...FRESH, ...previous, quantity: line.quantity, amount: line.amount }
              : { ...FRESH, ...line, initial_quantity: 0, initial_amount: 0, discount_quantity: 0, discount_amount: 0, related_object: line.sku_id ? 'sku' : 'product', index: null, details: [] };
            const took = effect.perLine[index] ?? 0;
            const added = effect.addedUnits[index] ?? 0;
            current.discount_amount += took;
            current.discount_quantity += effect.freeUnits[index] ?? 0;
            if (took > 0 || added > 0) {
              const position = current.index ?? index;
              current.details = [
                ...current.details,
                {
                  source_index: position,
                  target_index: position,
                  ...(added > 0 && { target_applied_quantity: added, target_applied_quantity_amount: added * (line.price ?? 0) }),
                  target_applied_discount_amount: took,
                },
              ];
            }
            return current;
          });
          amount += effect.addedAmount;
          remaining += effect.addedAmount - effect.total;
        },
      };
    };
    /**
     * Applies discounts one after another (one for a voucher or tier, one per tier for a stack) and keeps
     * them, unless they take nothing and the rules skip such redeemables: then the order is as it was.
     */
    const applyDiscounts = async (parts: { discount: Discount | undefined; tier?: PromotionTierRecord }[], result: (off: number) => Verdict['result']) => {
      const saved = { lines, amount, remaining };
      const applied: Applied[] = [];
      let total = 0;
      let added = 0;
      for (const part of parts) {
        const effect = discounting(part.discount);
        effect.commit();
        total += effect.off;
        added += effect.added;
        applied.push({
          request: requested,
          campaignId,
          ...(voucher && { voucher }),
          ...(part.tier && { tier: part.tier }),
          discount: effect.off,
          itemLevel: effect.itemLevel,
          giftCredits: 0,
          points: 0,
        });
      }
      if (total === 0 && added === 0 && skipsNoEffect(subject, rules)) {
        ({ lines, amount, remaining } = saved);
        await skip('no_effect');
        return;
      }
      count(subject, tally);
      const verdict: Verdict = { ...FRESH, ...base, status: 'APPLICABLE', result: result(total), campaign_id: campaignId, ...(await described()) };
      verdicts.push({ verdict, applied, ...(voucher && { voucher }), ...(tier && { tier }) });
    };
    /** Applies a gift card or a loyalty card payment, which never counts as having no effect. */
    const applyPayment = async (result: Verdict['result'], applied: Omit<Applied, 'request' | 'campaignId'>, onApply: () => void) => {
      onApply();
      count(subject, tally);
      const verdict: Verdict = { ...FRESH, ...base, status: 'APPLICABLE', result, campaign_id: campaignId, ...(await described()) };
      verdicts.push({ verdict, applied: [{ request: requested, campaignId, ...applied }], ...(voucher && { voucher }), ...(tier && { tier }) });
    };

    if (requested.object === 'promotion_stack') {
      if (!stack) {
        reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find promotion stack ${requested.id}`));
        continue;
      }
      // The stack is a unit: it applies only when each of its tiers would apply on its own.
      let refused = false;
      for (const [index, member] of (subject.stackTiers ?? []).entries()) {
        if (!member) {
          reject(failure(404, 'resource_not_found', 'Resource not found', `Promotion stack ${stack.id}: cannot find promotion tier ${stack.tiers.ids[index]}`));
          refused = true;
          break;
        }
        const error = await tierError(ctx, member, now, facts, countsFor);
        if (error) {
          reject({ ...FRESH, ...error, details: `Promotion stack ${stack.id}: ${error.details ?? error.message}` }, member);
          refused = true;
          break;
        }
      }
      if (refused) continue;
      const limit = limitReached(subject, rules, tally);
      if (limit) {
        await skip(limit);
        continue;
      }
      await applyDiscounts(
        (subject.stackTiers as PromotionTierRecord[]).map((member) => ({ discount: member.action?.discount, tier: member })),
        (off) => ({ discount_amount: off }),
      );
      continue;
    }
    if (requested.object === 'voucher') {
      if (!voucher) {
        reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find voucher with code ${requested.id}`));
        continue;
      }
      const validity = [validityAt(voucher, now), campaign ? validityAt(campaign, now) : ({ valid: true } as const)].find((v) => !v.valid);
      if (validity && !validity.valid) {
        const [key, message] = VOUCHER_VALIDITY[validity.reason];
        reject(failure(400, key, message, `Voucher ${voucher.code}${campaign && !validityAt(voucher, now).valid ? '' : campaign ? ` (campaign ${campaign.name})` : ''}: ${validity.reason.replace(/_/g, ' ')}`));
        continue;
      }
      // What validation sessions other than the request's own hold of the voucher is not available to it.
      const held = await heldByOthers(ctx, voucher.id, given.session?.key);
      if (voucher.redemption.quantity !== null && voucher.redemption.redeemed_quantity + held.quantity >= voucher.redemption.quantity) {
        const heldNote = held.quantity > 0 ? `, and validation sessions hold ${held.quantity} more` : '';
        reject(failure(400, 'quantity_exceeded', 'Voucher redemptions limit exceeded', `Voucher ${voucher.code} was redeemed ${voucher.redemption.redeemed_quantity} of ${voucher.redemption.quantity} times${heldNote}`));
        continue;
      }
      const broken = await brokenRule(ctx, [voucher.id, ...(voucher.campaign_id ? [voucher.campaign_id] : [])], facts, countsFor(voucher.id, voucher.redemption.redeemed_quantity));
      if (broken) {
        reject(broken);
        continue;
      }
      if (voucher.type === 'LOYALTY_CARD') {
        const balance = voucher.loyalty_card?.balance ?? 0;
        const freePoints = Math.max(0, balance - held.points);
        const rewardRef = requested.reward?.id;
        if (!rewardRef) {
          reject(failure(400, 'missing_reward', 'Missing reward', `Loyalty card ${voucher.code} pays with points through a COIN reward: give reward.id`));
          continue;
        }
        const reward = await coinRewardFor(ctx, voucher, rewardRef);
        if (!reward) {
          reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find reward ${rewardRef} in the program of card ${voucher.code}`));
          continue;
        }
        if (reward.type !== 'COIN') {
          reject(failure(400, 'invalid_reward', 'Invalid reward', `Reward ${reward.name} is a ${reward.type} reward; only COIN rewards pay for orders, others are redeemed by the member`));
          continue;
        }
        const coin = reward.parameters.coin!;
        const paid = coinPayment(coin, remaining - giftTotal, Math.min(freePoints, requested.reward?.points ?? freePoints));
        if (paid.points <= 0) {
          const heldNote = held.points > 0 ? ` (${held.points} of them held by validation sessions)` : '';
          reject(failure(400, 'not_enough_points', 'Not enough points', `Loyalty card ${voucher.code} has ${balance} points${heldNote}; ${coin.points_ratio} are needed`));
          continue;
        }
        const limit = limitReached(subject, rules, tally);
        if (limit) {
          await skip(limit);
          continue;
        }
        const assignment = await rewardAssignment(ctx, voucher, rewardRef, reward.id);
        const holder = voucher.holder_id ? await ctx.uow.customers.get(voucher.holder_id) : undefined;
        const snapshot: RewardSnapshot = {
          id: reward.id,
          name: reward.name,
          type: reward.type,
          parameters: reward.parameters,
          metadata: reward.metadata,
          created_at: reward.created_at,
          updated_at: reward.updated_at,
          object: 'reward',
          customer: holder ? simpleCustomer(holder) : null,
          assignment_id: assignment?.id ?? null,
          voucher: null,
          product: null,
          sku: null,
          loyalty_tier_id: null,
        };
        await applyPayment(
          { discount_amount: paid.amount, loyalty_card: { points: paid.points, balance } },
          { voucher, discount: paid.amount, itemLevel: false, giftCredits: 0, points: paid.points, reward: snapshot },
          () => {
            remaining -= paid.amount;
          },
        );
        continue;
      }
      if (voucher.gift) {
        const wanted = requested.gift?.credits;
        const freeCredits = Math.max(0, voucher.gift.balance - held.credits);
        if (freeCredits === 0 || (wanted !== undefined && wanted > freeCredits)) {
          const heldNote = held.credits > 0 ? `, of which validation sessions hold ${held.credits}` : '';
          reject(failure(400, 'gift_amount_exceeded', 'Gift amount exceeded', `Gift card ${voucher.code} has a balance of ${voucher.gift.balance}${heldNote}`));
          continue;
        }
        const limit = limitReached(subject, rules, tally);
        if (limit) {
          await skip(limit);
          continue;
        }
        const credits = Math.min(wanted ?? freeCredits, freeCredits, remaining - giftTotal);
        await applyPayment({ gift: { credits, balance: voucher.gift.balance } }, { voucher, discount: 0, itemLevel: false, giftCredits: credits, points: 0 }, () => {
          giftTotal += credits;
        });
        continue;
      }
      const limit = limitReached(subject, rules, tally);
      if (limit) {
        await skip(limit);
        continue;
      }
      const discount = voucher.discount!;
      await applyDiscounts([{ discount }], (off) => ({ discount, discount_amount: off }));
      continue;
    }
    if (!tier) {
      reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find promotion tier ${requested.id}`));
      continue;
    }
    const error = await tierError(ctx, tier, now, facts, countsFor);
    if (error) {
      reject(error);
      continue;
    }
    const limit = limitReached(subject, rules, tally);
    if (limit) {
      await skip(limit);
      continue;
    }
    const discount = tier.action?.discount;
    await applyDiscounts([{ discount, tier }], (off) => ({ ...FRESH, ...(discount && { discount }), discount_amount: off }));
  }

  const partial = rules.redeemables_application_mode === 'PARTIAL';
  const valid = partial
    ? verdicts.some(({ verdict }) => verdict.status === 'APPLICABLE')
    : verdicts.every(({ verdict }) => verdict.status !== 'INAPPLICABLE');
  const applied: (typeof verdicts)[number]['applied'] = [];
  if (valid) for (const entry of verdicts) applied.push(...entry.applied);
  if (!valid) {
    // Nothing applies: the order is priced as it came, and every redeemable that would have applied is skipped.
    lines = await readLines(ctx, requestOrder?.items);
    amount = initialAmount;
    giftTotal = 0;
  }
  const redeemables = verdicts
    .filter(({ verdict }) => verdict.status !== 'INAPPLICABLE')
    .map(({ verdict }) => (valid || verdict.status === 'SKIPPED' ? verdict : skippedVerdict(verdict, 'preceding_validation_failed')));
  const orderDiscount = applied.filter((entry) => !entry.itemLevel).reduce((sum, entry) => sum + entry.discount, 0);
  const itemsDiscount = applied.filter((entry) => entry.itemLevel).reduce((sum, entry) => sum + entry.discount, 0);
  const giftUsed = applied.reduce((sum, entry) => sum + entry.giftCredits, 0);
  const total = orderDiscount + itemsDiscount;
  const customerId = customer?.id ?? null;
  return {
    valid,
    redeemables,
    skipped: redeemables.filter((verdict) => verdict.status === 'SKIPPED'),
    inapplicable: verdicts.filter(({ verdict }) => verdict.status === 'INAPPLICABLE').map(({ verdict }) => verdict),
    failures: verdicts
      .filter(({ verdict }) => verdict.status === 'INAPPLICABLE')
      .map(({ verdict, voucher, tier }) => ({ verdict, ...(voucher && { voucher }), ...(tier && { tier }) })),
    applied,
    order: {
      ...FRESH,
      ...(requestOrder?.id !== undefined && { id: requestOrder.id }),
      ...(storedId !== null && { id: storedId }),
      source_id: requestOrder?.source_id ?? null,
      amount,
      initial_amount: initialAmount,
      discount_amount: orderDiscount,
      items_discount_amount: itemsDiscount,
      total_discount_amount: total,
      total_amount: Math.max(0, amount - total - giftUsed),
      applied_discount_amount: orderDiscount,
      items_applied_discount_amount: itemsDiscount,
      total_applied_discount_amount: total,
      gift_amount: giftUsed,
      items: lines.map(presentLine),
      metadata: requestOrder?.metadata ?? {},
      ...(customerId !== null && { customer_id: customerId, customer: { id: customerId, object: 'customer' as const } }),
      object: 'order',
    },
    totals: { amount, initialAmount, orderDiscount, itemsDiscount, gift: giftUsed },
    lines,
    storedOrderId: storedId,
    customerId,
    customer,
    trackingId: customer ? trackingIdOf(customer.id) : (given.tracking_id ?? `track_${randomBase64url(9)}`),
    stackingRules: rules,
  };
}

/** Why a promotion tier does not apply now (its or its campaign's validity, its rules); undefined when it does. */
async function tierError(
  ctx: DomainContext,
  tier: PromotionTierRecord,
  now: Date,
  facts: Facts,
  countsFor: (objectId: string, total: number) => Counts,
): Promise<RedeemableError | undefined> {
  const campaign = await ctx.uow.campaigns.get(tier.campaign_id);
  const validity = [campaign ? validityAt(campaign, now) : ({ valid: false, reason: 'disabled' } as const), validityAt(tier, now)].find((v) => !v.valid);
  if (validity && !validity.valid) {
    const [key, message] = TIER_VALIDITY[validity.reason];
    return failure(400, key, message, `Promotion tier ${tier.id}: ${validity.reason.replace(/_/g, ' ')}`);
  }
  return brokenRule(ctx, [tier.id, tier.campaign_id], facts, countsFor(tier.id, tier.summary.redemptions.total_redeemed));
}

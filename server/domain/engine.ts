/**
 * The promotion engine: decides, for an order and a customer, which redeemables apply and what each
 * gives. Validation reports the verdicts; redemption applies them. Both call `evaluate`.
 *
 * Redeemables apply one after another, in the order requested, to what is left of the order, under the
 * stacking rules below: when one is inapplicable none applies (the others are skipped), at most five
 * apply, and at most one of each category. What validation sessions hold of a voucher (sessions.ts) is
 * unavailable to every request but those naming the session.
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import { categoryFields } from './categories.js';
import type { DomainContext } from './context.js';
import type { Customer } from './customers.js';
import { applyDiscount, unitIds, type CatalogUnit, type Discount, type DiscountLine, type PricedItem } from './discounts.js';
import { conditionValues, matchesConditions, matchesFilter, type Conditions, type FilterDefinition } from './filters.js';
import type { PromotionTierRecord } from './promotion-tiers.js';
import { evaluateRuleSet } from './rule-logic.js';
import type { ValidationRuleRecord } from './validation-rules.js';
import { coinPayment, coinRewardFor } from './loyalty/rewards.js';
import { heldByOthers } from './sessions.js';
import { validityAt, type ValidityVerdict } from './validity.js';
import type { VoucherRecord } from './vouchers.js';

type Schemas = components['schemas'];
type Request = Schemas['ValidationsValidateRequestBody'];
type OrderRequest = Schemas['OrderRequest'];
type ItemRequest = Schemas['OrderItemRequest'];
export type Verdict = Schemas['ValidationRedeemable'];
type RedeemableError = Schemas['RedeemableError'];
type Detail = NonNullable<Schemas['OrderItemCalculated']['application_details']>[number];

/** The stacking rules every request runs under: the public API's defaults, as this engine applies them. */
export const STACKING_RULES: Schemas['StackingRules'] = {
  redeemables_limit: 30,
  applicable_redeemables_limit: 5,
  applicable_redeemables_per_category_limit: 1,
  applicable_redeemables_category_limits: {},
  applicable_exclusive_redeemables_limit: 1,
  applicable_exclusive_redeemables_per_category_limit: 1,
  exclusive_categories: [],
  joint_categories: [],
  redeemables_application_mode: 'ALL',
  redeemables_sorting_rule: 'REQUESTED_ORDER',
  redeemables_products_application_mode: 'STACK',
  redeemables_no_effect_rule: 'REDEEM_ANYWAY',
  no_effect_skip_categories: [],
  no_effect_redeem_anyway_categories: [],
  redeemables_rollback_order_mode: 'WITHOUT_ORDER',
};

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
}

interface Facts {
  amount: number;
  items: PricedItem[];
  orderMetadata: Record<string, unknown>;
  customerMetadata: Record<string, unknown>;
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
      ...order,
      amount: stored.amount,
      items: stored.items.map((item) => ({
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
      metadata: { ...stored.metadata, ...order.metadata },
    },
    storedId: stored.id,
  };
}

/** The catalog products and SKUs the unit discounts of the request may add to the order. */
async function unitCatalog(ctx: DomainContext, discounts: Discount[]): Promise<(id: string) => CatalogUnit | undefined> {
  const known = new Map<string, CatalogUnit>();
  for (const id of new Set(discounts.flatMap(unitIds))) {
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
  applicable_redeemables_limit_exceeded: `More than ${STACKING_RULES.applicable_redeemables_limit} redeemables apply`,
  applicable_redeemables_per_category_limit_exceeded: `More than ${STACKING_RULES.applicable_redeemables_per_category_limit} redeemable of the category applies`,
};

function skippedVerdict(verdict: Verdict, key: string): Verdict {
  const { result: _result, ...rest } = verdict;
  return { ...rest, status: 'SKIPPED', result: { details: { key, message: SKIP_MESSAGES[key]! } } };
}

export async function evaluate(ctx: DomainContext, given: Request): Promise<Evaluation> {
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
  const facts: Facts = {
    amount: initialAmount,
    items: lines.map(({ product_id, sku_id, quantity, price, amount }) => ({ product_id, sku_id, quantity, price, amount })),
    orderMetadata: requestOrder?.metadata ?? {},
    customerMetadata: { ...(customer?.metadata ?? {}), ...(customerRef?.metadata ?? {}) },
  };
  const countsFor = (objectId: string, total: number): Counts => ({
    total,
    byCustomer: async () => {
      if (!customer) return 0;
      const own = await ctx.uow.redemptions.findBy('related_object_id', objectId);
      return own.filter((entry) => entry.object === 'redemption' && entry.customer_id === customer.id && entry.status === 'SUCCEEDED').length;
    },
  });

  // Collected first, so the catalog lookups of unit discounts happen once.
  const subjects: { requested: Request['redeemables'][number]; voucher?: VoucherRecord; tier?: PromotionTierRecord }[] = [];
  for (const requested of given.redeemables) {
    if (requested.object === 'voucher') subjects.push({ requested, voucher: await ctx.uow.vouchers.getBy('code', requested.id) });
    else if (requested.object === 'promotion_tier') subjects.push({ requested, tier: await ctx.uow.promotion_tiers.get(requested.id) });
    else subjects.push({ requested });
  }
  const catalog = await unitCatalog(ctx, subjects.flatMap(({ voucher, tier }) => [voucher?.discount, tier?.action?.discount].filter((d): d is Discount => !!d)));

  let amount = initialAmount;
  let remaining = initialAmount;
  let giftTotal = 0;
  const appliedCategories = new Map<string, number>();
  let appliedCount = 0;
  const verdicts: { verdict: Verdict; applied?: Applied; voucher?: VoucherRecord; tier?: PromotionTierRecord }[] = [];

  for (const { requested, voucher, tier } of subjects) {
    const base = { id: requested.id, object: requested.object };
    const campaignId = voucher?.campaign_id ?? tier?.campaign_id ?? null;
    const campaign = campaignId ? await ctx.uow.campaigns.get(campaignId) : undefined;
    const reject = (error: RedeemableError) =>
      verdicts.push({
        verdict: { ...base, status: 'INAPPLICABLE', result: { error: { ...error, resource_id: requested.id, resource_type: requested.object } }, campaign_id: campaignId },
        ...(voucher && { voucher }),
        ...(tier && { tier }),
      });
    // What a verdict says of its redeemable beyond the result, as `options.expand` asks.
    const described = async (): Promise<Partial<Verdict>> => ({
      ...(expand.has('redeemable') && {
        name: tier?.name ?? voucher?.code ?? requested.id,
        ...(campaign && { campaign_name: campaign.name }),
        metadata: (voucher ?? tier)?.metadata ?? {},
      }),
      ...(expand.has('category') && { categories: (await categoryFields(ctx, (voucher ?? tier)?.category_id ?? null)).categories }),
    });
    /** The stacking limit a redeemable that would apply runs into, if any, and the category it counts under. */
    const stackingLimit = async (): Promise<{ exceeded?: string; category: string | null }> => {
      const category = await categoryOf(ctx, (voucher ?? tier)?.category_id, campaignId);
      if (appliedCount >= STACKING_RULES.applicable_redeemables_limit) return { exceeded: 'applicable_redeemables_limit_exceeded', category };
      const limit = category ? (STACKING_RULES.applicable_redeemables_category_limits[category] ?? STACKING_RULES.applicable_redeemables_per_category_limit) : Infinity;
      if (category && (appliedCategories.get(category) ?? 0) >= limit) return { exceeded: 'applicable_redeemables_per_category_limit_exceeded', category };
      return { category };
    };
    /** Applies a redeemable that would apply, unless a stacking limit skips it. */
    const apply = async (result: Verdict['result'], applied: Omit<Applied, 'request' | 'campaignId'>, onApply: () => void) => {
      const { exceeded, category } = await stackingLimit();
      const verdict: Verdict = { ...base, status: 'APPLICABLE', result, campaign_id: campaignId, ...(await described()) };
      if (exceeded) {
        verdicts.push({ verdict: skippedVerdict(verdict, exceeded), ...(voucher && { voucher }), ...(tier && { tier }) });
        return;
      }
      onApply();
      appliedCount += 1;
      if (category) appliedCategories.set(category, (appliedCategories.get(category) ?? 0) + 1);
      verdicts.push({ verdict, applied: { request: requested, campaignId, ...applied }, ...(voucher && { voucher }), ...(tier && { tier }) });
    };
    /** Applies a discount to the order as it stands, and says what it gives. */
    const discounting = (discount: Discount | undefined) => {
      if (!discount) return { off: 0, itemLevel: false, commit: () => {} };
      const effect = applyDiscount(discount, remaining - giftTotal, lines, catalog);
      return {
        off: effect.total,
        itemLevel: effect.itemLevel,
        commit: () => {
          lines = effect.lines.map((line, index) => {
            const previous = lines[index];
            const current: Line = previous
              ? { ...previous, quantity: line.quantity, amount: line.amount }
              : { ...line, initial_quantity: 0, initial_amount: 0, discount_quantity: 0, discount_amount: 0, related_object: line.sku_id ? 'sku' : 'product', index: null, details: [] };
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

    if (requested.object === 'promotion_stack') {
      reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find promotion stack ${requested.id}: this service has no promotion stacks`));
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
        await apply(
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
        const credits = Math.min(wanted ?? freeCredits, freeCredits, remaining - giftTotal);
        await apply({ gift: { credits, balance: voucher.gift.balance } }, { voucher, discount: 0, itemLevel: false, giftCredits: credits, points: 0 }, () => {
          giftTotal += credits;
        });
        continue;
      }
      const discount = voucher.discount!;
      const effect = discounting(discount);
      await apply({ discount, discount_amount: effect.off }, { voucher, discount: effect.off, itemLevel: effect.itemLevel, giftCredits: 0, points: 0 }, effect.commit);
      continue;
    }
    if (!tier) {
      reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find promotion tier ${requested.id}`));
      continue;
    }
    const validity = [campaign ? validityAt(campaign, now) : ({ valid: false, reason: 'disabled' } as const), validityAt(tier, now)].find((v) => !v.valid);
    if (validity && !validity.valid) {
      const [key, message] = TIER_VALIDITY[validity.reason];
      reject(failure(400, key, message, `Promotion tier ${tier.id}: ${validity.reason.replace(/_/g, ' ')}`));
      continue;
    }
    const broken = await brokenRule(ctx, [tier.id, tier.campaign_id], facts, countsFor(tier.id, tier.summary.redemptions.total_redeemed));
    if (broken) {
      reject(broken);
      continue;
    }
    const discount = tier.action?.discount;
    const effect = discounting(discount);
    await apply({ ...(discount && { discount }), discount_amount: effect.off }, { tier, discount: effect.off, itemLevel: effect.itemLevel, giftCredits: 0, points: 0 }, effect.commit);
  }

  const valid = verdicts.every(({ verdict }) => verdict.status !== 'INAPPLICABLE');
  const applied = valid ? verdicts.flatMap(({ applied }) => (applied ? [applied] : [])) : [];
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
    trackingId: customer ? trackingIdOf(customer.id) : (given.tracking_id ?? `track_${randomBytes(9).toString('base64url')}`),
  };
}

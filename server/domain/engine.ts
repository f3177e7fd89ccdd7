/**
 * The promotion engine: decides, for an order and a customer, which redeemables apply and what each
 * gives. Validation reports the verdicts; redemption applies them. Both call `evaluate`.
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { discountAmount, type PricedItem } from './discounts.js';
import { matchesConditions, matchesFilter, type Conditions, type FilterDefinition } from './filters.js';
import type { PromotionTierRecord } from './promotion-tiers.js';
import { effectiveLogic, evaluateLogic, parseLogic } from './rule-logic.js';
import type { ValidationRuleRecord } from './validation-rules.js';
import { coinPayment, coinRewardFor } from './loyalty/rewards.js';
import { validityAt, type ValidityVerdict } from './validity.js';
import type { VoucherRecord } from './vouchers.js';

type Schemas = components['schemas'];
type Request = Schemas['ValidationsValidateRequestBody'];
type Verdict = Schemas['ValidationRedeemable'];
type RedeemableError = Schemas['RedeemableError'];

export interface Applied {
  request: Request['redeemables'][number];
  voucher?: VoucherRecord;
  tier?: PromotionTierRecord;
  campaignId: string | null;
  discount: number;
  giftCredits: number;
  /** Loyalty points a card pays with. */
  points: number;
}

export interface Evaluation {
  valid: boolean;
  redeemables: Verdict[];
  inapplicable: Verdict[];
  applied: Applied[];
  order: Schemas['OrderCalculated'];
  customerId: string | null;
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

/** Order lines with catalog IDs and prices filled in. */
export async function priceItems(ctx: DomainContext, order: { items?: Schemas['OrderItemRequest'][] } | undefined): Promise<PricedItem[]> {
  const items: PricedItem[] = [];
  for (const item of order?.items ?? []) {
    const product = item.product_id ? ((await ctx.uow.products.get(item.product_id)) ?? (await ctx.uow.products.getBy('source_id', item.product_id))) : undefined;
    const sku = item.sku_id ? ((await ctx.uow.skus.get(item.sku_id)) ?? (await ctx.uow.skus.getBy('source_id', item.sku_id))) : undefined;
    const quantity = item.quantity ?? 1;
    const price = item.price ?? sku?.price ?? product?.price ?? null;
    items.push({
      product_id: product?.id ?? sku?.product_id ?? item.product_id ?? null,
      sku_id: sku?.id ?? item.sku_id ?? null,
      quantity,
      price,
      amount: item.amount ?? (price ?? 0) * quantity,
    });
  }
  return items;
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

type RuleCondition = { name: string; property?: string; conditions: Conditions; error?: { message: string } };

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
          for (const value of values ?? []) if (await inCollection(ctx, String(value), item)) ids.push(String(value));
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
    const rules = rule.rules as Record<string, unknown>;
    const outcome = new Map<string, boolean>();
    for (const [number, condition] of Object.entries(rules)) {
      if (number !== 'logic') outcome.set(number, await ruleHolds(ctx, condition as RuleCondition, facts, counts));
    }
    if (evaluateLogic(parseLogic(effectiveLogic(rules)), (number) => outcome.get(number) ?? false)) continue;
    const [failedNumber] = [...outcome].find(([, holds]) => !holds) ?? [];
    const failed = failedNumber ? (rules[failedNumber] as RuleCondition) : undefined;
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
async function effectiveOrder(ctx: DomainContext, order: Request['order']): Promise<Request['order']> {
  if (!order || order.amount !== undefined || (order.items?.length ?? 0) > 0) return order;
  const stored = order.id ? await ctx.uow.orders.get(order.id) : order.source_id ? await ctx.uow.orders.getBy('source_id', order.source_id) : undefined;
  if (!stored) return order;
  return {
    ...order,
    amount: stored.amount,
    items: stored.items.map((item) => ({
      ...(item.product_id !== null && { product_id: item.product_id }),
      ...(item.sku_id !== null && { sku_id: item.sku_id }),
      quantity: item.quantity,
      ...(item.price !== null && { price: item.price }),
      amount: item.amount,
    })),
    metadata: { ...stored.metadata, ...order.metadata },
  };
}

export async function evaluate(ctx: DomainContext, given: Request): Promise<Evaluation> {
  const request = { ...given, order: await effectiveOrder(ctx, given.order) };
  const now = ctx.clock.now();
  const customer = request.customer?.id
    ? await ctx.uow.customers.get(request.customer.id)
    : request.customer?.source_id
      ? await ctx.uow.customers.getBy('source_id', request.customer.source_id)
      : undefined;
  const items = await priceItems(ctx, request.order);
  const amount = request.order?.amount ?? items.reduce((sum, item) => sum + item.amount, 0);
  const facts: Facts = {
    amount,
    items,
    orderMetadata: request.order?.metadata ?? {},
    customerMetadata: { ...(customer?.metadata ?? {}), ...(request.customer?.metadata ?? {}) },
  };
  const countsFor = (objectId: string, total: number): Counts => ({
    total,
    byCustomer: async () => {
      if (!customer) return 0;
      const own = await ctx.uow.redemptions.findBy('related_object_id', objectId);
      return own.filter((redemption) => redemption.customer_id === customer.id && redemption.status === 'SUCCEEDED').length;
    },
  });
  let remaining = amount;
  let giftTotal = 0;
  const verdicts: { verdict: Verdict; applied?: Applied }[] = [];

  for (const requested of request.redeemables) {
    const base = { id: requested.id, object: requested.object };
    const reject = (error: RedeemableError, campaignId: string | null = null) =>
      verdicts.push({ verdict: { ...base, status: 'INAPPLICABLE', result: { error }, campaign_id: campaignId } });

    if (requested.object === 'voucher') {
      const voucher = await ctx.uow.vouchers.getBy('code', requested.id);
      if (!voucher) {
        reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find voucher with code ${requested.id}`));
        continue;
      }
      const campaign = voucher.campaign_id ? await ctx.uow.campaigns.get(voucher.campaign_id) : undefined;
      const validity = [validityAt(voucher, now), campaign ? validityAt(campaign, now) : ({ valid: true } as const)].find((v) => !v.valid);
      if (validity && !validity.valid) {
        const [key, message] = VOUCHER_VALIDITY[validity.reason];
        reject(failure(400, key, message, `Voucher ${voucher.code}${campaign && !validityAt(voucher, now).valid ? '' : campaign ? ` (campaign ${campaign.name})` : ''}: ${validity.reason.replace(/_/g, ' ')}`), voucher.campaign_id);
        continue;
      }
      if (voucher.redemption.quantity !== null && voucher.redemption.redeemed_quantity >= voucher.redemption.quantity) {
        reject(failure(400, 'quantity_exceeded', 'Voucher redemptions limit exceeded', `Voucher ${voucher.code} was redeemed ${voucher.redemption.redeemed_quantity} of ${voucher.redemption.quantity} times`), voucher.campaign_id);
        continue;
      }
      const broken = await brokenRule(ctx, [voucher.id, ...(voucher.campaign_id ? [voucher.campaign_id] : [])], facts, countsFor(voucher.id, voucher.redemption.redeemed_quantity));
      if (broken) {
        reject(broken, voucher.campaign_id);
        continue;
      }
      if (voucher.type === 'LOYALTY_CARD') {
        const balance = voucher.loyalty_card?.balance ?? 0;
        if (!requested.reward) {
          reject(failure(400, 'missing_reward', 'Missing reward', `Loyalty card ${voucher.code} pays with points through a COIN reward: give reward.id`), voucher.campaign_id);
          continue;
        }
        const reward = await coinRewardFor(ctx, voucher, requested.reward.id);
        if (!reward) {
          reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find reward ${requested.reward.id} in the program of card ${voucher.code}`), voucher.campaign_id);
          continue;
        }
        if (reward.type !== 'COIN') {
          reject(failure(400, 'invalid_reward', 'Invalid reward', `Reward ${reward.name} is a ${reward.type} reward; only COIN rewards pay for orders, others are redeemed by the member`), voucher.campaign_id);
          continue;
        }
        const paid = coinPayment(reward.parameters.coin!, remaining - giftTotal, Math.min(balance, requested.reward.points ?? balance));
        if (paid.points <= 0) {
          reject(failure(400, 'not_enough_points', 'Not enough points', `Loyalty card ${voucher.code} has ${balance} points; ${reward.parameters.coin!.points_ratio} are needed`), voucher.campaign_id);
          continue;
        }
        remaining -= paid.amount;
        verdicts.push({
          verdict: { ...base, status: 'APPLICABLE', result: { discount_amount: paid.amount, loyalty_card: { points: paid.points, balance } }, campaign_id: voucher.campaign_id },
          applied: { request: requested, voucher, campaignId: voucher.campaign_id, discount: paid.amount, giftCredits: 0, points: paid.points },
        });
        continue;
      }
      if (voucher.gift) {
        const wanted = requested.gift?.credits;
        if (voucher.gift.balance === 0 || (wanted !== undefined && wanted > voucher.gift.balance)) {
          reject(failure(400, 'gift_amount_exceeded', 'Gift amount exceeded', `Gift card ${voucher.code} has a balance of ${voucher.gift.balance}`), voucher.campaign_id);
          continue;
        }
        const credits = Math.min(wanted ?? voucher.gift.balance, voucher.gift.balance, remaining - giftTotal);
        giftTotal += credits;
        verdicts.push({
          verdict: { ...base, status: 'APPLICABLE', result: { gift: { credits, balance: voucher.gift.balance } }, campaign_id: voucher.campaign_id },
          applied: { request: requested, voucher, campaignId: voucher.campaign_id, discount: 0, giftCredits: credits, points: 0 },
        });
        continue;
      }
      const discount = voucher.discount!;
      const off = discountAmount(discount, remaining - giftTotal, items);
      remaining -= off;
      verdicts.push({
        verdict: { ...base, status: 'APPLICABLE', result: { discount, discount_amount: off }, campaign_id: voucher.campaign_id },
        applied: { request: requested, voucher, campaignId: voucher.campaign_id, discount: off, giftCredits: 0, points: 0 },
      });
    } else {
      const tier = await ctx.uow.promotion_tiers.get(requested.id);
      if (!tier) {
        reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find promotion tier ${requested.id}`));
        continue;
      }
      const campaign = await ctx.uow.campaigns.get(tier.campaign_id);
      const validity = [campaign ? validityAt(campaign, now) : ({ valid: false, reason: 'disabled' } as const), validityAt(tier, now)].find((v) => !v.valid);
      if (validity && !validity.valid) {
        const [key, message] = TIER_VALIDITY[validity.reason];
        reject(failure(400, key, message, `Promotion tier ${tier.id}: ${validity.reason.replace(/_/g, ' ')}`), tier.campaign_id);
        continue;
      }
      const broken = await brokenRule(ctx, [tier.id, tier.campaign_id], facts, countsFor(tier.id, tier.summary.redemptions.total_redeemed));
      if (broken) {
        reject(broken, tier.campaign_id);
        continue;
      }
      const discount = tier.action?.discount;
      const off = discount ? discountAmount(discount, remaining - giftTotal, items) : 0;
      remaining -= off;
      verdicts.push({
        verdict: { ...base, status: 'APPLICABLE', result: { ...(discount && { discount }), discount_amount: off }, campaign_id: tier.campaign_id },
        applied: { request: requested, tier, campaignId: tier.campaign_id, discount: off, giftCredits: 0, points: 0 },
      });
    }
  }

  const valid = verdicts.every(({ verdict }) => verdict.status === 'APPLICABLE');
  const applied = valid ? verdicts.flatMap(({ applied }) => (applied ? [applied] : [])) : [];
  const discountTotal = applied.reduce((sum, entry) => sum + entry.discount, 0);
  const giftUsed = applied.reduce((sum, entry) => sum + entry.giftCredits, 0);
  return {
    valid,
    redeemables: verdicts
      .filter(({ verdict }) => verdict.status === 'APPLICABLE')
      .map(({ verdict }) => (valid ? verdict : { ...verdict, status: 'SKIPPED' as const, result: {} })),
    inapplicable: verdicts.filter(({ verdict }) => verdict.status === 'INAPPLICABLE').map(({ verdict }) => verdict),
    applied,
    order: {
      id: request.order?.id ?? null,
      source_id: request.order?.source_id ?? null,
      amount,
      discount_amount: discountTotal,
      gift_amount: giftUsed,
      total_amount: Math.max(0, amount - discountTotal - giftUsed),
      items: items.map((item) => ({ ...item })),
      metadata: request.order?.metadata ?? {},
      object: 'order',
    },
    customerId: customer?.id ?? null,
    trackingId: customer ? `track_${Buffer.from(customer.id).toString('base64url')}` : `track_${randomBytes(9).toString('base64url')}`,
  };
}

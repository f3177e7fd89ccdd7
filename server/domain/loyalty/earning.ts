/**
 * Earning rules, and the points they give: when an order is paid, when a member joins a tier, or when a
 * custom event names a card. Points are added at once, or wait as pending points when the rule says so.
 */
import { DateTime } from 'luxon';
import type { components } from '../../../generated/openapi.js';
import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { inCollection } from '../engine.js';
import { invalid, notFound } from '../errors.js';
import { recordEvent, type EventRecord } from '../events.js';
import { newId } from '../ids.js';
import type { Order } from '../orders.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from '../pagination.js';
import { timeframeWithoutStart, validityAt } from '../validity.js';
import type { VoucherRecord } from '../vouchers.js';
import { movePoints, recordCardEvent } from './cards.js';
import { enroll } from './members.js';
import { addPending } from './pending-points.js';
import { findProgram } from './programs.js';
import { currentTier, mapped } from './tiers.js';
import type { EarningRule, LoyaltyTier } from './types.js';

type Schemas = components['schemas'];
type RuleRequest = Schemas['EarningRuleRequest'];
type RuleUpdate = Schemas['EarningRulesUpdateRequestBody'];

export const ORDER_PAID = 'order.paid';
export const TIER_JOINED = 'customer.loyalty.tier.joined';
export const SEGMENT_ENTERED = 'customer.segment.entered';
const BUILT_IN = new Set([ORDER_PAID, TIER_JOINED, SEGMENT_ENTERED]);

function ruleError(details: string) {
  return invalid('invalid_earning_rule', 'Invalid earning rule', details);
}

const RATIO_OF = {
  ORDER_AMOUNT: ['order', 'amount'],
  ORDER_TOTAL_AMOUNT: ['order', 'total_amount'],
  ORDER_ITEMS_QUANTITY: ['order_items', 'quantity'],
  ORDER_ITEMS_AMOUNT: ['order_items', 'amount'],
} as const;

/** Checks what the schema cannot: the ratio a calculation needs, and the tier or segment an event needs. */
async function checkRule(ctx: DomainContext, campaignId: string, rule: EarningRule): Promise<void> {
  const loyalty = rule.loyalty;
  if (loyalty.type === 'PROPORTIONAL') {
    const [group, key] = RATIO_OF[loyalty.calculation_type];
    const ratio = (loyalty[group] as Record<string, unknown> | undefined)?.[key];
    if (!ratio) throw ruleError(`A ${loyalty.calculation_type} rule needs loyalty.${group}.${key}`);
    if (rule.event !== ORDER_PAID && group === 'order_items') throw ruleError(`Only ${ORDER_PAID} rules can count order items`);
  }
  if (rule.event === TIER_JOINED) {
    if (!rule.loyalty_tier) throw ruleError(`A ${TIER_JOINED} rule needs loyalty_tier`);
    const tier = await ctx.uow.loyalty_tiers.get(rule.loyalty_tier.id);
    if (!tier || tier.campaign_id !== campaignId) throw notFound('loyalty_tier', rule.loyalty_tier.id);
  } else if (rule.loyalty_tier) throw ruleError(`loyalty_tier belongs to ${TIER_JOINED} rules only`);
  if (rule.event === SEGMENT_ENTERED && !rule.segment) throw ruleError(`A ${SEGMENT_ENTERED} rule needs segment`);
  if (rule.event !== SEGMENT_ENTERED && rule.segment) throw ruleError(`segment belongs to ${SEGMENT_ENTERED} rules only`);
  if (rule.event !== ORDER_PAID && loyalty.type === 'PROPORTIONAL' && !BUILT_IN.has(rule.event)) {
    throw ruleError('A custom event rule gives FIXED points');
  }
}

export async function findEarningRule(ctx: DomainContext, campaignRef: string, ruleId: string): Promise<EarningRule> {
  const program = await findProgram(ctx, campaignRef);
  const rule = await ctx.uow.earning_rules.get(ruleId);
  if (!rule || rule.campaign_id !== program.id) throw notFound('earning_rule', ruleId);
  return rule;
}

export async function createEarningRules(ctx: DomainContext, campaignRef: string, input: RuleRequest[]): Promise<EarningRule[]> {
  const program = await findProgram(ctx, campaignRef);
  const created: EarningRule[] = [];
  for (const request of input) {
    const rule: EarningRule = {
      id: newId('ern'),
      campaign_id: program.id,
      event: request.event,
      loyalty: request.loyalty,
      source: { banner: request.source?.banner ?? null, object_id: program.id, object_type: 'campaign' },
      loyalty_tier: request.loyalty_tier ?? null,
      segment: request.segment ?? null,
      pending_points: request.pending_points ?? null,
      active: request.active ?? true,
      start_date: request.start_date ?? null,
      expiration_date: request.expiration_date ?? null,
      validity_timeframe: request.validity_timeframe ?? null,
      validity_day_of_week: request.validity_day_of_week ?? null,
      validity_hours: request.validity_hours ?? null,
      metadata: request.metadata ?? {},
      created_at: ctx.clock.now().toISOString(),
      updated_at: null,
      object: 'earning_rule',
    };
    await checkRule(ctx, program.id, rule);
    created.push(await ctx.uow.earning_rules.insert(rule));
  }
  return created;
}

export async function updateEarningRule(ctx: DomainContext, campaignRef: string, ruleId: string, input: RuleUpdate): Promise<EarningRule> {
  const rule = await findEarningRule(ctx, campaignRef, ruleId);
  if (timeframeWithoutStart(rule, input)) throw ruleError('validity_timeframe requires start_date');
  const { source, ...changes } = input;
  const updated = applyChanges(rule, { ...changes, ...(source && { source: { ...rule.source, banner: source.banner ?? rule.source.banner } }) }, ctx.clock.now().toISOString());
  await checkRule(ctx, rule.campaign_id, updated);
  return ctx.uow.earning_rules.update(updated);
}

export async function setEarningRuleActive(ctx: DomainContext, campaignRef: string, ruleId: string, active: boolean): Promise<EarningRule> {
  const rule = await findEarningRule(ctx, campaignRef, ruleId);
  return ctx.uow.earning_rules.update({ ...rule, active, updated_at: ctx.clock.now().toISOString() });
}

export async function deleteEarningRule(ctx: DomainContext, campaignRef: string, ruleId: string): Promise<void> {
  const rule = await findEarningRule(ctx, campaignRef, ruleId);
  await ctx.uow.earning_rules.delete(rule.id);
}

export async function listEarningRules(ctx: DomainContext, campaignRef: string, query: PageRequest & { order?: SortOrder }) {
  const program = await findProgram(ctx, campaignRef);
  return ctx.uow.earning_rules.query({
    index: { field: 'campaign_id', value: program.id },
    orderBy: parseTimestampOrder(query.order),
    ...pageWindow(query),
  });
}

/** A program's rules as they apply in a tier: FIXED points with the tier's mapping. */
export function ruleInTier(rule: EarningRule, tier: LoyaltyTier): EarningRule {
  const mapping = tier.earning_rules[rule.id];
  if (!mapping || rule.loyalty.type !== 'FIXED') return rule;
  return { ...rule, loyalty: { ...rule.loyalty, points: Math.max(1, mapped(rule.loyalty.points, mapping)) } };
}

function steps(measure: number, ratio: { every: number; points: number }): number {
  return Math.floor(measure / ratio.every) * ratio.points;
}

async function itemsMeasure(ctx: DomainContext, order: Order, ratio: Schemas['EarningItemsRatio'], field: 'quantity' | 'amount'): Promise<number> {
  let total = 0;
  for (const item of order.items) {
    const priced = { product_id: item.product_id ?? null, sku_id: item.sku_id ?? null, quantity: item.quantity ?? 1, price: item.price ?? null, amount: item.amount ?? 0 };
    const matches =
      ratio.object === 'product' ? priced.product_id === ratio.id : ratio.object === 'sku' ? priced.sku_id === ratio.id : await inCollection(ctx, ratio.id, priced);
    if (matches) total += field === 'quantity' ? priced.quantity : priced.amount;
  }
  return total;
}

/** Points a rule gives for an event (with an order, for order rules), before the tier's mapping. */
async function pointsFor(ctx: DomainContext, rule: EarningRule, order?: Order): Promise<number> {
  const loyalty = rule.loyalty;
  if (loyalty.type === 'FIXED') return loyalty.points;
  if (!order) return 0;
  let points = 0;
  switch (loyalty.calculation_type) {
    case 'ORDER_AMOUNT':
      points = steps(order.amount, loyalty.order!.amount!);
      break;
    case 'ORDER_TOTAL_AMOUNT':
      points = steps(order.total_amount, loyalty.order!.total_amount!);
      break;
    case 'ORDER_ITEMS_QUANTITY':
      points = steps(await itemsMeasure(ctx, order, loyalty.order_items!.quantity!, 'quantity'), loyalty.order_items!.quantity!);
      break;
    case 'ORDER_ITEMS_AMOUNT':
      points = steps(await itemsMeasure(ctx, order, loyalty.order_items!.amount!, 'amount'), loyalty.order_items!.amount!);
      break;
  }
  return loyalty.max_points !== undefined ? Math.min(points, loyalty.max_points) : points;
}

function activationDay(rule: EarningRule, now: Date): string | null {
  if (!rule.pending_points) return null;
  const unit = rule.pending_points.period_type === 'DAY' ? 'days' : 'months';
  return DateTime.fromJSDate(now, { zone: 'utc' }).plus({ [unit]: rule.pending_points.period_value }).toISODate();
}

/** Gives a card the points of a rule for an event: pending when the rule says so, at once otherwise. */
async function earn(ctx: DomainContext, card: VoucherRecord, rule: EarningRule, trigger: EventRecord, order?: Order): Promise<void> {
  const tier = await currentTier(ctx, card.id);
  const points = mapped(await pointsFor(ctx, rule, order), tier?.earning_rules[rule.id]);
  if (points <= 0) return;
  const activates = activationDay(rule, ctx.clock.now());
  if (activates) {
    await addPending(ctx, card, { rule, trigger, tier, points, activatesAt: activates, order });
    return;
  }
  const moved = await movePoints(ctx, card, {
    points,
    type: 'POINTS_ACCRUAL',
    operation: 'AUTOMATIC',
    details: { earning_rule: { id: rule.id }, ...(order && { order: { id: order.id, source_id: order.source_id } }) },
  });
  await recordCardEvent(ctx, 'customer.rewarded.loyalty_points', moved.card, {
    points,
    balance: moved.balance.balance,
    earning_rule: { id: rule.id, source: { banner: rule.source.banner } },
    ...(order && { order: { id: order.id, source_id: order.source_id } }),
  });
}

function ruleApplies(ctx: DomainContext, rule: EarningRule): boolean {
  return validityAt(rule, ctx.clock.now()).valid;
}

/** The customer's cards in programs that are active now, joining `auto_join` programs with order rules first. */
async function cardsForEvent(ctx: DomainContext, customerId: string, event: string): Promise<VoucherRecord[]> {
  const cards = (await ctx.uow.vouchers.findBy('holder_id', customerId)).filter((card) => card.type === 'LOYALTY_CARD' && card.active && card.campaign_id);
  if (event === ORDER_PAID) {
    const programs = await ctx.uow.campaigns.query({ where: (campaign) => campaign.campaign_type === 'LOYALTY_PROGRAM' && campaign.auto_join && campaign.active });
    for (const program of programs.rows) {
      if (cards.some((card) => card.campaign_id === program.id)) continue;
      const rules = await ctx.uow.earning_rules.findBy('campaign_id', program.id);
      if (rules.some((rule) => rule.event === ORDER_PAID && rule.active)) cards.push(await enroll(ctx, program, customerId));
    }
  }
  const usable: VoucherRecord[] = [];
  for (const card of cards) {
    const program = await ctx.uow.campaigns.get(card.campaign_id!);
    if (program && program.campaign_type === 'LOYALTY_PROGRAM' && validityAt({ ...program, validity_timeframe: null, validity_day_of_week: null, validity_hours: null }, ctx.clock.now()).valid) {
      usable.push((await ctx.uow.vouchers.get(card.id)) ?? card);
    }
  }
  return usable;
}

/** An order with a customer was paid: record it and let the order rules of the customer's programs give points. */
export async function earnOnOrderPaid(ctx: DomainContext, order: Order): Promise<void> {
  if (!order.customer_id) return;
  const trigger = await recordEvent(ctx, 'customer.order.paid', { customer_id: order.customer_id }, {
    order: { id: order.id, source_id: order.source_id, amount: order.amount, total_amount: order.total_amount, status: order.status },
  });
  for (const card of await cardsForEvent(ctx, order.customer_id, ORDER_PAID)) {
    for (const rule of await ctx.uow.earning_rules.findBy('campaign_id', card.campaign_id!)) {
      if (rule.event !== ORDER_PAID || !ruleApplies(ctx, rule)) continue;
      await earn(ctx, (await ctx.uow.vouchers.get(card.id)) ?? card, rule, trigger, order);
    }
  }
}

/** The member entered a tier: the program's tier-joined rules for that tier give points. */
export async function earnOnTierJoined(ctx: DomainContext, card: VoucherRecord, tier: LoyaltyTier): Promise<void> {
  const rules = (await ctx.uow.earning_rules.findBy('campaign_id', tier.campaign_id)).filter(
    (rule) => rule.event === TIER_JOINED && rule.loyalty_tier?.id === tier.id && ruleApplies(ctx, rule),
  );
  if (rules.length === 0) return;
  const trigger = (await ctx.uow.events.findBy('voucher_id', card.id)).at(-1)!;
  for (const rule of rules) await earn(ctx, (await ctx.uow.vouchers.get(card.id)) ?? card, rule, trigger);
}

/**
 * A custom event happened to a customer: the rules based on it give points on the named card, or on every
 * card the customer holds in programs with such rules.
 */
export async function earnOnCustomEvent(ctx: DomainContext, customerId: string, trigger: EventRecord, eventName: string, cardCode?: string): Promise<void> {
  let cards = await cardsForEvent(ctx, customerId, eventName);
  if (cardCode !== undefined) cards = cards.filter((card) => card.code === cardCode);
  for (const card of cards) {
    for (const rule of await ctx.uow.earning_rules.findBy('campaign_id', card.campaign_id!)) {
      if (rule.event !== eventName || !ruleApplies(ctx, rule)) continue;
      await earn(ctx, (await ctx.uow.vouchers.get(card.id)) ?? card, rule, trigger);
    }
  }
}

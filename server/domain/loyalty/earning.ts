/**
 * Earning rules, and the points they give: when an order is paid, when a member joins a tier, or when a
 * custom event names a card. Points are added at once, or wait as pending points when the rule says so.
 */
import { DateTime } from 'luxon';
import type { components } from '../../../generated/openapi.js';
import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { inCollection } from '../catalog/collections.js';
import { invalid, notFound } from '../errors.js';
import { recordEvent, type EventRecord } from '../events.js';
import { newId } from '../ids.js';
import type { Order } from '../orders.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from '../pagination.js';
import { timeframeWithoutStart, validityAt } from '../validity.js';
import type { VoucherRecord } from '../vouchers.js';
import { recordCardEvent } from './card-events.js';
import { movePoints } from './cards.js';
import { enroll } from './members.js';
import { earnedExpiry } from './expiration.js';
import { findProgram } from './programs.js';
import { dayBefore, noteDueDay } from './settle-clock.js';
import { currentTier, mapped } from './tiers.js';
import type { EarningRule, LoyaltyTier, PendingPoints } from './types.js';
import { and, eq } from '../../store/conditions.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

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

type Loyalty = EarningRule['loyalty'];
type Proportional = Extract<Loyalty, { type: 'PROPORTIONAL' }>;
type CalculationType = Proportional['calculation_type'];
type RatioGroup = 'order' | 'order_items' | 'customer' | 'custom_event';

/** Where each calculation keeps its ratio: `loyalty.<group>.<key>`. */
const RATIO_OF: Record<CalculationType, readonly [RatioGroup, string]> = {
  ORDER_AMOUNT: ['order', 'amount'],
  ORDER_TOTAL_AMOUNT: ['order', 'total_amount'],
  ORDER_METADATA: ['order', 'metadata'],
  ORDER_ITEMS_QUANTITY: ['order_items', 'quantity'],
  ORDER_ITEMS_AMOUNT: ['order_items', 'amount'],
  ORDER_ITEMS_SUBTOTAL_AMOUNT: ['order_items', 'subtotal_amount'],
  CUSTOMER_METADATA: ['customer', 'metadata'],
  CUSTOM_EVENT_METADATA: ['custom_event', 'metadata'],
};

function ratioOf(loyalty: Proportional): { every: number; points: number; property?: string } | undefined {
  const [group, key] = RATIO_OF[loyalty.calculation_type];
  return (loyalty[group] as Record<string, { every: number; points: number; property?: string }> | undefined)?.[key];
}

/** Checks what the schema cannot: the ratio a calculation needs, and the tier or segment an event needs. */
async function checkRule(ctx: DomainContext, campaignId: string, rule: EarningRule): Promise<void> {
  const loyalty = rule.loyalty;
  const event = rule.event ?? ORDER_PAID;
  if (loyalty.type === 'PROPORTIONAL') {
    const [group, key] = RATIO_OF[loyalty.calculation_type];
    if (!ratioOf(loyalty)) throw ruleError(`A ${loyalty.calculation_type} rule needs loyalty.${group}.${key}`);
    if ((group === 'order' || group === 'order_items') && event !== ORDER_PAID) throw ruleError(`Only ${ORDER_PAID} rules can use ${loyalty.calculation_type}`);
    if (group === 'custom_event' && BUILT_IN.has(event)) throw ruleError(`Only custom event rules can use ${loyalty.calculation_type}`);
  }
  if (event === TIER_JOINED) {
    if (!rule.loyalty_tier?.id) throw ruleError(`A ${TIER_JOINED} rule needs loyalty_tier.id`);
    const tier = await ctx.uow.loyalty_tiers.get(rule.loyalty_tier.id);
    if (!tier || tier.campaign_id !== campaignId) throw notFound('loyalty_tier', rule.loyalty_tier.id);
  } else if (rule.loyalty_tier) throw ruleError(`loyalty_tier belongs to ${TIER_JOINED} rules only`);
  if (event === SEGMENT_ENTERED && !rule.segment?.id) throw ruleError(`A ${SEGMENT_ENTERED} rule needs segment.id`);
  if (event !== SEGMENT_ENTERED && rule.segment) throw ruleError(`segment belongs to ${SEGMENT_ENTERED} rules only`);
  if (rule.pending_points && rule.pending_points.period_value === undefined) throw ruleError('pending_points needs period_value');
}

/** The loyalty a request sets, with the public API's default type: points without a type are FIXED. */
function typedLoyalty(loyalty: NonNullable<RuleUpdate['loyalty']>): Loyalty {
  return 'type' in loyalty && loyalty.type !== undefined ? (loyalty as Loyalty) : { ...FRESH, ...loyalty, type: 'FIXED' };
}

/**
 * The request's fields as a rule stores them: the custom event schema named by ID, pending points with
 * their default unit, the banner alone of `source`, loyalty with its type. Fields left out stay undefined.
 */
async function ruleFields(ctx: DomainContext, input: RuleUpdate): Promise<Partial<EarningRule>> {
  const { source, custom_event, pending_points, loyalty, ...rest } = input;
  const fields: Partial<EarningRule> = { ...FRESH, ...(rest as Partial<EarningRule>), ...(loyalty !== undefined && { loyalty: typedLoyalty(loyalty) }) };
  if (custom_event !== undefined) {
    if (custom_event === null || custom_event.schema_id === undefined) fields.custom_event = null;
    else {
      const schema = await ctx.uow.custom_event_schemas.get(custom_event.schema_id);
      if (!schema) throw notFound('custom_event_schema', custom_event.schema_id);
      fields.custom_event = { schema_id: schema.id };
      if (input.event === undefined) fields.event = schema.name;
    }
  }
  if (pending_points !== undefined) {
    fields.pending_points = pending_points && { period_type: pending_points.period_type ?? 'DAY', period_value: pending_points.period_value! };
  }
  if (source !== undefined) fields.source = { banner: source.banner ?? null } as EarningRule['source'];
  return fields;
}

/**
 * An earning rule as the operations return it. The contract requires the public API's `automation_id`; this
 * server runs no automations, so it names one after the rule (`auto_` and the rule ID's suffix), stable for the
 * rule's life, rather than keeping a column for it.
 */
export function earningRuleView(rule: EarningRule): components['schemas']['EarningRule'] {
  return { ...FRESH, ...rule, automation_id: `auto_${rule.id.replace(/^ern_/, '')}` };
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
    if (!request.loyalty) throw ruleError('An earning rule needs loyalty');
    const fields = await ruleFields(ctx, request);
    const rule: EarningRule = {
      id: newId('ern'),
      campaign_id: program.id,
      event: fields.event ?? ORDER_PAID,
      custom_event: fields.custom_event ?? null,
      loyalty: typedLoyalty(request.loyalty),
      source: { banner: fields.source?.banner ?? null, object_id: program.id, object_type: 'campaign' },
      loyalty_tier: fields.loyalty_tier ?? null,
      segment: fields.segment ?? null,
      pending_points: fields.pending_points ?? null,
      expiration_rules: fields.expiration_rules ?? null,
      validation_rule_id: fields.validation_rule_id ?? null,
      active: request.active ?? true,
      start_date: request.start_date ?? null,
      expiration_date: request.expiration_date ?? null,
      validity_timeframe: request.validity_timeframe ?? null,
      validity_day_of_week: request.validity_day_of_week ?? null,
      validity_hours: request.validity_hours ?? null,
      metadata: request.metadata ?? {},
      created_at: isoNow(ctx.clock),
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
  const fields = await ruleFields(ctx, input);
  const changes = { ...FRESH, ...fields, ...(fields.source && { source: { ...FRESH, ...rule.source, banner: fields.source.banner } }) };
  const updated = applyChanges(rule, changes, isoNow(ctx.clock));
  await checkRule(ctx, rule.campaign_id!, updated);
  return ctx.uow.earning_rules.update(updated);
}

export async function setEarningRuleActive(ctx: DomainContext, campaignRef: string, ruleId: string, active: boolean): Promise<EarningRule> {
  const rule = await findEarningRule(ctx, campaignRef, ruleId);
  return ctx.uow.earning_rules.update({ ...FRESH, ...rule, active, updated_at: isoNow(ctx.clock) });
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
  const mapping = tier.earning_rules?.[rule.id];
  if (!mapping || rule.loyalty.type !== 'FIXED') return rule;
  return { ...FRESH, ...rule, loyalty: { ...FRESH, ...rule.loyalty, points: Math.max(1, mapped(rule.loyalty.points, mapping)) } };
}

function steps(measure: number, ratio: { every: number; points: number }): number {
  return Math.floor(measure / ratio.every) * ratio.points;
}

/** A metadata value as a number: numbers and numeric strings count, anything else is 0. */
function metadataNumber(metadata: Record<string, unknown> | null | undefined, property: string | undefined): number {
  const value = property === undefined ? undefined : metadata?.[property];
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(number) ? number : 0;
}

type ItemsRatio = Schemas['EarningItemsRatio'];

/** Whether an order line is one of the ratio's products, SKUs or collections. */
async function lineMatches(ctx: DomainContext, ratio: ItemsRatio, line: { product_id: string | null; sku_id: string | null; quantity: number; price: number | null; amount: number }): Promise<boolean> {
  const targets = [...(ratio.object && ratio.id ? [{ object: ratio.object, id: ratio.id }] : []), ...(ratio.applicable_to ?? [])];
  for (const target of targets) {
    if (!target.object || !target.id) continue;
    if (target.object === 'product' && line.product_id === target.id) return true;
    if (target.object === 'sku' && line.sku_id === target.id) return true;
    if (target.object === 'products_collection' && (await inCollection(ctx, target.id, line))) return true;
  }
  return false;
}

/**
 * The quantity, amount or subtotal of the matching lines. Stored orders keep no discount per line, so a
 * line's subtotal (its amount less its own discounts) is its amount less a `discount_amount` when it has one.
 */
async function itemsMeasure(ctx: DomainContext, order: Order, ratio: ItemsRatio, field: 'quantity' | 'amount' | 'subtotal_amount'): Promise<number> {
  let total = 0;
  for (const item of order.items) {
    const line = { product_id: item.product_id ?? null, sku_id: item.sku_id ?? null, quantity: item.quantity ?? 1, price: item.price ?? null, amount: item.amount ?? 0 };
    if (!(await lineMatches(ctx, ratio, line))) continue;
    const discount = (item as { discount_amount?: number | null }).discount_amount ?? 0;
    total += field === 'quantity' ? line.quantity : field === 'amount' ? line.amount : line.amount - discount;
  }
  return total;
}

/** What an event offers the rules: the order of an order event, the member, the custom event's metadata. */
export interface EarningContext {
  order?: Order;
  customerId?: string | null;
  /** The customer's metadata when they are not stored (an estimate for a customer not yet known). */
  customerMetadata?: Record<string, unknown> | null;
  eventMetadata?: Record<string, unknown>;
}

/** Points a rule gives for an event, before the tier's mapping; 0 when the event lacks what the rule measures. */
async function pointsFor(ctx: DomainContext, rule: EarningRule, context: EarningContext): Promise<number> {
  const loyalty = rule.loyalty;
  if (loyalty.type === 'FIXED') return loyalty.points;
  const ratio = ratioOf(loyalty);
  if (!ratio) return 0;
  const { order } = context;
  let measure = 0;
  switch (loyalty.calculation_type) {
    case 'ORDER_AMOUNT':
      measure = order?.amount ?? 0;
      break;
    case 'ORDER_TOTAL_AMOUNT':
      measure = order?.total_amount ?? 0;
      break;
    case 'ORDER_METADATA':
      measure = metadataNumber(order?.metadata, ratio.property);
      break;
    case 'ORDER_ITEMS_QUANTITY':
      measure = order ? await itemsMeasure(ctx, order, loyalty.order_items!.quantity!, 'quantity') : 0;
      break;
    case 'ORDER_ITEMS_AMOUNT':
      measure = order ? await itemsMeasure(ctx, order, loyalty.order_items!.amount!, 'amount') : 0;
      break;
    case 'ORDER_ITEMS_SUBTOTAL_AMOUNT':
      measure = order ? await itemsMeasure(ctx, order, loyalty.order_items!.subtotal_amount!, 'subtotal_amount') : 0;
      break;
    case 'CUSTOMER_METADATA': {
      const customer = context.customerId ? await ctx.uow.customers.get(context.customerId) : undefined;
      measure = metadataNumber(customer?.metadata ?? context.customerMetadata, ratio.property);
      break;
    }
    case 'CUSTOM_EVENT_METADATA':
      measure = metadataNumber(context.eventMetadata, ratio.property);
      break;
  }
  const points = steps(Math.max(0, measure), ratio);
  return loyalty.max_points !== undefined ? Math.min(points, loyalty.max_points) : points;
}

function activationDay(rule: EarningRule, now: Date): string | null {
  if (!rule.pending_points) return null;
  const unit = rule.pending_points.period_type === 'MONTH' ? 'months' : 'days';
  return DateTime.fromJSDate(now, { zone: 'utc' }).plus({ [unit]: rule.pending_points.period_value }).toISODate();
}

interface PendingEarning {
  rule: EarningRule;
  trigger: EventRecord;
  tier: LoyaltyTier | undefined;
  points: number;
  activatesAt: string;
  order?: Order;
}

/** Makes the entry of points that wait for their day; pending-points.ts activates, cancels and adjusts it. */
async function addPending(ctx: DomainContext, card: VoucherRecord, earning: PendingEarning): Promise<PendingPoints> {
  const { rule, trigger, tier, order } = earning;
  const joined = rule.event === TIER_JOINED && rule.loyalty_tier?.id ? await ctx.uow.loyalty_tiers.get(rule.loyalty_tier.id) : undefined;
  const entry = await ctx.uow.pending_points.insert({
    id: newId('lopp'),
    voucher_id: card.id,
    campaign_id: card.campaign_id!,
    customer_id: card.holder_id!,
    order_id: order?.id ?? null,
    points: earning.points,
    activates_at: earning.activatesAt,
    created_at: isoNow(ctx.clock),
    updated_at: null,
    details: {
      holder_loyalty_tier: tier ? { id: tier.id, name: tier.name } : null,
      ...(joined && { loyalty_tier: { id: joined.id, name: joined.name } }),
      event: {
        id: trigger.id,
        type: trigger.type,
        group_id: trigger.group_id,
        entity_id: trigger.customer_id ?? card.holder_id!,
        created_at: trigger.created_at,
        category: 'EFFECT',
        event_source: trigger.event_source,
      },
      earning_rule: { id: rule.id, source: { banner: rule.source.banner } },
      order: order ? { id: order.id, source_id: order.source_id } : null,
    },
  });
  await noteDueDay(ctx, dayBefore(entry.activates_at));
  await recordCardEvent(ctx, 'customer.loyalty.card.pending_points.added', card, { pending_points: entry, points: entry.points });
  return entry;
}

/** Gives a card the points of a rule for an event: pending when the rule says so, at once otherwise. */
async function earn(ctx: DomainContext, card: VoucherRecord, rule: EarningRule, trigger: EventRecord, context: EarningContext = {}): Promise<void> {
  const { order } = context;
  const tier = await currentTier(ctx, card.id);
  const points = mapped(await pointsFor(ctx, rule, { customerId: card.holder_id, ...context }), tier?.earning_rules?.[rule.id]);
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
    expiresOn: earnedExpiry(rule, ctx.clock.now()),
    details: await earningDetails(ctx, rule, trigger, tier, order),
  });
  await recordCardEvent(ctx, 'customer.rewarded.loyalty_points', moved.card, {
    points,
    balance: moved.balance.balance,
    earning_rule: { id: rule.id, source: { banner: rule.source.banner } },
    ...(order && { order: { id: order.id, source_id: order.source_id } }),
  });
}

/** What a transaction says about the rule and the event that earned its points. */
export async function earningDetails(ctx: DomainContext, rule: EarningRule, trigger: EventRecord, tier: LoyaltyTier | undefined, order?: Order | { id: string; source_id: string | null } | null) {
  const joined = rule.event === TIER_JOINED && rule.loyalty_tier?.id ? await ctx.uow.loyalty_tiers.get(rule.loyalty_tier.id) : undefined;
  const schema = rule.custom_event ? await ctx.uow.custom_event_schemas.get(rule.custom_event.schema_id) : undefined;
  const segment = rule.event === SEGMENT_ENTERED && rule.segment?.id ? await ctx.uow.segments.get(rule.segment.id) : undefined;
  return {
    earning_rule: { id: rule.id, source: { banner: rule.source.banner } },
    event: { id: trigger.id, type: trigger.type },
    ...(order && { order: { id: order.id, source_id: order.source_id } }),
    ...(tier && { holder_loyalty_tier: { id: tier.id, name: tier.name } }),
    ...(joined && { loyalty_tier: { id: joined.id, name: joined.name } }),
    ...(trigger.type === 'customer.custom_event' && { custom_event: { id: trigger.id, type: rule.event ?? '' } }),
    ...(schema && { event_schema: { id: schema.id, name: schema.name } }),
    ...(segment && { segment: { id: segment.id, name: segment.name } }),
  };
}

function ruleApplies(ctx: DomainContext, rule: EarningRule): boolean {
  return validityAt(rule, ctx.clock.now()).valid;
}

/** The customer's cards in programs that are active now, joining `auto_join` programs with order rules first. */
async function cardsForEvent(ctx: DomainContext, customerId: string, event: string): Promise<VoucherRecord[]> {
  const cards = (await ctx.uow.vouchers.findBy('holder_id', customerId)).filter((card) => card.type === 'LOYALTY_CARD' && card.active && card.campaign_id);
  if (event === ORDER_PAID) {
    const programs = await ctx.uow.campaigns.query({ where: and(eq('campaign_type', 'LOYALTY_PROGRAM'), eq('auto_join', true), eq('active', true)) });
    for (const program of programs.rows) {
      if (cards.some((card) => card.campaign_id === program.id)) continue;
      const rules = await ctx.uow.earning_rules.findBy('campaign_id', program.id);
      if (rules.some((rule) => rule.event === ORDER_PAID && rule.active)) cards.push(await enroll(ctx, program, customerId));
    }
  }
  const usable: VoucherRecord[] = [];
  for (const card of cards) {
    const program = await ctx.uow.campaigns.get(card.campaign_id!);
    if (program && program.campaign_type === 'LOYALTY_PROGRAM' && validityAt({ ...FRESH, ...program, validity_timeframe: null, validity_day_of_week: null, validity_hours: null }, ctx.clock.now()).valid) {
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
      await earn(ctx, (await ctx.uow.vouchers.get(card.id)) ?? card, rule, trigger, { order });
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
export async function earnOnCustomEvent(ctx: DomainContext, customerId: string, trigger: EventRecord, eventName: string, cardCode?: string, metadata?: Record<string, unknown>): Promise<void> {
  let cards = await cardsForEvent(ctx, customerId, eventName);
  if (cardCode !== undefined) cards = cards.filter((card) => card.code === cardCode);
  for (const card of cards) {
    for (const rule of await ctx.uow.earning_rules.findBy('campaign_id', card.campaign_id!)) {
      if (rule.event !== eventName || !ruleApplies(ctx, rule)) continue;
      await earn(ctx, (await ctx.uow.vouchers.get(card.id)) ?? card, rule, trigger, { eventMetadata: metadata ?? eventMetadataOf(trigger) });
    }
  }
}

/**
 * A customer entered an auto-update segment: the segment rules of the programs whose cards the customer
 * holds give points.
 */
export async function earnOnSegmentEntered(ctx: DomainContext, customerId: string, segmentId: string, trigger: EventRecord): Promise<void> {
  for (const card of await cardsForEvent(ctx, customerId, SEGMENT_ENTERED)) {
    for (const rule of await ctx.uow.earning_rules.findBy('campaign_id', card.campaign_id!)) {
      if (rule.event !== SEGMENT_ENTERED || rule.segment?.id !== segmentId || !ruleApplies(ctx, rule)) continue;
      await earn(ctx, (await ctx.uow.vouchers.get(card.id)) ?? card, rule, trigger);
    }
  }
}

/** The metadata a custom event was recorded with. */
function eventMetadataOf(trigger: EventRecord): Record<string, unknown> | undefined {
  const event = (trigger.data as { event?: { metadata?: Record<string, unknown> } }).event;
  return event?.metadata;
}

/**
 * The points an order would earn in a program if paid now: the program's order-paid rules in force, each
 * computed as `earnOnOrderPaid` computes it, in the tier of the customer's card when they hold one.
 * Nothing is stored.
 */
export async function estimateOrderPoints(ctx: DomainContext, programId: string, order: Order, customer: { id: string | null; metadata: Record<string, unknown> | null }): Promise<number> {
  const card = customer.id ? (await ctx.uow.vouchers.findBy('holder_id', customer.id)).find((held) => held.campaign_id === programId && held.type === 'LOYALTY_CARD') : undefined;
  const tier = card ? await currentTier(ctx, card.id) : undefined;
  let total = 0;
  for (const rule of await ctx.uow.earning_rules.findBy('campaign_id', programId)) {
    if (rule.event !== ORDER_PAID || !ruleApplies(ctx, rule)) continue;
    total += mapped(await pointsFor(ctx, rule, { order, customerId: customer.id, customerMetadata: customer.metadata }), tier?.earning_rules?.[rule.id]);
  }
  return total;
}

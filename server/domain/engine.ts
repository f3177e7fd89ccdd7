/**
 * The promotion engine's way to the store: it gathers the facts of a request (the order's lines with their
 * catalog facts and the collections they are in, the redeemables with their rules, targets, campaigns,
 * categories and session holds, the customer, the stacking rules and the time) and hands them to the pure
 * decision (decide.ts), which says which redeemables apply and what each gives. Validation reports the
 * verdicts; redemption applies them. Both call `evaluate`.
 */
import type { components } from '../../generated/openapi.js';
import { categoryFields } from './categories.js';
import type { DomainContext } from './context.js';
import { invalid } from './errors.js';
import type { Customer } from './customers.js';
import { decide, simpleCustomer, type Applied, type Decision, type DecisionFacts, type Failure, type Line, type RewardSnapshot, type RuleFacts, type SubjectFacts, type TierFacts, type Verdict } from './decide.js';
import { unitIds, type CatalogUnit, type Discount } from './discounts.js';
import { conditionValues } from './filters.js';
import { inCollection } from './catalog/collections.js';
import type { PromotionTierRecord } from './promotion-tiers.js';
import { segmentsOf } from './segments.js';
import { randomBase64url } from './ids.js';
import { readLines } from './order-lines.js';
import { heldByOthers } from './sessions.js';
import { trackingIdOf } from './tracking-ids.js';
import { effectiveStackingRules, type StackingSettings } from './stacking-rules.js';
import type { ValidationRuleRecord } from './validation-rules.js';
import { coinRewardFor } from './loyalty/rewards.js';
import type { VoucherRecord } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

export { simpleCustomer, type Applied, type Failure, type Line, type RewardSnapshot, type Verdict };

type Schemas = components['schemas'];
type Request = Schemas['ValidationsValidateRequestBody'];
type OrderRequest = Schemas['OrderRequest'];

/** The decision (decide.ts), with the order as a response shows it and what the request named. */
export interface Evaluation extends Omit<Decision, 'order'> {
  order: Schemas['OrderCalculated'];
  /** The stored order the request named by reference only, whose lines the evaluation used. */
  storedOrderId: string | null;
  customerId: string | null;
  customer: Customer | undefined;
  trackingId: string;
  /** The stacking rules the request ran under. */
  stackingRules: StackingSettings;
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

/** The reward assignment (and so the tier, if any) through which a card's program offers a reward. */
async function rewardAssignment(ctx: DomainContext, card: VoucherRecord, ref: string, rewardId: string) {
  const direct = await ctx.uow.reward_assignments.get(ref);
  if (direct && direct.related_object_id === card.campaign_id) return direct;
  return (await ctx.uow.reward_assignments.findBy('reward_id', rewardId)).find((candidate) => candidate.related_object_id === card.campaign_id);
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

/** The fact names a rule set asks about, nested sets included. */
function ruleNames(rules: Record<string, unknown> | null | undefined, into: Set<string>): Set<string> {
  for (const [key, value] of Object.entries(rules ?? {})) {
    if (key === 'logic' || typeof value !== 'object' || value === null) continue;
    const rule = value as { name?: unknown; rules?: Record<string, unknown> | null; conditions?: Record<string, unknown> };
    if (typeof rule.name === 'string') into.add(rule.name);
    ruleNames(rule.rules, into);
  }
  return into;
}

/** The collections a rule set names in `collection.id` conditions, nested sets included. */
function ruleCollections(rules: Record<string, unknown> | null | undefined, into: Set<string>): void {
  for (const [key, value] of Object.entries(rules ?? {})) {
    if (key === 'logic' || typeof value !== 'object' || value === null) continue;
    const rule = value as { name?: unknown; rules?: Record<string, unknown> | null; conditions?: Record<string, unknown> };
    if (rule.name === 'collection.id') {
      for (const [operator, values] of Object.entries(rule.conditions ?? {})) {
        if (operator === '$is' || operator === '$in') for (const id of conditionValues(values as never)) into.add(String(id));
      }
    }
    ruleCollections(rule.rules, into);
  }
}

/** The rules assigned to these objects (a voucher or tier, then its campaign), each once, in that order. */
async function assignedRules(ctx: DomainContext, objectIds: readonly string[]): Promise<ValidationRuleRecord[]> {
  const ids = new Set<string>();
  for (const id of objectIds) for (const assignment of await ctx.uow.validation_rule_assignments.findBy('related_object_id', id)) ids.add(assignment.rule_id);
  const rules: ValidationRuleRecord[] = [];
  for (const id of ids) {
    const rule = (await ctx.uow.validation_rules.get(id)) as ValidationRuleRecord | undefined;
    if (rule) rules.push(rule);
  }
  return rules;
}

/** A customer's successful redemptions of one object. */
async function redeemedBy(ctx: DomainContext, objectId: string, customer: Customer | undefined): Promise<number> {
  if (!customer) return 0;
  const own = await ctx.uow.redemptions.findBy('related_object_id', objectId);
  return own.filter((entry) => entry.object === 'redemption' && entry.customer_id === customer.id && entry.status === 'SUCCEEDED').length;
}

/** The rule facts of an object: its rules and its campaign's, its redemption counts (the customer's only when a rule asks). */
async function ruleFacts(ctx: DomainContext, objectId: string, campaignId: string | null, redeemed: number, customer: Customer | undefined): Promise<RuleFacts> {
  const rules = await assignedRules(ctx, campaignId ? [objectId, campaignId] : [objectId]);
  const names = new Set<string>();
  for (const rule of rules) ruleNames(rule.rules as Record<string, unknown>, names);
  return { rules, redeemed, redeemedByCustomer: names.has('redemption.count.per_customer') ? await redeemedBy(ctx, objectId, customer) : 0 };
}

async function tierFacts(ctx: DomainContext, tier: PromotionTierRecord, customer: Customer | undefined): Promise<TierFacts> {
  return {
    tier,
    campaign: await ctx.uow.campaigns.get(tier.campaign_id),
    rules: await ruleFacts(ctx, tier.id, tier.campaign_id, tier.summary.redemptions.total_redeemed, customer),
  };
}

/** Every rule a subject brings (its own, its campaign's, a stack's tiers'). */
function rulesOf(subject: SubjectFacts): ValidationRuleRecord[] {
  return [...(subject.voucherRules?.rules ?? []), ...(subject.tier?.rules.rules ?? []), ...(subject.stackTiers ?? []).flatMap((member) => member?.rules.rules ?? [])];
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
  const lines = await readLines(ctx, requestOrder?.items);
  const initialAmount = requestOrder?.amount ?? lines.reduce((sum, line) => sum + line.amount, 0);
  const customerMetadata = { ...FRESH, ...(customer?.metadata ?? {}), ...(customerRef?.metadata ?? {}) };

  // Collected first, so the catalog lookups happen once and the decision has every fact it reads.
  const subjects: SubjectFacts[] = [];
  for (const [position, requested] of given.redeemables.entries()) {
    const subject: SubjectFacts = { requested, position, campaign: undefined, category: null, exclusive: false, joint: false, described: {} };
    if (requested.object === 'voucher') {
      // A redemption changes the voucher: locked for it, so that redemptions of one public code wait for each
      // other rather than each but one running again (only an optimistic unit of work locks).
      const voucher = await ctx.uow.vouchers.getBy('code', requested.id, { forUpdate: true });
      if (voucher) {
        subject.voucher = voucher;
        subject.voucherRules = await ruleFacts(ctx, voucher.id, voucher.campaign_id, voucher.redemption.redeemed_quantity, customer);
        subject.held = await heldByOthers(ctx, voucher.id, given.session?.key);
        if (voucher.type === 'LOYALTY_CARD' && requested.reward?.id) subject.payment = await paymentFacts(ctx, voucher, requested.reward.id);
      }
    } else if (requested.object === 'promotion_tier') {
      const tier = await ctx.uow.promotion_tiers.get(requested.id);
      if (tier) subject.tier = await tierFacts(ctx, tier, customer);
    } else {
      const stack = await ctx.uow.promotion_stacks.get(requested.id);
      if (stack) {
        subject.stack = stack;
        subject.stackTiers = [];
        for (const id of stack.tiers.ids) {
          const tier = await ctx.uow.promotion_tiers.get(id);
          subject.stackTiers.push(tier ? await tierFacts(ctx, tier, customer) : undefined);
        }
      }
    }
    const own = subject.voucher ?? subject.tier?.tier ?? subject.stack;
    const campaignId = subject.voucher?.campaign_id ?? subject.tier?.tier.campaign_id ?? subject.stack?.campaign_id ?? null;
    subject.campaign = subject.tier?.campaign ?? (campaignId ? await ctx.uow.campaigns.get(campaignId) : undefined);
    const categoryId = own?.category_id || subject.campaign?.category_id || null;
    const category = categoryId ? await ctx.uow.categories.get(categoryId) : undefined;
    if (category) {
      subject.category = { id: category.id, hierarchy: category.hierarchy };
      subject.exclusive = rules.exclusive_categories.includes(category.id);
      subject.joint = rules.joint_categories.includes(category.id);
    }
    subject.described = {
      ...FRESH,
      ...(expand.has('redeemable') &&
        own && {
          name: subject.stack?.name ?? subject.tier?.tier.name ?? subject.voucher?.code ?? requested.id,
          ...(subject.campaign && { campaign_name: subject.campaign.name }),
          metadata: (subject.voucher ?? subject.tier?.tier)?.metadata ?? {},
        }),
      ...(expand.has('redeemable') && !own && { name: requested.id, metadata: {} }),
      ...(expand.has('category') && { categories: await verdictCategories(ctx, own?.category_id, rules) }),
    };
    subjects.push(subject);
  }

  // What the rules and targets name: the segments, if any rule asks, and the collections that hold each line.
  const names = new Set<string>();
  const collections = new Set<string>();
  for (const subject of subjects) {
    for (const rule of rulesOf(subject)) {
      ruleNames(rule.rules as Record<string, unknown>, names);
      ruleCollections(rule.rules as Record<string, unknown>, collections);
      for (const entry of [...(rule.applicable_to?.included ?? []), ...(rule.applicable_to?.excluded ?? [])]) if (entry.object === 'products_collection') collections.add(entry.id);
    }
  }
  const memberships = new Map<string, Set<number>>();
  for (const id of collections) {
    const held = new Set<number>();
    for (const [index, line] of lines.entries()) if (await inCollection(ctx, id, line)) held.add(index);
    memberships.set(id, held);
  }
  const segmentIds =
    names.has('customer.segment') && customer
      ? (await segmentsOf(ctx, customer, customerRef?.metadata ? customerMetadata : undefined)).map((segment) => segment.id)
      : [];
  const discounts: Discount[] = [];
  for (const { voucher, tier, stackTiers } of subjects) {
    if (voucher?.discount) discounts.push(voucher.discount);
    if (tier?.tier.action?.discount) discounts.push(tier.tier.action.discount);
    for (const member of stackTiers ?? []) if (member?.tier.action?.discount) discounts.push(member.tier.action.discount);
  }
  const facts: DecisionFacts = {
    now,
    rules,
    lines,
    initialAmount,
    orderMetadata: requestOrder?.metadata ?? {},
    customerMetadata,
    segmentIds,
    memberships,
    catalog: await unitCatalog(ctx, discounts),
    subjects,
  };
  const decision = decide(facts);
  const customerId = customer?.id ?? null;
  return {
    valid: decision.valid,
    redeemables: decision.redeemables,
    skipped: decision.skipped,
    inapplicable: decision.inapplicable,
    failures: decision.failures,
    applied: decision.applied,
    order: {
      ...FRESH,
      ...(requestOrder?.id !== undefined && { id: requestOrder.id }),
      ...(storedId !== null && { id: storedId }),
      source_id: requestOrder?.source_id ?? null,
      ...decision.order,
      metadata: requestOrder?.metadata ?? {},
      ...(customerId !== null && { customer_id: customerId, customer: { id: customerId, object: 'customer' as const } }),
      object: 'order',
    },
    totals: decision.totals,
    lines: decision.lines,
    storedOrderId: storedId,
    customerId,
    customer,
    trackingId: customer ? trackingIdOf(customer.id) : (given.tracking_id ?? `track_${randomBase64url(9)}`),
    stackingRules: rules,
  };
}

/** The COIN reward a loyalty card names, how its program offers it, and the card's holder. */
async function paymentFacts(ctx: DomainContext, card: VoucherRecord, rewardRef: string): Promise<SubjectFacts['payment']> {
  const reward = await coinRewardFor(ctx, card, rewardRef);
  const assignment = reward ? await rewardAssignment(ctx, card, rewardRef, reward.id) : undefined;
  const holder = card.holder_id ? await ctx.uow.customers.get(card.holder_id) : undefined;
  return { reward, assignmentId: assignment?.id ?? null, holder };
}

/**
 * The engine's decision: for an order, a customer and the redeemables of a request, which apply and what each
 * gives. Pure: it reads no store and no clock. engine.ts gathers the facts (the order's lines with their
 * catalog facts and collections, the redeemables with their rules, targets, campaigns and categories, the
 * stacking rules, session holds, the time) and hands them here; validation, redemption and qualification
 * persist what comes out.
 *
 * Redeemables apply one after another to what is left of the order, under the project's stacking rules: how
 * many may apply, in all and per category, exclusive and joint categories, the order they apply in (exclusive
 * categories first, joint ones last, the rest as the sorting rule says), what a redeemable without effect
 * does, and whether one inapplicable redeemable stops the others (`ALL`) or not (`PARTIAL`). A redeemable's
 * rules are checked when its turn comes: in `DISCOUNTED_AMOUNT` mode a rule on `order.amount` sees what the
 * redeemables before it left of the order, in `INITIAL_AMOUNT` mode the order's initial amount. A product
 * discount reaches the lines its rules' `applicable_to` names (targets.ts) and works by its effect and caps
 * there (discounts.ts).
 */
import type { components } from '../../generated/openapi.js';
import { applyDiscount, type CatalogUnit, type Discount, type DiscountLine } from './discounts.js';
import { conditionValues, matchesConditions, type Conditions } from './filters.js';
import type { Held } from './sessions.js';
import type { StackingSettings } from './stacking-rules.js';
import { allotments, exclusions, narrows, type Memberships, type TargetEntry, type Targeting } from './targets.js';
import { evaluateRuleSet } from './rule-logic.js';
import { validityAt, type ValidityVerdict } from './validity.js';
import { coinPayment } from './loyalty/coin.js';
import { FRESH } from '../store/fresh.js';
import type { Customer } from './customers.js';
import type { PromotionStackRecord } from './promotion-stacks.js';
import type { PromotionTierRecord } from './promotion-tiers.js';
import type { ValidationRuleRecord } from './validation-rules.js';
import type { VoucherRecord } from './vouchers.js';
import type { CampaignRecord } from './campaigns.js';
import type { Reward } from './loyalty/types.js';

type Schemas = components['schemas'];
type Request = Schemas['ValidationsValidateRequestBody'];
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
  /** The catalog's `source_id` of the line's product and SKU, for targets that name them so. */
  product_source_id?: string | null;
  sku_source_id?: string | null;
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

/** The validation rules assigned to an object (a voucher or tier and its campaign), and the redemption counts they may test. */
export interface RuleFacts {
  rules: readonly ValidationRuleRecord[];
  /** Successful redemptions of the object in all, and the customer's own. */
  redeemed: number;
  redeemedByCustomer: number;
}

/** A promotion tier as a redeemable or a member of a stack: the tier, its campaign, its rules and targets. */
export interface TierFacts {
  tier: PromotionTierRecord;
  campaign: CampaignRecord | undefined;
  rules: RuleFacts;
}

/** What a loyalty card that pays with points needs: the COIN reward it names, how the card's program offers it, its holder. */
export interface PaymentFacts {
  reward: Reward | undefined;
  assignmentId: string | null;
  holder: Customer | undefined;
}

/** A redeemable of the request with everything the decision reads of it. */
export interface SubjectFacts {
  requested: Request['redeemables'][number];
  /** Position in the request, which breaks ties when sorting. */
  position: number;
  voucher?: VoucherRecord;
  /** The voucher's rules (its own and its campaign's). */
  voucherRules?: RuleFacts;
  /** What validation sessions other than the request's own hold of the voucher. */
  held?: Held;
  payment?: PaymentFacts;
  tier?: TierFacts;
  stack?: PromotionStackRecord;
  /** A stack's tiers, in the order they apply; undefined where a tier no longer exists. */
  stackTiers?: (TierFacts | undefined)[];
  campaign: CampaignRecord | undefined;
  category: { id: string; hierarchy: number } | null;
  exclusive: boolean;
  joint: boolean;
  /** What a verdict says of its redeemable beyond the result, as `options.expand` asks. */
  described: Partial<Verdict>;
}

export interface DecisionFacts {
  now: Date;
  rules: StackingSettings;
  /** The order's lines as the request gave them, with catalog facts filled in. */
  lines: readonly Line[];
  initialAmount: number;
  orderMetadata: Record<string, unknown>;
  customerMetadata: Record<string, unknown>;
  /** The segments that hold the customer (empty when no rule asks, or there is no customer). */
  segmentIds: readonly string[];
  /** The request's lines each collection a rule or target names holds. */
  memberships: Memberships;
  /** The products and SKUs unit discounts may add. */
  catalog: (id: string) => CatalogUnit | undefined;
  subjects: readonly SubjectFacts[];
}

export interface Decision {
  valid: boolean;
  /** The verdicts the response lists: every redeemable when the request is invalid, else the applicable and skipped ones. */
  redeemables: Verdict[];
  skipped: Verdict[];
  inapplicable: Verdict[];
  failures: Failure[];
  applied: Applied[];
  order: Omit<Schemas['OrderCalculated'], 'id' | 'source_id' | 'metadata' | 'customer_id' | 'customer' | 'object'>;
  totals: { amount: number; initialAmount: number; orderDiscount: number; itemsDiscount: number; gift: number };
  lines: Line[];
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

type RuleCondition = { name: string; property?: string | null; conditions: Conditions; error?: { message?: string }; rules?: Record<string, unknown> | null };

/** What the rules of one redeemable see when its turn comes. */
interface Seen {
  /** `order.amount`: what is left of the order (DISCOUNTED_AMOUNT mode) or its initial amount. */
  amount: number;
  initialAmount: number;
}

/** The collections that hold any of the request's lines, among those a condition names. */
function collectionsHolding(facts: DecisionFacts, conditions: Conditions): string[] {
  const ids: string[] = [];
  for (const [operator, values] of Object.entries(conditions)) {
    if (operator !== '$is' && operator !== '$in') continue;
    for (const value of conditionValues(values)) if ((facts.memberships.get(String(value))?.size ?? 0) > 0) ids.push(String(value));
  }
  return ids;
}

function ruleHolds(rule: RuleCondition, facts: DecisionFacts, seen: Seen, counts: RuleFacts): boolean {
  const lines = facts.lines;
  switch (rule.name) {
    case 'order.amount':
      return matchesConditions(seen.amount, rule.conditions);
    case 'order.initial_amount':
      return matchesConditions(seen.initialAmount, rule.conditions);
    case 'order.items.count':
      return matchesConditions(lines.length, rule.conditions);
    case 'order.items.quantity':
    case 'product.quantity':
      return matchesConditions(lines.reduce((sum, line) => sum + line.quantity, 0), rule.conditions);
    case 'order.metadata':
      return matchesConditions(facts.orderMetadata[rule.property ?? ''], rule.conditions);
    case 'customer.metadata':
      return matchesConditions(facts.customerMetadata[rule.property ?? ''], rule.conditions);
    case 'customer.segment':
      return matchesConditions(facts.segmentIds, rule.conditions);
    case 'product.id':
      return matchesConditions(lines.map((line) => line.product_id).filter(Boolean), rule.conditions);
    case 'sku.id':
      return matchesConditions(lines.map((line) => line.sku_id).filter(Boolean), rule.conditions);
    case 'collection.id':
      return matchesConditions(collectionsHolding(facts, rule.conditions), rule.conditions);
    case 'redemption.count':
      return matchesConditions(counts.redeemed, rule.conditions);
    case 'redemption.count.per_customer':
      return matchesConditions(counts.redeemedByCustomer, rule.conditions);
    default:
      // A segment or other fact the engine does not know never holds.
      return false;
  }
}

/** The first failing assigned rule, as an error; undefined when all hold. A rule's custom message, when it has one, is the error's own. */
function brokenRule(facts: DecisionFacts, seen: Seen, ruleFacts: RuleFacts): RedeemableError | undefined {
  for (const rule of ruleFacts.rules) {
    // Nested rule sets hold when their own logic does (see evaluateRuleSet).
    const { holds, failed } = evaluateRuleSet<RuleCondition>(rule.rules as Record<string, unknown>, (condition) => ruleHolds(condition, facts, seen, ruleFacts));
    if (holds) continue;
    const custom = failed?.error?.message ?? rule.error?.message;
    const subject = failed?.name.split('.')[0];
    const [key, message] =
      subject === 'customer'
        ? ['customer_rules_violated', 'Customer does not match validation rules']
        : subject === 'redemption'
          ? ['redemption_rules_violated', 'Redemption does not match validation rules']
          : ['order_rules_violated', 'Order does not match validation rules'];
    return failure(400, key, message, `Validation rule ${rule.id} (${rule.name}) is not met${failed ? `: ${failed.name}` : ''}`, custom);
  }
  return undefined;
}

/** The targeting of a redeemable's discount: the `applicable_to` of its rules, merged. */
export function targetingOf(ruleFacts: RuleFacts | undefined): Targeting | undefined {
  const found: Targeting[] = [];
  for (const rule of ruleFacts?.rules ?? []) {
    const target = rule.applicable_to;
    if (target && narrows(target as Targeting)) found.push(target as Targeting);
  }
  if (found.length === 0) return undefined;
  if (found.length === 1) return found[0];
  return { included: found.flatMap((each) => each.included), excluded: found.flatMap((each) => each.excluded), included_all: found.some((each) => each.included_all) };
}

/** A line as a calculated order shows it, with what the request's redeemables did; `applied` is what one redeemable took, when the order is that redeemable's. */
function presentLine(line: Line, applied?: number): Schemas['OrderItemCalculated'] {
  const subtotal = Math.max(0, line.amount - line.discount_amount);
  const added = line.quantity - line.initial_quantity;
  const own = applied ?? line.discount_amount;
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
    applied_discount_amount: own,
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

export { presentLine };

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
  const { result: _result, order: _order, applicable_to: _applicable, inapplicable_to: _inapplicable, ...rest } = verdict;
  return { ...FRESH, ...rest, status: 'SKIPPED', result: { details: { key, message: SKIP_MESSAGES[key]! } } };
}

/**
 * The order redeemables apply in: those of exclusive categories first and those of joint categories last (the
 * public API's default grouping), the rest as the rules' sorting says (the request's order, or category
 * hierarchy with uncategorized ones last), the request's order among equals.
 */
function applicationOrder(subjects: readonly SubjectFacts[], rules: StackingSettings): SubjectFacts[] {
  const group = (subject: SubjectFacts) => (subject.exclusive ? 0 : subject.joint ? 2 : 1);
  const rank = (subject: SubjectFacts) => (rules.redeemables_sorting_rule === 'CATEGORY_HIERARCHY' ? (subject.category?.hierarchy ?? Infinity) : 0);
  return [...subjects].sort((a, b) => group(a) - group(b) || rank(a) - rank(b) || a.position - b.position);
}

/** Tally of what has applied so far, for the stacking limits. */
interface Tally {
  applied: number;
  exclusive: number;
  byCategory: Map<string, number>;
  exclusiveByCategory: Map<string, number>;
}

/** The stacking limit a redeemable that would apply runs into, if any (the key of its skip). */
function limitReached(subject: SubjectFacts, rules: StackingSettings, tally: Tally): string | undefined {
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

function count(subject: SubjectFacts, tally: Tally): void {
  tally.applied += 1;
  const category = subject.category?.id;
  if (category) tally.byCategory.set(category, (tally.byCategory.get(category) ?? 0) + 1);
  if (subject.exclusive) {
    tally.exclusive += 1;
    if (category) tally.exclusiveByCategory.set(category, (tally.exclusiveByCategory.get(category) ?? 0) + 1);
  }
}

/** Whether a redeemable that takes nothing off the order is skipped: its category's rule, else the project's. */
function skipsNoEffect(subject: SubjectFacts, rules: StackingSettings): boolean {
  const category = subject.category?.id;
  if (category && rules.no_effect_skip_categories.includes(category)) return true;
  if (category && rules.no_effect_redeem_anyway_categories.includes(category)) return false;
  return rules.redeemables_no_effect_rule === 'SKIP';
}

/** Whether a redeemable works on the order's initial amount rather than on what is left of it. */
function ofInitialAmount(subject: SubjectFacts, rules: StackingSettings): boolean {
  const category = subject.category?.id;
  if (category && rules.initial_amount_mode_categories.includes(category)) return true;
  if (category && rules.discounted_amount_mode_categories.includes(category)) return false;
  return rules.discount_calculation_mode === 'INITIAL_AMOUNT';
}

const EMPTY_LIST = (): Schemas['ApplicableToList'] => ({ object: 'list', data_ref: 'data', data: [], total: 0 });

/** A targeting entry as a verdict lists it, with the request's lines it matched. */
function listedEntry(entry: TargetEntry | undefined, indices: number[], lines: readonly Line[]): Schemas['ApplicableTo'] | undefined {
  const positions = indices.map((index) => lines[index]?.index).filter((position): position is number => position !== null && position !== undefined);
  if (entry) {
    // `strict` is the rule's own setting, not a field of the public API's applicable-to entries.
    const { order_item_indices: _given, order_item_units: _units, strict: _strict, ...rest } = entry;
    return { ...FRESH, ...rest, effect: entry.effect ?? 'APPLY_TO_EVERY', order_item_indices: positions } as Schemas['ApplicableTo'];
  }
  return undefined;
}

/** The `applicable_to` and `inapplicable_to` lists of a discount's verdict: what each entry reached, and what was excluded. */
function targetLists(targeting: Targeting | undefined, lines: readonly Line[], memberships: Memberships): Pick<Verdict, 'applicable_to' | 'inapplicable_to'> {
  const applicable = EMPTY_LIST();
  const inapplicable = EMPTY_LIST();
  if (narrows(targeting)) {
    for (const allotment of allotments(targeting, lines, memberships)) {
      if (allotment.entry) {
        const listed = listedEntry(allotment.entry, allotment.order, lines);
        if (listed) applicable.data.push(listed);
        continue;
      }
      // What `included_all` reached, by the products and SKUs of those lines.
      for (const index of allotment.order) {
        const line = lines[index]!;
        const id = line.sku_id ?? line.product_id;
        if (id === null || line.index === null) continue;
        applicable.data.push({ object: line.sku_id !== null ? 'sku' : 'product', id, effect: 'APPLY_TO_EVERY', order_item_indices: [line.index] } as Schemas['ApplicableTo']);
      }
    }
    for (const { entry, indices } of exclusions(targeting, lines, memberships)) {
      const listed = listedEntry(entry, indices, lines);
      if (listed) inapplicable.data.push(listed);
    }
  }
  applicable.total = applicable.data.length;
  inapplicable.total = inapplicable.data.length;
  return { applicable_to: applicable, inapplicable_to: inapplicable };
}

/** The running state of the order while redeemables apply. */
interface State {
  lines: Line[];
  amount: number;
  remaining: number;
  gift: number;
  orderDiscount: number;
  itemsDiscount: number;
}

const copyLines = (lines: readonly Line[]): Line[] => lines.map((line) => ({ ...FRESH, ...line, details: [...line.details] }));

/**
 * The order as one redeemable leaves it: the sums so far, with this redeemable's own share as the `applied`
 * amounts, and each line with what this redeemable took from it.
 */
function orderAfter(state: State, own: { orderDiscount: number; itemsDiscount: number; perLine: Map<number, number> }): Schemas['OrderCalculated'] {
  const total = state.orderDiscount + state.itemsDiscount;
  return {
    amount: state.amount,
    discount_amount: state.orderDiscount,
    items_discount_amount: state.itemsDiscount,
    total_discount_amount: total,
    total_amount: Math.max(0, state.amount - total - state.gift),
    applied_discount_amount: own.orderDiscount,
    items_applied_discount_amount: own.itemsDiscount,
    total_applied_discount_amount: own.orderDiscount + own.itemsDiscount,
    ...(state.gift > 0 && { gift_amount: state.gift }),
    items: state.lines.map((line, index) => presentLine(line, own.perLine.get(index) ?? 0)),
    object: 'order',
  } as Schemas['OrderCalculated'];
}

/** The request's redeemables, decided. */
export function decide(facts: DecisionFacts): Decision {
  const { rules, now, initialAmount } = facts;
  const state: State = { lines: copyLines(facts.lines), amount: initialAmount, remaining: initialAmount, gift: 0, orderDiscount: 0, itemsDiscount: 0 };
  const tally: Tally = { applied: 0, exclusive: 0, byCategory: new Map(), exclusiveByCategory: new Map() };
  const verdicts: { verdict: Verdict; applied: Applied[]; voucher?: VoucherRecord; tier?: PromotionTierRecord }[] = [];

  for (const subject of applicationOrder(facts.subjects, rules)) {
    const { requested, voucher, stack, campaign } = subject;
    const tier = subject.tier?.tier;
    const base = { id: requested.id, object: requested.object };
    const campaignId = voucher?.campaign_id ?? tier?.campaign_id ?? stack?.campaign_id ?? null;
    const initialMode = ofInitialAmount(subject, rules);
    const seen: Seen = { amount: initialMode ? initialAmount : state.remaining - state.gift, initialAmount };
    const reject = (error: RedeemableError, failing?: PromotionTierRecord) =>
      verdicts.push({
        verdict: {
          ...FRESH,
          ...base,
          status: 'INAPPLICABLE',
          result: { error: { ...FRESH, ...error, resource_id: requested.id, resource_type: requested.object } },
          campaign_id: campaignId,
          ...subject.described,
        },
        applied: [],
        ...(voucher && { voucher }),
        ...((failing ?? tier) && { tier: failing ?? tier }),
      });
    const skip = (key: string) => {
      const verdict: Verdict = { ...FRESH, ...base, status: 'APPLICABLE', result: {}, campaign_id: campaignId, ...subject.described };
      verdicts.push({ verdict: skippedVerdict(verdict, key), applied: [], ...(voucher && { voucher }), ...(tier && { tier }) });
    };
    /**
     * Applies discounts one after another (one for a voucher or tier, one per tier for a stack) and keeps
     * them, unless they take nothing and the rules skip such redeemables: then the order is as it was.
     */
    const applyDiscounts = (parts: { discount: Discount | undefined; tier?: PromotionTierRecord; targeting: Targeting | undefined }[], result: (off: number) => Verdict['result']) => {
      const saved: State = { ...FRESH, ...state, lines: state.lines };
      const applied: Applied[] = [];
      const own = { orderDiscount: 0, itemsDiscount: 0, perLine: new Map<number, number>() };
      let total = 0;
      let added = 0;
      let lists: Pick<Verdict, 'applicable_to' | 'inapplicable_to'> = { applicable_to: EMPTY_LIST(), inapplicable_to: EMPTY_LIST() };
      for (const part of parts) {
        const { discount, targeting } = part;
        let off = 0;
        let itemLevel = false;
        if (discount) {
          // Under `ONCE`, a line an earlier redeemable discounted has nothing left for item-level discounts.
          const open =
            rules.redeemables_products_application_mode === 'ONCE'
              ? state.lines.map((line) => (line.discount_amount > 0 || line.discount_quantity > 0 ? { ...FRESH, ...line, discount_amount: line.amount } : line))
              : state.lines;
          const left = state.remaining - state.gift;
          const reach = { allotments: allotments(targeting, open, facts.memberships), narrowed: narrows(targeting), ofWhatIsLeft: !initialMode };
          const effect = applyDiscount(discount, left, open, facts.catalog, initialMode ? initialAmount : left, reach);
          off = effect.total;
          itemLevel = effect.itemLevel;
          state.lines = effect.lines.map((line, index) => {
            const previous = state.lines[index];
            const current: Line = previous
              ? { ...FRESH, ...previous, quantity: line.quantity, amount: line.amount }
              : { ...FRESH, ...line, initial_quantity: 0, initial_amount: 0, discount_quantity: 0, discount_amount: 0, related_object: line.sku_id ? 'sku' : 'product', index: null, details: [] };
            const took = effect.perLine[index] ?? 0;
            const unitsAdded = effect.addedUnits[index] ?? 0;
            current.discount_amount += took;
            current.discount_quantity += effect.freeUnits[index] ?? 0;
            if (took > 0) own.perLine.set(index, (own.perLine.get(index) ?? 0) + took);
            if (took > 0 || unitsAdded > 0) {
              const position = current.index ?? index;
              current.details = [
                ...current.details,
                {
                  source_index: position,
                  target_index: position,
                  ...(unitsAdded > 0 && { target_applied_quantity: unitsAdded, target_applied_quantity_amount: unitsAdded * (line.price ?? 0) }),
                  target_applied_discount_amount: took,
                },
              ];
            }
            return current;
          });
          state.amount += effect.addedAmount;
          state.remaining += effect.addedAmount - effect.total;
          added += effect.addedAmount;
          if (itemLevel) {
            state.itemsDiscount += off;
            own.itemsDiscount += off;
          } else {
            state.orderDiscount += off;
            own.orderDiscount += off;
          }
          if (narrows(targeting)) lists = targetLists(targeting, facts.lines as Line[], facts.memberships);
        }
        total += off;
        applied.push({
          request: requested,
          campaignId,
          ...(voucher && { voucher }),
          ...(part.tier && { tier: part.tier }),
          discount: off,
          itemLevel,
          giftCredits: 0,
          points: 0,
        });
      }
      if (total === 0 && added === 0 && skipsNoEffect(subject, rules)) {
        Object.assign(state, saved);
        skip('no_effect');
        return;
      }
      count(subject, tally);
      const verdict: Verdict = { ...FRESH, ...base, status: 'APPLICABLE', ...lists, result: result(total), order: orderAfter(state, own), campaign_id: campaignId, ...subject.described };
      verdicts.push({ verdict, applied, ...(voucher && { voucher }), ...(tier && { tier }) });
    };
    /** Applies a gift card or a loyalty card payment, which never counts as having no effect. */
    const applyPayment = (result: Verdict['result'], applied: Omit<Applied, 'request' | 'campaignId'>, onApply: () => void) => {
      onApply();
      count(subject, tally);
      const verdict: Verdict = {
        ...FRESH,
        ...base,
        status: 'APPLICABLE',
        applicable_to: EMPTY_LIST(),
        inapplicable_to: EMPTY_LIST(),
        result,
        order: orderAfter(state, { orderDiscount: applied.discount, itemsDiscount: 0, perLine: new Map() }),
        campaign_id: campaignId,
        ...subject.described,
      };
      verdicts.push({ verdict, applied: [{ request: requested, campaignId, ...applied }], ...(voucher && { voucher }), ...(tier && { tier }) });
    };
    /** Why a promotion tier does not apply now (its or its campaign's validity, its rules); undefined when it does. */
    const tierError = (member: TierFacts): RedeemableError | undefined => {
      const validity = [member.campaign ? validityAt(member.campaign, now) : ({ valid: false, reason: 'disabled' } as const), validityAt(member.tier, now)].find((v) => !v.valid);
      if (validity && !validity.valid) {
        const [key, message] = TIER_VALIDITY[validity.reason];
        return failure(400, key, message, `Promotion tier ${member.tier.id}: ${validity.reason.replace(/_/g, ' ')}`);
      }
      return brokenRule(facts, seen, member.rules);
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
        const error = tierError(member);
        if (error) {
          reject({ ...FRESH, ...error, details: `Promotion stack ${stack.id}: ${error.details ?? error.message}` }, member.tier);
          refused = true;
          break;
        }
      }
      if (refused) continue;
      const limit = limitReached(subject, rules, tally);
      if (limit) {
        skip(limit);
        continue;
      }
      applyDiscounts(
        (subject.stackTiers as TierFacts[]).map((member) => ({ discount: member.tier.action?.discount, tier: member.tier, targeting: targetingOf(member.rules) })),
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
      const held = subject.held ?? { quantity: 0, credits: 0, points: 0 };
      if (voucher.redemption.quantity !== null && voucher.redemption.redeemed_quantity + held.quantity >= voucher.redemption.quantity) {
        const heldNote = held.quantity > 0 ? `, and validation sessions hold ${held.quantity} more` : '';
        reject(failure(400, 'quantity_exceeded', 'Voucher redemptions limit exceeded', `Voucher ${voucher.code} was redeemed ${voucher.redemption.redeemed_quantity} of ${voucher.redemption.quantity} times${heldNote}`));
        continue;
      }
      const ruleFacts = subject.voucherRules ?? { rules: [], redeemed: 0, redeemedByCustomer: 0 };
      const broken = brokenRule(facts, seen, ruleFacts);
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
        const reward = subject.payment?.reward;
        if (!reward) {
          reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find reward ${rewardRef} in the program of card ${voucher.code}`));
          continue;
        }
        if (reward.type !== 'COIN') {
          reject(failure(400, 'invalid_reward', 'Invalid reward', `Reward ${reward.name} is a ${reward.type} reward; only COIN rewards pay for orders, others are redeemed by the member`));
          continue;
        }
        const coin = reward.parameters.coin!;
        const paid = coinPayment(coin, state.remaining - state.gift, Math.min(freePoints, requested.reward?.points ?? freePoints));
        if (paid.points <= 0) {
          const heldNote = held.points > 0 ? ` (${held.points} of them held by validation sessions)` : '';
          reject(failure(400, 'not_enough_points', 'Not enough points', `Loyalty card ${voucher.code} has ${balance} points${heldNote}; ${coin.points_ratio} are needed`));
          continue;
        }
        const limit = limitReached(subject, rules, tally);
        if (limit) {
          skip(limit);
          continue;
        }
        const holder = subject.payment?.holder;
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
          assignment_id: subject.payment?.assignmentId ?? null,
          voucher: null,
          product: null,
          sku: null,
          loyalty_tier_id: null,
        };
        applyPayment(
          { discount_amount: paid.amount, loyalty_card: { points: paid.points, balance } },
          { voucher, discount: paid.amount, itemLevel: false, giftCredits: 0, points: paid.points, reward: snapshot },
          () => {
            state.remaining -= paid.amount;
            state.orderDiscount += paid.amount;
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
          skip(limit);
          continue;
        }
        const credits = Math.min(wanted ?? freeCredits, freeCredits, state.remaining - state.gift);
        applyPayment({ gift: { credits, balance: voucher.gift.balance } }, { voucher, discount: 0, itemLevel: false, giftCredits: credits, points: 0 }, () => {
          state.gift += credits;
        });
        continue;
      }
      const limit = limitReached(subject, rules, tally);
      if (limit) {
        skip(limit);
        continue;
      }
      const discount = voucher.discount!;
      applyDiscounts([{ discount, targeting: targetingOf(ruleFacts) }], (off) => ({ discount, discount_amount: off }));
      continue;
    }
    if (!subject.tier) {
      reject(failure(404, 'resource_not_found', 'Resource not found', `Cannot find promotion tier ${requested.id}`));
      continue;
    }
    const error = tierError(subject.tier);
    if (error) {
      reject(error);
      continue;
    }
    const limit = limitReached(subject, rules, tally);
    if (limit) {
      skip(limit);
      continue;
    }
    const discount = subject.tier.tier.action?.discount;
    applyDiscounts([{ discount, tier: subject.tier.tier, targeting: targetingOf(subject.tier.rules) }], (off) => ({ ...FRESH, ...(discount && { discount }), discount_amount: off }));
  }

  const partial = rules.redeemables_application_mode === 'PARTIAL';
  const valid = partial ? verdicts.some(({ verdict }) => verdict.status === 'APPLICABLE') : verdicts.every(({ verdict }) => verdict.status !== 'INAPPLICABLE');
  const applied: Applied[] = [];
  if (valid) for (const entry of verdicts) applied.push(...entry.applied);
  let lines = state.lines;
  let amount = state.amount;
  if (!valid) {
    // Nothing applies: the order is priced as it came, and every redeemable that would have applied is skipped.
    lines = copyLines(facts.lines);
    amount = initialAmount;
  }
  // A valid request lists what applies and what was skipped (a `PARTIAL` one lists the inapplicable ones apart);
  // an invalid one lists every redeemable, each with its status and reasons.
  const listed = verdicts
    .filter(({ verdict }) => !valid || verdict.status !== 'INAPPLICABLE')
    .map(({ verdict }) => (valid || verdict.status !== 'APPLICABLE' ? verdict : skippedVerdict(verdict, 'preceding_validation_failed')));
  const orderDiscount = applied.filter((entry) => !entry.itemLevel).reduce((sum, entry) => sum + entry.discount, 0);
  const itemsDiscount = applied.filter((entry) => entry.itemLevel).reduce((sum, entry) => sum + entry.discount, 0);
  const giftUsed = applied.reduce((sum, entry) => sum + entry.giftCredits, 0);
  const total = orderDiscount + itemsDiscount;
  const inapplicable = verdicts.filter(({ verdict }) => verdict.status === 'INAPPLICABLE');
  return {
    valid,
    redeemables: listed,
    skipped: listed.filter((verdict) => verdict.status === 'SKIPPED'),
    inapplicable: inapplicable.map(({ verdict }) => verdict),
    failures: inapplicable.map(({ verdict, voucher, tier }) => ({ verdict, ...(voucher && { voucher }), ...(tier && { tier }) })),
    applied,
    order: {
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
      items: lines.map((line) => presentLine(line)),
    },
    totals: { amount, initialAmount, orderDiscount, itemsDiscount, gift: giftUsed },
    lines,
  };
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

import type { components } from '../../generated/openapi.js';
import { categoryFields } from './categories.js';
import type { DomainContext } from './context.js';
import { namedCustomer } from './customers.js';
import { evaluate } from './engine.js';
import { checkFilter, matchesFilter, type FilterDefinition } from './filters.js';
import type { PromotionTierRecord } from './promotion-tiers.js';
import { presentStackingRules } from './stacking-rules.js';
import { withoutEmptyClauses } from './publications.js';
import type { VoucherRecord } from './vouchers.js';
import { and, isNull } from '../store/conditions.js';

type Schemas = components['schemas'];
type Request = Schemas['QualificationsCheckEligibilityRequestBody'];
type Qualifying = Schemas['QualificationRedeemable'];
type Scenario = NonNullable<Request['scenario']>;

/** The fields `options.filters` may name. */
const QUALIFICATION_FILTER_FIELDS: ReadonlySet<string> = new Set([
  'category_id', 'campaign_id', 'campaign_type', 'resource_id', 'resource_type', 'voucher_type', 'code', 'holder_role',
]);

type Candidate = { voucher: VoucherRecord; tier?: undefined } | { tier: PromotionTierRecord; voucher?: undefined };

/** Whether a discount works on items (an item effect or free units), as the product scenarios want. */
function targetsItems(discount: Schemas['Discount'] | null | undefined): boolean {
  if (!discount) return false;
  return discount.type === 'UNIT' || (discount.effect !== undefined && discount.effect !== 'APPLY_TO_ORDER');
}

/**
 * The candidates a scenario checks: promotion tiers by hierarchy, then the customer's vouchers oldest first,
 * then (for `ALL`) the standalone vouchers (of no campaign) that anyone or this customer holds, oldest first:
 * the public API's `ALL` covers "all the available campaigns and standalone codes". Each one is evaluated
 * for the customer and the order; only those that would apply are kept.
 */
async function* candidates(ctx: DomainContext, scenario: Scenario, customerId: string | undefined): AsyncIterable<Candidate> {
  const tiers = ['ALL', 'AUDIENCE_ONLY', 'PRODUCTS', 'PRODUCTS_DISCOUNT', 'PRODUCTS_BY_CUSTOMER', 'PRODUCTS_DISCOUNT_BY_CUSTOMER'].includes(scenario);
  const held = ['ALL', 'CUSTOMER_WALLET', 'PRODUCTS_BY_CUSTOMER', 'PRODUCTS_DISCOUNT_BY_CUSTOMER'].includes(scenario);
  const itemsOnly = scenario.startsWith('PRODUCTS');
  if (tiers) {
    for (const tier of (await ctx.uow.promotion_tiers.query({ orderBy: { field: 'hierarchy', direction: 'asc' } })).rows) {
      if (!itemsOnly || targetsItems(tier.action?.discount)) yield { tier };
    }
  }
  if (held && customerId) {
    for (const voucher of await ctx.uow.vouchers.findBy('holder_id', customerId)) if (!itemsOnly || targetsItems(voucher.discount)) yield { voucher };
  }
  if (scenario === 'ALL') {
    // The customer's own were checked above. A page at a time, in creation order (insertion order, as made).
    for await (const page of ctx.uow.vouchers.walk({ where: and(isNull('campaign_id'), isNull('holder_id')) }, STANDALONE_PAGE)) {
      for (const voucher of page) yield { voucher };
    }
  }
}

/** Standalone vouchers read at a time. */
const STANDALONE_PAGE = 200;

/** What `options.filters` reads of a candidate. */
async function filterView(ctx: DomainContext, candidate: Candidate, customerId: string | undefined) {
  const campaignId = candidate.voucher?.campaign_id ?? candidate.tier?.campaign_id ?? null;
  const campaign = campaignId ? await ctx.uow.campaigns.get(campaignId) : undefined;
  return {
    category_id: (candidate.voucher ?? candidate.tier).category_id ?? campaign?.category_id ?? null,
    campaign_id: campaignId,
    campaign_type: campaign?.campaign_type ?? null,
    resource_id: candidate.voucher ? candidate.voucher.code : candidate.tier.id,
    resource_type: candidate.voucher ? 'voucher' : 'promotion_tier',
    voucher_type: candidate.voucher?.type ?? null,
    code: candidate.voucher?.code ?? null,
    holder_role: candidate.voucher && candidate.voucher.holder_id === customerId ? 'OWNER' : null,
  };
}

/** What a discount is worth for sorting by deal: the discount it takes, or the gift credit or points value it pays. */
function dealOf(entry: Qualifying): number {
  return entry.result?.discount_amount ?? entry.result?.gift?.credits ?? 0;
}

/**
 * Checks each candidate on its own and keeps those that would apply, filtered, sorted and paged as
 * `options` says. A customer not seen before is created. Nothing else is changed or counted.
 */
export async function checkEligibility(ctx: DomainContext, request: Request): Promise<Schemas['QualificationsCheckEligibilityResponseBody']> {
  const scenario = request.scenario ?? 'ALL';
  const options = request.options ?? {};
  const expand = new Set(options.expand ?? []);
  const customer = await namedCustomer(ctx, request.customer);
  // The customer is named to the engine by ID once it exists, so rules see it; metadata given stays for this request.
  const customerRef = customer ? { id: customer.id, ...(request.customer?.metadata && { metadata: request.customer.metadata }) } : undefined;
  const filter = options.filters
    ? (checkFilter(withoutEmptyClauses(options.filters as Record<string, unknown>), QUALIFICATION_FILTER_FIELDS, { key: 'invalid_payload', message: 'Invalid payload', name: 'options.filters' }) as unknown as FilterDefinition)
    : undefined;
  const qualifying: Qualifying[] = [];
  // Where the standalone vouchers nobody holds begin among those that qualify: they come last, walked in
  // insertion order, and are put in creation order at the end.
  let standaloneFrom: number | undefined;
  for await (const candidate of candidates(ctx, scenario, customer?.id)) {
    if (filter && !matchesFilter(await filterView(ctx, candidate, customer?.id), filter)) continue;
    const redeemable = candidate.voucher ? { object: 'voucher' as const, id: candidate.voucher.code } : { object: 'promotion_tier' as const, id: candidate.tier.id };
    const evaluation = await evaluate(ctx, { redeemables: [redeemable], ...(request.order && { order: request.order }), ...(customerRef && { customer: customerRef }) });
    if (!evaluation.valid || evaluation.applied.length === 0) continue;
    const verdict = evaluation.redeemables[0]!;
    const subject = candidate.voucher ?? candidate.tier;
    const campaign = verdict.campaign_id ? await ctx.uow.campaigns.get(verdict.campaign_id) : undefined;
    const assignments = expand.has('validation_rules') ? await ctx.uow.validation_rule_assignments.findBy('related_object_id', subject.id) : [];
    if (candidate.voucher && candidate.voucher.campaign_id === null && candidate.voucher.holder_id === null) standaloneFrom ??= qualifying.length;
    qualifying.push({
      id: verdict.id,
      object: verdict.object === 'voucher' ? 'voucher' : 'promotion_tier',
      created_at: subject.created_at,
      result: verdict.result,
      campaign_id: verdict.campaign_id ?? null,
      ...(expand.has('redeemable') && {
        name: candidate.tier ? candidate.tier.name : candidate.voucher.code,
        // A tier's banner is optional and, where the answer has one, a string: a tier made without one names none.
        ...(typeof candidate.tier?.banner === 'string' && { banner: candidate.tier.banner }),
        ...(campaign && { campaign_name: campaign.name }),
        metadata: subject.metadata,
      }),
      ...(expand.has('category') && { categories: (await categoryFields(ctx, subject.category_id ?? null)).categories }),
      ...(expand.has('validation_rules') && { validation_rules_assignments: { object: 'list', data_ref: 'data', data: assignments, total: assignments.length } }),
    } as Qualifying);
  }
  if (standaloneFrom !== undefined) {
    const byCreation = qualifying.splice(standaloneFrom).sort((a, b) => ((a.created_at ?? '') < (b.created_at ?? '') ? -1 : (a.created_at ?? '') > (b.created_at ?? '') ? 1 : 0));
    qualifying.push(...byCreation);
  }
  if (options.sorting_rule === 'BEST_DEAL') qualifying.sort((a, b) => dealOf(b) - dealOf(a));
  if (options.sorting_rule === 'LEAST_DEAL') qualifying.sort((a, b) => dealOf(a) - dealOf(b));
  // The cursor is the `created_at` of the previous page's last redeemable: the page starts after the last one created then.
  let start = 0;
  if (options.starting_after) {
    const cursor = Date.parse(options.starting_after);
    const last = qualifying.findLastIndex((entry) => entry.created_at !== undefined && Date.parse(entry.created_at) === cursor);
    start = last + 1;
  }
  const limit = options.limit ?? 5;
  const page = qualifying.slice(start, start + limit);
  const hasMore = start + limit < qualifying.length;
  // With nothing to apply, the engine just prices the order and identifies the customer.
  const base = await evaluate(ctx, { redeemables: [], ...(request.order && { order: request.order }), ...(customerRef && { customer: customerRef }), ...(request.tracking_id && { tracking_id: request.tracking_id }) });
  return {
    redeemables: {
      object: 'list',
      data_ref: 'data',
      data: page,
      total: qualifying.length,
      has_more: hasMore,
      ...(hasMore && page.length > 0 && page.at(-1)!.created_at !== undefined && { more_starting_after: page.at(-1)!.created_at! }),
    },
    tracking_id: base.trackingId,
    order: base.order,
    stacking_rules: presentStackingRules(base.stackingRules),
    object: 'qualification',
  };
}

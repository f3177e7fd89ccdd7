import type { components } from '../../generated/openapi.js';
import { categoryChange, categoryFields, resolveCategoryRef } from './categories.js';
import { applyChanges } from './changes.js';
import { checkCode, generateCodes, resolveCodeConfig, type CodeConfig, type ResolvedCodeConfig } from './codes.js';
import { findCampaign } from './campaign-lookup.js';
import type { CampaignRecord } from './campaigns.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { recordEvent } from './events.js';
import { recordGiftMovement } from './gift-transactions.js';
import { filterCondition } from './filters.js';
import { normalizeFilters } from './list-filters.js';
import { newId } from './ids.js';
import { pageWindow, parseOrder } from './pagination.js';
import { withinRange, type TimeRange } from './time-range.js';
import { writeUnique } from './unique.js';
import { changeCardPoints } from './loyalty/cards.js';
import { dropCardData } from './loyalty/programs.js';
import { assignValidationRule, dropAssignmentsOf, findValidationRule } from './validation-rules.js';
import { timeframeWithoutStart } from './validity.js';
import { binVoucher, codeInBin, ensureCodeFree } from './bin.js';
import { dropHoldersOf } from './redeemable-holders.js';
import { table } from '../store/schema.js';
import { and, eq, isIn } from '../store/conditions.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
export type Voucher = Schemas['Voucher'];
type VoucherType = Schemas['VoucherType'];
type VoucherFields = Schemas['VoucherFields'];
type VoucherUpdate = Schemas['VouchersUpdateRequestBody'];
type CampaignVouchersCreate = Schemas['CampaignsVouchersCreateRequestBody'];
type BalanceChange = Schemas['VouchersBalanceUpdateRequestBody'];

/** A gift card's credit as stored. `subtracted_amount` counts credit taken off through balance changes. */
export interface GiftState {
  amount: number;
  balance: number;
  effect: NonNullable<Schemas['Gift']['effect']>;
  subtracted_amount?: number;
}

/** A loyalty card's points as stored; the loyalty engine keeps them in step with the card's buckets. */
export interface LoyaltyCardState {
  points: number;
  balance: number;
  next_expiration_date: string | null;
  next_expiration_points: number | null;
}

/**
 * A voucher as stored. The contract leaves every field of a voucher optional (as the API does); the server
 * always keeps these. Campaign and category names, the assets, the rule assignments and the list links are
 * derived when it is read.
 */
export interface VoucherRecord {
  id: string;
  code: string;
  campaign_id: string | null;
  category_id: string | null;
  type: VoucherType;
  discount: Schemas['Discount'] | null;
  gift: GiftState | null;
  loyalty_card: LoyaltyCardState | null;
  start_date: string | null;
  /** Null when never set; left out once an update clears it, as the public API then leaves the key out. */
  expiration_date?: string | null;
  validity_timeframe: Schemas['ValidityTimeframe'];
  validity_day_of_week: Schemas['ValidityDayOfWeek'];
  validity_hours: Schemas['ValidityHours'];
  active: boolean;
  additional_info: string | null;
  metadata: Record<string, unknown>;
  is_referral_code: boolean;
  created_at: string;
  updated_at: string | null;
  holder_id: string | null;
  redemption: { quantity: number | null; redeemed_quantity: number; redeemed_points: number };
  publish_count: number;
}

export const VOUCHERS_TABLE = table<VoucherRecord>({ unique: ['code'], indexed: ['campaign_id', 'holder_id', 'category_id'], ordered: ['created_at'], sparse: ['campaign_id', 'holder_id', 'category_id'], kinds: { created_at: 'text', updated_at: 'text', code: 'text', start_date: 'text', expiration_date: 'text' } });

/** What a new voucher is made from: the request's fields over the campaign's template. */
export type VoucherInput = VoucherFields & { code?: string | null; code_config?: CodeConfig | null };

/**
 * A voucher as the domain returns it: everything but the asset URLs, which depend on the server address.
 * Its ID and code are always there (the asset URLs are made from the code).
 */
/** A voucher as operations return it: every field below is on every voucher this server sends. */
export type VoucherView = Omit<Voucher, 'assets'> &
  Required<
    Pick<
      Voucher,
      | 'id'
      | 'code'
      | 'type'
      | 'is_referral_code'
      | 'created_at'
      | 'category'
      | 'category_id'
      | 'active'
      | 'start_date'
      | 'validity_timeframe'
      | 'validity_day_of_week'
      | 'loyalty_card'
      | 'additional_info'
      | 'metadata'
    >
  >;

function voucherError(details: string) {
  return invalid('invalid_voucher', 'Invalid voucher', details);
}

export async function findVoucher({ uow }: DomainContext, code: string): Promise<VoucherRecord> {
  const voucher = await uow.vouchers.getBy('code', code);
  if (!voucher) throw notFound('voucher', code);
  return voucher;
}

/** The rule assignments of an object (voucher or campaign) as the list its response carries, oldest first. */
export async function assignmentsList(ctx: DomainContext, objectId: string) {
  const data = (await ctx.uow.validation_rule_assignments.findBy('related_object_id', objectId)).sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? ''));
  return { object: 'list' as const, data_ref: 'data' as const, data, total: data.length };
}

/**
 * Assigns each rule (a repeated ID once) to the object, as the assignment operation would. Every rule is
 * looked up first, so an unknown one is a 404 before anything is assigned.
 */
export async function assignRules(ctx: DomainContext, ruleIds: readonly string[] | null | undefined, target: { related_object_type: 'voucher' | 'campaign'; related_object_id: string }) {
  const unique = [...new Set(ruleIds ?? [])];
  for (const ruleId of unique) await findValidationRule(ctx, ruleId);
  for (const ruleId of unique) await assignValidationRule(ctx, ruleId, target);
}

export async function presentVoucher(ctx: DomainContext, record: VoucherRecord): Promise<VoucherView> {
  const campaign = record.campaign_id ? await ctx.uow.campaigns.get(record.campaign_id) : undefined;
  const category = await categoryFields(ctx, record.category_id);
  const { gift, redemption } = record;
  const code = encodeURIComponent(record.code);
  // One literal with every field of the view. Building it as a copy of the record (`...rest` of a destructuring)
  // with the view's fields then assigned onto it cost about four times as much (a microbenchmark, where V8 also
  // made that copy a dictionary-mode object) and a few percent of a voucher list page (`make bench`).
  // tests/unit/voucher-view.test.ts fails when a field of the record is missing here.
  return {
    id: record.id,
    code: record.code,
    campaign_id: record.campaign_id,
    category_id: category.category_id,
    type: record.type,
    discount: record.discount,
    loyalty_card: record.loyalty_card,
    start_date: record.start_date,
    expiration_date: record.expiration_date,
    validity_timeframe: record.validity_timeframe,
    validity_day_of_week: record.validity_day_of_week,
    validity_hours: record.validity_hours,
    active: record.active,
    additional_info: record.additional_info,
    metadata: record.metadata,
    is_referral_code: record.is_referral_code,
    created_at: record.created_at,
    updated_at: record.updated_at,
    holder_id: record.holder_id,
    campaign: campaign?.name ?? null,
    category: category.category,
    categories: category.categories,
    gift: gift ? { amount: gift.amount, subtracted_amount: gift.subtracted_amount ?? 0, balance: gift.balance, effect: gift.effect } : null,
    redemption:
      record.type === 'LOYALTY_CARD'
        ? {
            quantity: redemption.quantity,
            redeemed_quantity: redemption.redeemed_quantity,
            redeemed_points: redemption.redeemed_points,
            object: 'list' as const,
            url: `/v1/vouchers/${code}/redemption`,
          }
        : { quantity: redemption.quantity, redeemed_quantity: redemption.redeemed_quantity, object: 'list' as const, url: `/v1/vouchers/${code}/redemption` },
    publish: { object: 'list' as const, count: record.publish_count, url: `/v1/publications?voucher=${code}` },
    validation_rules_assignments: await assignmentsList(ctx, record.id),
    object: 'voucher' as const,
  } satisfies VoucherView;
}

/** Codes from the config that no voucher of the project has yet. */
export async function freshCodes(ctx: DomainContext, config: ResolvedCodeConfig, count: number): Promise<string[]> {
  const chosen = new Set<string>();
  for (let round = 0; round < 10 && chosen.size < count; round++) {
    const candidates = generateCodes(config, count - chosen.size, (code) => chosen.has(code));
    for (const code of candidates) if (!(await ctx.uow.vouchers.getBy('code', code)) && !(await codeInBin(ctx, code))) chosen.add(code);
  }
  if (chosen.size < count) {
    throw invalid('invalid_code_config', 'Invalid code config', `Only ${chosen.size} of ${count} codes are still free in the code config's space`);
  }
  return [...chosen];
}

async function resolveCampaign(ctx: DomainContext, input: VoucherInput): Promise<CampaignRecord | undefined> {
  if (input.campaign_id !== undefined && input.campaign_id !== null) return findCampaign(ctx, input.campaign_id);
  if (input.campaign !== undefined && input.campaign !== null) {
    const campaign = await ctx.uow.campaigns.getBy('name', input.campaign);
    if (!campaign) throw notFound('campaign', input.campaign);
    return campaign;
  }
  return undefined;
}

const VALUE_PART = { DISCOUNT_VOUCHER: 'discount', GIFT_VOUCHER: 'gift', LOYALTY_CARD: 'loyalty_card' } as const;

/**
 * A standalone voucher's type: the one given, or else the one its single value part implies (a lone gift
 * or loyalty card), or else `DISCOUNT_VOUCHER`.
 */
function standaloneType(input: VoucherInput): VoucherType {
  if (input.type) return input.type;
  const offered = (['gift', 'loyalty_card'] as const).filter((part) => input[part] !== undefined && input[part] !== null);
  if (offered.length === 1 && (input.discount === undefined || input.discount === null)) return offered[0] === 'gift' ? 'GIFT_VOUCHER' : 'LOYALTY_CARD';
  return 'DISCOUNT_VOUCHER';
}

/**
 * The new voucher's type-specific parts, checked against its type. Server-owned parts of a request (a
 * gift's balance, a card's counters) are never read: a new balance always equals the amount or points.
 */
function valueParts(type: VoucherType, input: VoucherInput, campaign?: CampaignRecord) {
  const template = campaign?.voucher;
  const offered = (['discount', 'gift', 'loyalty_card'] as const).filter((part) => input[part] !== undefined && input[part] !== null);
  const foreign = offered.find((part) => part !== VALUE_PART[type]);
  if (foreign) throw voucherError(`A ${type} cannot have ${foreign}`);
  const discount = type === 'DISCOUNT_VOUCHER' ? (input.discount ?? template?.discount ?? null) : null;
  const gift = type === 'GIFT_VOUCHER' ? (input.gift ?? template?.gift ?? null) : null;
  const loyalty = type === 'LOYALTY_CARD' ? (input.loyalty_card ?? template?.loyalty_card ?? null) : null;
  if (type === 'DISCOUNT_VOUCHER' && !discount) throw voucherError('A DISCOUNT_VOUCHER needs a discount');
  if (type === 'GIFT_VOUCHER' && !gift) throw voucherError('A GIFT_VOUCHER needs a gift');
  if (type === 'LOYALTY_CARD' && !loyalty) throw voucherError('A LOYALTY_CARD needs a loyalty_card');
  const credit = gift ? wholeAmount(gift.amount) : 0;
  return {
    discount,
    gift: gift ? { amount: credit, balance: credit, effect: gift.effect ?? 'APPLY_TO_ORDER', subtracted_amount: 0 } : null,
    loyalty_card: loyalty
      ? { points: loyalty.points, balance: loyalty.points, next_expiration_date: null, next_expiration_points: null }
      : null,
  };
}

/** Money is whole units ×100; the API types gift amounts as numbers, so a fraction is rounded. */
export function wholeAmount(amount: number): number {
  return Math.round(amount);
}

/**
 * Builds voucher records without storing them: the request's fields over the campaign's template,
 * one per code.
 */
export async function buildVouchers(
  ctx: DomainContext,
  input: VoucherInput,
  codes: string[],
  campaign?: CampaignRecord,
): Promise<VoucherRecord[]> {
  if (campaign && !campaign.voucher) throw invalid('invalid_campaign_params', 'Invalid campaign params', `Campaign ${campaign.name} holds promotion tiers, not vouchers`);
  const type = campaign?.voucher?.type ?? standaloneType(input);
  if (input.type && input.type !== type) throw voucherError(`Campaign ${campaign?.name} holds ${type}s, not ${input.type}s`);
  const parts = valueParts(type, input, campaign);
  const category = await resolveCategoryRef(ctx, input);
  const now = isoNow(ctx.clock);
  const inherited = <K extends 'start_date' | 'expiration_date' | 'validity_timeframe' | 'validity_day_of_week' | 'validity_hours'>(key: K) =>
    input[key] !== undefined ? input[key] : (campaign?.[key] ?? null);
  return codes.map((code) => ({
    id: newId('v'),
    code,
    campaign_id: campaign?.id ?? null,
    category_id: category !== undefined ? (category?.id ?? null) : (campaign?.category_id ?? null),
    type,
    ...parts,
    start_date: inherited('start_date') ?? null,
    expiration_date: inherited('expiration_date') ?? null,
    validity_timeframe: inherited('validity_timeframe') ?? null,
    validity_day_of_week: inherited('validity_day_of_week') ?? null,
    validity_hours: inherited('validity_hours') ?? null,
    active: input.active ?? true,
    additional_info: input.additional_info ?? null,
    metadata: input.metadata ?? {},
    is_referral_code: campaign?.voucher?.is_referral_code ?? false,
    created_at: now,
    updated_at: null,
    holder_id: null,
    redemption: {
      quantity:
        input.redemption?.quantity !== undefined ? input.redemption.quantity : (campaign?.voucher?.redemption.quantity ?? null),
      redeemed_quantity: 0,
      redeemed_points: 0,
    },
    publish_count: 0,
  }));
}

/**
 * Creates one voucher with the given code, or one generated from the code config, and assigns the
 * validation rules the request names.
 */
export async function createVoucher(ctx: DomainContext, input: VoucherInput, fixedCampaign?: CampaignRecord): Promise<VoucherRecord> {
  const campaign = fixedCampaign ?? (await resolveCampaign(ctx, input));
  const config = resolveCodeConfig(input.code_config ?? campaign?.voucher?.code_config);
  const given = input.code !== undefined && input.code !== null;
  if (given) checkCode(input.code!);
  const [code] = given ? [input.code!] : await freshCodes(ctx, config, 1);
  const [record] = await buildVouchers(ctx, input, [code!], campaign);
  for (const ruleId of new Set(input.validation_rules ?? [])) await findValidationRule(ctx, ruleId);
  await ensureCodeFree(ctx, record!.code);
  const created = await writeUnique('voucher', () => ctx.uow.vouchers.insert(record!));
  await recordEvent(ctx, 'voucher.created', { campaign_id: created.campaign_id, voucher_id: created.id }, { voucher: { id: created.id, code: created.code } });
  await assignRules(ctx, input.validation_rules, { related_object_type: 'voucher', related_object_id: created.id });
  return created;
}

/** Adds vouchers to a campaign that may gain them. */
export async function campaignForNewVouchers(ctx: DomainContext, ref: string): Promise<CampaignRecord> {
  const campaign = await findCampaign(ctx, ref);
  if (!campaign.voucher) throw invalid('invalid_campaign_params', 'Invalid campaign params', `Campaign ${campaign.name} holds promotion tiers, not vouchers`);
  if (campaign.type !== 'AUTO_UPDATE') throw invalid('invalid_campaign_params', 'Invalid campaign params', `Campaign ${campaign.name} is ${campaign.type} and cannot gain vouchers`);
  return campaign;
}

/** Generates and stores `count` vouchers of a campaign in one unit of work; records one event for all. */
export async function generateCampaignVouchers(
  ctx: DomainContext,
  campaign: CampaignRecord,
  input: CampaignVouchersCreate,
  count: number,
): Promise<VoucherRecord[]> {
  const config = resolveCodeConfig(input.code_config ?? campaign.voucher?.code_config);
  const codes = await freshCodes(ctx, config, count);
  const records = await buildVouchers(ctx, { ...FRESH, ...input, code: undefined }, codes, campaign);
  for (const record of records) await ctx.uow.vouchers.insert(record);
  await recordEvent(ctx, 'campaign.vouchers.generation.completed', { campaign_id: campaign.id }, { campaign: { id: campaign.id }, count });
  return records;
}

/**
 * Applies an update. Nulls on fields a voucher cannot go without (`discount`, `active`, `metadata`,
 * `type`, `redemption`) keep the current value; nulls elsewhere clear.
 */
export async function updateVoucher(ctx: DomainContext, code: string, input: Omit<VoucherUpdate, 'code'>): Promise<VoucherRecord> {
  const voucher = await findVoucher(ctx, code);
  const { type, discount, active, metadata, redemption, ...rest } = input;
  if (type && type !== voucher.type) throw voucherError(`Voucher ${code} is a ${voucher.type}; its type cannot change to ${type}`);
  if (discount && voucher.type !== 'DISCOUNT_VOUCHER') throw voucherError(`A ${voucher.type} cannot have a discount`);
  if (timeframeWithoutStart(voucher, input)) throw voucherError('validity_timeframe requires start_date');
  const changes = await categoryChange(ctx, rest);
  const updated = applyChanges(
    voucher,
    {
      ...FRESH,
      ...changes,
      ...(discount && { discount }),
      ...(active !== null && active !== undefined && { active }),
      ...(metadata && { metadata }),
      ...(redemption?.quantity !== undefined && { redemption: { ...FRESH, ...voucher.redemption, quantity: redemption.quantity } }),
    },
    isoNow(ctx.clock),
  );
  // Only a date that was set is cleared that way: null sent back for a voucher that never had one changes nothing.
  if (input.expiration_date === null && typeof voucher.expiration_date === 'string') delete updated.expiration_date;
  await ctx.uow.vouchers.update(updated);
  await recordEvent(ctx, 'voucher.updated', { campaign_id: voucher.campaign_id, voucher_id: voucher.id }, { voucher: { id: voucher.id, code } });
  return updated;
}

export async function setVoucherActive(ctx: DomainContext, code: string, active: boolean): Promise<VoucherRecord> {
  const voucher = await findVoucher(ctx, code);
  const updated = { ...FRESH, ...voucher, active, updated_at: isoNow(ctx.clock) };
  await ctx.uow.vouchers.update(updated);
  await recordEvent(ctx, active ? 'voucher.enabled' : 'voucher.disabled', { campaign_id: voucher.campaign_id, voucher_id: voucher.id }, { voucher: { id: voucher.id, code } });
  return updated;
}

/** Deletes the voucher; without `force` it goes to the bin, which keeps its code taken. */
export async function deleteVoucher(ctx: DomainContext, code: string, options: { force?: boolean } = {}): Promise<void> {
  const voucher = await findVoucher(ctx, code);
  await dropAssignmentsOf(ctx, voucher.id);
  await dropCardData(ctx, voucher.id);
  await ctx.uow.vouchers.delete(voucher.id);
  if (!options.force) await binVoucher(ctx, voucher);
  else await dropHoldersOf(ctx, voucher.id);
  await recordEvent(ctx, 'voucher.deleted', { campaign_id: voucher.campaign_id, voucher_id: voucher.id }, { voucher: { id: voucher.id, code } });
}

/**
 * Adds (or with a negative value removes) gift credit or loyalty points; a balance never goes negative.
 * A gift card takes `amount`; a loyalty card takes `points`, or `amount` as the API names it there too.
 * `reason` and `source_id` go into the card's transaction (credits or points); expiry settings are not applied
 * (points follow the program's rules), as the contract says.
 */
export async function changeBalance(ctx: DomainContext, code: string, change: BalanceChange) {
  const voucher = await findVoucher(ctx, code);
  const balanceError = (details: string) => invalid('invalid_add_balance_params', 'Invalid add balance params', details);
  if (change.amount !== undefined && change.points !== undefined) throw balanceError('Give amount or points, not both');
  const value = change.amount ?? change.points;
  if (value === undefined) throw balanceError('Give the amount (or, for a loyalty card, the points) to add or remove');
  if (voucher.gift) {
    if (change.amount === undefined) throw balanceError(`Voucher ${code} is a gift card; it takes an amount, not points`);
    const balance = voucher.gift.balance + value;
    if (balance < 0) throw balanceError(`Removing ${-value} would leave a balance of ${balance}`);
    // Amounts are exact below 2^53 only: a card whose total credit would pass that is refused, not rounded.
    if (!Number.isSafeInteger(voucher.gift.amount + Math.max(0, value))) throw balanceError(`Adding ${value} would take the card's credit past ${Number.MAX_SAFE_INTEGER}, the largest amount kept exactly`);
    const gift: GiftState = {
      ...FRESH,
      ...voucher.gift,
      balance,
      amount: voucher.gift.amount + Math.max(0, value),
      subtracted_amount: (voucher.gift.subtracted_amount ?? 0) + Math.max(0, -value),
    };
    const updated = await ctx.uow.vouchers.update({ ...FRESH, ...voucher, gift, updated_at: isoNow(ctx.clock) });
    await recordGiftMovement(ctx, updated, {
      type: value >= 0 ? 'CREDITS_ADDITION' : 'CREDITS_REMOVAL',
      amount: value,
      operation: 'MANUAL',
      reason: change.reason ?? null,
      sourceId: change.source_id ?? null,
    });
    await recordEvent(ctx, 'voucher.gift.balance_added', { campaign_id: voucher.campaign_id, voucher_id: voucher.id, customer_id: voucher.holder_id }, { voucher: { id: voucher.id, code }, amount: value });
    return {
      amount: value,
      total: gift.amount,
      balance,
      type: 'gift_voucher' as const,
      operation_type: 'MANUAL' as const,
      object: 'balance' as const,
      related_object: { type: 'voucher' as const, id: voucher.id },
    };
  }
  if (!voucher.loyalty_card) throw balanceError(`Voucher ${code} is a ${voucher.type}; only gift and loyalty cards have a balance`);
  const { balance } = await changeCardPoints(ctx, voucher, {
    points: value,
    ...(change.reason !== undefined && change.reason !== null && { reason: change.reason }),
    ...(change.source_id !== undefined && change.source_id !== null && { source_id: change.source_id }),
  });
  return {
    amount: balance.points,
    total: balance.total,
    balance: balance.balance,
    type: 'loyalty_card' as const,
    operation_type: 'MANUAL' as const,
    object: 'balance' as const,
    related_object: balance.related_object,
  };
}

export interface VoucherListQuery {
  limit?: number;
  page?: number;
  category?: string;
  campaign_id?: string;
  campaign?: string;
  customer?: string;
  created_at?: TimeRange;
  updated_at?: TimeRange;
  order?: 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'code' | '-code';
  code?: string;
  ids?: string[];
  filters?: Record<string, unknown>;
}

/** The voucher fields the list's `filters` may name. */
export const VOUCHER_FILTER_FIELDS: ReadonlySet<string> = new Set([
  'code', 'type', 'active', 'campaign_id', 'category_id', 'holder_id', 'start_date', 'expiration_date', 'created_at', 'updated_at', 'metadata',
]);

/** The published SDKs filter a campaign's vouchers by `campaign_ids`: the same field as `campaign_id`. */
function campaignIdsAsCampaignId(filters: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(filters, 'campaign_ids')) return filters;
  if (Object.hasOwn(filters, 'campaign_id')) throw invalid('invalid_query_params', 'Invalid query params', 'filters names campaign_id and campaign_ids, which are the same field: give one');
  const { campaign_ids: conditions, ...rest } = filters;
  return { ...FRESH, ...rest, campaign_id: conditions };
}

export async function listVouchers(ctx: DomainContext, query: VoucherListQuery) {
  const empty = { rows: [] as VoucherView[], total: 0 };
  let categoryId: string | undefined;
  if (query.category !== undefined) {
    const category = (await ctx.uow.categories.get(query.category)) ?? (await ctx.uow.categories.getBy('name', query.category));
    if (!category) return empty;
    categoryId = category.id;
  }
  let campaignIds: string[] = [];
  if (query.campaign_id !== undefined) campaignIds.push(query.campaign_id);
  if (query.campaign !== undefined) {
    const campaign = await ctx.uow.campaigns.getBy('name', query.campaign);
    if (!campaign) return empty;
    campaignIds.push(campaign.id);
  }
  campaignIds = [...new Set(campaignIds)];
  if (campaignIds.length > 1) return empty;
  let holderId: string | undefined;
  if (query.customer !== undefined) {
    const customer = (await ctx.uow.customers.get(query.customer)) ?? (await ctx.uow.customers.getBy('source_id', query.customer));
    if (!customer) return empty;
    holderId = customer.id;
  }
  const filters = query.filters && campaignIdsAsCampaignId(query.filters);
  const filter = filters && Object.keys(filters).some((key) => key !== 'junction') ? normalizeFilters(filters, VOUCHER_FILTER_FIELDS) : undefined;
  const [campaignId] = campaignIds;
  const index =
    campaignId !== undefined
      ? { field: 'campaign_id' as const, value: campaignId }
      : holderId !== undefined
        ? { field: 'holder_id' as const, value: holderId }
        : undefined;
  // Without a condition beyond the index, the store reads the page straight off its insertion order.
  // (The validator fills in the deepObject ranges as `{}` when they are not given; those set no condition.)
  const conditions = [
    categoryId === undefined ? undefined : eq('category_id', categoryId),
    holderId === undefined || index?.field === 'holder_id' ? undefined : eq('holder_id', holderId),
    query.code === undefined ? undefined : eq('code', query.code),
    query.ids === undefined ? undefined : isIn('id', query.ids),
    withinRange('created_at', query.created_at),
    withinRange('updated_at', query.updated_at),
    filter && filterCondition(filter),
  ].filter((condition) => condition !== undefined);
  const page = await ctx.uow.vouchers.query({
    ...FRESH,
    ...(index && { index }),
    ...(conditions.length > 0 && { where: and(...conditions) }),
    orderBy: parseOrder<'created_at' | 'updated_at' | 'code'>(query.order ?? '-created_at'),
    ...pageWindow(query),
  });
  return { rows: await Promise.all(page.rows.map((row) => presentVoucher(ctx, row))), total: page.total };
}

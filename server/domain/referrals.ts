/**
 * Referral codes and their holders. The customer a referral code is published to is its referrer; the
 * customers referred with it are its referees, added by hand or by converting. A referee converts as the
 * program says (redeeming the code, or the program's custom event), once per program: the referrer's counts
 * go up, the referee gets the program's referee reward, and the referrer every reward assigned to the program.
 */
import type { components } from '../../generated/openapi.js';
import type { CampaignRecord } from './campaigns.js';
import type { DomainContext } from './context.js';
import type { Customer } from './customers.js';
import { duplicate, invalid, notFound } from './errors.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import { idOrderedPage, idOrderedQuery, listFilter, type IdCursorQuery } from './list-filters.js';
import { joiningCustomer } from './loyalty/members.js';
import { giveCampaignVoucher } from './loyalty/rewards.js';
import type { HolderRecord } from './redeemable-holders.js';
import type { VoucherRecord } from './vouchers.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Schemas = components['schemas'];
type HoldersCreate = Schemas['ReferralsHoldersCreateRequestBody'];

/** What converted a referral, as the referee's `referrals.campaigns` entry names it. */
export interface ConversionTrigger {
  id: string;
  type: 'customer_event' | 'redemption';
  date: string;
}

async function programOf(ctx: DomainContext, code: VoucherRecord): Promise<CampaignRecord | undefined> {
  const program = code.campaign_id ? await ctx.uow.campaigns.get(code.campaign_id) : undefined;
  return program?.campaign_type === 'REFERRAL_PROGRAM' ? program : undefined;
}

/** The referral code a member ID names (its code, or its voucher ID), in the program named when one is. */
export async function findReferralCode(ctx: DomainContext, memberId: string, campaignRef?: string): Promise<{ code: VoucherRecord; program: CampaignRecord }> {
  const code = (await ctx.uow.vouchers.getBy('code', memberId)) ?? (await ctx.uow.vouchers.get(memberId));
  const program = code?.is_referral_code ? await programOf(ctx, code) : undefined;
  if (!code || !program) throw notFound('referral_code', memberId);
  if (campaignRef !== undefined) {
    const named = (await ctx.uow.campaigns.get(campaignRef)) ?? (await ctx.uow.campaigns.getBy('name', campaignRef));
    if (!named || named.id !== program.id) throw notFound('referral_code', memberId);
  }
  return { code, program };
}

async function insertHolder(ctx: DomainContext, code: VoucherRecord, customerId: string, role: HolderRecord['holder_role'], metadata: Record<string, unknown> = {}) {
  return ctx.uow.redeemable_holders.insert({
    id: newId('rh'),
    created_at: isoNow(ctx.clock),
    redeemable_id: code.id,
    redeemable_object: 'voucher',
    customer_id: customerId,
    holder_role: role,
    campaign_id: code.campaign_id!,
    campaign_type: 'REFERRAL_PROGRAM',
    voucher_type: code.type,
    metadata,
    object: 'redeemable_holder',
  });
}

/**
 * The code's referrer entry, made when the code has a holder and no entry names them yet: at publication,
 * or on first use for a code published before the entry existed.
 */
export async function noteReferrer(ctx: DomainContext, code: VoucherRecord): Promise<void> {
  if (!code.is_referral_code || !code.holder_id || !(await programOf(ctx, code))) return;
  const holders = await ctx.uow.redeemable_holders.findBy('redeemable_id', code.id);
  if (holders.some((holder) => holder.holder_role === 'REFERRER' && holder.customer_id === code.holder_id)) return;
  await insertHolder(ctx, code, code.holder_id, 'REFERRER');
}

const HOLDER_FILTER_FIELDS: ReadonlySet<string> = new Set(['id', 'created_at', 'holder_role', 'customer_id']);

export async function listHolders(ctx: DomainContext, memberId: string, campaignRef: string | undefined, query: IdCursorQuery & { filters?: Record<string, unknown> }) {
  const { code } = await findReferralCode(ctx, memberId, campaignRef);
  const filter = listFilter(query.filters, HOLDER_FILTER_FIELDS);
  await noteReferrer(ctx, code);
  const { rows } = await ctx.uow.redeemable_holders.query({ index: { field: 'redeemable_id', value: code.id }, ...idOrderedQuery(filter, query) });
  return idOrderedPage(rows, query);
}

/** Adds customers to a referral code as referees, all or none. */
export async function addHolders(ctx: DomainContext, memberId: string, campaignRef: string | undefined, input: HoldersCreate): Promise<HolderRecord[]> {
  const { code } = await findReferralCode(ctx, memberId, campaignRef);
  await noteReferrer(ctx, code);
  const holders = await ctx.uow.redeemable_holders.findBy('redeemable_id', code.id);
  const added: HolderRecord[] = [];
  for (const given of input.holders) {
    const customer = await joiningCustomer(ctx, given);
    if (customer.id === code.holder_id) {
      throw invalid('invalid_holder', 'Invalid holder', `Customer ${customer.id} is the referrer of ${code.code} and cannot be its referee`);
    }
    if ([...holders, ...added].some((holder) => holder.customer_id === customer.id)) throw duplicate('redeemable_holder', 'customer_id', customer.id);
    added.push(await insertHolder(ctx, code, customer.id, 'REFEREE', input.metadata ?? {}));
  }
  return added;
}

export async function removeHolder(ctx: DomainContext, memberId: string, campaignRef: string | undefined, holderId: string): Promise<void> {
  const { code } = await findReferralCode(ctx, memberId, campaignRef);
  const holder = await ctx.uow.redeemable_holders.get(holderId);
  if (!holder || holder.redeemable_id !== code.id) throw notFound('redeemable_holder', holderId);
  if (holder.holder_role === 'REFERRER') throw invalid('invalid_holder', 'Invalid holder', `Holder ${holder.id} is the referrer of ${code.code}; only referees can be removed`);
  await ctx.uow.redeemable_holders.delete(holder.id);
}

async function findCustomerRef(ctx: DomainContext, ref: string): Promise<Customer | undefined> {
  return (await ctx.uow.customers.get(ref)) ?? (await ctx.uow.customers.getBy('source_id', ref));
}

/** The referee reward the program names: points or gift credit on the referee's card of another campaign. */
async function giveRefereeReward(ctx: DomainContext, program: CampaignRecord, refereeId: string): Promise<void> {
  const reward = program.referral_program?.referee_reward;
  const campaignId = reward?.related_object_parent?.id;
  if (!reward || !campaignId || !(await ctx.uow.campaigns.get(campaignId))) return;
  const amount = Number(reward.amount ?? 0);
  await giveCampaignVoucher(ctx, refereeId, campaignId, Number.isFinite(amount) ? amount : 0);
}

/** Every reward assigned to the program, given to the referrer, each told as `customer.rewarded`. */
async function giveReferrerRewards(ctx: DomainContext, program: CampaignRecord, code: VoucherRecord, referrerId: string): Promise<void> {
  for (const assignment of await ctx.uow.reward_assignments.findBy('related_object_id', program.id)) {
    const reward = await ctx.uow.rewards.get(assignment.reward_id);
    if (!reward || reward.type === 'COIN') continue;
    if (reward.type === 'MATERIAL' && reward.stock !== null && reward.stock <= 0) continue;
    let voucher: VoucherRecord | undefined;
    if (reward.type === 'CAMPAIGN') {
      const target = reward.parameters.campaign!;
      if (!(await ctx.uow.campaigns.get(target.id))) continue;
      voucher = await giveCampaignVoucher(ctx, referrerId, target.id, target.balance ?? null, { reward: { id: reward.id, name: reward.name } });
    }
    await ctx.uow.rewards.update({
      ...FRESH,
      ...reward,
      redeemed: (reward.redeemed ?? 0) + 1,
      ...(reward.type === 'MATERIAL' && reward.stock !== null && { stock: reward.stock - 1 }),
    });
    const summary = {
      id: reward.id,
      name: reward.name,
      type: reward.type,
      assignment_id: assignment.id,
      points: 0,
      voucher: voucher ? { id: voucher.id, code: voucher.code, type: voucher.type, campaign_id: voucher.campaign_id } : null,
      product: reward.parameters.product ? { id: reward.parameters.product.id, sku_id: reward.parameters.product.sku_id ?? null } : null,
      amount: null,
    };
    await recordEvent(ctx, 'customer.rewarded', { campaign_id: program.id, customer_id: referrerId, voucher_id: code.id }, { reward: summary, customer: { id: referrerId } });
  }
}

/**
 * Counts a referral of the code's program for the referee: once per referee and program, never for the
 * referrer themselves (the code's holder, else the referrer named by the caller). The referee becomes a
 * holder of the code, and the rewards follow.
 */
export async function convertReferral(
  ctx: DomainContext,
  code: VoucherRecord,
  program: CampaignRecord,
  referee: Customer,
  trigger: ConversionTrigger,
  namedReferrer?: string | null,
): Promise<void> {
  const referrerRef = code.holder_id ?? namedReferrer ?? undefined;
  const referrer = referrerRef ? await findCustomerRef(ctx, referrerRef) : undefined;
  if (!referrer || referrer.id === referee.id) return;
  if (referee.referrals.campaigns.some((entry) => entry.campaign_id === program.id)) return;
  await ctx.uow.customers.update({
    ...FRESH,
    ...referee,
    referrals: {
      total: referee.referrals.total + 1,
      campaigns: [
        ...referee.referrals.campaigns,
        { campaign_id: program.id, referrer_id: referrer.id, related_object_id: trigger.id, related_object_type: trigger.type, date: trigger.date },
      ],
    },
  });
  const entry = referrer.loyalty.campaigns[program.name] ?? { points: 0, referred_customers: 0 };
  await ctx.uow.customers.update({
    ...FRESH,
    ...referrer,
    loyalty: {
      ...FRESH,
      ...referrer.loyalty,
      referred_customers: referrer.loyalty.referred_customers + 1,
      campaigns: { ...FRESH, ...referrer.loyalty.campaigns, [program.name]: { ...FRESH, ...entry, referred_customers: (entry.referred_customers ?? 0) + 1 } },
    },
  });
  await noteReferrer(ctx, code);
  const holders = await ctx.uow.redeemable_holders.findBy('redeemable_id', code.id);
  if (!holders.some((holder) => holder.customer_id === referee.id)) await insertHolder(ctx, code, referee.id, 'REFEREE');
  await giveRefereeReward(ctx, program, referee.id);
  await giveReferrerRewards(ctx, program, code, referrer.id);
}

/** A referral code was redeemed: a program converting on redemption counts it for the customer who redeemed. */
export async function referralCodeRedeemed(ctx: DomainContext, codeId: string, customerId: string | null, trigger: ConversionTrigger): Promise<void> {
  if (!customerId) return;
  const code = await ctx.uow.vouchers.get(codeId);
  const program = code?.is_referral_code ? await programOf(ctx, code) : undefined;
  if (!code || !program || (program.referral_program?.conversion_event_type ?? 'redemption') !== 'redemption') return;
  const referee = await ctx.uow.customers.get(customerId);
  if (referee) await convertReferral(ctx, code, program, referee, trigger);
}

/** Whether the code's program converts on the custom event of this name. */
export async function convertsOnEvent(ctx: DomainContext, code: VoucherRecord, eventName: string): Promise<CampaignRecord | undefined> {
  const program = await programOf(ctx, code);
  const rules = program?.referral_program;
  return rules?.conversion_event_type === 'custom_event' && rules.custom_event?.name === eventName ? program : undefined;
}

/**
 * A custom event that names no referral code: it converts the referee for each code they hold as a
 * referee whose program converts on this event.
 */
export async function convertHeldReferrals(ctx: DomainContext, referee: Customer, trigger: ConversionTrigger, eventName: string): Promise<void> {
  for (const holder of await ctx.uow.redeemable_holders.findBy('customer_id', referee.id)) {
    if (holder.holder_role !== 'REFEREE') continue;
    const code = await ctx.uow.vouchers.get(holder.redeemable_id);
    const program = code ? await convertsOnEvent(ctx, code, eventName) : undefined;
    // The referee as stored now: an earlier code's conversion in this loop may have counted them already.
    const current = await ctx.uow.customers.get(referee.id);
    if (code && program && current) await convertReferral(ctx, code, program, current, trigger);
  }
}

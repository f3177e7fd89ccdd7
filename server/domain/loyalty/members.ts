/** Members: customers holding a program's loyalty cards. */
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { recordEvent } from '../events.js';
import { upsertCustomer, type Customer } from '../customers.js';
import { pageWindow, parseOrder, type PageRequest, type SortOrder } from '../pagination.js';
import { createVoucher, presentVoucher, type VoucherRecord } from '../vouchers.js';
import { recordCardEvent } from './card-events.js';
import { cardState, movePoints, transactionVoucher } from './cards.js';
import { findProgram } from './programs.js';
import { followTier } from './tiers.js';
import type { CampaignRecord } from '../campaigns.js';
import { and, eq, isIn, notNull } from '../../store/conditions.js';
import { withinRange } from '../time-range.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

type MemberCreate = components['schemas']['LoyaltyMembersCreateRequestBody'];

/** Gives the customer a card of the program and starts its loyalty state (tier, activity). */
export async function enroll(ctx: DomainContext, program: CampaignRecord, customerId: string, code?: string, via: { channel?: string | null; sourceId?: string | null } = {}): Promise<VoucherRecord> {
  const held = (await ctx.uow.vouchers.findBy('holder_id', customerId)).filter((voucher) => voucher.campaign_id === program.id);
  if (program.join_once && held.length > 0) {
    throw invalid('customer_already_member', 'Customer already a member', `The customer already holds card ${held[0]!.code} of ${program.name}, which allows one card per customer`);
  }
  let card: VoucherRecord | undefined;
  if (code !== undefined) {
    card = await ctx.uow.vouchers.getBy('code', code);
    if (!card || card.campaign_id !== program.id) throw notFound('loyalty_card', code);
    if (card.holder_id !== null) throw invalid('voucher_already_published', 'Voucher already published', `Card ${code} is already held by a customer`);
  } else {
    card = (await ctx.uow.vouchers.findBy('campaign_id', program.id)).find((voucher) => voucher.holder_id === null && voucher.active);
    if (!card) {
      if (program.type === 'STATIC') throw invalid('invalid_campaign_params', 'Invalid campaign params', `Program ${program.name} is STATIC and has no free card left`);
      card = await createVoucher(ctx, {}, program);
    }
  }
  const now = isoNow(ctx.clock);
  const given = await ctx.uow.vouchers.update({ ...FRESH, ...card, holder_id: customerId, publish_count: card.publish_count + 1, updated_at: now });
  const state = await cardState(ctx, given);
  await ctx.uow.loyalty_cards.update({ ...FRESH, ...state, joined_at: now });
  await recordEvent(ctx, 'voucher.published', { campaign_id: program.id, customer_id: customerId, voucher_id: given.id }, {
    voucher: { id: given.id, code: given.code },
    customer: { id: customerId },
    ...(via.channel != null && { channel: via.channel }),
    ...(via.sourceId != null && { source_id: via.sourceId }),
  });
  await followTier(ctx, given);
  return (await ctx.uow.vouchers.get(given.id)) ?? given;
}

/**
 * The customer who joins: by ID, then by `source_id` (created when new); a customer named only by its other
 * fields is created from them. An existing customer is left as it is.
 */
export async function joiningCustomer(ctx: DomainContext, input: MemberCreate['customer']): Promise<Customer> {
  const { id, source_id, ...fields } = input;
  if (id != null) {
    const customer = await ctx.uow.customers.get(id);
    if (!customer) throw notFound('customer', id);
    return customer;
  }
  if (source_id != null) {
    const existing = await ctx.uow.customers.getBy('source_id', source_id);
    if (existing) return existing;
  }
  return upsertCustomer(ctx, { ...FRESH, ...fields, ...(source_id != null && { source_id }) });
}

export async function addMember(ctx: DomainContext, campaignRef: string, input: MemberCreate): Promise<VoucherRecord> {
  const program = await findProgram(ctx, campaignRef);
  const customer = await joiningCustomer(ctx, input.customer);
  const card = await enroll(ctx, program, customer.id, input.voucher ?? undefined, { channel: input.channel, sourceId: input.source_id });
  if (input.metadata == null) return card;
  return ctx.uow.vouchers.update({ ...FRESH, ...card, metadata: { ...FRESH, ...card.metadata, ...input.metadata } });
}

export interface MemberQuery extends PageRequest {
  order?: SortOrder | 'code' | '-code';
  customer?: string;
  code?: string;
  ids?: string[];
  created_at?: { before?: string; after?: string };
  updated_at?: { before?: string; after?: string };
}

export async function listMembers(ctx: DomainContext, campaignRef: string, query: MemberQuery) {
  const program = await findProgram(ctx, campaignRef);
  let holderId: string | undefined;
  if (query.customer !== undefined) {
    const customer = (await ctx.uow.customers.get(query.customer)) ?? (await ctx.uow.customers.getBy('source_id', query.customer));
    if (!customer) return { rows: [], total: 0 };
    holderId = customer.id;
  }
  const page = await ctx.uow.vouchers.query({
    index: { field: 'campaign_id', value: program.id },
    where: and(
      holderId === undefined ? notNull('holder_id') : eq('holder_id', holderId),
      query.code === undefined ? undefined : eq('code', query.code),
      query.ids === undefined ? undefined : isIn('id', query.ids),
      withinRange('created_at', query.created_at),
      withinRange('updated_at', query.updated_at),
    ),
    orderBy: parseOrder<'created_at' | 'updated_at' | 'code'>(query.order ?? '-created_at'),
    ...pageWindow(query),
  });
  return { rows: await Promise.all(page.rows.map((card) => presentVoucher(ctx, card))), total: page.total };
}

/** Moves points from other cards onto this one, all or none; each side records the other. */
export async function transferPoints(ctx: DomainContext, target: VoucherRecord, transfers: components['schemas']['LoyaltyPointsTransfersRequestBody']): Promise<VoucherRecord> {
  let card = target;
  for (const transfer of transfers) {
    const source = await ctx.uow.vouchers.getBy('code', transfer.code);
    if (!source) throw notFound('loyalty_card', transfer.code);
    if (source.id === target.id) throw invalid('invalid_transfer', 'Invalid transfer', `Card ${transfer.code} cannot transfer points to itself`);
    if (source.type !== 'LOYALTY_CARD') throw invalid('invalid_transfer', 'Invalid transfer', `Voucher ${transfer.code} is not a loyalty card`);
    const out = await movePoints(ctx, source, {
      points: -transfer.points,
      type: 'POINTS_TRANSFER_OUT',
      operation: 'MANUAL',
      reason: transfer.reason ?? null,
      sourceId: transfer.source_id ?? null,
      details: { destination_voucher: await transactionVoucher(ctx, card) },
    });
    const into = await movePoints(ctx, card, {
      points: transfer.points,
      type: 'POINTS_TRANSFER_IN',
      operation: 'MANUAL',
      reason: transfer.reason ?? null,
      sourceId: transfer.source_id ?? null,
      details: { source_voucher: await transactionVoucher(ctx, out.card) },
      relatedTransactionId: out.transaction.id,
    });
    await ctx.uow.loyalty_transactions.update({ ...FRESH, ...out.transaction, related_transaction_id: into.transaction.id });
    card = into.card;
    const moved = { points: transfer.points, from: { id: source.id, code: source.code }, to: { id: card.id, code: card.code } };
    await recordCardEvent(ctx, 'customer.loyalty.card.points_transferred', out.card, moved);
    await recordCardEvent(ctx, 'customer.loyalty.card.points_transferred', card, moved);
  }
  return card;
}

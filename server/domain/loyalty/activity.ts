/** What happened on a card: its transactions and its activity, both paged with a cursor. */
import type { DomainContext } from '../context.js';
import { invalid } from '../errors.js';
import type { EventRecord } from '../events.js';
import { filterCondition } from '../filters.js';
import { cursorPage } from '../pagination.js';
import { normalizeFilters } from '../list-filters.js';
import type { VoucherRecord } from '../vouchers.js';
import { cardContext } from './card-events.js';
import { FRESH } from '../../store/fresh.js';

function unknownCursor(id: string | undefined) {
  return invalid('invalid_query_params', 'Invalid query params', `starting_after_id ${id} is not an entry of this list`);
}

const TRANSACTION_FILTER_FIELDS: ReadonlySet<string> = new Set(['id', 'created_at']);

export interface TransactionQuery {
  limit?: number;
  starting_after_id?: string;
  order?: 'id' | '-id';
  filters?: Record<string, unknown>;
}

/** The card's transactions that match the filters, newest first unless `order` is `id`, paged with a cursor. */
export async function listTransactions(ctx: DomainContext, card: VoucherRecord, query: TransactionQuery) {
  const filter = query.filters && Object.keys(query.filters).some((key) => key !== 'junction') ? normalizeFilters(query.filters, TRANSACTION_FILTER_FIELDS) : undefined;
  // Transaction IDs are not in time order, so "by id" means in the order of recording, as the API's cursor does.
  const { rows } = await ctx.uow.loyalty_transactions.query({ index: { field: 'voucher_id', value: card.id }, ...(filter && { where: filterCondition(filter) }) });
  if (query.order !== 'id') rows.reverse();
  const page = cursorPage(rows, query);
  if (!page) throw unknownCursor(query.starting_after_id);
  return page;
}

/**
 * The card's events, and the holder's paid orders since the card was given (an order is paid once for
 * all of a customer's cards, so it is recorded on the customer).
 */
export async function listMemberActivity(
  ctx: DomainContext,
  card: VoucherRecord,
  query: { limit?: number; order?: 'created_at' | '-created_at'; starting_after_id?: string },
) {
  const state = await ctx.uow.loyalty_cards.get(card.id);
  const since = state?.joined_at ?? card.created_at;
  const orders = card.holder_id
    ? (await ctx.uow.events.findBy('customer_id', card.holder_id)).filter((event) => event.type === 'customer.order.paid' && event.created_at >= since)
    : [];
  const events: EventRecord[] = [...(await ctx.uow.events.findBy('voucher_id', card.id)), ...orders];
  // Oldest first; within one instant a paid order comes before what it caused, and otherwise the order of recording holds.
  const position = new Map(events.map((event, index) => [event.id, event.type === 'customer.order.paid' ? -1 : index]));
  events.sort((a, b) => a.created_at.localeCompare(b.created_at) || position.get(a.id)! - position.get(b.id)!);
  if ((query.order ?? '-created_at') === '-created_at') events.reverse();
  const page = cursorPage(events, query);
  if (!page) throw unknownCursor(query.starting_after_id);
  // A paid order is recorded on the customer and a redemption on its campaign, without the card's holder and
  // program: add them as every entry has them.
  const { customer, campaign } = await cardContext(ctx, card);
  return {
    ...FRESH,
    ...page,
    rows: page.rows.map((event) => ({
      id: event.id,
      type: event.type,
      data: { data: 'customer' in event.data ? event.data : { customer, campaign, ...event.data }, event_source: event.event_source },
      created_at: event.created_at,
      group_id: event.group_id,
    })),
  };
}

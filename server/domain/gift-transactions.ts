/**
 * Movements of a gift card's credit, recorded by the operations that move it (balance changes, redemptions and
 * their rollbacks) in the voucher transactions table, beside loyalty cards' points.
 */
import type { DomainContext } from './context.js';
import { newId } from './ids.js';
import type { CardTransaction } from './loyalty/types.js';
import type { VoucherRecord } from './vouchers.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

type Details = Omit<NonNullable<CardTransaction['details']>, 'balance'>;

export interface GiftMovement {
  type: 'CREDITS_ADDITION' | 'CREDITS_REMOVAL' | 'CREDITS_REDEMPTION' | 'CREDITS_REFUND';
  /** The change in credits ×100: positive adds, negative takes. */
  amount: number;
  operation: 'MANUAL' | 'AUTOMATIC';
  reason?: string | null;
  sourceId?: string | null;
  details?: Details;
}

/** Records a movement of a gift card's credit; `card` is the card as it is after the movement. */
export async function recordGiftMovement(ctx: DomainContext, card: VoucherRecord, move: GiftMovement): Promise<CardTransaction> {
  const gift = card.gift!;
  return ctx.uow.loyalty_transactions.insert({
    id: newId('vtx'),
    source_id: move.sourceId ?? null,
    voucher_id: card.id,
    campaign_id: card.campaign_id,
    source: move.operation === 'MANUAL' ? (ctx.channel ?? 'API') : null,
    reason: move.reason ?? null,
    type: move.type,
    details: {
      ...FRESH,
      ...move.details,
      balance: {
        amount: move.amount,
        total: gift.amount,
        balance: gift.balance,
        type: 'gift_voucher',
        object: 'balance',
        operation_type: move.operation,
        related_object: { type: 'voucher', id: card.id },
      },
    },
    related_transaction_id: null,
    created_at: isoNow(ctx.clock),
  });
}


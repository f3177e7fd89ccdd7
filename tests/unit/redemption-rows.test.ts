/**
 * What a redemption stores, and how little of it is stored twice: the order is written once, with its note
 * of the redemption; the children share the parent's copies of the order, metadata, channel and customer;
 * `counted_in`, kept per campaign for its last hour, is right whatever the order of the events' hours.
 */
import { describe, expect, test } from '@jest/globals';
import { countedIn } from '../../server/domain/campaign-counters.js';
import { OffsetClock } from '../../server/domain/clock.js';
import { redeem, type RedemptionRecord } from '../../server/domain/redemptions.js';
import { upsertCustomer } from '../../server/domain/customers.js';
import { createVoucher } from '../../server/domain/vouchers.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { MemoryStore } from '../../server/store/memory.js';
import type { Row, Table } from '../../server/store/store.js';
import { PassThroughTable } from '../../server/store/store.js';

/** Counts the writes of the orders table. */
class CountedOrders extends PassThroughTable<Row> {
  writes = 0;
  override insert(row: Row) {
    this.writes++;
    return this.inner.insert(row);
  }
  override update(row: Row) {
    this.writes++;
    return this.inner.update(row);
  }
}

describe('redemption rows', () => {
  test('when two vouchers are redeemed together, then the order is written once and the children share the parent’s parts', async () => {
    const store = new MemoryStore(SCHEMA);
    const clock = new OffsetClock();
    await store.createProject('p');
    await store.transaction('p', async (uow) => {
      for (const code of ['SHARE-A', 'SHARE-B']) {
        await createVoucher({ uow, clock }, { code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } as never);
      }
      await upsertCustomer({ uow, clock }, { source_id: 'shopper', name: 'Shopper' });
    });
    let orders: CountedOrders | undefined;
    const outcome = await store.transaction('p', (uow) => {
      orders = new CountedOrders(uow.orders as unknown as Table<Row>);
      const counted = new Proxy(uow, { get: (target, name) => (name === 'orders' ? orders : Reflect.get(target, name)) });
      return redeem({ uow: counted, clock }, {
        redeemables: [
          { object: 'voucher', id: 'SHARE-A' },
          { object: 'voucher', id: 'SHARE-B' },
        ],
        order: { amount: 1000 },
        metadata: { shop: 'north' },
        customer: { source_id: 'shopper' },
      } as never, 'app');
    });
    if (!outcome.ok) throw outcome.error;
    expect(orders!.writes).toBe(1);

    const { parent, redemptions } = outcome;
    const [storedParent, children, order] = await store.transaction('p', async (uow) => [
      (await uow.redemptions.get(parent.id)) as RedemptionRecord,
      (await uow.redemptions.findBy('parent_redemption_id', parent.id)) as RedemptionRecord[],
      (await uow.orders.get(parent.order!.id!))!,
    ]);
    expect(children.map((child) => child.id).sort()).toEqual(redemptions.map((child) => child.id).sort());
    expect(order.redemptions).toEqual({
      [parent.id]: { date: parent.date, related_object_type: 'redemption', related_object_id: parent.id, stacked: redemptions.map((child) => child.id) },
    });
    for (const child of children) {
      expect(child.order).toBe(storedParent.order);
      expect(child.metadata).toBe(storedParent.metadata);
      expect(child.channel).toBe(storedParent.channel);
      expect(child.customer).toBe(storedParent.customer);
    }
    expect(storedParent.metadata).toEqual({ shop: 'north' });
    expect(storedParent.customer).toMatchObject({ source_id: 'shopper' });
  });

  // A string's identity cannot be seen from JavaScript: what is checked is that the kept key is never given for
  // another hour or campaign.
  test('when a campaign’s events go from hour to hour and back, then counted_in always names their own campaign and hour', () => {
    const first = countedIn('redemption.succeeded', 'camp_1', '2026-03-01T10:05:00.000Z');
    expect(first).toBe('camp_1@2026-03-01T10:00:00.000Z');
    expect(countedIn('validation.succeeded', 'camp_1', '2026-03-01T10:59:59.999Z')).toBe(first);
    expect(countedIn('redemption.succeeded', 'camp_1', '2026-03-01T11:00:00.000Z')).toBe('camp_1@2026-03-01T11:00:00.000Z');
    expect(countedIn('redemption.succeeded', 'camp_2', '2026-03-01T11:00:00.000Z')).toBe('camp_2@2026-03-01T11:00:00.000Z');
    expect(countedIn('redemption.succeeded', 'camp_1', '2026-03-01T10:30:00.000Z')).toBe('camp_1@2026-03-01T10:00:00.000Z');
    expect(countedIn('redemption.succeeded', 'camp_1', '2026-03-01T12:30:00+01:00')).toBe('camp_1@2026-03-01T11:00:00.000Z');
    expect(countedIn('redemption.succeeded', null, '2026-03-01T10:05:00.000Z')).toBeNull();
    expect(countedIn('customer.created', 'camp_1', '2026-03-01T10:05:00.000Z')).toBeNull();
  });
});

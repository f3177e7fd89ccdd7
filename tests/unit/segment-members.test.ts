/**
 * The customers list's `segment_id` is a condition on the customers table: the segment's filter itself when it
 * reads only what the stored customer holds, and the members worked out one by one when it reads order totals.
 * Either way, the list holds exactly the customers the segment holds.
 */
import { describe, expect, test } from '@jest/globals';
import { systemClock } from '../../server/domain/clock.js';
import { createOrder } from '../../server/domain/orders.js';
import { listCustomers, upsertCustomer } from '../../server/domain/customers.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { createSegment, segmentHolds, segmentMembers } from '../../server/domain/segments.js';
import { MemoryStore } from '../../server/store/memory.js';

describe('segment members as a condition', () => {
  test('when a segment filters on stored fields or on order totals, then its condition lists exactly the customers it holds', async () => {
    const store = new MemoryStore(SCHEMA);
    await store.createProject('p');
    await store.transaction('p', async (uow) => {
      const ctx = { uow, clock: systemClock };
      for (let i = 0; i < 12; i++) {
        const customer = await upsertCustomer(ctx, { source_id: `c${i}`, metadata: { tier: i % 3 === 0 ? 'gold' : 'silver' }, address: { city: i % 2 ? 'Kraków' : 'Lyon' } } as never);
        if (i % 4 === 0) await createOrder(ctx, { amount: 1000 * (i + 1), status: 'PAID', customer: { id: customer.id } } as never);
      }
      const stored = await createSegment(ctx, {
        name: 'Gold in Kraków',
        type: 'auto-update',
        filter: { junction: 'and', 'metadata.tier': { conditions: { $is: ['gold'] } }, 'address.city': { conditions: { $is: ['Kraków'] } } },
      } as never);
      const buyers = await createSegment(ctx, { name: 'Buyers', type: 'auto-update', filter: { junction: 'and', 'summary.orders.total_count': { conditions: { $more_than: [0] } } } } as never);
      const customers = (await uow.customers.query({})).rows;
      for (const segment of [stored, buyers]) {
        const members = await segmentMembers(ctx, segment.id);
        const listed = (await listCustomers(ctx, { limit: 100 }, members)).rows.map((row) => row.id).sort();
        const held: string[] = [];
        for (const customer of customers) if (await segmentHolds(ctx, segment, customer)) held.push(customer.id);
        expect(listed).toEqual(held.sort());
        expect(listed.length).toBeGreaterThan(0);
        expect(listed.length).toBeLessThan(customers.length);
      }
      // Stored fields: the filter itself, not a list of IDs; order totals: the IDs worked out one by one.
      expect(JSON.stringify(await segmentMembers(ctx, stored.id))).toContain('"tier"');
      expect(await segmentMembers(ctx, buyers.id)).toMatchObject({ op: 'in', field: 'id' });
    });
  });
});

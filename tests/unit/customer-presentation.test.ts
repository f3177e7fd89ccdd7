/**
 * A customer just made that entered no segment holds nothing, so its presentation skips reading its vouchers
 * and orders: the answer must be the one the long way gives. Entering a segment (which can run earning rules),
 * or an existing customer, takes the long way.
 */
import { expect, test } from '@jest/globals';
import { systemClock } from '../../server/domain/clock.js';
import { presentCustomer, upsertCustomerTold } from '../../server/domain/customers.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { createSegment } from '../../server/domain/segments.js';
import { MemoryStore } from '../../server/store/memory.js';

test('when a customer is made, then it is told to hold nothing only when new and in no segment, and its presentation is the long way’s', async () => {
  const store = new MemoryStore(SCHEMA);
  await store.createProject('p');
  await store.transaction('p', async (uow) => {
    const ctx = { uow, clock: systemClock };
    const plain = await upsertCustomerTold(ctx, { source_id: 'plain', name: 'Plain', metadata: { tier: 'silver' } } as never);
    expect(plain.holdsNothing).toBe(true);
    expect(await presentCustomer(ctx, plain.customer, { holdsNothing: true })).toEqual(await presentCustomer(ctx, plain.customer));
    // The same source ID again is an update of a customer that may hold something.
    expect((await upsertCustomerTold(ctx, { source_id: 'plain', name: 'Plainer' } as never)).holdsNothing).toBe(false);
    await createSegment(ctx, { name: 'Gold', type: 'auto-update', filter: { junction: 'and', 'metadata.tier': { conditions: { $is: ['gold'] } } } } as never);
    expect((await upsertCustomerTold(ctx, { source_id: 'gold', metadata: { tier: 'gold' } } as never)).holdsNothing).toBe(false);
    expect((await upsertCustomerTold(ctx, { source_id: 'silver', metadata: { tier: 'silver' } } as never)).holdsNothing).toBe(true);
  });
});

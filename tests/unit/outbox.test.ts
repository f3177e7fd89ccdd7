import { describe, expect, test } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { ManualClock } from '../../server/domain/clock.js';
import { recordEvent, type EventRecord } from '../../server/domain/events.js';
import { MemoryStore } from '../../server/store/memory.js';
import { signBody } from '../../server/webhooks/delivery.js';
import { withOutbox } from '../../server/webhooks/outbox.js';

async function outboxStore() {
  const handed: { projectId: string; events: EventRecord[] }[] = [];
  const memory = new MemoryStore();
  await memory.createProject('p');
  const store = withOutbox(memory, (projectId, events) => handed.push({ projectId, events }));
  return { store, handed, clock: new ManualClock(new Date('2026-11-21T10:00:00.000Z')) };
}

const category = { id: 'cat_1', name: 'Tea', hierarchy: 1, created_at: '2026-11-21T09:00:00.000Z', object: 'category' as const };

describe('outbox', () => {
  test('when a unit of work commits, then its events are handed on once, after the commit', async () => {
    const { store, handed, clock } = await outboxStore();
    await store.transaction('p', async (uow) => {
      await recordEvent({ uow, clock }, 'customer.created', {}, { customer: { id: 'cust_1' } });
      await recordEvent({ uow, clock }, 'customer.deleted', {}, { customer: { id: 'cust_1' } });
      expect(handed).toEqual([]);
    });
    expect(handed).toHaveLength(1);
    expect(handed[0]!.projectId).toBe('p');
    expect(handed[0]!.events.map((event) => event.type)).toEqual(['customer.created', 'customer.deleted']);
  });

  test('when a unit of work fails, then none of its events are handed on, and none are stored', async () => {
    const { store, handed, clock } = await outboxStore();
    await expect(
      store.transaction('p', async (uow) => {
        await recordEvent({ uow, clock }, 'customer.created', {}, { customer: { id: 'cust_1' } });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(handed).toEqual([]);
    expect(await store.transaction('p', (uow) => uow.events.query({}))).toEqual({ rows: [], total: 0 });
  });

  test('when an event names objects by ID, then it is handed on with the full objects, even one the unit of work deleted', async () => {
    const { store, handed, clock } = await outboxStore();
    await store.transaction('p', (uow) => uow.categories.insert(category));
    await store.transaction('p', async (uow) => {
      await uow.customers.insert({ id: 'cust_1', name: 'Jane' } as never);
      await recordEvent({ uow, clock }, 'customer.created', {}, { customer: { id: 'cust_1' }, note: 'kept' });
      await uow.customers.delete('cust_1');
      await recordEvent({ uow, clock }, 'customer.deleted', {}, { customer: { id: 'cust_1' }, category: { id: 'cat_1' } });
    });
    const [created, deleted] = handed[0]!.events;
    expect(created!.data).toEqual({ customer: { id: 'cust_1', name: 'Jane' }, note: 'kept' });
    // Only keys that name a resource table are filled in.
    expect(deleted!.data).toEqual({ customer: { id: 'cust_1', name: 'Jane' }, category: { id: 'cat_1' } });
    const stored = await store.transaction('p', (uow) => uow.events.query({}));
    expect(stored.rows[0]!.data).toEqual({ customer: { id: 'cust_1' }, note: 'kept' });
  });
});

describe('signBody', () => {
  test('when a body is signed, then the value is sha256= and the hex HMAC-SHA256 of the exact bytes', () => {
    const body = '{"id":"evt_1","type":"customer.created"}';
    const expected = createHmac('sha256', 'whsec_0123456789abcdef').update(body).digest('hex');
    expect(signBody('whsec_0123456789abcdef', body)).toBe(`sha256=${expected}`);
    expect(signBody('whsec_0123456789abcdef', `${body} `)).not.toBe(`sha256=${expected}`);
  });
});

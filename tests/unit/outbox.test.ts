import { describe, expect, test } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { ManualClock } from '../../server/domain/clock.js';
import { deleteCustomer, updateCustomer, upsertCustomer } from '../../server/domain/customers.js';
import type { WebhookEventType } from '../../server/domain/management/webhooks.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { signatureHeader } from '../../server/webhooks/delivery.js';
import { withOutbox, type DeliverableEvent } from '../../server/webhooks/outbox.js';

async function outboxStore(events: WebhookEventType[] = ['customer.created', 'customer.deleted'], active = true) {
  const handed: { projectId: string; events: DeliverableEvent[] }[] = [];
  const memory = new MemoryStore(SCHEMA);
  await memory.createProject('p');
  const store = withOutbox(memory, (projectId, noted) => handed.push({ projectId, events: noted }));
  const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
  await store.transaction('p', (uow) =>
    uow.webhooks.insert({ id: 'wh_1', target_url: 'https://hooks.example.com', events, active, secret: 'whsec_1', created_at: clock.now().toISOString(), updated_at: null, object: 'webhook' }),
  );
  return { store, handed, clock };
}

describe('outbox', () => {
  test('when a unit of work commits, then the events an active webhook subscribes to are handed on once, after the commit', async () => {
    const { store, handed, clock } = await outboxStore();
    await store.transaction('p', async (uow) => {
      const made = await upsertCustomer({ uow, clock }, { name: 'Jane' });
      // customer.updated is no webhook kind: it is logged, never handed on.
      await updateCustomer({ uow, clock }, made.id, { name: 'Jane D.' });
      await deleteCustomer({ uow, clock }, made.id);
      expect(handed).toEqual([]);
    });
    expect(handed).toHaveLength(1);
    expect(handed[0]!.projectId).toBe('p');
    expect(handed[0]!.events.map(({ event }) => event.type)).toEqual(['customer.created', 'customer.deleted']);
    const logged = await store.transaction('p', (uow) => uow.events.query({}));
    expect(logged.rows.map((event) => event.type)).toEqual(['customer.created', 'customer.updated', 'customer.deleted']);
  });

  test('when a unit of work fails, then none of its events are handed on, and none are stored', async () => {
    const { store, handed, clock } = await outboxStore();
    await expect(
      store.transaction('p', async (uow) => {
        await upsertCustomer({ uow, clock }, { name: 'Jane' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(handed).toEqual([]);
    expect(await store.transaction('p', (uow) => uow.events.query({}))).toEqual({ rows: [], total: 0 });
  });

  test('when no active webhook takes a kind, then its events are not handed on', async () => {
    const inactive = await outboxStore(['customer.created'], false);
    const other = await outboxStore(['customer.deleted']);
    for (const { store, clock } of [inactive, other]) await store.transaction('p', (uow) => upsertCustomer({ uow, clock }, { name: 'Jane' }));
    expect(inactive.handed).toEqual([]);
    expect(other.handed).toEqual([]);
  });

  test('when an event names objects by ID, then it is handed on with the objects as the API shows them then, even one the unit of work deleted', async () => {
    const { store, handed, clock } = await outboxStore();
    await store.transaction('p', async (uow) => {
      const made = await upsertCustomer({ uow, clock }, { source_id: 'jane-1', name: 'Jane' });
      clock.advance(1000);
      await updateCustomer({ uow, clock }, made.id, { name: 'Jane D.' });
      await deleteCustomer({ uow, clock }, made.id);
    });
    const [created, deleted] = handed[0]!.events;
    // Each shows the customer as it stood when its event was recorded.
    expect(created!.presented).toEqual({ entityId: created!.event.customer_id, data: { customer: expect.objectContaining({ source_id: 'jane-1', name: 'Jane', object: 'customer' }) } });
    expect(deleted!.presented.data).toEqual({ customer: expect.objectContaining({ id: created!.event.customer_id, name: 'Jane D.' }) });
    // The event log keeps its own record, naming objects by ID only.
    const stored = await store.transaction('p', (uow) => uow.events.query({}));
    expect(stored.rows[0]!.data).toEqual({ customer: { id: created!.event.customer_id, source_id: 'jane-1' } });
  });
});

describe('signatureHeader', () => {
  test('when a body is signed, then the value is t=<seconds>,v1= and the hex HMAC-SHA256 of "<t>.<body>"', () => {
    const body = '{"id":"evt_1","type":"customer.created"}';
    const expected = createHmac('sha256', 'whsec_0123456789abcdef').update(`1795256130.${body}`).digest('hex');
    expect(signatureHeader('whsec_0123456789abcdef', body, 1795256130)).toBe(`t=1795256130,v1=${expected}`);
    // The timestamp is signed with the body: the same body at another time, or another body, signs differently.
    expect(signatureHeader('whsec_0123456789abcdef', body, 1795256131)).not.toContain(expected);
    expect(signatureHeader('whsec_0123456789abcdef', `${body} `, 1795256130)).not.toContain(expected);
  });
});

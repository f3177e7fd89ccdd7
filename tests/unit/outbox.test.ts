import { describe, expect, test } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { ManualClock } from '../../server/domain/clock.js';
import { deleteCustomer, updateCustomer, upsertCustomer } from '../../server/domain/customers.js';
import { presentDelivery, type WebhookEventType } from '../../server/domain/management/webhooks.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { signatureHeader } from '../../server/webhooks/delivery.js';
import { withOutbox } from '../../server/webhooks/outbox.js';

async function outboxStore(events: WebhookEventType[] = ['customer.created', 'customer.deleted'], active = true) {
  const nudged: { projectId: string; deliveries: number }[] = [];
  const memory = new MemoryStore(SCHEMA);
  await memory.createProject('p');
  const store = withOutbox(memory, { committed: (projectId, written) => nudged.push({ projectId, deliveries: written.length }) });
  const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
  await store.transaction('p', (uow) =>
    uow.webhooks.insert({ id: 'wh_1', target_url: 'https://hooks.example.com', events, active, secret: 'whsec_1', created_at: clock.now().toISOString(), updated_at: null, object: 'webhook' }),
  );
  const deliveries = async () => (await memory.transaction('p', (uow) => uow.webhook_deliveries.query({}))).rows;
  return { store, nudged, clock, deliveries };
}

describe('outbox', () => {
  test('when a unit of work records events an active webhook subscribes to, then it writes their deliveries itself, with their bodies, and the worker is nudged after the commit', async () => {
    const { store, nudged, clock, deliveries } = await outboxStore();
    await store.transaction('p', async (uow) => {
      const made = await upsertCustomer({ uow, clock }, { name: 'Jane' });
      // customer.updated is no webhook kind: it is logged, never delivered.
      await updateCustomer({ uow, clock }, made.id, { name: 'Jane D.' });
      await deleteCustomer({ uow, clock }, made.id);
      // Written in this unit of work, before it commits; the worker hears of them only after.
      expect((await uow.webhook_deliveries.query({})).total).toBe(2);
      expect(nudged).toEqual([]);
    });
    expect(nudged).toEqual([{ projectId: 'p', deliveries: 2 }]);
    const rows = await deliveries();
    expect(rows.map((row) => [row.event_type, row.status, row.webhook_id, row.due_ms, row.leased_by])).toEqual([
      ['customer.created', 'PENDING', 'wh_1', 0, null],
      ['customer.deleted', 'PENDING', 'wh_1', 0, null],
    ]);
    const body = JSON.parse(rows[0]!.body!) as { id: string; type: string; project_id: string; source: unknown; event: { id: string } };
    expect(body).toMatchObject({ id: rows[0]!.id, type: 'customer.created', project_id: 'p', source: { id: 'wh_1', object: 'webhook', target_url: 'https://hooks.example.com' } });
    expect(body.event.id).toBe(rows[0]!.event_id);
    const logged = await store.transaction('p', (uow) => uow.events.query({}));
    expect(logged.rows.map((event) => event.type)).toEqual(['customer.created', 'customer.updated', 'customer.deleted']);
  });

  test('when a unit of work fails, then none of its events nor their deliveries are stored, and nobody is nudged', async () => {
    const { store, nudged, clock, deliveries } = await outboxStore();
    await expect(
      store.transaction('p', async (uow) => {
        await upsertCustomer({ uow, clock }, { name: 'Jane' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(nudged).toEqual([]);
    expect(await deliveries()).toEqual([]);
    expect(await store.transaction('p', (uow) => uow.events.query({}))).toEqual({ rows: [], total: 0 });
  });

  test('when no active webhook takes a kind, then its events make no delivery', async () => {
    const inactive = await outboxStore(['customer.created'], false);
    const other = await outboxStore(['customer.deleted']);
    for (const { store, clock } of [inactive, other]) await store.transaction('p', (uow) => upsertCustomer({ uow, clock }, { name: 'Jane' }));
    for (const made of [inactive, other]) {
      expect(made.nudged).toEqual([]);
      expect(await made.deliveries()).toEqual([]);
    }
  });

  test('when an event names objects by ID, then its body shows the objects as the API showed them then, even one the unit of work deleted', async () => {
    const { store, clock, deliveries } = await outboxStore();
    await store.transaction('p', async (uow) => {
      const made = await upsertCustomer({ uow, clock }, { source_id: 'jane-1', name: 'Jane' });
      clock.advance(1000);
      await updateCustomer({ uow, clock }, made.id, { name: 'Jane D.' });
      await deleteCustomer({ uow, clock }, made.id);
    });
    const [created, deleted] = (await deliveries()).map((row) => JSON.parse(row.body!) as { event: { entity_id: string }; data: unknown });
    // Each shows the customer as it stood when its event was recorded.
    expect(created!.data).toEqual({ customer: expect.objectContaining({ source_id: 'jane-1', name: 'Jane', object: 'customer' }) });
    expect(deleted!.data).toEqual({ customer: expect.objectContaining({ id: created!.event.entity_id, name: 'Jane D.' }) });
    // The event log keeps its own record, naming objects by ID only.
    const stored = await store.transaction('p', (uow) => uow.events.query({}));
    expect(stored.rows[0]!.data).toEqual({ customer: { id: created!.event.entity_id, source_id: 'jane-1' } });
  });

  test('when a delivery is shown by the API, then the worker\'s fields are left out', async () => {
    const { store, clock, deliveries } = await outboxStore();
    await store.transaction('p', (uow) => upsertCustomer({ uow, clock }, { name: 'Jane' }));
    const [row] = await deliveries();
    expect(Object.keys(row!)).toEqual(expect.arrayContaining(['body', 'due_ms', 'leased_by', 'lease_until']));
    const shown = presentDelivery(row!);
    expect(Object.keys(shown).sort()).toEqual(['attempts', 'created_at', 'event_id', 'event_type', 'failure_reason', 'id', 'next_attempt_at', 'object', 'status', 'updated_at', 'webhook_id']);
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

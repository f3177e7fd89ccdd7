/**
 * The webhook outbox drained by several instances (issue 18): deliveries are claimed from the store, so two
 * workers on one store send each attempt once; a delivery whose holder died (its lease lapsed) is taken over;
 * a worker on a durable store leaves pending deliveries PENDING at shutdown, and the next one retries them.
 * Each attempt names its delivery and event in headers. On the memory store and on PGlite.
 */
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../server/domain/clock.js';
import { upsertCustomer } from '../../server/domain/customers.js';
import type { WebhookDeliveryRow } from '../../server/domain/management/webhooks.js';
import { SCHEMA, type DomainStore } from '../../server/domain/schema.js';
import { Jobs } from '../../server/jobs.js';
import { MemoryStore } from '../../server/store/memory.js';
import { openPgliteStore } from '../../server/store/sql/sql-store.js';
import { eq } from '../../server/store/conditions.js';
import { DEFAULT_DELIVERY_POLICY, WebhookDeliveries, type DeliveryPolicy } from '../../server/webhooks/delivery.js';
import { withOutbox } from '../../server/webhooks/outbox.js';
import { eventually, startReceiver, type Receiver } from '../contract/webhook-receiver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const stores: { name: string; open(dir?: string): Promise<DomainStore> }[] = [
  { name: 'memory', open: async () => new MemoryStore(SCHEMA) },
  { name: 'PGlite', open: (dir) => openPgliteStore(SCHEMA, dir) },
];

/** A worker (a server instance's) on the store, and the store it writes events through. */
function instance(store: DomainStore, policy: Partial<DeliveryPolicy> = {}) {
  const jobs = new Jobs();
  const deliveries = new WebhookDeliveries(store, jobs, systemClock, { ...DEFAULT_DELIVERY_POLICY, pollMs: 50, backoffMs: 20, maxAttempts: 3, ...policy }, { allowPrivateTargets: true, resolve: async () => [] });
  cleanups.push(() => jobs.shutdown());
  return { jobs, deliveries, store: withOutbox(store, deliveries) };
}

async function receiver(answer?: (n: number) => number): Promise<Receiver> {
  const made = await startReceiver(answer);
  cleanups.push(() => made.close());
  return made;
}

async function setUp(store: DomainStore, url: string): Promise<void> {
  await store.createProject('p');
  await store.transaction('p', (uow) =>
    uow.webhooks.insert({ id: 'wh_1', target_url: url, events: ['customer.created'], active: true, secret: 'whsec_0123456789abcdef', created_at: new Date().toISOString(), updated_at: null, object: 'webhook' }),
  );
}

const list = async (store: DomainStore): Promise<WebhookDeliveryRow[]> => (await store.transaction('p', (uow) => uow.webhook_deliveries.query({}))).rows;

/** Attempts received, by delivery ID and attempt number, from the headers. */
function attemptsByHeader(received: Receiver['received']): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { headers } of received) {
    const key = `${String(headers['x-webhook-delivery-id'])}#${String(headers['x-webhook-attempt'])}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe.each(stores)('$name store', ({ name, open }) => {
  test('when two workers drain one store, then every attempt of every delivery is received exactly once, with its delivery and event IDs', async () => {
    const store = await open();
    cleanups.push(() => store.close());
    // The first ten requests fail, so retries are drained too.
    const target = await receiver((n) => (n <= 10 ? 500 : 200));
    await setUp(store, target.url);
    const a = instance(store, { maxAttempts: 5 });
    const b = instance(store, { maxAttempts: 5 });
    for (let i = 0; i < 30; i++) await (i % 2 === 0 ? a : b).store.transaction('p', (uow) => upsertCustomer({ uow, clock: systemClock }, { name: `c${i}` }));
    await eventually(async () => ((await list(store)).every((row) => row.status !== 'PENDING') ? true : undefined), 30);
    const rows = await list(store);
    expect(rows.map((row) => row.status)).toEqual(Array(30).fill('DELIVERED'));
    const counts = attemptsByHeader(target.received);
    const attempts = rows.reduce((all, row) => all + row.attempts.length, 0);
    console.log(`${name}: 30 deliveries, ${attempts} attempts recorded, ${target.received.length} requests received by two workers`);
    expect(rows).toHaveLength(30);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect(target.received).toHaveLength(attempts);
    for (const row of rows) {
      const sent = target.received.find(({ headers }) => headers['x-webhook-delivery-id'] === row.id)!;
      expect(sent.headers['x-webhook-event-id']).toBe(row.event_id);
      expect(sent.body.id).toBe(row.id);
      // Delivered: the body is dropped and no lease is held.
      expect(row).toMatchObject({ body: null, leased_by: null, lease_until: null, due_ms: null });
    }
  }, 60_000);

  test('when a delivery\'s holder died (its lease lapsed), then another worker takes it over and sends it', async () => {
    const store = await open();
    cleanups.push(() => store.close());
    const target = await receiver();
    await setUp(store, target.url);
    // A worker that never polls writes the delivery; a dead instance claims it with a short lease.
    const writer = instance(store, { pollMs: 0 });
    writer.deliveries.nudge = () => undefined;
    writer.deliveries.leaseAtWrite = () => undefined;
    await writer.store.transaction('p', (uow) => upsertCustomer({ uow, clock: systemClock }, { name: 'c' }));
    const [claimed] = await store.claim('webhook_deliveries', { where: eq('status', 'PENDING'), orderBy: { field: 'due_ms', direction: 'asc' }, limit: 1, owner: 'dead', now: Date.now(), leaseMs: 300 });
    expect(claimed!.row.leased_by).toBe('dead');
    const started = Date.now();
    instance(store);
    await eventually(async () => ((await list(store))[0]?.status === 'DELIVERED' ? true : undefined));
    console.log(`${name}: a delivery whose holder died was delivered ${Date.now() - started} ms later (lease 300 ms, polling every 50 ms)`);
    expect(target.received).toHaveLength(1);
  });
  test('when another instance took a delivery over while this one waited to retry it, then this one does not send it again', async () => {
    const store = await open();
    cleanups.push(() => store.close());
    const target = await receiver(() => 500);
    await setUp(store, target.url);
    const a = instance(store, { backoffMs: 300, pollMs: 0 });
    await a.store.transaction('p', (uow) => upsertCustomer({ uow, clock: systemClock }, { name: 'c' }));
    await eventually(async () => ((await list(store))[0]?.attempts.length === 1 ? true : undefined));
    // As if this instance had stalled past its lease and another had claimed the delivery.
    await store.transaction('p', async (uow) => {
      const [row] = (await uow.webhook_deliveries.query({})).rows;
      await uow.webhook_deliveries.update({ ...row!, leased_by: 'another', lease_until: Date.now() + 60_000 });
    });
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    let logged: string[];
    try {
      await a.jobs.idle();
    } finally {
      logged = errors.mock.calls.map((call) => String(call[0]));
      errors.mockRestore();
    }
    expect(target.received).toHaveLength(1);
    expect((await list(store))[0]).toMatchObject({ status: 'PENDING', leased_by: 'another', attempts: [{ number: 1 }] });
    expect(logged.some((line) => line.includes('another instance holds it'))).toBe(true);
  });
});

describe('durable store', () => {
  test('when a worker on a durable store stops with a delivery waiting for its retry, then it stays PENDING with its lease released, and the next worker retries it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outbox-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    let store = await openPgliteStore(SCHEMA, dir);
    expect(store.durable).toBe(true);
    let failing = true;
    const target = await receiver(() => (failing ? 500 : 200));
    await setUp(store, target.url);
    const first = instance(store, { backoffMs: 500, keepPendingOnStop: true });
    await first.store.transaction('p', (uow) => upsertCustomer({ uow, clock: systemClock }, { name: 'c' }));
    await eventually(async () => ((await list(store))[0]?.attempts.length === 1 ? true : undefined));
    await first.jobs.shutdown();
    const [kept] = await list(store);
    expect(kept).toMatchObject({ status: 'PENDING', leased_by: null, lease_until: null, attempts: [{ status_code: 500 }] });
    expect(typeof kept!.body).toBe('string');
    expect(target.received).toHaveLength(1);
    // A restart: the store reopened from its directory, a new worker.
    await store.close();
    store = await openPgliteStore(SCHEMA, dir);
    cleanups.push(() => store.close());
    failing = false;
    instance(store, { keepPendingOnStop: true });
    await eventually(async () => ((await list(store))[0]?.status === 'DELIVERED' ? true : undefined));
    expect(target.received.map(({ headers }) => [headers['x-webhook-delivery-id'], headers['x-webhook-attempt']])).toEqual([
      [kept!.id, '1'],
      [kept!.id, '2'],
    ]);
  }, 60_000);
});

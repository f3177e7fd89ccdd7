/**
 * Webhook delivery under hostile or broken receivers (issue 15, findings 1, 4 and 5): connections are capped per
 * target and in all, the deliveries held are bounded (the rest wait PENDING in the store, none dropped), the delivery log
 * is pruned, leases of held deliveries are renewed, a target's host
 * is checked again at delivery (DNS rebinding), failures read the same whatever the network did, and shutdown
 * leaves nothing PENDING within its deadline. The delivery machinery runs on a memory store without HTTP in
 * front; the receivers are real sockets.
 */
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../server/domain/clock.js';
import { upsertCustomer } from '../../server/domain/customers.js';
import type { HostResolver } from '../../server/domain/management/webhook-targets.js';
import { vetTarget, type WebhookDelivery, type WebhookDeliveryRow } from '../../server/domain/management/webhooks.js';
import { eq } from '../../server/store/conditions.js';
import { pruneDeliveryLog, PRUNE_BATCH } from '../../server/webhooks/delivery-log.js';
import { Jobs } from '../../server/jobs.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { DEFAULT_DELIVERY_POLICY, REFUSED_ADDRESS, STOPPED, UNREACHABLE, WebhookDeliveries, type DeliveryPolicy, type TargetPolicy } from '../../server/webhooks/delivery.js';
import { withOutbox } from '../../server/webhooks/outbox.js';
import { neverAccepts, neverAnswers, refuses, type Misbehaving } from '../hardening/webhook-receivers.js';
import { eventually } from '../contract/webhook-receiver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The delivery machinery on a memory store with one project, 'p'. */
async function harness(policy: Partial<DeliveryPolicy> = {}, targets: Partial<TargetPolicy> = {}) {
  const memory = new MemoryStore(SCHEMA);
  await memory.createProject('p');
  await memory.createProject('q');
  const jobs = new Jobs();
  const deliveries = new WebhookDeliveries(
    memory,
    jobs,
    systemClock,
    { ...DEFAULT_DELIVERY_POLICY, backoffMs: 20, maxAttempts: 2, ...policy },
    { allowPrivateTargets: true, resolve: async () => [], ...targets },
  );
  const store = withOutbox(memory, deliveries);
  cleanups.push(() => jobs.shutdown());
  let made = 0;
  return {
    jobs,
    memory,
    deliveries,
    async webhook(url: string, project = 'p') {
      const id = `wh_${++made}`;
      await store.transaction(project, (uow) =>
        uow.webhooks.insert({ id, target_url: url, events: ['customer.created'], active: true, secret: 'whsec_0123456789abcdef', created_at: new Date().toISOString(), updated_at: null, object: 'webhook' }),
      );
      return id;
    },
    /** Creates customers one unit of work each, so each makes its own deliveries in order. */
    async customers(count: number, project = 'p') {
      for (let i = 0; i < count; i++) await store.transaction(project, (uow) => upsertCustomer({ uow, clock: systemClock }, { name: `c${i}` }));
    },
    /** The project's deliveries, oldest first. */
    async list(project = 'p'): Promise<WebhookDelivery[]> {
      return (await memory.transaction(project, (uow) => uow.webhook_deliveries.query({}))).rows;
    },
  };
}

/** The project's delivery rows as the store holds them, lease fields included. */
async function memoryRows(h: { memory: MemoryStore<typeof SCHEMA> }, project = 'p'): Promise<WebhookDeliveryRow[]> {
  return (await h.memory.transaction(project, (uow) => uow.webhook_deliveries.query({}))).rows;
}

interface Counting {
  url: string;
  now: number;
  most: number;
  served: number;
}

/**
 * A receiver that answers each request after `holdMs`, counting the requests it holds at once (and, with
 * `shared`, those all such receivers hold at once).
 */
async function counting(holdMs: number, status = 200, shared: { now: number; most: number } = { now: 0, most: 0 }): Promise<Counting> {
  const state = { url: '', now: 0, most: 0, served: 0 };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.now += 1;
    shared.now += 1;
    state.most = Math.max(state.most, state.now);
    shared.most = Math.max(shared.most, shared.now);
    req.resume();
    setTimeout(() => {
      state.now -= 1;
      shared.now -= 1;
      state.served += 1;
      res.writeHead(status).end();
    }, holdMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return state;
}

async function misbehaving(start: () => Promise<Misbehaving>): Promise<Misbehaving> {
  const made = await start();
  cleanups.push(() => made.close());
  return made;
}

/** Collects what the server logs as errors while `work` runs. */
async function logged(work: () => Promise<void>): Promise<string[]> {
  const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    await work();
    return errors.mock.calls.map((call) => call.map(String).join(' '));
  } finally {
    errors.mockRestore();
  }
}

describe('connections', () => {
  test('when many deliveries go to two targets, then at most the per-target cap are under way to each, and the overall cap in all', async () => {
    const h = await harness({ connectionsPerTarget: 2, connections: 3 });
    const both = { now: 0, most: 0 };
    const a = await counting(60, 200, both);
    const b = await counting(60, 200, both);
    await h.webhook(a.url);
    await h.webhook(b.url);
    await h.customers(12);
    await h.jobs.idle();
    console.log(`most held at once: A ${a.most}, B ${b.most}, both ${both.most} (caps: 2 per target, 3 in all)`);
    expect(a.served).toBe(12);
    expect(b.served).toBe(12);
    expect(a.most).toBeLessThanOrEqual(2);
    expect(b.most).toBeLessThanOrEqual(2);
    expect(both.most).toBeLessThanOrEqual(3);
    // The caps were reached, so the run did test them.
    expect(Math.max(a.most, b.most)).toBe(2);
    expect((await h.list()).every((delivery) => delivery.status === 'DELIVERED')).toBe(true);
  });

  test('when more than ten attempts are under way at once, then Node warns of no listener leak (MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const shared = { now: 0, most: 0 };
      const h = await harness({ connectionsPerTarget: 4, connections: 16 });
      const targets = await Promise.all(Array.from({ length: 4 }, () => counting(100, 200, shared)));
      for (const target of targets) await h.webhook(target.url);
      await h.customers(8);
      await h.jobs.idle();
      await new Promise((resolve) => setImmediate(resolve));
      expect(shared.most).toBeGreaterThan(10);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('when one target never accepts, then deliveries to another target are not held up behind it', async () => {
    const h = await harness({ connectionsPerTarget: 2, connections: 4, connectTimeoutMs: 60_000, shutdownDeadlineMs: 200 });
    const hole = await misbehaving(neverAccepts);
    const good = await counting(0);
    await h.webhook(hole.url);
    await h.webhook(good.url);
    await logged(async () => {
      await h.customers(10);
      await eventually(() => (good.served === 10 ? true : undefined));
      // What is left held is the ten deliveries to the black hole: two under way, eight waiting for a slot.
      await eventually(() => (h.deliveries.held === 10 ? true : undefined));
      expect((await h.list()).filter((delivery) => delivery.status === 'DELIVERED')).toHaveLength(10);
      await h.jobs.shutdown();
    });
  });
});

describe('failure reasons', () => {
  test('when a target refuses, never accepts or never answers, then every attempt records the same reason; an HTTP answer records its status', async () => {
    const h = await harness({ maxAttempts: 1, connectTimeoutMs: 300, timeoutMs: 300 });
    const targets = [await misbehaving(refuses), await misbehaving(neverAccepts), await misbehaving(neverAnswers)];
    const failing = await counting(0, 503);
    for (const target of targets) await h.webhook(target.url);
    const answered = await h.webhook(failing.url);
    await logged(async () => {
      await h.customers(1);
      await h.jobs.idle();
    });
    const attempts = (await h.list()).map((delivery) => ({ webhook: delivery.webhook_id, status: delivery.status, reason: delivery.failure_reason, attempt: delivery.attempts[0] }));
    expect(attempts).toHaveLength(4);
    for (const { webhook, status, reason, attempt } of attempts) {
      expect(status).toBe('FAILED');
      expect(reason).toBe('no attempt left');
      if (webhook === answered) expect(attempt).toMatchObject({ status_code: 503, error: 'answered 503' });
      else expect(attempt).toMatchObject({ status_code: null, error: UNREACHABLE });
    }
  });
});

describe('slow answers', () => {
  test('when a receiver answers 200 and then trickles its body forever, then the attempt still ends, bounded, as delivered', async () => {
    const trickles: ServerResponse[] = [];
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      trickles.push(res);
    });
    const drip = setInterval(() => trickles.forEach((res) => res.write('.')), 50);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      clearInterval(drip);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const h = await harness({ maxAttempts: 1, connectTimeoutMs: 300, timeoutMs: 300 });
    await h.webhook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/in`);
    await h.customers(1);
    await h.jobs.idle();
    const [delivery] = await h.list();
    console.log(`an endless body was cut off after ${delivery!.attempts[0]!.duration_ms} ms (connect 300 ms + answer 300 ms)`);
    expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: [{ status_code: 200, error: null }] });
  });
});

describe('addresses at delivery', () => {
  test('when a name resolved to a public address when saved and resolves to loopback at delivery, then no connection is made', async () => {
    const receiver = await counting(0);
    const port = new URL(receiver.url).port;
    // The attacker's DNS answers a public address first (the save), then loopback (the delivery).
    let lookups = 0;
    const rebinding: HostResolver = async () => [{ address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    const url = `http://rebind.example.test:${port}/in`;
    await expect(vetTarget(url, { allowPlainHttp: true, allowPrivateTargets: false, resolve: rebinding })).resolves.toBe(url);
    const h = await harness({ maxAttempts: 1 }, { allowPrivateTargets: false, resolve: rebinding });
    await h.webhook(url);
    await logged(async () => {
      await h.customers(1);
      await h.jobs.idle();
    });
    const [delivery] = await h.list();
    expect(delivery).toMatchObject({ status: 'FAILED', attempts: [{ status_code: null, error: REFUSED_ADDRESS }] });
    expect(lookups).toBeGreaterThanOrEqual(2);
    expect(receiver.served).toBe(0);
  });

  test('when the name resolves to loopback and private targets are allowed, then the same delivery arrives (the lookup is the one used)', async () => {
    const receiver = await counting(0);
    const h = await harness({ maxAttempts: 1 }, { allowPrivateTargets: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    await h.webhook(`http://rebind.example.test:${new URL(receiver.url).port}/in`);
    await h.customers(1);
    await h.jobs.idle();
    expect(receiver.served).toBe(1);
    expect((await h.list())[0]).toMatchObject({ status: 'DELIVERED' });
  });

  test('when a stored target is a loopback literal and private targets are not allowed, then it is not connected to', async () => {
    const receiver = await counting(0);
    const h = await harness({ maxAttempts: 1 }, { allowPrivateTargets: false });
    await h.webhook(receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'));
    await h.webhook(receiver.url);
    await logged(async () => {
      await h.customers(1);
      await h.jobs.idle();
    });
    expect((await h.list()).map((delivery) => delivery.attempts[0]?.error)).toEqual([REFUSED_ADDRESS, REFUSED_ADDRESS]);
    expect(receiver.served).toBe(0);
  });
});

describe('bounded queue', () => {
  test('when more deliveries are due than a project may hold, then the rest stay PENDING and unleased in the store, none is failed, and each is taken up as room frees', async () => {
    const slow = await counting(150);
    const h = await harness({ connectionsPerTarget: 1, queuePerProject: 3 });
    await h.webhook(slow.url);
    await h.customers(10);
    // While the first few are held, the rest wait in the store without a lease.
    await eventually(async () => (slow.served >= 1 ? true : undefined));
    const midway = await h.list();
    expect(h.deliveries.held).toBeLessThanOrEqual(3);
    expect(midway.filter((delivery) => delivery.status === 'FAILED')).toEqual([]);
    const unleased = (await memoryRows(h)).filter((row) => row.status === 'PENDING' && row.leased_by == null);
    expect(unleased.length).toBeGreaterThan(0);
    // Every one is delivered in the end, in the order made.
    await eventually(async () => ((await h.list()).every((delivery) => delivery.status === 'DELIVERED') ? true : undefined), 10_000);
    expect(slow.served).toBe(10);
  });

  test("when one project fills its room, then another project's deliveries are still claimed and delivered", async () => {
    const mute = await misbehaving(neverAnswers);
    const quick = await counting(0);
    const h = await harness({ connectionsPerTarget: 1, timeoutMs: 60_000, queuePerProject: 2, queue: 3, shutdownDeadlineMs: 300 });
    await h.webhook(mute.url, 'p');
    await h.webhook(quick.url, 'q');
    await h.customers(5, 'p');
    await h.customers(3, 'q');
    await eventually(async () => ((await h.list('q')).every((delivery) => delivery.status === 'DELIVERED') ? true : undefined));
    // p holds its room of two (one under way), the three others wait PENDING; nothing was failed for want of room.
    expect((await h.list('p')).map((delivery) => delivery.status)).toEqual(Array(5).fill('PENDING'));
    expect(quick.served).toBe(3);
  });
});

describe('delivery log retention', () => {
  test('when settled deliveries pass the count or the age kept, then the oldest settled are removed and PENDING ones never', async () => {
    const memory = new MemoryStore(SCHEMA);
    await memory.createProject('p');
    const row = (id: string, status: string, created: string) => ({
      id, webhook_id: 'wh_1', event_id: `evt_${id}`, event_type: 'customer.created', status, attempts: [], failure_reason: null,
      next_attempt_at: null, created_at: created, updated_at: null, object: 'webhook_delivery', body: null, due_ms: status === 'PENDING' ? 0 : null,
    }) as WebhookDeliveryRow;
    await memory.transaction('p', async (uow) => {
      // Ten days old: two settled and one pending; then 1 200 settled of today, alternating statuses, and one pending.
      for (const [id, status] of [['old1', 'DELIVERED'], ['old2', 'FAILED'], ['oldp', 'PENDING']] as const) await uow.webhook_deliveries.insert(row(id, status, '2026-11-20T00:00:00.000Z'));
      for (let i = 0; i < 1200; i++) await uow.webhook_deliveries.insert(row(`d${String(i).padStart(4, '0')}`, i % 2 ? 'FAILED' : 'DELIVERED', `2026-11-30T00:00:${String(Math.floor(i / 100)).padStart(2, '0')}.${String(i % 100).padStart(3, '0')}Z`));
      await uow.webhook_deliveries.insert(row('newp', 'PENDING', '2026-11-30T01:00:00.000Z'));
    });
    const now = Date.parse('2026-11-30T12:00:00.000Z');
    const removed = await pruneDeliveryLog(memory, { keepSettledMs: 7 * 24 * 3600_000, keepSettledPerProject: 600 }, now);
    const left = (await memory.transaction('p', (uow) => uow.webhook_deliveries.query({}))).rows;
    // The two old settled ones (by age, and by count), then the 600 oldest of today by count: more than one batch.
    expect(PRUNE_BATCH).toBeLessThan(602);
    expect(removed).toBe(602);
    expect(left.map((each) => each.id)).toEqual(['oldp', ...Array.from({ length: 600 }, (_, i) => `d${String(i + 600).padStart(4, '0')}`), 'newp']);
    // Nothing more to do on a second run; with the count not reached, only age removes.
    expect(await pruneDeliveryLog(memory, { keepSettledMs: 7 * 24 * 3600_000, keepSettledPerProject: 600 }, now)).toBe(0);
    expect(await pruneDeliveryLog(memory, { keepSettledMs: 3600_000, keepSettledPerProject: 10_000 }, now)).toBe(600);
  });
});

describe('leases', () => {
  test('when a delivery waits for a slot longer than a lease, then its lease is renewed and no other claimer can take it', async () => {
    const mute = await misbehaving(neverAnswers);
    const h = await harness({ connectionsPerTarget: 1, timeoutMs: 60_000, leaseMs: 300, pollMs: 0, shutdownDeadlineMs: 300 });
    await h.webhook(mute.url);
    await h.customers(2);
    await eventually(async () => (h.deliveries.held === 2 ? true : undefined));
    // Well past the first lease: the one waiting behind the hanging attempt is still this instance's.
    await new Promise((resolve) => setTimeout(resolve, 900));
    const rows = await memoryRows(h);
    expect(rows.every((each) => each.leased_by === h.deliveries.owner && (each.lease_until ?? 0) > Date.now())).toBe(true);
    const stolen = await h.memory.claim('webhook_deliveries', { where: eq('status', 'PENDING'), orderBy: { field: 'due_ms', direction: 'asc' }, limit: 10, owner: 'another', now: Date.now(), leaseMs: 1000 });
    expect(stolen).toEqual([]);
  });
});

describe('shutdown', () => {
  test('when the server stops, then every pending delivery gets one last attempt within the deadline, and none is left PENDING', async () => {
    const hole = await misbehaving(neverAccepts);
    const mute = await misbehaving(neverAnswers);
    const closed = await misbehaving(refuses);
    const recovering = await counting(0);
    let calls = 0;
    const flaky = createServer((req, res) => {
      req.resume();
      res.writeHead(++calls <= 2 ? 500 : 200).end();
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => flaky.close(() => resolve())));
    // Retries an hour apart and attempts that could take a minute: only the shutdown can end them in time.
    const h = await harness({ backoffMs: 3_600_000, maxAttempts: 5, connectTimeoutMs: 60_000, timeoutMs: 60_000, connectionsPerTarget: 1, shutdownDeadlineMs: 1000 });
    const holeHook = await h.webhook(hole.url);
    const muteHook = await h.webhook(mute.url);
    const closedHook = await h.webhook(closed.url);
    const flakyHook = await h.webhook(`http://127.0.0.1:${(flaky.address() as AddressInfo).port}/in`);
    await h.webhook(recovering.url);
    const lines = await logged(async () => {
      await h.customers(2);
      // Wait until the refused and the flaky ones have made their first attempt and wait for their retry.
      await eventually(async () => {
        const list = await h.list();
        const waiting = list.filter((delivery) => [closedHook, flakyHook].includes(delivery.webhook_id) && delivery.attempts.length === 1 && delivery.next_attempt_at !== null);
        return waiting.length === 4 ? true : undefined;
      });
      const started = performance.now();
      await h.jobs.shutdown();
      console.log(`shutdown with a black hole, a mute receiver and retries an hour away took ${Math.round(performance.now() - started)} ms (deadline 1000 ms)`);
    });
    const list = await h.list();
    expect(list.filter((delivery) => delivery.status === 'PENDING')).toEqual([]);
    const of = (webhook: string) => list.filter((delivery) => delivery.webhook_id === webhook);
    // The flaky receiver failed each first attempt and answers the last ones: delivered. The refusing one fails them.
    expect(of(flakyHook).map((delivery) => delivery.status)).toEqual(['DELIVERED', 'DELIVERED']);
    for (const delivery of of(closedHook)) expect(delivery).toMatchObject({ status: 'FAILED', failure_reason: STOPPED, attempts: [{ error: UNREACHABLE }, { error: UNREACHABLE }] });
    // One slot per target: the first delivery to each silent receiver was cut off by the deadline, the second never had its turn.
    for (const webhook of [holeHook, muteHook]) {
      const [first, second] = of(webhook);
      expect(first).toMatchObject({ status: 'FAILED', failure_reason: STOPPED, attempts: [{ status_code: null, error: UNREACHABLE }] });
      expect(second).toMatchObject({ status: 'FAILED', failure_reason: STOPPED, attempts: [] });
      expect(lines.some((line) => line.includes(second!.id) && line.includes(STOPPED))).toBe(true);
    }
    expect(h.deliveries.held).toBe(0);
  });

  test('when an event commits after shutdown began, then its delivery too ends DELIVERED or FAILED', async () => {
    const receiver = await counting(0);
    const h = await harness({ shutdownDeadlineMs: 500 });
    await h.webhook(receiver.url);
    const stopping = h.jobs.shutdown();
    await h.customers(1);
    await stopping;
    await h.jobs.idle();
    expect((await h.list()).map((delivery) => delivery.status)).toEqual(['DELIVERED']);
  });
});

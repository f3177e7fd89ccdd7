/**
 * Webhook delivery through real HTTP receivers on loopback: exactly the subscribed events arrive, signed,
 * each in its kind's typed payload (the API's envelope, the objects as the API's reads show them);
 * failures are retried with backoff; a receiver that never answers slows no API call; and shutdown
 * finishes or reports what is pending. Runs against the in-process server only, whose retry delays are
 * short (see TEST_WEBHOOKS); the tests check outcomes, not timings, except one generous bound.
 */
import { afterAll, afterEach, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { components } from '../../client/index.js';
import { expectError, failed } from './expect-error.js';
import { clientFor, managementClientFor, raw, runsWith, startTarget, TEST_WEBHOOKS, unique, useTarget, type Target } from './target.js';
import {
  eventually,
  PayloadChecker,
  signatureProblem,
  SIGNATURE_TOLERANCE_SECONDS,
  startReceiver,
  validSignature,
  type Answer,
  type Payload,
  type Receiver,
} from './webhook-receiver.js';

type EventType = components['schemas']['WebhookEventType'];
type PayloadOf<K extends EventType> = Extract<Payload, { type: K }>;

/** The customer's name in a customer event's payload. */
const customerName = (payload: Payload) => (payload.data as { customer: { name: string | null } }).customer.name;

const ctx = useTarget();
const receivers: Receiver[] = [];
const describeInProcess = runsWith(describe, ['inProcess']);

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(answer?: Answer) {
  const made = await startReceiver(answer);
  receivers.push(made);
  return made;
}

/** A fresh project on the target, with a client holding its key. */
async function project(target: Target = ctx.target) {
  const made = (await managementClientFor(target).POST('/management/v1/projects', { body: { name: unique('Hooks') } })).data!;
  return { id: made.id, client: clientFor(target, { appId: made.server_side_key!.app_id, appToken: made.server_side_key!.app_token }) };
}

async function webhook(projectId: string, body: { target_url: string; events: EventType[]; active?: boolean }, target: Target = ctx.target) {
  const made = await managementClientFor(target).POST('/management/v1/projects/{projectId}/webhooks', { params: { path: { projectId } }, body });
  expect(made.response.status).toBe(200);
  // The contract leaves `secret` optional (the public API documents webhooks without it); it is the one thing a
  // creation must show, so these scenarios require it.
  const { secret } = made.data!;
  if (secret === undefined) throw new Error('the created webhook shows no secret');
  return { ...made.data!, secret };
}

async function deliveries(projectId: string, webhookId: string, target: Target = ctx.target) {
  const list = await managementClientFor(target).GET('/management/v1/projects/{projectId}/webhooks/{webhookId}/deliveries', {
    params: { path: { projectId, webhookId } },
  });
  return list.data!.data;
}

describeInProcess('webhook delivery', () => {
  test('when a webhook subscribes with the public API\'s spelling of a kind, or to a kind this server does not emit, then the subscription is kept and the spelled kind arrives', async () => {
    const { id: projectId, client } = await project();
    const sink = await receiver();
    const events = ['voucher.gift.balance_aded', 'campaign.promotion_tier.created'];
    const made = await webhook(projectId, { target_url: sink.url, events: events as EventType[] });
    expect(made.events).toEqual(events);
    const code = unique('GIFT');
    expect((await client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } })).response.status).toBe(200);
    expect((await client.POST('/v1/vouchers/{code}/balance', { params: { path: { code } }, body: { amount: 500 } })).response.status).toBe(200);
    await ctx.target.jobs!.idle();
    expect(sink.received.map((arrival) => arrival.body.type)).toEqual(['voucher.gift.balance_added']);
  });

  test('when events happen, then exactly the subscribed kinds reach active webhooks, signed, with the affected objects', async () => {
    const { id: projectId, client } = await project();
    // Compile the customer routes' validators before any delivery is under way, so doing it cannot hold up an
    // attempt past the receivers' short timeout (which would make the server retry a delivered event).
    const warm = (await client.POST('/v1/customers', { body: { name: 'Warm-up' } })).data!;
    await client.GET('/v1/customers/{customerId}', { params: { path: { customerId: warm.id! } } });
    const first = await receiver();
    const second = await receiver();
    const silent = await receiver();
    const also = await receiver();
    const created = await webhook(projectId, { target_url: first.url, events: ['customer.created'] });
    const deleted = await webhook(projectId, { target_url: second.url, events: ['customer.deleted', 'campaign.created'] });
    await webhook(projectId, { target_url: silent.url, events: ['customer.created', 'customer.deleted'], active: false });
    const another = await webhook(projectId, { target_url: also.url, events: ['customer.created'] });

    const customer = (await client.POST('/v1/customers', { body: { source_id: unique('hooked'), name: 'Jane', email: 'jane@example.com' } })).data!;
    const read = (await client.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } } })).data!;
    await client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } }, body: { name: 'Jane D.' } });
    await client.POST('/v1/categories', { body: { name: unique('Quiet'), hierarchy: 1 } });
    await client.DELETE('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } } });
    // The same kind of event in another project reaches nobody here.
    await ctx.client.POST('/v1/customers', { body: { source_id: unique('elsewhere') } });
    await ctx.target.jobs!.idle();

    expect(first.received.map((r) => r.body.type)).toEqual(['customer.created']);
    expect(second.received.map((r) => r.body.type)).toEqual(['customer.deleted']);
    expect(silent.received).toEqual([]);

    const [arrival] = first.received;
    expect(validSignature(arrival!, created.secret)).toBe(true);
    expect(validSignature(arrival!, deleted.secret)).toBe(false);
    expect(validSignature(second.received[0]!, deleted.secret)).toBe(true);
    // The signature carries the time it was made: a receiver holding to the tolerance refuses a replay later on.
    const header = String(arrival!.headers['x-webhook-signature']);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const signedAt = Number(/^t=(\d+)/.exec(header)![1]);
    expect(Math.abs(signedAt - Date.now() / 1000)).toBeLessThan(60);
    expect(signatureProblem(arrival!, created.secret, signedAt + SIGNATURE_TOLERANCE_SECONDS + 1)).toBe('timestamp outside the tolerance');
    // The timestamp is signed too: the same signature under another timestamp does not verify.
    const shifted = { ...arrival!, headers: { ...arrival!.headers, 'x-webhook-signature': header.replace(/^t=\d+/, `t=${signedAt + 1}`) } };
    expect(signatureProblem(shifted, created.secret, signedAt)).toBe('signature does not match');
    expect(arrival!.headers['content-type']).toBe('application/json');
    expect(arrival!.headers['x-webhook-id']).toBe(created.id);
    expect(arrival!.headers['x-webhook-attempt']).toBe('1');
    // The API's envelope around the customer as GET /v1/customers/{customerId} showed it right after.
    expect(arrival!.body).toEqual({
      id: expect.stringMatching(/^whd_/),
      project_id: projectId,
      created_at: expect.any(String),
      type: 'customer.created',
      data: { customer: read },
      source: { id: created.id, object: 'webhook', target_url: first.url },
      event: {
        id: expect.stringMatching(/^evt_/),
        type: 'customer.created',
        created_at: expect.any(String),
        entity_id: customer.id,
        group_id: expect.stringMatching(/^grp_/),
        event_source: { channel: 'API', api_key: { name: expect.any(String), app_id: expect.any(String) } },
      },
    });
    expect(new PayloadChecker().violations(arrival!.body)).toEqual([]);
    // Another webhook gets the same event in a delivery of its own.
    const [copy] = also.received;
    expect(copy!.body.event).toEqual(arrival!.body.event);
    expect(copy!.body.id).not.toBe(arrival!.body.id);
    expect(copy!.body.source).toEqual({ id: another.id, object: 'webhook', target_url: also.url });
    expect(second.received[0]!.body.data).toEqual({ customer: expect.objectContaining({ id: customer.id, name: 'Jane D.' }) });

    const [delivery] = await deliveries(projectId, created.id);
    expect(delivery).toEqual({
      id: arrival!.body.id,
      webhook_id: created.id,
      event_id: arrival!.body.event.id,
      event_type: 'customer.created',
      status: 'DELIVERED',
      attempts: [{ number: 1, started_at: expect.any(String), duration_ms: expect.any(Number), status_code: 200, error: null }],
      failure_reason: null,
      next_attempt_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      object: 'webhook_delivery',
    });

    // Three more deliveries, then the history in pages, newest first.
    for (const name of ['A', 'B', 'C']) await client.POST('/v1/customers', { body: { source_id: unique('paged'), name } });
    await ctx.target.jobs!.idle();
    const page = (number: number) =>
      managementClientFor(ctx.target).GET('/management/v1/projects/{projectId}/webhooks/{webhookId}/deliveries', {
        params: { path: { projectId, webhookId: created.id }, query: { limit: 3, page: number } },
      });
    const [one, two] = await Promise.all([page(1), page(2)]);
    expect(one.data).toMatchObject({ object: 'list', data_ref: 'data', total: 4 });
    expect(one.data!.data).toHaveLength(3);
    expect(two.data!.data.map((entry) => entry.id)).toEqual([delivery!.id]);
    const names = first.received.slice(1).map((r) => customerName(r.body));
    expect(names).toEqual(['A', 'B', 'C']);
    expect(one.data!.data.map((entry) => entry.event_id)).toEqual(first.received.slice(1).map((r) => r.body.event.id).reverse());
    expect(one.data!.data.map((entry) => entry.id)).toEqual(first.received.slice(1).map((r) => r.body.id).reverse());
    expectError(await raw(ctx.target, 'GET', `/management/v1/projects/${projectId}/webhooks/${created.id}/deliveries?limit=101`), 400, 'invalid_query_params');
  });

  test('when a receiver fails twice and then answers 200, then it gets the same signed event on the third attempt', async () => {
    const { id: projectId, client } = await project();
    const flaky = await receiver((n) => (n === 1 ? 500 : n === 2 ? 503 : 200));
    const hook = await webhook(projectId, { target_url: flaky.url, events: ['customer.created'] });
    await client.POST('/v1/customers', { body: { name: 'Retry me' } });
    await ctx.target.jobs!.idle();

    expect(flaky.received).toHaveLength(3);
    expect(flaky.received.map((r) => r.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(flaky.received.map((r) => r.raw)).size).toBe(1);
    expect(flaky.received.every((r) => validSignature(r, hook.secret))).toBe(true);
    const [delivery] = await deliveries(projectId, hook.id);
    expect(delivery).toMatchObject({ id: flaky.received[0]!.body.id, status: 'DELIVERED', event_id: flaky.received[0]!.body.event.id, next_attempt_at: null });
    expect(delivery!.attempts.map((a) => [a.number, a.status_code, a.error])).toEqual([
      [1, 500, 'answered 500'],
      [2, 503, 'answered 503'],
      [3, 200, null],
    ]);
  });

  test('when a receiver always fails, then the delivery stops FAILED after the allowed attempts', async () => {
    const { id: projectId, client } = await project();
    const broken = await receiver(() => 500);
    const hook = await webhook(projectId, { target_url: broken.url, events: ['customer.created'] });
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    let logged: string[];
    try {
      await client.POST('/v1/customers', { body: { name: 'Never heard' } });
      await ctx.target.jobs!.idle();
    } finally {
      logged = errors.mock.calls.map(([message]) => String(message));
      errors.mockRestore();
    }
    expect(broken.received).toHaveLength(TEST_WEBHOOKS.maxAttempts);
    const [delivery] = await deliveries(projectId, hook.id);
    expect(delivery).toMatchObject({ status: 'FAILED', failure_reason: 'no attempt left', next_attempt_at: null });
    expect(delivery!.attempts).toHaveLength(TEST_WEBHOOKS.maxAttempts);
    expect(logged.some((message) => message.includes(delivery!.id))).toBe(true);
  });

  test('when a receiver never answers, then API calls answer at their usual speed and the delivery is retried, then failed', async () => {
    // A server whose receivers get 5 s to answer: if delivery ran inside the request, each call would take 5 s.
    // One connection per delivery, so all five are attempted at once (the cap per target has its own test).
    const target = await startTarget({ webhooks: { ...TEST_WEBHOOKS, timeoutMs: 5000, maxAttempts: 2, connectionsPerTarget: 5 } });
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const { id: projectId, client } = await project(target);
      // One call before the webhook exists, so the timed calls do not pay for compiling the route's validators.
      await client.POST('/v1/customers', { body: { name: 'Warm-up' } });
      const mute = await receiver(() => 'hang');
      const hook = await webhook(projectId, { target_url: mute.url, events: ['customer.created'] }, target);
      const durations: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        expect((await client.POST('/v1/customers', { body: { name: `Waiting ${i}` } })).response.status).toBe(200);
        durations.push(performance.now() - started);
      }
      // Generous: far above a normal call, far below the receiver's 5 s timeout.
      expect(Math.max(...durations)).toBeLessThan(2500);
      await eventually(() => (mute.received.length === 5 ? true : undefined));

      await mute.close();
      const failed = await eventually(async () => {
        const list = await deliveries(projectId, hook.id, target);
        return list.length === 5 && list.every((d) => d.status === 'FAILED') ? list : undefined;
      });
      for (const delivery of failed) {
        expect(delivery.attempts).toHaveLength(2);
        expect(delivery.attempts.every((a) => a.status_code === null && typeof a.error === 'string')).toBe(true);
      }
    } finally {
      await target.close();
      errors.mockRestore();
    }
  });

  test('when the server stops with deliveries waiting to be retried, then each gets one last attempt and what fails is reported', async () => {
    // Retries an hour apart: only shutdown can make them happen during the test.
    const target = await startTarget({ webhooks: { ...TEST_WEBHOOKS, backoffMs: 3_600_000 } });
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const { id: projectId, client } = await project(target);
      const recovering = await receiver((n) => (n === 1 ? 500 : 200));
      const down = await receiver(() => 503);
      const good = await webhook(projectId, { target_url: recovering.url, events: ['customer.created'] }, target);
      const bad = await webhook(projectId, { target_url: down.url, events: ['customer.created'] }, target);
      // The polling below reads the deliveries; read them once first, so that compiling the route's validators on
      // the first read cannot hold up a first attempt past the receivers' short timeout.
      await deliveries(projectId, good.id, target);
      await client.POST('/v1/customers', { body: { name: 'Late' } });
      for (const hook of [good, bad]) {
        await eventually(async () => ((await deliveries(projectId, hook.id, target))[0]?.attempts.length === 1 ? true : undefined));
      }
      const [waiting] = await deliveries(projectId, good.id, target);
      expect(waiting).toMatchObject({ status: 'PENDING', next_attempt_at: expect.any(String) });

      await target.jobs!.shutdown();
      const [finished] = await deliveries(projectId, good.id, target);
      expect(finished).toMatchObject({ status: 'DELIVERED', next_attempt_at: null });
      expect(finished!.attempts.map((a) => a.status_code)).toEqual([500, 200]);
      const [reported] = await deliveries(projectId, bad.id, target);
      expect(reported).toMatchObject({ status: 'FAILED', failure_reason: 'server stopped', next_attempt_at: null });
      expect(reported!.attempts.map((a) => a.status_code)).toEqual([503, 503]);
      expect(errors.mock.calls.some(([message]) => String(message).includes(reported!.id) && String(message).includes('server stopped'))).toBe(true);
    } finally {
      await target.close();
      errors.mockRestore();
    }
  });

  test('when a webhook is deactivated or deleted, then later events are not delivered to it', async () => {
    const { id: projectId, client } = await project();
    const sink = await receiver();
    const hook = await webhook(projectId, { target_url: sink.url, events: ['customer.created'] });
    const path = { params: { path: { projectId, webhookId: hook.id } } };
    await client.POST('/v1/customers', { body: { name: 'One' } });
    await ctx.target.jobs!.idle();
    await managementClientFor(ctx.target).PUT('/management/v1/projects/{projectId}/webhooks/{webhookId}', { ...path, body: { active: false } });
    await client.POST('/v1/customers', { body: { name: 'Two' } });
    await ctx.target.jobs!.idle();
    await managementClientFor(ctx.target).DELETE('/management/v1/projects/{projectId}/webhooks/{webhookId}', path);
    await client.POST('/v1/customers', { body: { name: 'Three' } });
    await ctx.target.jobs!.idle();
    expect(sink.received.map((r) => customerName(r.body))).toEqual(['One']);
  });
});

const describeManaged = runsWith(describe, ['management']);
const MASKED = /^whsec_\*{12}[\x21-\x7e]{4}$/;

describeManaged('webhook secrets and target URLs', () => {
  const hooksOf = (projectId: string) => ({ params: { path: { projectId } } });
  const hookPath = (projectId: string, webhookId: string) => ({ params: { path: { projectId, webhookId } } });

  test('when a webhook is created, then only that answer shows its secret; every later read and update masks it', async () => {
    const { id: projectId } = await project();
    const mgmt = managementClientFor(ctx.target);
    const made = await webhook(projectId, { target_url: 'https://hooks.example.com/shown-once', events: ['customer.created'] });
    expect(made.secret).not.toMatch(MASKED);
    expect(made.secret.length).toBeGreaterThanOrEqual(16);
    const masked = `whsec_************${made.secret.slice(-4)}`;
    const read = (await mgmt.GET('/management/v1/projects/{projectId}/webhooks/{webhookId}', hookPath(projectId, made.id))).data!;
    expect(read).toEqual({ ...made, secret: masked });
    expect((await mgmt.GET('/management/v1/projects/{projectId}/webhooks', hooksOf(projectId))).data!.data).toEqual([{ ...made, secret: masked }]);
    const paused = await mgmt.PUT('/management/v1/projects/{projectId}/webhooks/{webhookId}', { ...hookPath(projectId, made.id), body: { active: false } });
    expect(paused.data!.secret).toBe(masked);
    // A new secret is not echoed either: the caller has it.
    const chosen = `whsec_${unique('chosen')}-7Q2z`;
    const changed = await mgmt.PUT('/management/v1/projects/{projectId}/webhooks/{webhookId}', { ...hookPath(projectId, made.id), body: { secret: chosen } });
    expect(changed.data!.secret).toBe('whsec_************7Q2z');
  });

  test('when a webhook read is PUT back whole, then its masked secret keeps the secret; another masked value is 400 invalid_secret', async () => {
    const { id: projectId } = await project();
    const made = await webhook(projectId, { target_url: 'https://hooks.example.com/round-trip', events: ['customer.created'] });
    const path = `/management/v1/projects/${projectId}/webhooks/${made.id}`;
    const read = (await raw(ctx.target, 'GET', path)).body as typeof made;
    const put = await raw(ctx.target, 'PUT', path, { body: JSON.stringify({ ...read, active: false }) });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...read, active: false, updated_at: expect.any(String) });
    expectError(await raw(ctx.target, 'PUT', path, { body: JSON.stringify({ secret: 'whsec_************abcd' }) }), 400, 'invalid_secret');
    const body = JSON.stringify({ target_url: 'https://hooks.example.com/in', events: ['customer.created'], secret: read.secret });
    expectError(await raw(ctx.target, 'POST', `/management/v1/projects/${projectId}/webhooks`, { body }), 400, 'invalid_secret');
    expect(((await raw(ctx.target, 'GET', path)).body as typeof made).secret).toBe(read.secret);
  });

  test.each([
    ['a user name and password', 'https://user:pass@hooks.example.com/in'],
    ['a user name', 'https://user@hooks.example.com/in'],
    ['a password alone', 'https://:pass@hooks.example.com/in'],
  ])('when a target URL carries %s, then it is 400 invalid_target_url, on create and on update', async (_, url) => {
    const { id: projectId } = await project();
    const created = await managementClientFor(ctx.target).POST('/management/v1/projects/{projectId}/webhooks', { ...hooksOf(projectId), body: { target_url: url, events: ['customer.created'] } });
    expectError(failed(created), 400, 'invalid_target_url');
    const made = await webhook(projectId, { target_url: 'https://hooks.example.com/in', events: ['customer.created'] });
    const updated = await managementClientFor(ctx.target).PUT('/management/v1/projects/{projectId}/webhooks/{webhookId}', { ...hookPath(projectId, made.id), body: { target_url: url } });
    expectError(failed(updated), 400, 'invalid_target_url');
  });

  test('when the scheme of a target URL is upper or mixed case, then it is taken', async () => {
    const { id: projectId } = await project();
    for (const url of ['HTTPS://hooks.example.com/upper', 'Https://hooks.example.com/mixed']) {
      expect((await webhook(projectId, { target_url: url, events: ['customer.created'] })).target_url).toBe(url);
    }
  });
});

describeInProcess('webhook delivery within bounds', () => {
  test('when a target is written HTTP:// in upper case and its webhook is PUT back as read, then deliveries arrive signed with the secret shown at creation', async () => {
    const { id: projectId, client } = await project();
    const sink = await receiver();
    const made = await webhook(projectId, { target_url: sink.url.replace(/^http:/, 'HTTP:'), events: ['customer.created'] });
    const path = `/management/v1/projects/${projectId}/webhooks/${made.id}`;
    const read = (await raw(ctx.target, 'GET', path)).body as typeof made;
    expect((await raw(ctx.target, 'PUT', path, { body: JSON.stringify(read) })).status).toBe(200);
    await client.POST('/v1/customers', { body: { name: 'Signed' } });
    await ctx.target.jobs!.idle();
    expect(sink.received).toHaveLength(1);
    expect(signatureProblem(sink.received[0]!, made.secret)).toBeUndefined();
  });

  test('when receivers refuse the connection or never answer, then every attempt records one and the same reason; an HTTP answer records its status', async () => {
    const target = await startTarget({ webhooks: { ...TEST_WEBHOOKS, maxAttempts: 1, timeoutMs: 300, connectTimeoutMs: 300 } });
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const { id: projectId, client } = await project(target);
      const mute = await receiver(() => 'hang');
      const failing = await receiver(() => 502);
      const closed = await startReceiver();
      await closed.close();
      const hooks = [];
      for (const url of [closed.url, mute.url, failing.url]) hooks.push(await webhook(projectId, { target_url: url, events: ['customer.created'] }, target));
      await client.POST('/v1/customers', { body: { name: 'Nobody home' } });
      await target.jobs!.idle();
      const attempts = [];
      for (const hook of hooks) attempts.push((await deliveries(projectId, hook.id, target))[0]!.attempts.map((a) => [a.status_code, a.error]));
      expect(attempts).toEqual([[[null, 'the receiver could not be reached']], [[null, 'the receiver could not be reached']], [[502, 'answered 502']]]);
    } finally {
      await target.close();
      errors.mockRestore();
    }
  });

  test('when deliveries pile up behind a receiver that never answers, then those past the room wait PENDING (none dropped), and shutdown ends them all within its deadline, none left PENDING', async () => {
    const target = await startTarget({ webhooks: { ...TEST_WEBHOOKS, queuePerProject: 3, connectionsPerTarget: 1, timeoutMs: 60_000, shutdownDeadlineMs: 1000 } });
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const { id: projectId, client } = await project(target);
      const mute = await receiver(() => 'hang');
      const hook = await webhook(projectId, { target_url: mute.url, events: ['customer.created'] }, target);
      for (let i = 0; i < 6; i++) await client.POST('/v1/customers', { body: { name: `Queued ${i}` } });
      await eventually(async () => (mute.received.length === 1 ? true : undefined));
      const list = await deliveries(projectId, hook.id, target);
      // Newest first: all six PENDING, the oldest under way; three held, three left in the store for room.
      expect(list.map((d) => [d.status, d.failure_reason])).toEqual(Array(6).fill(['PENDING', null]));
      expect(mute.received).toHaveLength(1);

      // The attempt under way would wait a minute for its answer, and the two behind it for their turn.
      const started = performance.now();
      await target.jobs!.shutdown();
      console.log(`shutdown with one attempt hanging and five waiting for its slot or for room took ${Math.round(performance.now() - started)} ms (deadline 1000 ms)`);
      const after = await deliveries(projectId, hook.id, target);
      expect(after.map((d) => [d.status, d.failure_reason, d.attempts.length])).toEqual([...Array(5).fill(['FAILED', 'server stopped', 0]), ['FAILED', 'server stopped', 1]]);
      // Each one marked is logged by its ID.
      const logged = errors.mock.calls.map((call) => call.map(String).join(' '));
      for (const delivery of after) expect(logged.some((line) => line.includes(delivery.id) && line.includes(delivery.failure_reason!))).toBe(true);
    } finally {
      await target.close();
      errors.mockRestore();
    }
  });
});

describeInProcess('webhook targets on a server that keeps to public addresses', () => {
  let strict: Target;
  let projectId: string;
  beforeAll(async () => {
    strict = await startTarget({ webhooks: { ...TEST_WEBHOOKS, allowPrivateTargets: false } });
    projectId = (await project(strict)).id;
  });
  afterAll(async () => {
    await strict.close();
  });

  test.each([
    ['loopback', 'https://127.0.0.1/in'],
    ['loopback as a decimal number', 'https://2130706433/in'],
    ['loopback in hexadecimal', 'https://0x7f.0.0.1/in'],
    ['loopback in octal', 'https://0177.0.0.1/in'],
    ['IPv6 loopback', 'https://[::1]/in'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in'],
    ['the metadata service (link-local)', 'https://169.254.169.254/latest/meta-data/'],
    ['a private network', 'https://10.0.0.8/in'],
    ['carrier-grade NAT', 'https://100.64.1.1/in'],
    ['unspecified', 'https://0.0.0.0/in'],
    ['multicast', 'https://224.0.0.9/in'],
    ['IPv6 unique local', 'https://[fd00::1]/in'],
    ['a name resolving to loopback', 'https://localhost:8443/in'],
    ['plain http to loopback', 'http://127.0.0.1:9/in'],
  ])('when the target is %s, then it is 400 invalid_target_url on create and on update, and nothing changes', async (_, url) => {
    const mgmt = managementClientFor(strict);
    const created = await mgmt.POST('/management/v1/projects/{projectId}/webhooks', { params: { path: { projectId } }, body: { target_url: url, events: ['customer.created'] } });
    expectError(failed(created), 400, 'invalid_target_url');
    const made = await webhook(projectId, { target_url: 'https://93.184.216.34/in', events: ['customer.created'] }, strict);
    const path = { params: { path: { projectId, webhookId: made.id } } };
    expectError(failed(await mgmt.PUT('/management/v1/projects/{projectId}/webhooks/{webhookId}', { ...path, body: { target_url: url } })), 400, 'invalid_target_url');
    expect((await mgmt.GET('/management/v1/projects/{projectId}/webhooks/{webhookId}', path)).data!.target_url).toBe('https://93.184.216.34/in');
  });
});

describeInProcess('event sources', () => {
  test('when codes are generated in the background, then one event per batch is delivered, caused by the service itself (INTERNAL)', async () => {
    const { id: projectId, client } = await project();
    const sink = await receiver();
    await webhook(projectId, { target_url: sink.url, events: ['campaign.created', 'campaign.vouchers.generation.completed'] });
    const made = await client.POST('/v1/campaigns', {
      body: { name: unique('Bulk'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } }, vouchers_count: 1001 },
    });
    expect(made.response.status).toBe(200);
    await ctx.target.jobs!.idle();
    const bodies = [...new Map(sink.received.map((r) => [r.body.id, r.body])).values()];
    const checker = new PayloadChecker();
    expect(bodies.flatMap((body) => checker.violations(body))).toEqual([]);
    const created = bodies.filter((body) => body.type === 'campaign.created');
    expect(created.map((body) => body.event.event_source)).toEqual([{ channel: 'API', api_key: { name: expect.any(String), app_id: expect.any(String) } }]);
    const batches = bodies.filter((body): body is PayloadOf<'campaign.vouchers.generation.completed'> => body.type === 'campaign.vouchers.generation.completed');
    expect(batches.map((body) => body.data.count ?? 0).sort((a, b) => a - b)).toEqual([1, 500, 500]);
    expect(batches.map((body) => body.event.event_source)).toEqual([{ channel: 'INTERNAL' }, { channel: 'INTERNAL' }, { channel: 'INTERNAL' }]);
    // Each batch is its own unit of work, so its own group.
    expect(new Set(batches.map((body) => body.event.group_id)).size).toBe(3);
  }, 60_000);
});

describeInProcess('event kinds', () => {
  test('when every kind of operation is performed, then every event kind of the interface is delivered by the operation causing it, in its own typed payload', async () => {
    const { id: projectId, client } = await project();
    const sink = await receiver();
    const checker = new PayloadChecker();
    const kinds = (await import('../../generated/openapi.json', { with: { type: 'json' } })).default.components.schemas.WebhookEventType.enum as EventType[];
    // Every kind the interface lists has its own entry under `webhooks`, named by the kind.
    expect([...checker.operations.keys()].sort()).toEqual([...kinds].sort());
    await webhook(projectId, { target_url: sink.url, events: kinds });
    const delivered = new Set<string>();
    const violations: string[] = [];
    /** The payloads delivered since the last call, each checked against its kind's schema in the strict twin. */
    const batch = async () => {
      await ctx.target.jobs!.idle();
      // A receiver ignores repeats by `id`, as the contract tells it to: a slow answer under load can make the
      // server retry a delivery that did arrive.
      const bodies = [...new Map(sink.received.map((r) => [r.body.id, r.body])).values()];
      sink.received.length = 0;
      for (const body of bodies) {
        delivered.add(body.type);
        violations.push(...checker.violations(body));
        expect(body.source).toEqual({ id: expect.stringMatching(/^wh_/), object: 'webhook', target_url: sink.url });
        expect(body.event.type).toBe(body.type);
        expect(body.project_id).toBe(projectId);
      }
      return bodies;
    };
    // Deliveries run concurrently, so arrivals are compared as sets, not sequences.
    const typesOf = (bodies: Payload[]) => bodies.map((body) => body.type).sort();
    const sorted = (types: EventType[]) => [...types].sort();
    const one = <K extends EventType>(bodies: Payload[], kind: K): PayloadOf<K> => {
      const found = bodies.filter((body) => body.type === kind);
      expect(found).toHaveLength(1);
      return found[0] as PayloadOf<K>;
    };

    const campaign = (
      await client.POST('/v1/campaigns', {
        body: {
          name: unique('Events'),
          campaign_type: 'DISCOUNT_COUPONS',
          voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, redemption: { quantity: 1 } },
          vouchers_count: 2,
        },
      })
    ).data!;
    let bodies = await batch();
    expect(typesOf(bodies)).toEqual(sorted(['campaign.vouchers.generation.completed', 'campaign.created']));
    expect(one(bodies, 'campaign.created').data).toEqual({ campaign: expect.objectContaining({ id: campaign.id, name: campaign.name, object: 'campaign' }), created_at: campaign.created_at });
    expect(one(bodies, 'campaign.vouchers.generation.completed').data).toEqual({
      campaign: expect.objectContaining({ id: campaign.id, vouchers_count: 2 }),
      count: 2,
      completed_at: expect.any(String),
    });
    expect(one(bodies, 'campaign.created').event.entity_id).toBe(campaign.id);
    const campaignPath = { params: { path: { campaignId: campaign.id! } } };
    await client.PUT('/v1/campaigns/{campaignId}', { ...campaignPath, body: { description: 'Changed' } });
    bodies = await batch();
    // The campaign as GET /v1/campaigns/{campaignId} shows it after the change.
    const changed = (await client.GET('/v1/campaigns/{campaignId}', campaignPath)).data!;
    expect(one(bodies, 'campaign.updated').data).toEqual({ campaign: changed });
    await client.POST('/v1/campaigns/{campaignId}/disable', campaignPath);
    await client.POST('/v1/campaigns/{campaignId}/enable', campaignPath);
    bodies = await batch();
    expect(typesOf(bodies)).toEqual(sorted(['campaign.disabled', 'campaign.enabled']));
    expect(one(bodies, 'campaign.disabled').data.campaign?.active).toBe(false);
    expect(one(bodies, 'campaign.enabled').data.campaign?.active).toBe(true);

    const holder = unique('holder');
    const published = await client.POST('/v1/publications', { body: { customer: { source_id: holder }, campaign: { name: campaign.name! } } });
    expect(published.response.status).toBe(200);
    bodies = await batch();
    expect(typesOf(bodies)).toEqual(sorted(['customer.created', 'publication.succeeded', 'voucher.published']));
    const code = published.data!.voucher_code!;
    const publication = one(bodies, 'publication.succeeded');
    expect(publication.event.entity_id).toBe(published.data!.id);
    expect(publication.data.data).toEqual({
      // The publication shows the voucher it published, as the request that made it answered.
      publication: expect.objectContaining({ id: published.data!.id, voucher_code: code, voucher: expect.objectContaining({ code, holder_id: published.data!.customer_id }) }),
      voucher: expect.objectContaining({ code, holder_id: published.data!.customer_id }),
      customer: expect.objectContaining({ id: published.data!.customer_id, source_id: holder }),
      campaign: expect.objectContaining({ id: campaign.id }),
    });
    expect(one(bodies, 'voucher.published').data).toEqual({
      voucher: expect.objectContaining({ code }),
      customer: expect.objectContaining({ source_id: holder }),
      campaign: expect.objectContaining({ id: campaign.id }),
      publication: expect.objectContaining({ id: published.data!.id, voucher: expect.objectContaining({ code }) }),
      created_at: published.data!.created_at,
    });
    const redeem = () => client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } } });
    const redeemed = await redeem();
    expect(redeemed.response.status).toBe(200);
    expect((await redeem()).response.status).toBe(400);
    bodies = await batch();
    expect(typesOf(bodies)).toEqual(sorted(['redemption.succeeded', 'redemption.failed']));
    const redemption = redeemed.data!.redemptions![0]!;
    const succeeded = one(bodies, 'redemption.succeeded');
    expect(succeeded.event.entity_id).toBe(redemption.id);
    // A delivery has no request address to build the voucher's asset URLs from; everything else is as the API answered.
    const { assets: _redemptionAssets, ...voucherWithoutAssets } = redemption.voucher!;
    expect(succeeded.data).toEqual({
      redemption: { ...redemption, voucher: voucherWithoutAssets },
      customer: null,
      holder: expect.objectContaining({ source_id: holder }),
      order: expect.objectContaining({ id: redeemed.data!.order!.id, amount: 2000, object: 'order' }),
      voucher: expect.objectContaining({ code, redemption: expect.objectContaining({ redeemed_quantity: 1 }) }),
      promotion_tier: null,
      campaign: expect.objectContaining({ id: campaign.id }),
      created_at: redemption.date,
    });
    // A failed redemption is not stored here: the payload names what was tried.
    const failed = one(bodies, 'redemption.failed');
    expect(failed.data).toMatchObject({ redemption: null, order: null, voucher: { code }, campaign: { id: campaign.id } });
    expect(failed.event.entity_id).toBe(succeeded.data.voucher!.id);
    const rollback = () => client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: redemption.id } }, body: {} });
    await rollback();
    await rollback();
    bodies = await batch();
    expect(typesOf(bodies)).toEqual(sorted(['redemption.rollback.succeeded', 'redemption.rollback.failed']));
    for (const kind of ['redemption.rollback.succeeded', 'redemption.rollback.failed'] as const) {
      const undone = one(bodies, kind);
      expect(undone.data.redemption).toMatchObject({ id: redemption.id, status: 'ROLLED_BACK' });
      expect(undone.event.entity_id).toBe(redemption.id);
    }

    const standalone = unique('EVT');
    const voucherPath = { params: { path: { code: standalone } } };
    await client.POST('/v1/vouchers/{code}', { ...voucherPath, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    await client.PUT('/v1/vouchers/{code}', { ...voucherPath, body: { metadata: { shelf: 'A' } } });
    const updatedVoucher = (await client.GET('/v1/vouchers/{code}', voucherPath)).data!;
    await client.POST('/v1/vouchers/{code}/disable', voucherPath);
    await client.POST('/v1/vouchers/{code}/enable', voucherPath);
    bodies = await batch();
    expect(typesOf(bodies)).toEqual(sorted(['voucher.created', 'voucher.updated', 'voucher.disabled', 'voucher.enabled']));
    // The voucher as GET /v1/vouchers/{code} shows it, but for the asset URLs, which depend on a request's address.
    const { assets: _assets, ...shown } = updatedVoucher;
    expect(one(bodies, 'voucher.updated').data).toEqual({ voucher: shown, campaign: null });
    expect(one(bodies, 'voucher.updated').event.entity_id).toBe(updatedVoucher.id);
    expect(one(bodies, 'voucher.disabled').data.voucher?.active).toBe(false);
    expect(one(bodies, 'voucher.enabled').data.voucher?.active).toBe(true);
    const gift = unique('GIFT');
    await client.POST('/v1/vouchers/{code}', { params: { path: { code: gift } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    await client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: gift } }, body: { amount: 500 } });
    const card = unique('CARD');
    await client.POST('/v1/vouchers/{code}', { params: { path: { code: card } }, body: { type: 'LOYALTY_CARD', loyalty_card: { points: 10 } } });
    await client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: card } }, body: { points: 5 } });
    bodies = await batch();
    expect(typesOf(bodies)).toEqual(sorted(['voucher.created', 'voucher.gift.balance_added', 'voucher.created', 'voucher.loyalty_card.points_added']));
    const credited = one(bodies, 'voucher.gift.balance_added');
    expect(credited.data).toEqual({
      voucher: expect.objectContaining({ code: gift, gift: expect.objectContaining({ amount: 1500, balance: 1500 }) }),
      balance: { amount: 500, total: 1500, balance: 1500, type: 'gift_voucher', operation_type: 'MANUAL', object: 'balance', related_object: { type: 'voucher', id: credited.data.voucher!.id } },
      transaction: null,
      campaign: null,
    });
    const pointed = one(bodies, 'voucher.loyalty_card.points_added');
    expect(pointed.data).toEqual({
      voucher: expect.objectContaining({ code: card }),
      balance: { points: 5, total: 15, balance: 15, type: 'loyalty_card', operation_type: 'MANUAL', object: 'balance', related_object: { type: 'voucher', id: pointed.data.voucher!.id } },
      transaction: expect.objectContaining({ voucher_id: pointed.data.voucher!.id, type: 'POINTS_ADDITION', details: expect.objectContaining({ balance: expect.objectContaining({ points: 5, balance: 15 }) }) }),
      campaign: null,
      customer: null,
    });

    const rule = (
      await client.POST('/v1/validation-rules', {
        body: { name: 'Big orders', rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [5000] } }, logic: '1' } },
      })
    ).data!;
    const rulePath = { params: { path: { validationRuleId: rule.id } } };
    await client.PUT('/v1/validation-rules/{validationRuleId}', { ...rulePath, body: { name: 'Bigger orders' } });
    const assignment = (
      await client.POST('/v1/validation-rules/{validationRuleId}/assignments', { ...rulePath, body: { related_object_type: 'voucher', related_object_id: standalone } })
    ).data!;
    await client.DELETE('/v1/validation-rules/{validationRuleId}/assignments/{assignmentId}', {
      params: { path: { validationRuleId: rule.id, assignmentId: assignment.id } },
    });
    await client.DELETE('/v1/validation-rules/{validationRuleId}', rulePath);
    bodies = await batch();
    expect(typesOf(bodies)).toEqual(sorted([
      'business_validation_rule.created',
      'business_validation_rule.updated',
      'business_validation_rule.assignment.created',
      'business_validation_rule.assignment.deleted',
      'business_validation_rule.deleted',
    ]));
    expect(one(bodies, 'business_validation_rule.created').data).toEqual({ rule: expect.objectContaining({ id: rule.id, name: 'Big orders' }), created_at: rule.created_at });
    expect(one(bodies, 'business_validation_rule.updated').data).toEqual({ rule: expect.objectContaining({ name: 'Bigger orders' }), updated_at: expect.any(String) });
    expect(one(bodies, 'business_validation_rule.deleted').data).toEqual({ rule: expect.objectContaining({ id: rule.id, assignments_count: 0 }), deleted_at: expect.any(String) });
    for (const kind of ['business_validation_rule.assignment.created', 'business_validation_rule.assignment.deleted'] as const) {
      const told = one(bodies, kind);
      expect(told.event.entity_id).toBe(assignment.id);
      expect(told.data).toEqual({ rule: expect.objectContaining({ id: rule.id }), assignment, voucher: expect.objectContaining({ code: standalone }) });
    }

    // A promotion tier: its redemption names the tier, and so do rules assigned to it or to its campaign.
    const promo = (
      await client.POST('/v1/campaigns', {
        body: { name: unique('Promo'), campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'Ten off', action: { discount: { type: 'AMOUNT', amount_off: 1000 } } }] } },
      })
    ).data!;
    const tier = promo.promotion!.tiers![0]!;
    expect(typesOf(await batch())).toEqual(['campaign.created']);
    const tierRedeemed = await client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'promotion_tier', id: tier.id! }], order: { amount: 5000 } } });
    expect(tierRedeemed.response.status).toBe(200);
    const tierRule = (await client.POST('/v1/validation-rules', { body: { name: 'Tier rule', rules: { '1': { name: 'order.amount', conditions: { $more_than: [0] } }, logic: '1' } } })).data!;
    const tierRulePath = { params: { path: { validationRuleId: tierRule.id } } };
    await client.POST('/v1/validation-rules/{validationRuleId}/assignments', { ...tierRulePath, body: { related_object_type: 'promotion_tier', related_object_id: tier.id } });
    await client.POST('/v1/validation-rules/{validationRuleId}/assignments', { ...tierRulePath, body: { related_object_type: 'campaign', related_object_id: promo.id } });
    bodies = await batch();
    expect(typesOf(bodies)).toEqual(
      sorted(['redemption.succeeded', 'business_validation_rule.created', 'business_validation_rule.assignment.created', 'business_validation_rule.assignment.created']),
    );
    expect(one(bodies, 'redemption.succeeded').data).toMatchObject({
      redemption: { id: tierRedeemed.data!.redemptions![0]!.id, related_object_type: 'promotion_tier' },
      voucher: null,
      promotion_tier: { id: tier.id, name: 'Ten off', campaign: { id: promo.id } },
      campaign: { id: promo.id },
    });
    const assigned = bodies.filter((body): body is PayloadOf<'business_validation_rule.assignment.created'> => body.type === 'business_validation_rule.assignment.created');
    expect(assigned.map((body) => body.data.assignment?.related_object_type).sort()).toEqual(['campaign', 'promotion_tier']);
    for (const { data } of assigned) {
      if (data.assignment?.related_object_type === 'campaign') expect(data).toEqual({ rule: expect.anything(), assignment: expect.anything(), campaign: expect.objectContaining({ id: promo.id }) });
      else expect(data).toEqual({ rule: expect.anything(), assignment: expect.anything(), promotion_tier: expect.objectContaining({ id: tier.id }) });
    }

    await client.DELETE('/v1/vouchers/{code}', voucherPath);
    const customer = (await client.POST('/v1/customers', { body: { name: 'Short-lived' } })).data!;
    await client.DELETE('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } } });
    await client.DELETE('/v1/campaigns/{campaignId}', campaignPath);
    bodies = await batch();
    // Deleting the campaign deletes its two vouchers too.
    expect(typesOf(bodies)).toEqual(sorted(['voucher.deleted', 'customer.created', 'customer.deleted', 'campaign.deleted', 'voucher.deleted', 'voucher.deleted']));
    // Deleted objects are shown as they stood when they were deleted.
    const deletedVouchers = bodies.filter((body): body is PayloadOf<'voucher.deleted'> => body.type === 'voucher.deleted');
    expect(deletedVouchers.map((body) => body.data.voucher?.code)).toEqual(expect.arrayContaining([standalone, code]));
    expect(deletedVouchers.find((body) => body.data.voucher?.code === code)!.data.campaign).toMatchObject({ id: campaign.id });
    expect(one(bodies, 'customer.deleted').data.customer).toMatchObject({ id: customer.id, name: 'Short-lived' });
    expect(one(bodies, 'campaign.deleted').data).toEqual({ campaign: expect.objectContaining({ id: campaign.id, vouchers_count: 0 }), deleted_at: expect.any(String) });
    // The deletions of one call share a group.
    const campaignGroup = one(bodies, 'campaign.deleted').event.group_id;
    expect(deletedVouchers.filter((body) => body.event.group_id === campaignGroup)).toHaveLength(2);

    const club = (
      await client.POST('/v1/loyalties', { body: { name: unique('Club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })
    ).data!;
    const earningRule = (
      await client.POST('/v1/loyalties/{campaignId}/earning-rules', {
        params: { path: { campaignId: club.id! } },
        body: [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 25 } }],
      })
    ).data![0]!;
    const memberSource = unique('member');
    const member = (await client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: memberSource } } }))
      .data!;
    await batch();
    const order = (await client.POST('/v1/orders', { body: { status: 'PAID', amount: 1000, customer: { source_id: memberSource } } })).data!;
    bodies = await batch();
    const earned = one(bodies, 'customer.rewarded.loyalty_points');
    expect(earned.data).toEqual({
      customer: expect.objectContaining({ source_id: memberSource }),
      holder: expect.objectContaining({ source_id: memberSource }),
      voucher: expect.objectContaining({ code: member.code, loyalty_card: expect.objectContaining({ points: 25, balance: 25 }) }),
      campaign: expect.objectContaining({ id: club.id }),
      loyalty_tier: null,
      earning_rule: expect.objectContaining({ id: earningRule.id }),
      balance: { points: 25, total: 25, balance: 25, type: 'loyalty_card', operation_type: 'AUTOMATIC', object: 'balance', related_object: { type: 'voucher', id: member.id } },
      order: expect.objectContaining({ id: order.id }),
      event: { id: expect.stringMatching(/^evt_/), type: 'customer.order.paid', category: 'ACTION', entity_id: order.customer_id, created_at: expect.any(String), group_id: earned.event.group_id },
    });
    const mug = (await client.POST('/v1/products', { body: { name: unique('Mug') } })).data!;
    const reward = (await client.POST('/v1/rewards', { body: { name: 'Mug', type: 'MATERIAL', parameters: { product: { id: mug.id } } } })).data!;
    const offered = (
      await client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: reward.id } }, body: { campaign: club.id!, parameters: { loyalty: { points: 10 } } } })
    ).data!;
    const paid = await client.POST('/v1/loyalties/members/{memberId}/redemption', { params: { path: { memberId: member.code! } }, body: { reward: { id: offered.id } } });
    expect(paid.response.status).toBe(200);
    bodies = await batch();
    const rewarded = one(bodies, 'customer.rewarded');
    expect(rewarded.event.entity_id).toBe(order.customer_id);
    expect(rewarded.data).toEqual({
      customer: expect.objectContaining({ source_id: memberSource }),
      holder: expect.objectContaining({ source_id: memberSource }),
      voucher: expect.objectContaining({ code: member.code, loyalty_card: expect.objectContaining({ balance: 15 }) }),
      campaign: expect.objectContaining({ id: club.id }),
      reward: expect.objectContaining({ id: reward.id, assignment_id: offered.id, product: expect.objectContaining({ id: mug.id }), customer: expect.objectContaining({ source_id: memberSource }) }),
      balance: { points: 10 },
    });

    // Pending points activated by hand, then the card's points expiring once the project's test clock passes their last day.
    const timed = (
      await client.POST('/v1/loyalties', {
        body: { name: unique('Timed'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } } } },
      })
    ).data!;
    await client.POST('/v1/loyalties/{campaignId}/earning-rules', {
      params: { path: { campaignId: timed.id! } },
      body: [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 30 }, pending_points: { period_type: 'DAY', period_value: 2 } }],
    });
    const timedSource = unique('member');
    const timedCard = (await client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: timed.id! } }, body: { customer: { source_id: timedSource } } })).data!;
    const timedOrder = (await client.POST('/v1/orders', { body: { status: 'PAID', amount: 1000, customer: { source_id: timedSource } } })).data!;
    const [pending] = (await client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: timedCard.code! } } })).data!.data;
    await batch();
    const activation = await client.POST('/v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/activate', {
      params: { path: { memberId: timedCard.code!, pendingPointsId: pending!.id } },
    });
    expect(activation.response.status).toBe(200);
    bodies = await batch();
    const activated = one(bodies, 'voucher.loyalty_card.pending_points.activated');
    expect(activated.event).toMatchObject({ entity_id: timedCard.id, event_source: { channel: 'API' } });
    expect(activated.data).toMatchObject({
      customer: { source_id: timedSource },
      voucher: { code: timedCard.code, loyalty_card: { points: 30, balance: 30 } },
      balance: { points: 30, total: 30, balance: 30, operation_type: 'MANUAL' },
      order: { id: timedOrder.id },
      transaction: { type: 'PENDING_POINTS_ACTIVATION', details: { balance: { points: 30 } } },
      pending_points: { id: pending!.id, points: 30 },
    });
    const lastDay = activated.data.voucher!.loyalty_card!.next_expiration_date!;
    const dueAt = new Date(Date.parse(`${lastDay}T00:00:00.000Z`) + 86_400_000).toISOString();
    expect((await client.POST('/v1/test-clock', { body: {} })).response.status).toBe(200);
    try {
      expect((await client.POST('/v1/test-clock/advance', { body: { time: new Date(Date.parse(dueAt) + 1000).toISOString() } })).response.status).toBe(200);
      bodies = await batch();
    } finally {
      await client.DELETE('/v1/test-clock');
    }
    const expired = one(bodies, 'voucher.loyalty_card.points_expired');
    expect(expired.event).toMatchObject({ entity_id: timedCard.id, created_at: dueAt, event_source: { channel: 'INTERNAL' } });
    expect(expired.data).toMatchObject({
      points: 30,
      voucher: { code: timedCard.code, loyalty_card: { points: 30, balance: 0 } },
      buckets: { voucher_id: timedCard.id, bucket: { total_points: 30 }, status: 'EXPIRED', expires_at: lastDay },
      transaction: { type: 'POINTS_EXPIRATION', details: { balance: { points: -30, balance: 0 } } },
    });

    // Every kind the interface lists was caused through the API and delivered, each as its schema says.
    expect(kinds.filter((kind) => !delivered.has(kind))).toEqual([]);
    expect(violations).toEqual([]);
  }, 120_000);
});


/**
 * Test clocks (an extension of the reference server, `x-extension: test-clocks`): a project's time frozen and
 * advanced over HTTP, and what falls due in between run in order with the time it fell due. Against another
 * server the scenarios run in a project of their own, made with the management key (freezing the suite's shared
 * project would move the time of scenarios running beside them), when the server answers `GET /v1/test-clock`;
 * a server without them (404) skips them.
 */
import { afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { expectError } from './expect-error.js';
import { known } from './known.js';
import type { ApiClient } from '../../client/index.js';
import { because, clientFor, lacks, managementClientFor, raw, skip, startTarget, unique, useTarget, type Credentials } from './target.js';
import { PayloadChecker, startReceiver, type Payload } from './webhook-receiver.js';

const ctx = useTarget();
const DAY = 86_400_000;
const OPERATIONS = ['get-test-clock', 'freeze-test-clock', 'advance-test-clock', 'release-test-clock'];
const REASON = 'the target has no test clocks (GET /v1/test-clock answers 404): an extension of the reference server, on with TEST_CLOCKS=1';
let available = false;
let reason = REASON;
let client: ApiClient;
let credentials: Credentials;

beforeAll(async () => {
  if (ctx.target.inProcess) {
    client = ctx.client;
    credentials = ctx.target.credentials;
  } else if (lacks('management')) {
    reason = because('management');
    return;
  } else {
    const made = await managementClientFor(ctx.target).POST('/management/v1/projects', { body: { name: unique('Test clocks') } });
    if (made.response.status !== 200) return;
    const key = made.data!.server_side_key!;
    credentials = { appId: key.app_id!, appToken: key.app_token! };
    client = clientFor(ctx.target, credentials);
  }
  available = (await client.GET('/v1/test-clock')).response.status === 200;
});
afterEach(async () => {
  if (available) expect((await client.DELETE('/v1/test-clock')).data).toMatchObject({ frozen: false });
});

async function freeze(time?: string) {
  const frozen = await client.POST('/v1/test-clock', { body: time === undefined ? {} : { time } });
  expect(frozen.response.status).toBe(200);
  return known(frozen.data, 'time');
}

async function advance(body: { by: string } | { time: string }) {
  const moved = await client.POST('/v1/test-clock/advance', { body });
  expect(moved.response.status).toBe(200);
  return known(moved.data, 'time');
}

/** The start (UTC) of the day `days` after the day of `time`. */
function dayStart(time: string, days: number): string {
  return `${new Date(Date.parse(time) + days * DAY).toISOString().slice(0, 10)}T00:00:00.000Z`;
}

async function program(extra: Record<string, unknown> = {}) {
  const created = await client.POST('/v1/loyalties', { body: { name: unique('Clocked'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } }, ...extra } });
  expect(created.response.status).toBe(200);
  return known(created.data, 'id');
}

async function member(campaignId: string, sourceId = unique('member')) {
  const card = await client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId } }, body: { customer: { source_id: sourceId } } });
  expect(card.response.status).toBe(200);
  return known(card.data, 'id', 'code', 'holder_id');
}

async function balance(code: string) {
  return (await client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: code } } })).data!.loyalty_card;
}

async function activity(code: string) {
  const page = (await client.GET('/v1/loyalties/members/{memberId}/activity', { params: { path: { memberId: code }, query: { limit: 100 } } })).data!;
  return page.data.map((entry) => ({ type: entry.type, created_at: entry.created_at }));
}

describe('test clocks', () => {
  test('when the clock is frozen, then responses carry its time; it never goes back and the operations refuse bad moves', async () => {
    if (!available) return skip(reason, OPERATIONS);
    const running = (await client.GET('/v1/test-clock')).data!;
    expect(running).toMatchObject({ object: 'test_clock', frozen: false, frozen_since: null, updated_at: null });
    expectError(await raw(ctx.target, 'POST', '/v1/test-clock/advance', { credentials, body: JSON.stringify({ by: 'P1D' }) }), 400, 'invalid_test_clock');

    const at = new Date(Date.now() + 3 * DAY).toISOString();
    const frozen = await freeze(at);
    expect(frozen).toEqual({ object: 'test_clock', frozen: true, time: at, frozen_since: at, updated_at: null });
    const customer = (await client.POST('/v1/customers', { body: { source_id: unique('frozen') } })).data!;
    expect(customer.created_at).toBe(at);

    expectError(await raw(ctx.target, 'POST', '/v1/test-clock', { credentials, body: JSON.stringify({ time: new Date(Date.parse(at) - 1000).toISOString() }) }), 400, 'invalid_test_clock');
    expectError(await raw(ctx.target, 'POST', '/v1/test-clock/advance', { credentials, body: JSON.stringify({ by: 'P400D' }) }), 400, 'invalid_test_clock');
    expectError(await raw(ctx.target, 'POST', '/v1/test-clock/advance', { credentials, body: JSON.stringify({ by: 'two days' }) }), 400, 'invalid_test_clock');
    expectError(await raw(ctx.target, 'POST', '/v1/test-clock/advance', { credentials, body: JSON.stringify({ by: 'P1D', time: at }) }), 400, 'invalid_test_clock');
    expectError(await raw(ctx.target, 'POST', '/v1/test-clock/advance', { credentials, body: JSON.stringify({}) }), 400, 'invalid_test_clock');
    // None of the refused moves moved it.
    expect((await client.GET('/v1/test-clock')).data).toEqual(frozen);

    const later = await advance({ by: 'PT36H' });
    expect(later).toMatchObject({ frozen: true, time: new Date(Date.parse(at) + 1.5 * DAY).toISOString(), frozen_since: at, updated_at: later.time });
    const updated = (await client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } }, body: { name: 'Later' } })).data!;
    expect(updated).toMatchObject({ created_at: at, updated_at: later.time });
  });

  test('when the clock is frozen, then work that runs in the background (code generation) carries its time', async () => {
    if (!available) return skip(reason, OPERATIONS);
    const at = new Date(Date.now() + 7 * DAY).toISOString();
    await freeze(at);
    const made = await client.POST('/v1/campaigns', {
      body: { name: unique('Clocked codes'), campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 1_100, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, code_config: { pattern: 'TC-######' } } },
    });
    expect(made.response.status).toBe(200);
    const campaignId = known(made.data, 'id').id;
    expect(made.data!.vouchers_generation_status).toBe('IN_PROGRESS');
    let status = made.data!.vouchers_generation_status;
    for (const deadline = Date.now() + 60_000; status === 'IN_PROGRESS' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId } } })).data!.vouchers_generation_status;
    }
    expect(status).toBe('DONE');
    const page = (await client.GET('/v1/vouchers', { params: { query: { campaign_id: campaignId, limit: 100, order: '-created_at' } as never } })).data!;
    expect(page.total).toBe(1_100);
    // The newest were made by the background batches, after the request that made the campaign had answered.
    expect(new Set((page.vouchers ?? []).map((voucher) => voucher.created_at))).toEqual(new Set([at]));
    expect(page.vouchers).toHaveLength(100);
  }, 90_000);

  test('when a voucher expires tomorrow and the clock is advanced two days, then its validation fails as expired', async () => {
    if (!available) return skip(reason, OPERATIONS);
    const now = await freeze();
    const code = unique('CLOCKED');
    const made = await client.POST('/v1/vouchers/{code}', {
      params: { path: { code } },
      body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, expiration_date: new Date(Date.parse(now.time) + DAY).toISOString() },
    });
    expect(made.response.status).toBe(200);
    const validate = async () => (await client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } } })).data!;
    expect(await validate()).toMatchObject({ valid: true, order: { discount_amount: 500 } });

    await advance({ by: 'P2D' });
    const refused = await validate();
    expect(refused.valid).toBe(false);
    expect(refused.inapplicable_redeemables?.[0]?.result.error).toMatchObject({ code: 400, key: 'voucher_expired' });
    const redeemed = await client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } } });
    expect(redeemed.response.status).toBe(400);
  });

  test('when the clock passes their day, then pending points activate at its start, with their events, in order', async () => {
    if (!available) return skip(reason, OPERATIONS);
    const now = await freeze();
    const club = await program();
    await client.POST('/v1/loyalties/{campaignId}/earning-rules', {
      params: { path: { campaignId: club.id } },
      body: [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 30 }, pending_points: { period_type: 'DAY', period_value: 2 } }],
    });
    const sourceId = unique('member');
    const holder = await member(club.id, sourceId);
    await client.POST('/v1/orders', { body: { status: 'PAID', amount: 1000, customer: { source_id: sourceId } } });
    const [entry] = (await client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: holder.code } } })).data!.data;
    expect(entry).toMatchObject({ points: 30, activates_at: dayStart(now.time, 2).slice(0, 10), created_at: now.time });

    await advance({ by: 'P1D' });
    expect(await balance(holder.code)).toMatchObject({ points: 0, balance: 0 });
    await advance({ by: 'P2D' });
    expect(await balance(holder.code)).toMatchObject({ points: 30, balance: 30 });
    expect((await client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: holder.code } } })).data!.data).toEqual([]);
    // The activation happened at the start of its day, not at the time the clock was moved to.
    const events = await activity(holder.code);
    expect(events).toContainEqual({ type: 'customer.loyalty.card.pending_points.activated', created_at: dayStart(now.time, 2) });
    const [addition] = (await client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: holder.code } } })).data!.data;
    expect(addition).toMatchObject({ type: 'PENDING_POINTS_ACTIVATION', created_at: dayStart(now.time, 2), details: { balance: { points: 30, balance: 30 } } });
  });

  test('when the clock passes the end of their month, then points expire with their event, and later ones stay', async () => {
    if (!available) return skip(reason, OPERATIONS);
    const now = await freeze();
    const club = await program({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } } } });
    const holder = await member(club.id);
    await client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 40 } });
    const card = await balance(holder.code);
    expect(card).toMatchObject({ balance: 40, next_expiration_points: 40 });
    const expiresOn = card!.next_expiration_date!;

    // The day it expires on, the points are still there; the day after, they are gone at its start.
    await advance({ time: `${expiresOn}T23:59:00.000Z` });
    expect(await balance(holder.code)).toMatchObject({ balance: 40 });
    await advance({ by: 'PT2M' });
    expect(await balance(holder.code)).toEqual({ points: 40, balance: 0, next_expiration_date: null, next_expiration_points: null });
    const expiredAt = dayStart(`${expiresOn}T00:00:00.000Z`, 1);
    expect(await activity(holder.code)).toContainEqual({ type: 'customer.loyalty.card.points_expired', created_at: expiredAt });
    const [expiry] = (await client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: holder.code } } })).data!.data;
    expect(expiry).toMatchObject({ type: 'POINTS_EXPIRATION', created_at: expiredAt, details: { balance: { points: -40, balance: 0, operation_type: 'AUTOMATIC' } } });
    expect(Date.parse(expiredAt)).toBeGreaterThan(Date.parse(now.time));
  });

  test('when an advance activates pending points and expires points, then a webhook subscribed to both receives one of each, dated when they fell due', async () => {
    if (!available) return skip(reason, OPERATIONS);
    // The receiver listens on loopback, which only the in-process server is set to deliver to.
    if (!ctx.target.inProcess) return skip(because('inProcess'), OPERATIONS);
    const sink = await startReceiver();
    const hooks = managementClientFor(ctx.target);
    const hookPath = { params: { path: { projectId: ctx.target.projectId! } } };
    const events = ['voucher.loyalty_card.pending_points.activated', 'voucher.loyalty_card.points_expired'] as const;
    const hook = (await hooks.POST('/management/v1/projects/{projectId}/webhooks', { ...hookPath, body: { target_url: sink.url, events: [...events] } })).data!;
    try {
      // The last day of next month: points added today expire at the end of the month after, while the pending
      // points, activating two days later in that month, expire a month later still, in a bucket of their own.
      const today = new Date();
      const now = await freeze(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 0, 12)).toISOString());
      const club = await program({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } } } });
      await client.POST('/v1/loyalties/{campaignId}/earning-rules', {
        params: { path: { campaignId: club.id } },
        body: [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 30 }, pending_points: { period_type: 'DAY', period_value: 2 } }],
      });
      const sourceId = unique('member');
      const holder = await member(club.id, sourceId);
      await client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: 40 } });
      const expiresOn = (await balance(holder.code))!.next_expiration_date!;
      const order = (await client.POST('/v1/orders', { body: { status: 'PAID', amount: 1000, customer: { source_id: sourceId } } })).data!;
      const [entry] = (await client.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: holder.code } } })).data!.data;
      expect(sink.received).toEqual([]);

      // One advance past both days: the activation on the second day, the expiry at the start of the day after expiresOn.
      await advance({ time: `${dayStart(`${expiresOn}T00:00:00.000Z`, 1).slice(0, 10)}T08:00:00.000Z` });
      await ctx.target.jobs!.idle();
      const ours = sink.received.map((arrival) => arrival.body).filter((body) => body.event.entity_id === holder.id);
      expect(ours.map((body) => body.type)).toEqual([...events]);
      expect(ours.flatMap((body) => new PayloadChecker().violations(body))).toEqual([]);
      const kind = <K extends Payload['type']>(type: K) => ours.find((body): body is Extract<Payload, { type: K }> => body.type === type)!;

      const activatedAt = dayStart(now.time, 2);
      const activated = kind('voucher.loyalty_card.pending_points.activated');
      expect(activated).toMatchObject({ created_at: activatedAt, event: { type: activated.type, created_at: activatedAt, entity_id: holder.id, event_source: { channel: 'INTERNAL' } } });
      expect(activated.data).toMatchObject({
        customer: { id: holder.holder_id },
        campaign: { id: club.id },
        voucher: { id: holder.id, code: holder.code, loyalty_card: { points: 70, balance: 70 } },
        balance: { points: 30, total: 70, balance: 70, type: 'loyalty_card', operation_type: 'AUTOMATIC', related_object: { type: 'voucher', id: holder.id } },
        order: { id: order.id, status: 'PAID', amount: 1000 },
        transaction: { voucher_id: holder.id, type: 'PENDING_POINTS_ACTIVATION', created_at: activatedAt, details: { balance: { points: 30, balance: 70 } } },
        pending_points: { id: entry!.id, points: 30, order_id: order.id, activates_at: activatedAt.slice(0, 10) },
      });

      const expiredAt = dayStart(`${expiresOn}T00:00:00.000Z`, 1);
      const expired = kind('voucher.loyalty_card.points_expired');
      expect(expired).toMatchObject({ created_at: expiredAt, event: { type: expired.type, created_at: expiredAt, entity_id: holder.id, event_source: { channel: 'INTERNAL' } } });
      expect(expired.data).toMatchObject({
        points: 40,
        customer: { id: holder.holder_id },
        campaign: { id: club.id },
        voucher: { id: holder.id, loyalty_card: { points: 70, balance: 30 } },
        buckets: { voucher_id: holder.id, campaign_id: club.id, bucket: { total_points: 40 }, status: 'EXPIRED', expires_at: expiresOn, object: 'loyalty_points_bucket' },
        transaction: { voucher_id: holder.id, type: 'POINTS_EXPIRATION', created_at: expiredAt, details: { balance: { points: -40, balance: 30, operation_type: 'AUTOMATIC' } } },
      });
      // The transactions delivered are the card's own, as its transaction list shows them.
      const listed = (await client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: holder.code } } })).data!.data;
      expect(listed).toEqual(expect.arrayContaining([activated.data.transaction, expired.data.transaction]));
    } finally {
      await hooks.DELETE('/management/v1/projects/{projectId}/webhooks/{webhookId}', { params: { path: { projectId: ctx.target.projectId!, webhookId: hook.id } } });
      await sink.close();
    }
  });

  test('when a tier has an end, then the member keeps it while the balance drops, and moves down on its day', async () => {
    if (!available) return skip(reason, OPERATIONS);
    const now = await freeze();
    const club = await program();
    const settings = { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'CUSTOM', extend: 'P10D' } };
    expect((await raw(ctx.target, 'PUT', `/v1/campaigns/${club.id}`, { credentials, body: JSON.stringify({ loyalty_tiers_expiration: settings }) })).status).toBe(200);
    const tiers = (
      await client.POST('/v1/loyalties/{campaignId}/tiers', {
        params: { path: { campaignId: club.id } },
        body: [
          { name: 'Silver', points: { from: 1, to: 99 } },
          { name: 'Gold', points: { from: 100 } },
        ],
      })
    ).data!;
    const [silver, gold] = tiers;
    const holder = await member(club.id);
    const points = (change: number) => client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: holder.code } }, body: { points: change } });
    const tierOf = async () => (await client.GET('/v1/loyalties/members/{memberId}/tiers', { params: { path: { memberId: holder.code } } })).data!.data;
    await points(150);
    const endsOn = dayStart(now.time, 10).slice(0, 10);
    expect(await tierOf()).toEqual([expect.objectContaining({ id: gold!.id, expiration: expect.objectContaining({ start_date: now.time.slice(0, 10), expiration_date: endsOn }) })]);

    // The balance drops below Gold, and the member keeps Gold until its end.
    await points(-100);
    expect(await balance(holder.code)).toMatchObject({ balance: 50 });
    await advance({ time: `${dayStart(now.time, 9).slice(0, 10)}T23:59:59.000Z` });
    expect((await tierOf())[0]?.id).toBe(gold!.id);
    await advance({ by: 'PT2S' });
    expect(await tierOf()).toEqual([expect.objectContaining({ id: silver!.id, expiration: expect.objectContaining({ start_date: endsOn, expiration_date: dayStart(now.time, 20).slice(0, 10) }) })]);
    expect(await activity(holder.code)).toContainEqual({ type: 'customer.loyalty.tier.downgraded', created_at: dayStart(now.time, 10) });
  });

  test('when a server runs without test clocks, then each operation answers 404 in the error shape, naming the setting', async () => {
    if (!ctx.target.inProcess) return skip(because('inProcess'), OPERATIONS);
    const off = await startTarget({ testClocks: false });
    try {
      for (const [method, path] of [['GET', '/v1/test-clock'], ['POST', '/v1/test-clock'], ['POST', '/v1/test-clock/advance'], ['DELETE', '/v1/test-clock']] as const) {
        const answer = await raw(off, method, path, method === 'POST' ? { body: JSON.stringify({ by: 'P1D' }) } : {});
        expectError(answer, 404, 'not_found');
        expect(answer.body).toMatchObject({ details: expect.stringContaining('TEST_CLOCKS=1') });
      }
    } finally {
      await off.close();
    }
    // Building a second app compiles the contract's validators: seconds, more while other suites run.
  }, 120_000);
});

/**
 * Two reference server processes on one PostgreSQL database: the engine's guarantees hold across them
 * (no over-redemption, no negative balance, no lost counter update), and stopping and starting both loses
 * nothing. Needs `make build` and TEST_DATABASE_URL (make test gives both).
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { deployment, KEYS, NO_DATABASE, SERVER_HEADERS, type Deployment, type Instance } from './harness.js';

jest.setTimeout(120_000);

const run = NO_DATABASE ? describe.skip : describe;
if (NO_DATABASE) console.log(NO_DATABASE);

let seq = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${seq++}`;

async function call(instance: Instance, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${instance.baseUrl}${path}`, { method, headers: SERVER_HEADERS, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const text = await answer.text();
  return { status: answer.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function ok(instance: Instance, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await call(instance, method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Sends `count` requests at once, alternating between the instances; the status codes, counted. */
async function split(instances: readonly Instance[], count: number, request: (instance: Instance, index: number) => Promise<{ status: number }>) {
  const statuses = await Promise.all(Array.from({ length: count }, (_, index) => request(instances[index % instances.length]!, index).then((answer) => answer.status)));
  const counted: Record<number, number> = {};
  for (const status of statuses) counted[status] = (counted[status] ?? 0) + 1;
  return counted;
}

run('two server processes on one database', () => {
  let servers: Deployment;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    servers = await deployment();
    a = await servers.start();
    b = await servers.start();
  });

  afterAll(async () => {
    await servers?.close();
  });

  /** A campaign of one voucher that may be redeemed `quantity` times, made through one instance and read through the other. */
  async function limitedVoucher(prefix: string, quantity: number) {
    const campaign = await ok(a, 'POST', '/v1/campaigns', {
      name: unique(prefix),
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity } },
    });
    const listed = await ok(b, 'GET', `/v1/vouchers?campaign_id=${String(campaign.id)}`);
    return { campaign, code: (listed.vouchers as { code: string }[])[0]!.code };
  }

  test('when 50 redemptions of a voucher limited to 10 are split between the instances, then exactly 10 succeed and every counter says 10', async () => {
    const { campaign, code } = await limitedVoucher('split', 10);
    const counted = await split([a, b], 50, (instance) =>
      call(instance, 'POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 } }),
    );
    expect(counted).toEqual({ 200: 10, 400: 40 });
    for (const instance of [a, b]) {
      expect((await ok(instance, 'GET', `/v1/vouchers/${code}`)).redemption).toMatchObject({ quantity: 10, redeemed_quantity: 10 });
      // Each redemption through /v1/redemptions is listed twice: the stacked parent and the voucher's own.
      const redemptions = await ok(instance, 'GET', `/v1/redemptions?voucher=${code}&result=SUCCESS&limit=100`);
      expect(redemptions.total).toBe(20);
    }
  });

  test('when one customer redeems 40 vouchers of one campaign through both instances at once, then every redemption counts, in the campaign\u2019s summary and the customer\u2019s', async () => {
    const campaign = await ok(a, 'POST', '/v1/campaigns', {
      name: unique('many'),
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 40,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 1 } },
    });
    const listed = await ok(b, 'GET', `/v1/vouchers?campaign_id=${String(campaign.id)}&limit=100`);
    const codes = (listed.vouchers as { code: string }[]).map((voucher) => voucher.code);
    expect(codes).toHaveLength(40);
    const customer = await ok(a, 'POST', '/v1/customers', { source_id: unique('spender') });
    // Each redemption changes its own voucher, and all of them the one customer and the campaign's counters.
    const counted = await split([a, b], 40, (instance, index) =>
      call(instance, 'POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: codes[index] }], customer: { id: customer.id }, order: { amount: 1000 } }),
    );
    expect(counted).toEqual({ 200: 40 });
    for (const instance of [a, b]) {
      expect(await ok(instance, 'GET', `/v1/campaigns/${String(campaign.id)}/summary`)).toMatchObject({ redemptions: 40, redemptions_succeeded: 40, orders_amount: 40_000, discounted_amount: 4_000 });
      expect(((await ok(instance, 'GET', `/v1/customers/${String(customer.id)}`)).summary as { redemptions: unknown }).redemptions).toMatchObject({ total_redeemed: 40, total_succeeded: 40 });
    }
  });

  test('when 20 sessions validate a voucher limited to 5 through both instances at once, then exactly 5 hold it', async () => {
    const { code } = await limitedVoucher('held', 5);
    const valid = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        ok([a, b][index % 2]!, 'POST', '/v1/validations', { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, session: { type: 'LOCK', key: unique('ssn') } }).then((answer) => answer.valid),
      ),
    );
    expect(valid.filter(Boolean)).toHaveLength(5);
  });

  test('when a gift card is spent from both instances at once, then its balance never goes below 0', async () => {
    const campaign = await ok(a, 'POST', '/v1/campaigns', {
      name: unique('gift'),
      campaign_type: 'GIFT_VOUCHERS',
      vouchers_count: 1,
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 10_000 } },
    });
    const code = ((await ok(b, 'GET', `/v1/vouchers?campaign_id=${String(campaign.id)}`)).vouchers as { code: string }[])[0]!.code;
    const counted = await split([a, b], 30, (instance) =>
      call(instance, 'POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: code, gift: { credits: 1000 } }], order: { amount: 1000 } }),
    );
    expect(counted[200]).toBe(10);
    expect(counted[200]! + (counted[400] ?? 0)).toBe(30);
    for (const instance of [a, b]) expect((await ok(instance, 'GET', `/v1/vouchers/${code}`)).gift).toMatchObject({ amount: 10_000, balance: 0 });
  });

  test('when a loyalty card\u2019s points are taken from both instances at once, then its balance never goes below 0', async () => {
    const program = await ok(a, 'POST', '/v1/loyalties', { name: unique('club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const card = await ok(b, 'POST', `/v1/loyalties/${String(program.id)}/members`, { customer: { source_id: unique('member') } });
    const code = String(card.code);
    await ok(a, 'POST', `/v1/loyalties/members/${code}/balance`, { points: 100 });
    const counted = await split([a, b], 30, (instance) => call(instance, 'POST', `/v1/loyalties/members/${code}/balance`, { points: -10 }));
    expect(counted).toEqual({ 200: 10, 400: 20 });
    for (const instance of [a, b]) expect((await ok(instance, 'GET', `/v1/loyalties/members/${code}`)).loyalty_card).toMatchObject({ points: 100, balance: 0 });
  });

  test('when many customers are created through both instances at once, then none is lost and the list counts them all', async () => {
    const city = unique('city');
    const counted = await split([a, b], 40, (instance, index) => call(instance, 'POST', '/v1/customers', { source_id: `${city}-${index}`, address: { city } }));
    expect(counted).toEqual({ 200: 40 });
    expect((await ok(b, 'GET', `/v1/customers?city=${city}&limit=100`)).total).toBe(40);
  });

  test('when one source ID is created through both instances at once, then every request makes or updates the one customer that holds it', async () => {
    // Customer creation runs beside other creations (an append): the second insert of the source ID waits for
    // the first, is refused, and runs again holding the project, as an update of the customer just made.
    const sourceId = unique('same');
    const counted = await split([a, b], 20, (instance, index) => call(instance, 'POST', '/v1/customers', { source_id: sourceId, name: `name ${index}` }));
    expect(counted).toEqual({ 200: 20 });
    const found = await ok(b, 'GET', `/v1/customers/${sourceId}`);
    expect(found.source_id).toBe(sourceId);
    const events = await ok(a, 'GET', `/v1/customers/${found.id}/activity?limit=100`);
    expect((events.data as { type: string }[]).filter((event) => event.type === 'customer.created')).toHaveLength(1);
  });

  test('when one voucher code is created through both instances at once, then one request makes it and every other is told 409', async () => {
    // Voucher creation runs optimistically: the code's unique index refuses the second insert at its commit, and
    // that creation runs again holding the project, which finds the code taken.
    const code = unique('SAMECODE');
    const body = { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } };
    const counted = await split([a, b], 20, (instance) => call(instance, 'POST', `/v1/vouchers/${code}`, body));
    expect(counted).toEqual({ 200: 1, 409: 19 });
    const codes = await split([a, b], 20, (instance, index) => call(instance, 'POST', `/v1/vouchers/${code}-${index}`, body));
    expect(codes).toEqual({ 200: 20 });
    expect((await ok(a, 'GET', `/v1/vouchers/${code}`)).code).toBe(code);
  });

  test('when 30 customers are published to from a campaign of 20 vouchers through both instances at once, then 20 get distinct vouchers and 10 are refused', async () => {
    // Publications run optimistically: two that pick one free voucher find it changed when they write it, and
    // the later one runs again and picks another.
    const campaign = await ok(a, 'POST', '/v1/campaigns', {
      name: unique('publish'),
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      vouchers_count: 20,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    });
    const name = String(campaign.name);
    let listed: Record<string, unknown> = {};
    for (let tries = 0; tries < 100; tries++) {
      listed = await ok(a, 'GET', `/v1/vouchers?campaign_id=${String(campaign.id)}&limit=100`);
      if ((listed.vouchers as unknown[]).length === 20) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((listed.vouchers as unknown[]).length).toBe(20);
    const given = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        call([a, b][index % 2]!, 'POST', '/v1/publications', { customer: { source_id: unique('reader') }, campaign: { name } }),
      ),
    );
    const codes = given.filter((answer) => answer.status === 200).map((answer) => (answer.body.voucher as { code: string }).code);
    expect(codes).toHaveLength(20);
    expect(new Set(codes).size).toBe(20);
    expect(given.filter((answer) => answer.status !== 200).map((answer) => answer.body.key)).toEqual(Array(10).fill('no_voucher_suitable_for_publication'));
    // One customer asking ten times at once with join_once gets one voucher, the same every time.
    const second = await ok(a, 'POST', '/v1/campaigns', {
      name: unique('once'),
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    });
    const customer = await ok(b, 'POST', '/v1/customers', { source_id: unique('joiner') });
    const joined = await Promise.all(
      Array.from({ length: 10 }, (_, index) => ok([a, b][index % 2]!, 'POST', '/v1/publications?join_once=true', { customer: { id: customer.id }, campaign: { name: second.name } })),
    );
    expect(new Set(joined.map((answer) => (answer.voucher as { code: string }).code)).size).toBe(1);
  });

  test('when a project is deleted through one instance, then its key is refused with 401 on the other at once', async () => {
    const management = { 'X-Management-Id': KEYS.managementId, 'X-Management-Token': KEYS.managementToken, 'Content-Type': 'application/json' };
    const made = await fetch(`${a.baseUrl}/management/v1/projects`, { method: 'POST', headers: management, body: JSON.stringify({ name: unique('short-lived') }) });
    const project = (await made.json()) as { id: string; server_side_key: { app_id: string; app_token: string } };
    const headers = { 'X-App-Id': project.server_side_key.app_id, 'X-App-Token': project.server_side_key.app_token };
    // Both instances have used the key, so both keep it for a few seconds.
    for (const instance of [a, b]) expect((await fetch(`${instance.baseUrl}/v1/customers?limit=1`, { headers })).status).toBe(200);
    expect((await fetch(`${a.baseUrl}/management/v1/projects/${project.id}`, { method: 'DELETE', headers: management })).status).toBe(204);
    for (const instance of [b, a]) {
      const refused = await fetch(`${instance.baseUrl}/v1/customers?limit=1`, { headers });
      expect({ status: refused.status, key: ((await refused.json()) as { key: string }).key }).toEqual({ status: 401, key: 'unauthorized' });
    }
  });

  test('when both servers stop and start again, then objects, counters and pending points are all still there', async () => {
    // A program whose paid orders earn points that activate in a week: pending now, pending after the restart.
    const program = await ok(a, 'POST', '/v1/loyalties', { name: unique('restart-club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    await ok(a, 'POST', `/v1/loyalties/${String(program.id)}/earning-rules`, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 25 }, pending_points: { period_type: 'DAY', period_value: 7 } },
    ]);
    const sourceId = unique('restart-member');
    const card = await ok(b, 'POST', `/v1/loyalties/${String(program.id)}/members`, { customer: { source_id: sourceId } });
    await ok(a, 'POST', '/v1/orders', { status: 'PAID', amount: 5000, customer: { source_id: sourceId } });
    const campaign = await ok(b, 'POST', '/v1/campaigns', {
      name: unique('restart'),
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 3,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 }, redemption: { quantity: 5 } },
    });
    const codes = ((await ok(a, 'GET', `/v1/vouchers?campaign_id=${String(campaign.id)}&limit=10`)).vouchers as { code: string }[]).map((voucher) => voucher.code);
    await ok(b, 'POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: codes[0] }], order: { amount: 2000 } });
    const before = {
      campaign: await ok(a, 'GET', `/v1/campaigns/${String(campaign.id)}`),
      voucher: await ok(a, 'GET', `/v1/vouchers/${codes[0]!}`),
      pending: await ok(a, 'GET', `/v1/loyalties/members/${String(card.code)}/pending-points`),
      customer: await ok(a, 'GET', `/v1/customers/${sourceId}`),
    };
    expect((before.pending.data as unknown[]).length).toBe(1);

    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
    a = await servers.start();
    b = await servers.start();

    expect(await ok(b, 'GET', `/v1/campaigns/${String(campaign.id)}`)).toEqual(before.campaign);
    expect(await ok(a, 'GET', `/v1/vouchers/${codes[0]!}`)).toEqual(before.voucher);
    expect(await ok(b, 'GET', `/v1/loyalties/members/${String(card.code)}/pending-points`)).toEqual(before.pending);
    expect(await ok(a, 'GET', `/v1/customers/${sourceId}`)).toEqual(before.customer);
    expect(before.voucher.redemption).toMatchObject({ redeemed_quantity: 1 });
    // Counting goes on from where it was.
    await ok(a, 'POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: codes[0] }], order: { amount: 2000 } });
    expect((await ok(b, 'GET', `/v1/vouchers/${codes[0]!}`)).redemption).toMatchObject({ redeemed_quantity: 2 });
  });
});

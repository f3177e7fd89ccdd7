/**
 * Two server processes on one PostgreSQL database, as behind a load balancer: what a server used to keep in its
 * own memory (OAuth tokens, rate-limit counters, export files, background generation) is in the database, so either
 * instance serves what the other started, and a generation whose process is killed mid-way is taken over by the
 * other and ends with exactly the vouchers asked for. Needs `make build` first and TEST_DATABASE_URL (make test
 * gives both).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { deployment, KEYS, NO_DATABASE, type Deployment, type Instance } from '../instances/harness.js';

const withPostgres = NO_DATABASE ? test.skip : test;
if (NO_DATABASE) console.log(`Two instances on one database skipped: ${NO_DATABASE}`);

/** Failed authentications a minute per address, low enough to reach in a few requests. */
const FAILURES = 6;
const KEY = { 'X-App-Id': KEYS.appId, 'X-App-Token': KEYS.appToken };
const JSON_KEY = { ...KEY, 'Content-Type': 'application/json' };
const SETTINGS = {
  AUTH_FAILURES_PER_MINUTE: String(FAILURES),
  // A short lease, so that the test does not wait half a minute for a dead instance's job.
  JOB_LEASE_MS: '1500',
};

let servers: Deployment | undefined;
/** The instances still running. */
const live = new Set<Instance>();

async function start(): Promise<Instance> {
  const instance = await servers!.start(SETTINGS);
  live.add(instance);
  return instance;
}

/** Fails with the body when the status is not the one expected, so a refusal says why. */
async function expectStatus(response: Response, status: number): Promise<void> {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${await response.text()}`);
}

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let a: Instance;
let b: Instance;

beforeAll(async () => {
  if (NO_DATABASE) return;
  servers = await deployment();
  // One after the other: the first makes the layout, the second finds it.
  a = await start();
  b = await start();
}, 60_000);

afterAll(async () => {
  await servers?.close();
});

describe('two instances on one database', () => {
  withPostgres('when a token is obtained on one instance, then it works on the other, and revoked there it ends on both', async () => {
    const form = { ...KEY, 'Content-Type': 'application/x-www-form-urlencoded' };
    const minted = await fetch(`${a.baseUrl}/v1/oauth/token`, { method: 'POST', headers: form, body: 'grant_type=client_credentials&scope=api' });
    await expectStatus(minted, 200);
    const { access_token: token } = await json<{ access_token: string }>(minted);
    const bearer = { Authorization: `Bearer ${token}` };
    expect((await fetch(`${b.baseUrl}/v1/products`, { headers: bearer })).status).toBe(200);
    const introspected = await fetch(`${b.baseUrl}/v1/oauth/introspect`, { method: 'POST', headers: form, body: `access_token=${token}` });
    expect(await json(introspected)).toMatchObject({ active: true, scope: 'api', client_id: KEYS.appId });
    expect((await fetch(`${b.baseUrl}/v1/oauth/token/revoke`, { method: 'POST', headers: form, body: `access_token=${token}` })).status).toBe(204);
    expect((await fetch(`${a.baseUrl}/v1/products`, { headers: bearer })).status).toBe(401);
    const after = await fetch(`${a.baseUrl}/v1/oauth/introspect`, { method: 'POST', headers: form, body: `access_token=${token}` });
    expect(await json(after)).toEqual({ active: false });
  });

  withPostgres('when an export is made on one instance, then the other serves its file', async () => {
    const campaign = await fetch(`${a.baseUrl}/v1/campaigns`, {
      method: 'POST',
      headers: JSON_KEY,
      body: JSON.stringify({
        name: 'exported',
        type: 'STATIC',
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, code_config: { prefix: 'EXPORTED-', length: 8 } },
        vouchers_count: 40,
      }),
    });
    await expectStatus(campaign, 200);
    const made = await fetch(`${a.baseUrl}/v1/exports`, {
      method: 'POST',
      headers: JSON_KEY,
      body: JSON.stringify({ exported_object: 'voucher', parameters: { fields: ['code', 'campaign_id'], filters: { code: { conditions: { $starts_with: 'EXPORTED-' } } } } }),
    });
    await expectStatus(made, 200);
    const { id } = await json<{ id: string }>(made);
    const done = await until(
      'the export',
      async () => json<{ status: string; result: { url: string } | null }>(await fetch(`${b.baseUrl}/v1/exports/${id}`, { headers: KEY })),
      (record) => record.status === 'DONE' || record.status === 'ERROR',
    );
    expect(done.status).toBe('DONE');
    // The address names the instance that made it; the other must serve it all the same (a load balancer's choice).
    const path = new URL(done.result!.url);
    const files = [];
    for (const instance of [b, a]) {
      const file = await fetch(`${instance.baseUrl}${path.pathname}${path.search}`, { headers: KEY });
      await expectStatus(file, 200);
      files.push(await file.text());
    }
    expect(files[0]).toBe(files[1]);
    const lines = files[0]!.trim().split('\n');
    expect(lines[0]).toBe('code,campaign_id');
    expect(lines).toHaveLength(41);
  });

  withPostgres('when the instance generating vouchers is killed mid-way, then the other takes the job over and makes exactly the count asked for', async () => {
    const count = 12_000;
    const campaign = await fetch(`${a.baseUrl}/v1/campaigns`, {
      method: 'POST',
      headers: JSON_KEY,
      body: JSON.stringify({ name: 'resumed', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, code_config: { length: 10 } } }),
    });
    await expectStatus(campaign, 200);
    const { id: campaignId } = await json<{ id: string }>(campaign);
    const started = await fetch(`${a.baseUrl}/v1/campaigns/${campaignId}/vouchers?vouchers_count=${count}`, { method: 'POST', headers: JSON_KEY, body: '{}' });
    await expectStatus(started, 202);
    const { async_action_id: actionId } = await json<{ async_action_id: string }>(started);
    const action = async () => json<{ status: string; progress: number; result: { done_count?: number } | null }>(await fetch(`${b.baseUrl}/v1/async-actions/${actionId}`, { headers: KEY }));
    const midway = await until('the generation to start', action, (state) => state.progress > 0 || state.status !== 'IN_PROGRESS');
    expect(midway.status).toBe('IN_PROGRESS');
    await a.stop('SIGKILL');
    live.delete(a);
    const before = await json<{ vouchers_count: number }>(await fetch(`${b.baseUrl}/v1/campaigns/${campaignId}`, { headers: KEY }));
    console.log(`killed the generating instance with ${before.vouchers_count} of ${count} vouchers made (progress ${midway.progress}%)`);
    expect(before.vouchers_count).toBeLessThan(count);
    const finished = await until('the generation to end on the other instance', action, (state) => state.status !== 'IN_PROGRESS', 120_000);
    expect(finished).toMatchObject({ status: 'DONE', progress: 100, result: { done_count: count } });
    const after = await json<{ vouchers_count: number; vouchers_generation_status: string }>(await fetch(`${b.baseUrl}/v1/campaigns/${campaignId}`, { headers: KEY }));
    expect(after).toMatchObject({ vouchers_count: count, vouchers_generation_status: 'DONE' });
  }, 180_000);

  // Last: it locks this address out of both instances for the rest of the minute.
  withPostgres('when failed authentications alternate between the instances, then both count them and the address is locked out of both', async () => {
    if (live.size < 2) await start();
    const second = [...live];
    const wrong = { ...KEY, 'X-App-Token': 'wrong' };
    const left: number[] = [];
    for (let i = 0; ; i++) {
      const response = await fetch(`${second[i % 2]!.baseUrl}/v1/products`, { headers: wrong });
      if (response.status === 429) break;
      await expectStatus(response, 401);
      left.push(Number(/r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1]));
      expect(i).toBeLessThan(FAILURES);
    }
    // One count for both: each failure, whichever instance saw it, leaves one fewer.
    expect(left.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < left.length; i++) expect(left[i]).toBe(left[i - 1]! - 1);
    expect(left.at(-1)).toBe(0);
    for (const instance of second.slice(0, 2)) expect((await fetch(`${instance.baseUrl}/v1/products`, { headers: KEY })).status).toBe(429);
  }, 60_000);
});

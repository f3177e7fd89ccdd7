/**
 * Memory the server keeps per project must stay bounded under what careless integrators do: upserting the
 * same customer on every visit, and years of traffic filling the event log. Runs an in-process server over
 * HTTP; heap figures are printed, and held only to generous bounds.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { listen, secret } from '../contract/target.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function heapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

const PROJECT = 'proj_memory';
const credentials = { appId: `app-${secret()}`, appToken: secret() };
let server: Server;
let baseUrl: string;
let store: MemoryStore<typeof SCHEMA>;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'X-App-Id': credentials.appId, 'X-App-Token': credentials.appToken, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const eventCount = () => store.transaction(PROJECT, async (uow) => (await uow.events.query({ limit: 0 })).total);

describe('bounded memory', () => {
  beforeAll(async () => {
    store = new MemoryStore(SCHEMA);
    const app = await createApp({
      store,
      clock: systemClock,
      apiKeys: [{ name: 'memory', ...credentials, projectId: PROJECT }],
      validateResponses: false,
      eventRetention: 300,
    });
    ({ server, baseUrl } = await listen(app));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('when the same customer is upserted 5000 times, then no event is recorded, updated_at stays and the heap barely grows', async () => {
    const same = { source_id: 'visitor-1', name: 'Jane Doe', email: 'jane@example.com', address: { city: 'Warsaw' }, metadata: { tier: 'gold' } };
    const first = await call('POST', '/v1/customers', same);
    expect(first.status).toBe(200);
    // Warm up the path, so that what follows measures storage more than the code V8 compiles on the way.
    for (let i = 0; i < 1000; i++) await call('POST', '/v1/customers', same);
    const events = await eventCount();
    const before = await heapUsed();
    // (No expect in the loop: Jest keeps a little of each call, which would count as the server's.)
    let failed = 0;
    for (let i = 0; i < 5000; i++) if ((await call('POST', '/v1/customers', same)).status !== 200) failed++;
    const grown = (await heapUsed()) - before;
    expect(failed).toBe(0);
    const recorded = (await eventCount()) - events;
    console.log(`5000 upserts of an unchanged customer: heap grew ${(grown / 1024).toFixed(0)} KB, ${recorded} events recorded`);
    expect(recorded).toBe(0);
    const after = await call('GET', '/v1/customers/visitor-1');
    expect(after.body).toMatchObject({ id: first.body.id, updated_at: null });
    const activity = await call('GET', `/v1/customers/${first.body.id}/activity`);
    expect(activity.body.data.map((entry: { type: string }) => entry.type)).toEqual(['customer.created']);
    // The log used to hold every upsert as an event, about 1 KB each: 5 MB here. What is left is mostly code V8
    // compiled meanwhile (a heap snapshot shows no data kept per request).
    expect(grown).toBeLessThan(3 * 1024 * 1024);
    // A real change is still an update, recorded once.
    const changed = await call('POST', '/v1/customers', { ...same, name: 'Jane Smith' });
    expect(changed.body).toMatchObject({ name: 'Jane Smith', updated_at: expect.any(String) });
    expect((await eventCount()) - events).toBe(1);
  }, 60_000);

  test('when a project records more events than it keeps, then the oldest go and counters and summaries stay', async () => {
    const campaign = await call('POST', '/v1/campaigns', {
      name: `Kept counts ${secret()}`,
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 3,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    });
    expect(campaign.status).toBe(200);
    const vouchers = await call('GET', `/v1/vouchers?campaign_id=${campaign.body.id}`);
    const code = vouchers.body.vouchers[0].code as string;
    expect((await call('POST', '/v1/redemptions', { redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 } })).status).toBe(200);
    const summary = async () => {
      const { body } = await call('GET', `/v1/campaigns/${campaign.body.id}/summary`);
      return { vouchers_created: body.vouchers_created, redemptions: body.redemptions, orders_amount: body.orders_amount, discounted_amount: body.discounted_amount };
    };
    const counted = await summary();
    expect(counted).toEqual({ vouchers_created: 3, redemptions: 1, orders_amount: 5000, discounted_amount: 100 });
    const early = await call('POST', '/v1/customers', { source_id: `early-${secret()}` });
    // Enough new customers to push every earlier event out of the log (it keeps 300 here).
    for (let i = 0; i < 400; i++) await call('POST', '/v1/customers', { source_id: `filler-${i}-${secret()}` });
    expect(await eventCount()).toBe(300);
    expect(await summary()).toEqual(counted);
    const activity = await call('GET', `/v1/customers/${early.body.id}/activity`);
    expect(activity.body.data).toEqual([]);
  }, 60_000);
});

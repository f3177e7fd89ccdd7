/**
 * One project must not starve another. A project with 50 000 customers lists them from several connections
 * at once, page after page, and then with a filter that makes every call scan the whole table, while another
 * project's simple reads are timed against the busy calls' own: while pages are served, a quiet read waits
 * no longer than a busy page; while scans run, it waits a fraction of a scan (scans run in one go made it
 * wait as long as the busy ones). Only ratios are asserted, which hold on a slow or shared machine; the
 * figures are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Server } from 'node:http';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { upsertCustomer } from '../../server/domain/customers.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { listen, secret } from '../contract/target.js';

const CUSTOMERS = 50_000;
const BUSY = { appId: `app-${secret()}`, appToken: secret(), projectId: 'proj_busy' };
const QUIET = { appId: `app-${secret()}`, appToken: secret(), projectId: 'proj_quiet' };
const READ = '/v1/customers/quiet-1';

let server: Server;
let baseUrl: string;

async function get(key: typeof BUSY, path: string): Promise<number> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'X-App-Id': key.appId, 'X-App-Token': key.appToken } });
  await response.arrayBuffer();
  return response.status;
}

/** Median milliseconds of up to `count` sequential reads by the quiet project, taken within `budgetMs`. */
async function quietMedian(count: number, budgetMs: number): Promise<number> {
  const times: number[] = [];
  const deadline = performance.now() + budgetMs;
  while (times.length < count && performance.now() < deadline) {
    const started = performance.now();
    if ((await get(QUIET, READ)) !== 200) throw new Error('the quiet read failed');
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** The quiet project's median, and the busy calls' own, while `connections` loops of the busy project call `path(i)`. */
async function underLoad(connections: number, path: (call: number) => string): Promise<{ median: number; busy: number; calls: number; refused: number }> {
  let running = true;
  let calls = 0;
  let refused = 0;
  const busyTimes: number[] = [];
  const loop = async (offset: number) => {
    for (let call = offset; running; call++) {
      const started = performance.now();
      if ((await get(BUSY, path(call))) === 200) calls++;
      else refused++;
      busyTimes.push(performance.now() - started);
    }
  };
  const loops = Array.from({ length: connections }, (_, i) => loop(i * 60));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const median = await quietMedian(150, 15_000);
  running = false;
  await Promise.all(loops);
  busyTimes.sort((a, b) => a - b);
  return { median, busy: busyTimes[Math.floor(busyTimes.length / 2)] ?? Infinity, calls, refused };
}

describe('fairness between projects', () => {
  beforeAll(async () => {
    const store = new MemoryStore(SCHEMA);
    const app = await createApp({
      store,
      clock: systemClock,
      apiKeys: [
        { name: 'busy', ...BUSY },
        { name: 'quiet', ...QUIET },
      ],
      validateResponses: false,
    });
    for (let i = 0; i < CUSTOMERS; i += 1000) {
      await store.transaction(BUSY.projectId, async (uow) => {
        for (let j = i; j < i + 1000; j++) await upsertCustomer({ uow, clock: systemClock }, { source_id: `busy-${j}`, name: `Customer ${j}`, email: `c${j}@example.com` });
      });
    }
    await store.transaction(QUIET.projectId, (uow) => upsertCustomer({ uow, clock: systemClock }, { source_id: 'quiet-1', name: 'Quiet' }));
    ({ server, baseUrl } = await listen(app));
    for (let i = 0; i < 50; i++) await get(QUIET, READ);
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('when one project pages through 50 000 customers, or scans them all, from many connections, then another still gets its reads at once', async () => {
    const idle = await quietMedian(150, 10_000);
    const pages = CUSTOMERS / 100;
    const paging = await underLoad(8, (call) => `/v1/customers?limit=100&page=${(call % pages) + 1}`);
    const scanning = await underLoad(16, () => '/v1/customers?limit=100&name=nobody');
    const line = (name: string, load: { median: number; busy: number; calls: number; refused: number }) =>
      `${load.median.toFixed(2)} ms while the other ${name} (${load.calls} calls${load.refused ? `, ${load.refused} refused` : ''}, median ${load.busy.toFixed(2)} ms)`;
    console.log(
      `quiet project's GET median: ${idle.toFixed(2)} ms idle; ${line('paged through its customers from 8 connections', paging)}; ` +
        line('scanned them all with a filter from 16 connections', scanning),
    );
    expect(paging.calls).toBeGreaterThan(0);
    expect(scanning.calls).toBeGreaterThan(0);
    // Cheap pages are served in turn, the quiet read among them: it waits no longer than a busy call does.
    // A scan is long: a quiet read waits for slices of the scans in flight, not for whole scans.
    expect(paging.median).toBeLessThan(paging.busy * 1.5);
    expect(scanning.median).toBeLessThan(scanning.busy / 2);
  }, 90_000);
});

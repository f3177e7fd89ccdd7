/**
 * Rate limits whose counters live in PostgreSQL (server/http/rate-limit-postgres.ts): two apps sharing one
 * database stand for two server instances, and requests alternate between them. Each limit must hold across
 * both, with the same 429 headers as with counters in memory (tests/contract/platform.test.ts). Runs when
 * TEST_DATABASE_URL is set.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createApp, type AppOptions } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { postgresRateLimits, type SharedRateLimits } from '../../server/http/rate-limit-postgres.js';
import { MemoryStore } from '../../server/store/memory.js';
import { freshDatabase } from './store/factories.js';

const postgresUrl = process.env.TEST_DATABASE_URL;
const withPostgres = postgresUrl ? test : test.skip;
if (!postgresUrl) console.log('Rate limits in PostgreSQL skipped: TEST_DATABASE_URL is not set.');

const key = { name: 'limited', appId: 'app-limited', appToken: 'token-limited', projectId: 'proj_limited' };
const withKey = { 'X-App-Id': key.appId, 'X-App-Token': key.appToken };

let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
const opened: SharedRateLimits[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  if (postgresUrl) database = await freshDatabase(postgresUrl);
});

afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  for (const counters of opened) await counters.close();
  await database?.drop();
});

/** Two instances with the given limits, counting in the same database (each with counters of its own pool). */
async function twoInstances(limits: Partial<AppOptions>): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < 2; i++) {
    const counters = await postgresRateLimits(database!.url);
    opened.push(counters);
    const app = await createApp({ store: new MemoryStore(SCHEMA), clock: systemClock, apiKeys: [key], validateResponses: false, rateLimitCounters: counters.store, ...limits });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  return urls;
}

function expectLimitHeaders(headers: Headers, name: string, quota: number, window: number) {
  expect(headers.get('retry-after')).toMatch(/^\d+$/);
  expect(Number(headers.get('retry-after'))).toBeLessThanOrEqual(window);
  expect(headers.get('ratelimit')).toMatch(new RegExp(`^"${name}"; r=0; t=\\d+$`));
  expect(headers.get('ratelimit-policy')).toMatch(new RegExp(`^"${name}"; q=${quota}; w=${window}; pk=:[^:]+:$`));
}

describe('rate limits counted in PostgreSQL', () => {
  withPostgres('when requests of one key alternate between two instances, then the limit counts them all', async () => {
    const urls = await twoInstances({ rateLimitPerMinute: 4 });
    const responses = [];
    for (let i = 0; i < 5; i++) responses.push(await fetch(`${urls[i % 2]}/v1/products`, { headers: withKey }));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 429]);
    expect(responses[1]!.headers.get('ratelimit')).toMatch(/^"requests"; r=2; t=\d+$/);
    expect(((await responses[4]!.json()) as { key: string }).key).toBe('too_many_requests');
    expectLimitHeaders(responses[4]!.headers, 'requests', 4, 60);
  });

  withPostgres('when failed authentications alternate between two instances, then the address is locked out on both', async () => {
    const urls = await twoInstances({ authFailuresPerMinute: 3 });
    const wrong = { ...withKey, 'X-App-Token': 'wrong' };
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${urls[i % 2]}/v1/products`, { headers: wrong })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    for (const url of urls) {
      const right = await fetch(`${url}/v1/products`, { headers: withKey });
      expect(right.status).toBe(429);
      expectLimitHeaders(right.headers, 'failed-authentication', 3, 60);
    }
  });

  withPostgres('when tokens are obtained from both instances, then the hourly limit counts them all', async () => {
    const urls = await twoInstances({ tokensPerHour: 2 });
    const ask = (url: string) =>
      fetch(`${url}/v1/oauth/token`, { method: 'POST', headers: { ...withKey, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&scope=api' });
    expect((await ask(urls[0]!)).status).toBe(200);
    expect((await ask(urls[1]!)).status).toBe(200);
    const over = await ask(urls[0]!);
    expect(over.status).toBe(429);
    expectLimitHeaders(over.headers, 'tokens', 2, 3600);
  });
});

import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createApp, type AppOptions } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { expectError, failed } from './expect-error.js';
import { because, clientFor, listen, raw, secret, skip, unique, useTarget } from './target.js';

const ctx = useTarget();

describe('authentication', () => {
  test('when credentials are missing, wrong or half given, then 401 unauthorized', async () => {
    const { appId, appToken } = ctx.target.credentials;
    for (const credentials of [null, { appId }, { appToken }, { appId, appToken: 'wrong' }, { appId: 'nobody', appToken }]) {
      expectError(await raw(ctx.target, 'GET', '/v1/products', { credentials }), 401, 'unauthorized');
    }
    const viaClient = await clientFor(ctx.target, { appId, appToken: `${appToken}x` }).GET('/v1/products');
    expectError(failed(viaClient), 401, 'unauthorized');
  });

  test('when credentials are wrong, then nothing is written', async () => {
    const sourceId = unique('unauthorized');
    const body = JSON.stringify({ source_id: sourceId });
    expectError(await raw(ctx.target, 'POST', '/v1/products', { body, credentials: null }), 401, 'unauthorized');
    const read = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: sourceId } } });
    expectError(failed(read), 404, 'not_found');
  });
});

describe('projects', () => {
  test("when one project's key asks for another project's data, then it is not there", async () => {
    const other = ctx.target.otherProject;
    if (!other) {
      return skip(because('otherProject'), ['get-product', 'update-product', 'delete-product', 'list-products']);
    }
    const mine = await ctx.client.POST('/v1/products', { body: { source_id: unique('isolated'), name: unique('Mine') } });
    const product = mine.data!;
    const theirs = clientFor(ctx.target, other);
    const path = { productId: product.id };
    expectError(failed(await theirs.GET('/v1/products/{productId}', { params: { path } })), 404, 'not_found');
    expectError(failed(await theirs.PUT('/v1/products/{productId}', { params: { path }, body: { price: 1 } })), 404, 'not_found');
    expectError(failed(await theirs.DELETE('/v1/products/{productId}', { params: { path } })), 404, 'not_found');
    const list = await theirs.GET('/v1/products', { params: { query: { limit: 100 } } });
    expect(list.data?.products.map((p) => p.id)).not.toContain(product.id);
    // The same source_id and name are free in the other project.
    const twin = await theirs.POST('/v1/products', { body: { source_id: product.source_id, name: product.name } });
    expect(twin.response.status).toBe(200);
    const still = await ctx.client.GET('/v1/products/{productId}', { params: { path } });
    expect(still.data).toMatchObject({ id: product.id, price: null });
  });
});

describe('routing and media types', () => {
  test('when the path has no operation, then 404 route_not_found; when the method is wrong, then 405', async () => {
    expectError(await raw(ctx.target, 'GET', '/v1/no-such-thing'), 404, 'route_not_found');
    expectError(await raw(ctx.target, 'PATCH', '/v1/products/prod_x', { body: '{}' }), 405, 'method_not_allowed');
  });

  test('when a GET is repeated with conditional headers (If-None-Match, If-Modified-Since), then it answers 200 with the body: the contract documents no 304', async () => {
    // node:http, not fetch: fetch adds `Cache-Control: no-cache` to a conditional request, which hides a 304.
    const get = (extra: Record<string, string>) =>
      new Promise<{ status: number; etag: string | undefined; body: string }>((resolve, reject) => {
        const headers = { 'X-App-Id': ctx.target.credentials.appId, 'X-App-Token': ctx.target.credentials.appToken, ...extra };
        const request = httpGet(`${ctx.target.baseUrl}/v1/vouchers?limit=1`, { headers }, (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, etag: response.headers.etag, body }));
        });
        request.on('error', reject);
      });
    const first = await get({});
    expect(first.status).toBe(200);
    for (const conditions of <Record<string, string>[]>[{ 'If-None-Match': first.etag ?? 'W/"none"' }, { 'If-None-Match': '*' }, { 'If-Modified-Since': new Date(Date.now() + 86_400_000).toUTCString() }]) {
      const again = await get(conditions);
      expect(again.status).toBe(200);
      expect(JSON.parse(again.body)).toEqual(JSON.parse(first.body));
    }
  });

  test("when a query value holds characters clients leave unencoded (a space as '+', !'()*), then it is read as meant", async () => {
    const name = `O'Brien (VIP)! ${unique('q')}*`;
    const made = (await ctx.client.POST('/v1/customers', { body: { name } })).data!;
    const typed = await ctx.client.GET('/v1/customers', { params: { query: { name } } });
    expect(typed.data?.customers.map((customer) => customer.id)).toEqual([made.id]);
    const form = await raw(ctx.target, 'GET', `/v1/customers?${new URLSearchParams({ name }).toString()}`);
    expect((form.body as { customers: { id: string }[] }).customers.map((customer) => customer.id)).toEqual([made.id]);
  });
});

describe('published contract and docs', () => {
  test('when /openapi.json is fetched, then it is the bundled contract', async () => {
    const response = await fetch(`${ctx.target.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const served = (await response.json()) as { openapi: string; paths: object };
    expect(served.openapi).toMatch(/^3\.1\./);
    if (ctx.target.inProcess) expect(served).toEqual(JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')));
  });

  test('when /docs is fetched, then the rendered reference names every operation', async () => {
    if (!ctx.target.inProcess) return skip(`/docs is part of the reference server, not of the interface: ${because('inProcess')}`);
    const response = await fetch(`${ctx.target.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    const html = await response.text();
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(contract.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation.operationId ? [operation.operationId] : [])),
    );
    expect(operationIds.length).toBeGreaterThan(10);
    for (const operationId of operationIds) expect(html).toContain(operationId);
  });
});

describe('rate limit', () => {
  /** A server of its own with the given limits, for `run`; closed afterwards. */
  async function limitedServer(limits: Partial<AppOptions>, run: (baseUrl: string, key: { appId: string; appToken: string }) => Promise<void>) {
    const key = { appId: `app-${secret()}`, appToken: secret() };
    const management = { id: `mgmt-${secret()}`, token: secret() };
    const app = await createApp({
      store: new MemoryStore(SCHEMA),
      clock: systemClock,
      apiKeys: [{ name: 'limited', ...key, projectId: 'proj_limited' }],
      managementKey: management,
      validateResponses: true,
      ...limits,
    });
    const { server, baseUrl } = await listen(app);
    try {
      await run(baseUrl, key);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  const get = async (baseUrl: string, path: string, headers: Record<string, string>) => {
    const response = await fetch(`${baseUrl}${path}`, { headers });
    return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
  };
  const withKey = (key: { appId: string; appToken: string }) => ({ 'X-App-Id': key.appId, 'X-App-Token': key.appToken });

  /** Retry-After in whole seconds, and the IETF draft 8 RateLimit and RateLimit-Policy headers naming the limit. */
  function expectLimitHeaders(headers: Headers, name: string, quota: number, window: number) {
    expect(headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(headers.get('retry-after'))).toBeLessThanOrEqual(window);
    expect(headers.get('ratelimit')).toMatch(new RegExp(`^"${name}"; r=0; t=\\d+$`));
    expect(headers.get('ratelimit-policy')).toMatch(new RegExp(`^"${name}"; q=${quota}; w=${window}; pk=:[^:]+:$`));
  }

  test('when a key exceeds its rate, then 429 too_many_requests in the error shape, with Retry-After and RateLimit headers', async () => {
    await limitedServer({ rateLimitPerMinute: 3 }, async (baseUrl, key) => {
      const responses = [];
      for (let i = 0; i < 4; i++) responses.push(await get(baseUrl, '/v1/products', withKey(key)));
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 429]);
      expect(responses[0]!.headers.get('ratelimit')).toMatch(/^"requests"; r=2; t=\d+$/);
      expectError(responses[3]!, 429, 'too_many_requests');
      expectLimitHeaders(responses[3]!.headers, 'requests', 3, 60);
    });
  });

  test('when an address fails to authenticate too often, then 429 even with the right key, and successes never count', async () => {
    await limitedServer({ authFailuresPerMinute: 5 }, async (baseUrl, key) => {
      for (let i = 0; i < 20; i++) expect((await get(baseUrl, '/v1/products', withKey(key))).status).toBe(200);
      const wrong = { ...withKey(key), 'X-App-Token': 'wrong' };
      for (let left = 4; left >= 0; left--) {
        const failed = await get(baseUrl, '/v1/products', wrong);
        expectError(failed, 401, 'unauthorized');
        expect(failed.headers.get('ratelimit')).toMatch(new RegExp(`^"failed-authentication"; r=${left}; t=\\d+$`));
      }
      const over = await get(baseUrl, '/v1/products', wrong);
      expectError(over, 429, 'too_many_requests');
      expectLimitHeaders(over.headers, 'failed-authentication', 5, 60);
      // Locked out: the right key gets the same answer, so guessing cannot tell when it hit.
      const right = await get(baseUrl, '/v1/products', withKey(key));
      expectError(right, 429, 'too_many_requests');
      expectLimitHeaders(right.headers, 'failed-authentication', 5, 60);
      // The address is counted across the APIs.
      expectError(await get(baseUrl, '/management/v1/projects', { 'X-Management-Id': 'x', 'X-Management-Token': 'y' }), 429, 'too_many_requests');
      expectError(await get(baseUrl, '/v1/products', { Authorization: 'Bearer guessed' }), 429, 'too_many_requests');
    });
  });

  test('when no limit is configured, then failed authentication is still limited, at 50 a minute per address', async () => {
    await limitedServer({}, async (baseUrl) => {
      const statuses = [];
      for (let i = 0; i < 51; i++) statuses.push((await get(baseUrl, '/v1/products', { 'X-App-Id': 'nobody', 'X-App-Token': `guess-${i}` })).status);
      expect(statuses.slice(0, 50).every((status) => status === 401)).toBe(true);
      expect(statuses[50]).toBe(429);
    });
  });

  test('when a key obtains more tokens an hour than allowed, then 429 with the tokens limit named', async () => {
    await limitedServer({ tokensPerHour: 2 }, async (baseUrl, key) => {
      const ask = () =>
        fetch(`${baseUrl}/v1/oauth/token`, {
          method: 'POST',
          headers: { ...withKey(key), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&scope=api',
        }).then(async (response) => ({ status: response.status, headers: response.headers, body: (await response.json()) as unknown }));
      expect((await ask()).status).toBe(200);
      expect((await ask()).status).toBe(200);
      const over = await ask();
      expectError(over, 429, 'too_many_requests');
      expectLimitHeaders(over.headers, 'tokens', 2, 3600);
    });
  });
});

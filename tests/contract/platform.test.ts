import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { MemoryStore } from '../../server/store/memory.js';
import { expectError, failed } from './expect-error.js';
import { clientFor, listen, raw, secret, skip, unique, useTarget } from './target.js';

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
      return skip('the target has no second project (set CONTRACT_OTHER_APP_ID/TOKEN)', ['get-product', 'update-product', 'delete-product', 'list-products']);
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
    if (!ctx.target.inProcess) return skip('/docs is part of the reference server, not of the interface');
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
  test('when a key exceeds its rate, then 429 too_many_requests in the error shape', async () => {
    const credentials = { appId: `app-${secret()}`, appToken: secret() };
    const app = await createApp({
      store: new MemoryStore(),
      clock: systemClock,
      apiKeys: [{ name: 'limited', ...credentials, projectId: 'proj_limited' }],
      validateResponses: true,
      rateLimitPerMinute: 3,
    });
    const { server, baseUrl } = await listen(app);
    try {
      const target = { ...ctx.target, baseUrl, credentials };
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await raw(target, 'GET', '/v1/products')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expectError(await raw(target, 'GET', '/v1/products'), 429, 'too_many_requests');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

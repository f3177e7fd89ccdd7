/**
 * The request path's shortcuts keep every outcome the long way gives: a request with no body reads as `{}`
 * without the parsers, a path under an API prefix goes straight to that part of the API (skipping the server's own endpoints), and the gate of failed
 * authentications passes at once when this process has counted no failure within the window. A unit of work
 * makes each of its tables at the table's first use, once.
 */
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import express, { type Request, type Response } from 'express';
import { apiOf } from '../../server/app.js';
import { readBody } from '../../server/http/body.js';
import { failedAuthenticationLimit } from '../../server/http/rate-limit.js';
import type { Row, Schema } from '../../server/store/schema.js';
import { lazyUnitOfWork, type Table } from '../../server/store/store.js';

async function serve(app: express.Express, run: (base: string) => Promise<void>): Promise<void> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  } finally {
    server.close();
  }
}

describe('reading a body', () => {
  const app = express();
  app.use((req, res, next) => {
    // As the validator leaves it: this operation takes a body.
    (req as Request & { openapi?: unknown }).openapi = { schema: { requestBody: {} } };
    let synchronous = true;
    readBody(req, res, (error?: unknown) => {
      if (error) return next(error);
      res.json({ body: req.body as unknown, synchronous });
    });
    synchronous = false;
  });
  app.use(((error, _req, res, _next) => {
    res.status((error as { status?: number }).status ?? 500).json({ error: String((error as Error).message) });
  }) as express.ErrorRequestHandler);

  test('when a request announces no body, then it reads as {} at once; when it announces one, then the parsers read it', async () => {
    await serve(app, async (base) => {
      expect(await (await fetch(`${base}/`)).json()).toEqual({ body: {}, synchronous: true });
      const posted = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Ann"}' });
      expect(await posted.json()).toEqual({ body: { name: 'Ann' }, synchronous: false });
      // An announced body of no bytes is read by the parsers too, and is no body.
      const empty = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '0' } });
      expect((await empty.json()) as unknown).toMatchObject({ body: {} });
      const broken = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
      expect(broken.status).toBe(400);
    });
  });
});

describe('the API prefixes', () => {
  test('a path is under one when it is the prefix or continues it with a slash, compared without case, and goes to that part of the API', () => {
    const parts = { '/v1': 'server', '/v1/': 'server', '/v1/vouchers': 'server', '/V1/Vouchers': 'server', '/v1/oauth/token': 'server', '/client/v1/events': 'client', '/CLIENT': 'client', '/management/v1/projects': 'management', '/assets/qr/x': 'assets' };
    for (const [path, part] of Object.entries(parts)) expect([path, apiOf(path)]).toEqual([path, part]);
    for (const path of ['/', '/v10/vouchers', '/v1x', '/healthz', '/metrics', '/openapi.json', '/docs', '/clients', '/x/v1', '/assetsx']) expect([path, apiOf(path)]).toEqual([path, undefined]);
  });
});

describe('the gate of failed authentications', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const appWith = (limit: ReturnType<typeof failedAuthenticationLimit>) => {
    const app = express();
    app.use(limit.gate);
    app.get('/', (req, res) => {
      if (req.headers.authorization === 'good') return void res.json({ ok: true });
      limit.failed(req, res, () => res.status(401).json({ ok: false }));
    });
    return app;
  };

  test('when this process has counted no failure, then the gate passes at once, without reading the address', () => {
    const { gate } = failedAuthenticationLimit(2);
    const next = jest.fn();
    // No socket and no headers: reading the client's address would throw.
    gate({} as Request, {} as Response, next);
    expect(next).toHaveBeenCalledWith();
  });

  test('when an address is over its limit, then it is turned away until a whole window has passed since its last failure', async () => {
    let now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    await serve(appWith(failedAuthenticationLimit(2)), async (base) => {
      expect((await fetch(`${base}/`)).status).toBe(401);
      expect((await fetch(`${base}/`)).status).toBe(401);
      // Over the limit: even a good key is turned away by the gate.
      expect((await fetch(`${base}/`, { headers: { authorization: 'good' } })).status).toBe(429);
      now += 59_000;
      expect((await fetch(`${base}/`, { headers: { authorization: 'good' } })).status).toBe(429);
      now += 2_000;
      expect((await fetch(`${base}/`, { headers: { authorization: 'good' } })).status).toBe(200);
    });
  });

  test('when the counters are shared by instances, then the gate always asks them: failures counted elsewhere turn an address away', async () => {
    // What other instances counted for any address.
    let elsewhere = 0;
    const counted = () => ({ totalHits: elsewhere, resetTime: new Date(Date.now() + 60_000) });
    const store = {
      init: () => undefined,
      get: async () => (elsewhere > 0 ? counted() : undefined),
      increment: async () => (elsewhere++, counted()),
      decrement: async () => undefined,
      resetKey: async () => undefined,
    };
    await serve(appWith(failedAuthenticationLimit(2, () => store)), async (base) => {
      expect((await fetch(`${base}/`, { headers: { authorization: 'good' } })).status).toBe(200);
      elsewhere = 2;
      expect((await fetch(`${base}/`, { headers: { authorization: 'good' } })).status).toBe(429);
    });
  });
});

describe('a unit of work made table by table', () => {
  test('each table is made at its first use, once per unit of work, from that unit\'s own state; every table name is listed', () => {
    const schema = { vouchers: {}, customers: {}, orders: {} } as unknown as Schema;
    const made: string[] = [];
    const unitOfWork = lazyUnitOfWork<Schema, { unit: number }>(schema, (state, name) => {
      made.push(`${state.unit}:${name}`);
      return { unit: state.unit, name } as unknown as Table<Row>;
    });
    const first = unitOfWork({ unit: 1 }) as unknown as Record<string, { unit: number; name: string }>;
    const second = unitOfWork({ unit: 2 }) as unknown as Record<string, { unit: number; name: string }>;
    expect(made).toEqual([]);
    expect(first.customers).toEqual({ unit: 1, name: 'customers' });
    expect(first.customers).toBe(first.customers);
    expect(first.vouchers).toEqual({ unit: 1, name: 'vouchers' });
    expect(second.customers).toEqual({ unit: 2, name: 'customers' });
    expect(second.customers).not.toBe(first.customers);
    expect(made).toEqual(['1:customers', '1:vouchers', '2:customers']);
    const names: string[] = [];
    for (const name in first) if (name in schema) names.push(name);
    expect(names).toEqual(['vouchers', 'customers', 'orders']);
  });
});

/**
 * What an operator of a shared sandbox sees: a JSON log line per request, health and readiness probes, and
 * Prometheus metrics. In-process servers with their log captured, and one spawned server (`dist/server/main.js`,
 * so `make build` first) for the process's own log and its readiness while it stops.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import express from 'express';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createApp, stopServing, type AppOptions } from '../../server/app.js';
import { configFromEnv, demoCredentials } from '../../server/config.js';
import { systemClock } from '../../server/domain/clock.js';
import { createLogger, requestLogging, type LogFormat, type LogLevel } from '../../server/http/logging.js';
import { requestId } from '../../server/http/request-id.js';
import { nameOperation } from '../../server/http/request-facts.js';
import { Jobs } from '../../server/jobs.js';
import { packageRoot } from '../../server/paths.js';
import { MemoryStore } from '../../server/store/memory.js';
import { listen, secret, TEST_WEBHOOKS } from '../contract/target.js';
import { eventually, startReceiver } from '../contract/webhook-receiver.js';
import { SCHEMA } from '../../server/domain/schema.js';

const PROJECT = 'proj_ops';
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A store whose every answer can be made to fail, as a lost database would. */
class BreakableStore extends MemoryStore<typeof SCHEMA> {
  broken = false;
  override async hasProject(projectId: string): Promise<boolean> {
    if (this.broken) throw new Error('the disk is gone');
    return super.hasProject(projectId);
  }
}

interface Running {
  baseUrl: string;
  key: Record<string, string>;
  management: Record<string, string>;
  jobs: Jobs;
  store: BreakableStore;
  app: Awaited<ReturnType<typeof createApp>>;
  /** Every line the app's logger wrote. */
  lines: string[];
}

/** A logger at this level and format, whose lines land in `lines`. */
async function capturedLogger(level: LogLevel, format: LogFormat, lines: string[]) {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return createLogger({ level, format }, destination);
}

async function start(options: Partial<AppOptions> = {}): Promise<Running> {
  const lines: string[] = [];
  const logger = await capturedLogger('info', 'json', lines);
  const appId = `app-${secret()}`;
  const appToken = secret();
  const managementKey = { id: `mgmt-${secret()}`, token: secret() };
  const jobs = new Jobs();
  const store = new BreakableStore(SCHEMA);
  const app = await createApp({
    store,
    clock: systemClock,
    apiKeys: [{ name: 'ops', appId, appToken, projectId: PROJECT }],
    validateResponses: true,
    managementKey,
    jobs,
    logger,
    ...options,
  });
  const { server, baseUrl } = await listen(app);
  cleanups.push(async () => {
    await new Promise<void>((resolve) => (server as Server).close(() => resolve()));
    await jobs.shutdown();
  });
  return {
    baseUrl,
    key: { 'X-App-Id': appId, 'X-App-Token': appToken, 'Content-Type': 'application/json' },
    management: { 'X-Management-Id': managementKey.id, 'X-Management-Token': managementKey.token, 'Content-Type': 'application/json' },
    jobs,
    store,
    app,
    lines,
  };
}

interface LogLine {
  level: number;
  request_id?: string;
  method?: string;
  path?: string;
  operation?: string | null;
  project?: string | null;
  status?: number;
  duration_ms?: number;
  msg: string;
}

/** The request lines written so far, parsed; every line must be one JSON object. */
function requestLines(lines: string[]): LogLine[] {
  return lines.map((line) => JSON.parse(line) as LogLine).filter((line) => line.request_id !== undefined);
}

describe('request log', () => {
  test('when requests are answered, then each writes one JSON line with its request ID, operation, project, status and duration', async () => {
    const server = await start();
    const listed = await fetch(`${server.baseUrl}/v1/vouchers?limit=5&code=SECRET-CODE`, { headers: server.key });
    expect(listed.status).toBe(200);
    const missing = await fetch(`${server.baseUrl}/v1/vouchers/NO-SUCH-CODE`, { headers: server.key });
    expect(missing.status).toBe(404);
    const refused = await fetch(`${server.baseUrl}/v1/vouchers`, { headers: { 'X-App-Id': 'nobody', 'X-App-Token': 'wrong' } });
    expect(refused.status).toBe(401);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);

    const lines = await eventually(() => (requestLines(server.lines).length >= 3 ? requestLines(server.lines) : undefined));
    console.log(`request log lines:\n${server.lines.join('')}`);
    expect(lines.map(({ method, path, operation, project, status }) => ({ method, path, operation, project, status }))).toEqual([
      { method: 'GET', path: '/v1/vouchers', operation: 'list-vouchers', project: PROJECT, status: 200 },
      { method: 'GET', path: '/v1/vouchers/NO-SUCH-CODE', operation: 'get-voucher', project: PROJECT, status: 404 },
      // Refused before its operation or project was known: both fields are there, and null.
      { method: 'GET', path: '/v1/vouchers', operation: null, project: null, status: 401 },
    ]);
    // The request ID is the one the error body names, so a client's report leads to its line.
    expect(lines[1]!.request_id).toBe(((await missing.json()) as { request_id: string }).request_id);
    expect(lines[2]!.request_id).toBe(((await refused.json()) as { request_id: string }).request_id);
    expect(new Set(lines.map((line) => line.request_id)).size).toBe(3);
    expect(lines.every((line) => typeof line.duration_ms === 'number' && line.duration_ms >= 0)).toBe(true);
    expect(lines.map((line) => line.level)).toEqual([30, 30, 30]);
    // No query string (customers' data) and no key in any line; the health probe is written only at debug.
    const written = server.lines.join('');
    expect(written).not.toContain('SECRET-CODE');
    expect(written).not.toContain(server.key['X-App-Token']);
    expect(written).not.toContain('/healthz');
  });

  /**
   * The request log alone, in front of two routes that stand for an operation of a project and for a probe:
   * levels and formats are the logger's business, not the whole server's, so no contract is loaded for them.
   */
  async function logged(level: LogLevel, format: LogFormat) {
    const lines: string[] = [];
    const app = express();
    app.use(requestId, requestLogging(await capturedLogger(level, format, lines)));
    app.get('/healthz', nameOperation('healthz'), (_req, res) => void res.json({ status: 'ok' }));
    app.get('/v1/vouchers', nameOperation('list-vouchers'), (req, res) => {
      res.locals.context = { ...(res.locals.context as object), projectId: PROJECT };
      res.status(Number(req.query.status ?? 200)).json({});
    });
    const { server, baseUrl } = await listen(app);
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { baseUrl, lines };
  }

  test('when the level is warn, then answered requests write nothing but a 5xx does, and at debug the probes write too', async () => {
    const quiet = await logged('warn', 'json');
    expect((await fetch(`${quiet.baseUrl}/v1/vouchers`)).status).toBe(200);
    expect((await fetch(`${quiet.baseUrl}/v1/vouchers?status=404`)).status).toBe(404);
    expect((await fetch(`${quiet.baseUrl}/v1/vouchers?status=503`)).status).toBe(503);
    const failed = await eventually(() => requestLines(quiet.lines)[0]);
    expect(failed).toMatchObject({ level: 50, status: 503, operation: 'list-vouchers' });
    const chatty = await logged('debug', 'json');
    expect((await fetch(`${chatty.baseUrl}/healthz`)).status).toBe(200);
    const probe = await eventually(() => requestLines(chatty.lines).find((line) => line.operation === 'healthz'));
    expect(probe).toMatchObject({ level: 20, path: '/healthz', status: 200 });
    expect(requestLines(quiet.lines)).toHaveLength(1);
  });

  test('when the format is pretty, then a request writes one readable line', async () => {
    const server = await logged('info', 'pretty');
    expect((await fetch(`${server.baseUrl}/v1/vouchers`)).status).toBe(200);
    const line = await eventually(() => server.lines.find((text) => text.includes('GET /v1/vouchers 200')));
    console.log(`pretty line: ${line.trim()}`);
    expect(line).toMatch(/ INFO: GET \/v1\/vouchers 200 list-vouchers proj_ops [\d.]+ ms \[v-[0-9a-f]+\]\n$/);
  });

  test('when LOG_LEVEL or LOG_FORMAT is not one the server knows, then it refuses to start and says which values are', () => {
    expect(() => configFromEnv({ LOG_LEVEL: 'loud' })).toThrow("LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'");
    expect(() => configFromEnv({ LOG_FORMAT: 'xml' })).toThrow("LOG_FORMAT must be one of json, pretty, got 'xml'");
    expect(configFromEnv({})).toMatchObject({ logLevel: 'info', logFormat: 'json', metricsToken: undefined });
  });
});

describe('the try-it page', () => {
  test('when the server runs with demo keys, then the page starts with them; keys from the environment never reach it', () => {
    expect(demoCredentials(configFromEnv({}))).toEqual({
      'X-App-Id': 'demo-app-id',
      'X-App-Token': 'demo-app-token',
      'X-Management-Id': 'demo-management-id',
      'X-Management-Token': 'demo-management-token',
      'X-Client-Application-Id': 'demo-client-app-id',
      'X-Client-Token': 'demo-client-token',
    });
    // Half a pair set is no demo key: neither half is shown.
    const own = demoCredentials(configFromEnv({ APP_ID: 'shop-app', MANAGEMENT_ID: 'ops', MANAGEMENT_TOKEN: 'ops-secret', CLIENT_TOKEN: 'client-secret' }));
    expect(own).toEqual({});
  });
});

describe('health', () => {
  test('when the server runs, then /healthz and /readyz answer 200 without a key; when it stops or its store fails, then /readyz answers 503 and /healthz still 200', async () => {
    const server = await start();
    const probe = async (path: string) => {
      const response = await fetch(`${server.baseUrl}${path}`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await probe('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await probe('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });

    server.store.broken = true;
    const storeDown = await probe('/readyz');
    expect(storeDown).toMatchObject({ status: 503, body: { code: 503, key: 'not_ready', details: 'The store failed: the disk is gone' } });
    expect(typeof storeDown.body.request_id).toBe('string');
    server.store.broken = false;
    expect((await probe('/readyz')).status).toBe(200);

    stopServing(server.app);
    expect(await probe('/readyz')).toMatchObject({ status: 503, body: { key: 'not_ready', details: 'The server is shutting down' } });
    expect(await probe('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
  });
});

/** The value of one series in Prometheus text, or undefined when the series is not there. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  test('when requests are answered and webhooks delivered, then /metrics counts them by operation, status and outcome, with the queue depth and the process metrics', async () => {
    // The first attempt to this receiver hangs until it times out; the retry is answered.
    const slow = await startReceiver((n) => (n === 1 ? 'hang' : 200));
    const failing = await startReceiver(() => 500);
    cleanups.push(() => slow.close(), () => failing.close());
    const server = await start({ webhooks: { ...TEST_WEBHOOKS, maxAttempts: 2, timeoutMs: 1000 } });
    const scrape = async () => {
      const response = await fetch(`${server.baseUrl}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return response.text();
    };
    for (const receiver of [slow, failing]) {
      const made = await fetch(`${server.baseUrl}/management/v1/projects/${PROJECT}/webhooks`, {
        method: 'POST',
        headers: server.management,
        body: JSON.stringify({ target_url: receiver.url, events: ['customer.created'] }),
      });
      expect(made.status).toBe(200);
    }
    expect((await fetch(`${server.baseUrl}/v1/customers`, { method: 'POST', headers: server.key, body: JSON.stringify({ source_id: `ops-${secret()}` }) })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.baseUrl}/v1/vouchers`, { headers: server.key })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/v1/vouchers/NO-SUCH-CODE`, { headers: server.key })).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/v1/vouchers`)).status).toBe(401);

    // While the first attempt hangs, the slow receiver's delivery is held.
    await eventually(() => (slow.received.length === 1 ? true : undefined));
    expect(sample(await scrape(), 'webhook_queue_depth')).toBeGreaterThanOrEqual(1);
    await server.jobs.idle();
    const text = await scrape();
    console.log(`metrics after the calls:\n${text.split('\n').filter((line) => /^(http_requests_total|webhook_)/.test(line)).join('\n')}`);

    const expected = {
      'http_requests_total{operation="list-vouchers",status="200"}': 3,
      'http_requests_total{operation="get-voucher",status="404"}': 1,
      'http_requests_total{operation="create-customer",status="200"}': 1,
      'http_requests_total{operation="create-webhook",status="200"}': 2,
      'http_requests_total{operation="unknown",status="401"}': 1,
      // A scrape counts once it is done: the one before this.
      'http_requests_total{operation="metrics",status="200"}': 1,
      'http_request_duration_seconds_count{operation="list-vouchers"}': 3,
      'http_request_duration_seconds_bucket{le="+Inf",operation="list-vouchers"}': 3,
      'webhook_deliveries_total{outcome="delivered"}': 1,
      'webhook_deliveries_total{outcome="failed"}': 1,
      webhook_queue_depth: 0,
    };
    expect(Object.fromEntries(Object.keys(expected).map((series) => [series, sample(text, series)]))).toEqual(expected);
    expect(sample(text, 'http_request_duration_seconds_sum{operation="list-vouchers"}')).toBeGreaterThan(0);
    expect([slow.received.length, failing.received.length]).toEqual([2, 2]);
    // The failed delivery is told in the log, as a warning.
    const failedLine = server.lines.map((line) => JSON.parse(line) as LogLine).find((line) => line.msg.startsWith('webhook deliveries FAILED (no attempt left): 1 to webhook'));
    expect(failedLine?.level).toBe(40);
    // The process's own, from prom-client's default collectors.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    // The start-up probe of the contract (a request to an unknown path) is not counted.
    expect(sample(text, 'http_requests_total{operation="unknown",status="404"}')).toBeUndefined();
  });

  test('when two apps run in one process, then each counts only its own requests', async () => {
    const first = await start();
    const second = await start();
    expect((await fetch(`${first.baseUrl}/v1/vouchers`, { headers: first.key })).status).toBe(200);
    const text = await (await fetch(`${second.baseUrl}/metrics`)).text();
    expect(sample(text, 'http_requests_total{operation="list-vouchers",status="200"}')).toBeUndefined();
    expect(sample(await (await fetch(`${first.baseUrl}/metrics`)).text(), 'http_requests_total{operation="list-vouchers",status="200"}')).toBe(1);
  });

  test('when a metrics token is set, then /metrics answers only a request that carries it, and the probes still need none', async () => {
    const token = secret();
    const server = await start({ metricsToken: token });
    const without = await fetch(`${server.baseUrl}/metrics`);
    expect(without.status).toBe(401);
    expect(await without.json()).toMatchObject({ code: 401, key: 'unauthorized' });
    expect((await fetch(`${server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${token}x` } })).status).toBe(401);
    const right = await fetch(`${server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    expect(right.status).toBe(200);
    expect(await right.text()).toMatch(/^http_requests_total\{operation="metrics",status="401"\} 2$/m);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect(configFromEnv({ METRICS_TOKEN: token }).metricsToken).toBe(token);
  });
});

describe('the spawned server', () => {
  const MAIN = join(packageRoot(), 'dist', 'server', 'main.js');
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  test('when it serves and is then told to stop, then stdout has a JSON line per request, and /readyz answers 503 through the grace period', async () => {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, HOST: '127.0.0.1', PORT: '0', SHUTDOWN_GRACE_MS: '5000' }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const port = Number(await eventually(() => /reference server on http:\/\/localhost:(\d+)/.exec(stdout)?.[1], 60));
    const base = `http://127.0.0.1:${port}`;
    const demo = { 'X-App-Id': 'demo-app-id', 'X-App-Token': 'demo-app-token' };
    expect((await fetch(`${base}/v1/vouchers`, { headers: demo })).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    // The try-it page starts with the demo key the server runs with.
    expect(await (await fetch(`${base}/docs/try`)).text()).toContain('"X-App-Token":{"value":"demo-app-token"}');

    // A request in flight (its body not yet sent) holds the server in its grace period.
    const socket = connect(port, '127.0.0.1');
    cleanups.push(() => void socket.destroy());
    let answers = '';
    socket.on('data', (chunk: Buffer) => (answers += chunk.toString()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const body = JSON.stringify({ source_id: `stopping-${secret()}` });
    socket.write(`POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-App-Id: demo-app-id\r\nX-App-Token: demo-app-token\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    // Another request, answered and logged meanwhile, gives the server time to read the first one's headers.
    const missing = await fetch(`${base}/v1/customers/nobody`, { headers: demo });
    expect(missing.status).toBe(404);
    const { request_id: missingId } = (await missing.json()) as { request_id: string };
    await eventually(() => (stdout.includes(missingId) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGTERM');
    await eventually(() => (stdout.includes('SIGTERM: closing') ? true : undefined));
    // The rest of the body, and a readiness probe behind it on the same connection.
    socket.write(`${body.slice(5)}GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await eventually(() => (/HTTP\/1\.1 503[^]*not_ready/.test(answers) ? true : undefined));
    expect(answers).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answers).toMatch(/The server is shutting down/);
    const exit = await new Promise<number | null>((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(child.exitCode)));
    expect(exit).toBe(0);

    const lines = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
    const requests = lines.filter((line) => line.request_id !== undefined);
    expect(requests.map(({ operation, project, status }) => ({ operation, project, status }))).toEqual([
      { operation: 'list-vouchers', project: 'proj_default', status: 200 },
      { operation: 'docs', project: null, status: 200 },
      { operation: 'get-customer', project: 'proj_default', status: 404 },
      { operation: 'create-customer', project: 'proj_default', status: 200 },
    ]);
    expect(requests[2]!.request_id).toBe(missingId);
    expect(requests.every((line) => typeof line.duration_ms === 'number')).toBe(true);
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^SIGTERM: closing/), 'stopped']));
  });

  test('when the reader of its output has gone (as with `| head`), then it still stops at SIGTERM and exits 0', async () => {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, HOST: '127.0.0.1', PORT: '0' }, stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let banner = '';
    child.stdout!.on('data', (chunk: Buffer) => (banner += chunk.toString()));
    const port = await eventually(() => /reference server on http:\/\/localhost:(\d+)/.exec(banner)?.[1], 60);
    // An answer means the start is over, its signal handlers in place.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    child.stdout!.destroy();
    child.kill('SIGTERM');
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 15_000).unref());
    expect(await Promise.race([exited, hung])).toBe(0);
  });
});

/**
 * A benchmark server in its own process, so the load generator does not share its event loop. Forked by
 * bench/run.ts with a mode: `reference` (the reference server over a generated fixture, loyalty members
 * included when the contract has loyalty programs, with request
 * validation on and response validation off, as in production, or on when its fifth argument is
 * `validated`) or `bare` (Express 5 answering a fixed body of the size asked for; `bare one-shape` with the
 * reference server's fix of request shapes). It reports over IPC when it
 * is ready and, when asked, its RSS, a CPU profile of what it did between two messages, or how many bytes it
 * allocated between two messages (bench/profile.ts).
 *
 * The reference server can also be told to give each operation's first answer again (`answers` with `kept`
 * true; bench/kept-answers.ts), which puts a figure on the way in and out of a request alone.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { createApp } from '../server/app.js';
import { DEFAULT_POOL_SIZE } from '../server/config.js';
import { withStableShapes } from '../server/http/stable-shapes.js';
import { createCustomEventSchema } from '../server/domain/management/schemas.js';
import { systemClock } from '../server/domain/clock.js';
import { SCHEMA, type DomainStore } from '../server/domain/schema.js';
import { openPostgresStore } from '../server/store/sql/sql-store.js';
import { handlers } from '../server/handlers/index.js';
import { buildFixture, buildLoyalty, productionMemoryStore } from './fixture.js';
import { keepAnswersOf, type AnyHandler } from './kept-answers.js';
import { startCountingAllocations, startProfiling, type ProfileSummary } from './profile.js';

const APP_ID = 'bench-app';
const APP_TOKEN = 'bench-token';
const PROJECT = 'proj_bench';
const CLIENT = { name: 'bench-client', appId: 'bench-client-app', token: 'bench-client-token', projectId: PROJECT, origins: ['https://shop.bench.test'] };
const EVENT = 'bench_page_viewed';

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

const keepAnswers = keepAnswersOf(handlers as unknown as Record<string, AnyHandler>);

async function reference(vouchers: number, campaigns: number, customers: number, members: number, validateResponses: boolean) {
  const store = productionMemoryStore();
  const app = await createApp({
    store,
    clock: systemClock,
    apiKeys: [{ name: 'bench', appId: APP_ID, appToken: APP_TOKEN, projectId: PROJECT }],
    clientKeys: [CLIENT],
    validateResponses,
    // The webhook figures deliver to a receiver on this machine (`webhook` below); nothing else makes webhooks.
    webhooks: { allowPrivateTargets: true, allowPlainHttp: true },
  });
  app.locals.benchStore = store;
  const before = heapUsed();
  const started = Date.now();
  const fixture = await buildFixture(store, systemClock, PROJECT, { vouchers, campaigns, customers: 0 });
  const bytesPerVoucher = (heapUsed() - before) / Math.max(1, vouchers);
  await buildFixture(store, systemClock, PROJECT, { vouchers: 0, campaigns: 0, customers });
  const loyalty = members > 0 ? await buildLoyalty(store, systemClock, PROJECT, Math.min(members, customers)) : undefined;
  // The custom event that client-side calls send, defined as the project's event schema requires.
  await store.transaction(PROJECT, (uow) => createCustomEventSchema({ uow, clock: systemClock }, { name: EVENT, schema: { properties: { page: { type: 'string' } } } }));
  const buildMs = Date.now() - started;
  return { app, info: { bytesPerVoucher, buildMs, loyalty, campaignId: fixture.campaigns[1]?.id ?? fixture.campaigns[0]!.id, codes: fixture.codes.slice(0, 200_000), appId: APP_ID, appToken: APP_TOKEN, client: { appId: CLIENT.appId, token: CLIENT.token, origin: CLIENT.origins[0], event: EVENT }, customers } };
}

/**
 * Bare Express 5: `/bare/<bytes>` answers a JSON body of exactly that many bytes, for GET and POST. With
 * `oneShape`, its requests and responses keep one shape as the reference server's do (server/http/stable-shapes.ts),
 * a fix plain Express lacks: the baseline for what Express alone costs once it has it too.
 */
function bare(oneShape: boolean) {
  const app = express();
  if (oneShape) withStableShapes(app);
  app.disable('x-powered-by');
  app.use(express.json({ limit: '1mb' }));
  const bodies = new Map<number, string>();
  const body = (bytes: number) => {
    let text = bodies.get(bytes);
    if (!text) bodies.set(bytes, (text = JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - 10)) })));
    return text;
  };
  app.all('/bare/:bytes', (req, res) => {
    res.type('json').send(body(Number(req.params.bytes)));
  });
  return { app, info: {} };
}

/**
 * The reference server on a PostgreSQL database (`postgres <url> <vouchers>`): the instance given vouchers
 * builds them, in 10 campaigns; an instance given none serves what is there, as a second server would.
 */
async function onPostgres(url: string, vouchers: number) {
  // The server's own pool size, as `make serve` with DATABASE_URL has it. A larger pool (20, once) only put
  // more backends on this machine's two cores: customer creation ran at two thirds of the rate it has with 10.
  const store = await openPostgresStore(SCHEMA, url, { pool: { max: DEFAULT_POOL_SIZE } });
  const app = await createApp({ store, clock: systemClock, apiKeys: [{ name: 'bench', appId: APP_ID, appToken: APP_TOKEN, projectId: PROJECT }], validateResponses: false });
  const started = Date.now();
  const fixture = vouchers > 0 ? await buildFixture(store, systemClock, PROJECT, { vouchers, campaigns: 10, customers: 0 }) : undefined;
  // What autovacuum does a while after a bulk load: without statistics the planner takes the project's 20 000
  // vouchers for a handful and sorts them all for each page instead of reading the list-order index.
  if (fixture) await store.driver.query('VACUUM ANALYZE store_rows');
  return {
    app,
    info: { buildMs: Date.now() - started, appId: APP_ID, appToken: APP_TOKEN, ...(fixture && { campaignId: fixture.campaigns[1]?.id ?? fixture.campaigns[0]!.id, codes: fixture.codes }) },
  };
}

/**
 * `webhook` (with `url`) subscribes the bench project to customer.created at that address; `deliveries` answers
 * how many deliveries the project's log holds by status.
 */
async function webhookMessage(store: DomainStore, message: { type: string; url?: string }) {
  if (message.type === 'webhook') {
    await store.transaction(PROJECT, (uow) =>
      uow.webhooks.insert({ id: 'wh_bench', target_url: message.url!, events: ['customer.created'], active: true, secret: 'whsec_bench0123456789', created_at: new Date().toISOString(), updated_at: null, object: 'webhook' }),
    );
    process.send?.({ type: 'webhook' });
    return;
  }
  const counts = await store.transaction(PROJECT, async (uow) => {
    const byStatus: Record<string, number> = {};
    for (const status of ['PENDING', 'DELIVERED', 'FAILED']) byStatus[status] = await uow.webhook_deliveries.countBy('status', status);
    return byStatus;
  });
  process.send?.({ type: 'deliveries', counts });
}

async function main() {
  const [mode, ...args] = process.argv.slice(2);
  const [vouchers = '0', campaigns = '1', customers = '0', members = '0', responses = 'off'] = args;
  const { app, info } =
    mode === 'bare'
      ? bare(args[0] === 'one-shape')
      : mode === 'postgres'
        ? await onPostgres(args[0]!, Number(args[1] ?? 0))
        : await reference(Number(vouchers), Number(campaigns), Number(customers), Number(members), responses === 'validated');
  const server = app.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.send?.({ type: 'ready', port, ...info });
  });
  server.keepAliveTimeout = 60_000;
  let stopProfiling: ((file?: string) => Promise<ProfileSummary>) | undefined;
  let stopCounting: (() => Promise<number>) | undefined;
  process.on('message', (message: { type: string; file?: string; kept?: boolean }) => {
    if (message.type === 'rss') process.send?.({ type: 'rss', rss: process.memoryUsage().rss });
    if (message.type === 'webhook' || message.type === 'deliveries') void webhookMessage(app.locals.benchStore as DomainStore, message as { type: string; url?: string });
    if (message.type === 'answers') {
      keepAnswers(message.kept === true);
      process.send?.({ type: 'answers' });
    }
    if (message.type === 'profile-start') {
      void startProfiling().then((stop) => {
        stopProfiling = stop;
        process.send?.({ type: 'profiling' });
      });
    }
    if (message.type === 'allocations-start') {
      void startCountingAllocations().then((stop) => {
        stopCounting = stop;
        process.send?.({ type: 'counting' });
      });
    }
    if (message.type === 'allocations-stop' && stopCounting) {
      const stop = stopCounting;
      stopCounting = undefined;
      void stop().then((bytes) => process.send?.({ type: 'allocations', bytes }));
    }
    if (message.type === 'profile-stop' && stopProfiling) {
      const stop = stopProfiling;
      stopProfiling = undefined;
      void stop(message.file).then((summary) => process.send?.({ type: 'profile', summary }));
    }
  });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

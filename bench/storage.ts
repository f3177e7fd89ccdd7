/**
 * What the server keeps per stored object, beyond the object's own JSON: the heap a customer or a voucher
 * adds (its record, the events recorded with it, index entries, insertion-order lists), measured after a
 * full garbage collection, minus the length of the stored record's JSON. Objects are made through the
 * operation handlers, so they take exactly the path a request takes. Needs `--expose-gc` to be exact.
 *
 * Run on its own: `node --expose-gc dist/bench/storage.js [count]` (after `make bench` has compiled it); `make bench`
 * runs it in a process of its own.
 */
import { pathToFileURL } from 'node:url';
import { systemClock } from '../server/domain/clock.js';
import { AssetSigner } from '../server/assets.js';
import { handlers } from '../server/handlers/index.js';
import { Jobs } from '../server/jobs.js';
import { TokenRegistry } from '../server/oauth.js';
import type { DomainStore } from '../server/domain/schema.js';
import { productionMemoryStore } from './fixture.js';

export interface StorageFigures {
  count: number;
  customer: { heapBytes: number; jsonBytes: number; overheadBytes: number };
  voucher: { heapBytes: number; jsonBytes: number; overheadBytes: number };
  /** Heap added per repeated upsert of one unchanged customer (should be about nothing). */
  unchangedUpsertBytes: number;
  /** Events those upserts recorded (should be none). */
  unchangedUpsertEvents: number;
}

/** The heap in use after full collections, with a turn of the event loop between them for what waits on one. */
async function heapUsed(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

type Call = (operationId: string, input: { path?: Record<string, string>; body?: unknown }) => Promise<{ id?: string; code?: string }>;

function caller(store: DomainStore, projectId: string): Call {
  const context = { requestId: 'bench', baseUrl: 'http://localhost', projectId, apiKey: { name: 'bench', appId: 'bench-app' } };
  return async (operationId, input) => {
    // Services of its own per call: the asset signer keeps the tokens of recently shown codes (a bounded
    // cache, not storage), which would otherwise count as part of each voucher.
    const services = { store, clock: systemClock, jobs: new Jobs(), assets: new AssetSigner(), publicBaseUrl: () => 'http://localhost:3000', tokens: new TokenRegistry(store, systemClock), webhookRules: { allowPlainHttp: false } };
    const handler = handlers[operationId as keyof typeof handlers] as unknown as (input: object) => Promise<{ status: number; body: unknown }>;
    const result = await handler({ path: {}, query: {}, ...input, context, services });
    if (result.status >= 300) throw new Error(`${operationId} answered ${result.status}: ${JSON.stringify(result.body)}`);
    return result.body as { id?: string; code?: string };
  };
}

/** Average JSON length of the stored rows of a table. */
async function jsonBytes(store: DomainStore, projectId: string, table: 'customers' | 'vouchers'): Promise<number> {
  return store.transaction(projectId, async (uow) => {
    const { rows } = await uow[table].query({});
    const total = rows.reduce((sum, row) => sum + Buffer.byteLength(JSON.stringify(row)), 0);
    return total / Math.max(1, rows.length);
  });
}

async function eventCount(store: DomainStore, projectId: string): Promise<number> {
  return store.transaction(projectId, async (uow) => (await uow.events.query({ limit: 0 })).total);
}

export async function measureStorage(count = 5000): Promise<StorageFigures> {
  const store = productionMemoryStore();
  const project = 'proj_storage';
  await store.createProject(project);
  const call = caller(store, project);
  // Warm up: the first calls compile code and fill caches that are not per object.
  for (let i = 0; i < 50; i++) {
    await call('create-customer', { body: { source_id: `warm-${i}`, name: `Warm ${i}`, email: `warm${i}@example.com` } });
    await call('create-voucher', { path: { code: `WARM-${i}` }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } });
  }

  let before = await heapUsed();
  for (let i = 0; i < count; i++) {
    await call('create-customer', { body: { source_id: `customer-${i}`, name: `Customer ${i}`, email: `customer${i}@example.com`, metadata: { tier: 'gold' } } });
  }
  const customerHeap = (await heapUsed() - before) / count;
  const customerJson = await jsonBytes(store, project, 'customers');

  before = await heapUsed();
  for (let i = 0; i < count; i++) {
    await call('create-voucher', { path: { code: `CODE-${i}` }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, metadata: { batch: 'bench' } } });
  }
  const voucherHeap = (await heapUsed() - before) / count;
  const voucherJson = await jsonBytes(store, project, 'vouchers');

  const same = { source_id: 'customer-0', name: 'Customer 0', email: 'customer0@example.com', metadata: { tier: 'gold' } };
  await call('create-customer', { body: same });
  const eventsBefore = await eventCount(store, project);
  before = await heapUsed();
  for (let i = 0; i < count; i++) await call('create-customer', { body: same });
  const unchangedUpsertBytes = (await heapUsed() - before) / count;
  // Read after the last measurement, so the store is still in use when it is taken (else it may be collected).
  const unchangedUpsertEvents = (await eventCount(store, project)) - eventsBefore;

  return {
    count,
    customer: { heapBytes: customerHeap, jsonBytes: customerJson, overheadBytes: customerHeap - customerJson },
    voucher: { heapBytes: voucherHeap, jsonBytes: voucherJson, overheadBytes: voucherHeap - voucherJson },
    unchangedUpsertBytes,
    unchangedUpsertEvents,
  };
}

export function describeStorage(figures: StorageFigures): string[] {
  const line = (name: string, f: StorageFigures['customer']) =>
    `  per stored ${name}: ${f.heapBytes.toFixed(0)} bytes of heap, of which ${f.jsonBytes.toFixed(0)} are its JSON: ` +
    `${f.overheadBytes.toFixed(0)} bytes of overhead (target at most 2048: ${f.overheadBytes <= 2048 ? 'met' : 'MISSED'})`;
  return [
    `Storage (${figures.count} of each, made through the operation handlers; heap after GC):`,
    line('customer', figures.customer),
    line('voucher', figures.voucher),
    `  ${figures.count} upserts of an unchanged customer: ${figures.unchangedUpsertBytes.toFixed(0)} bytes of heap each, ${figures.unchangedUpsertEvents} events recorded`,
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await measureStorage(Number(process.argv[2] ?? 5000));
  if (process.send) process.send({ type: 'storage', figures });
  else for (const line of describeStorage(figures)) console.log(line);
}

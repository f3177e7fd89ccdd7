/**
 * `make bench`, exports: how much the heap grows while an export of many vouchers is written, beside the size of
 * the file it writes. An export reads its rows a page at a time and streams them into the file, so the heap should
 * grow by far less than the file. Run in its own process (with `--expose-gc`), over the reference server and a
 * generated fixture, through the API as a client would: create the export, poll it, download the file.
 *
 * Two figures: the peak of `heapUsed` sampled every few milliseconds (garbage not yet collected included), and the
 * peak of the heap right after each garbage collection the run went through (what survived it: live objects, and
 * old garbage a major collection has not reached yet, so an upper bound of the live growth). Forcing collections
 * to sample would slow the run many times over. Printed, never asserted.
 *
 * Settings: BENCH_EXPORT_VOUCHERS (100000; 0 skips this part); BENCH_EXPORT_STORE=pglite measures on an embedded
 * PGlite store instead of the memory store, with the file kept in the store (as on a durable store) and streamed
 * back from it a piece at a time.
 */
import { fork } from 'node:child_process';
import { PerformanceObserver } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createApp } from '../server/app.js';
import { systemClock } from '../server/domain/clock.js';
import { openPgliteStore } from '../server/store/sql/sql-store.js';
import { SCHEMA } from '../server/domain/schema.js';
import { buildFixture, productionMemoryStore } from './fixture.js';

const PROJECT = 'proj_bench_export';
const APP_ID = 'bench-export-app';
const APP_TOKEN = 'bench-export-token';

export interface ExportMemory {
  vouchers: number;
  rows: number;
  fileBytes: number;
  baselineBytes: number;
  peakUsedGrowth: number;
  peakLiveGrowth: number;
  collections: number;
  retainedGrowth: number;
  exportMs: number;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** In the child: builds the vouchers, exports them and measures. */
async function measure(vouchers: number, kind: string): Promise<ExportMemory> {
  const inStore = kind === 'pglite';
  const store = inStore ? await openPgliteStore(SCHEMA) : productionMemoryStore();
  const app = await createApp({
    store,
    clock: systemClock,
    apiKeys: [{ name: 'bench', appId: APP_ID, appToken: APP_TOKEN, projectId: PROJECT }],
    validateResponses: false,
    exportFilesInStore: inStore,
  });
  await buildFixture(store, systemClock, PROJECT, { vouchers, campaigns: 10, customers: 0 });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = { 'x-app-id': APP_ID, 'x-app-token': APP_TOKEN, 'content-type': 'application/json' };
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, { ...init, headers });
    if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return response;
  };
  // One small export first, so the first use of the route (the validator compiling its schemas) is not measured.
  const warm = (await (await call('/v1/exports', { method: 'POST', body: JSON.stringify({ exported_object: 'order' }) })).json()) as { id: string };
  for (;;) {
    const state = (await (await call(`/v1/exports/${warm.id}`)).json()) as { status: string };
    if (state.status === 'DONE' || state.status === 'ERROR') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peakUsed = baseline;
  let peakLive = baseline;
  let collections = 0;
  const sampler = setInterval(() => {
    peakUsed = Math.max(peakUsed, process.memoryUsage().heapUsed);
  }, 2);
  const afterCollection = new PerformanceObserver((list) => {
    collections += list.getEntries().length;
    peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
  });
  afterCollection.observe({ entryTypes: ['gc'] });
  const started = performance.now();
  const created = (await (await call('/v1/exports', { method: 'POST', body: JSON.stringify({ exported_object: 'voucher' }) })).json()) as { id: string };
  let done: { status: string; result: { url: string } | null };
  for (;;) {
    done = (await (await call(`/v1/exports/${created.id}`)).json()) as typeof done;
    if (done.status === 'DONE' || done.status === 'ERROR') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const exportMs = performance.now() - started;
  clearInterval(sampler);
  afterCollection.disconnect();
  gc();
  const retained = process.memoryUsage().heapUsed;
  if (done.status !== 'DONE') throw new Error(`the export ended in ${done.status}`);

  // The file, read as a stream: its size and its lines, without holding it.
  const { pathname, search } = new URL(done.result!.url);
  const file = await call(`${pathname}${search}`);
  let fileBytes = 0;
  let newlines = 0;
  for await (const chunk of file.body as unknown as AsyncIterable<Uint8Array>) {
    fileBytes += chunk.length;
    for (const byte of chunk) if (byte === 10) newlines++;
  }
  server.close();
  return {
    vouchers,
    rows: newlines - 1,
    fileBytes,
    baselineBytes: baseline,
    peakUsedGrowth: peakUsed - baseline,
    peakLiveGrowth: peakLive - baseline,
    collections,
    retainedGrowth: retained - baseline,
    exportMs,
  };
}

/** In `make bench`: runs the measurement in a child process and prints it. */
export async function exportMemory(): Promise<void> {
  const vouchers = Number(process.env.BENCH_EXPORT_VOUCHERS ?? 100_000);
  if (vouchers <= 0) return;
  const kind = process.env.BENCH_EXPORT_STORE === 'pglite' ? 'pglite' : 'memory';
  console.log('');
  console.log(
    `Export memory: ${vouchers} vouchers exported to CSV (default columns), heap measured while it runs` +
      (kind === 'pglite' ? ' (PGlite store, file kept in the store)' : ''),
  );
  const child = fork(fileURLToPath(import.meta.url), ['measure', String(vouchers), kind], {
    execArgv: ['--expose-gc', '--max-old-space-size=8192'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const result = await new Promise<ExportMemory>((resolve, reject) => {
    child.once('message', (message: ExportMemory) => resolve(message));
    child.once('exit', (code) => reject(new Error(`the export memory measurement exited with ${code}`)));
  });
  child.kill();
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(`  file: ${mb(result.fileBytes)}, ${result.rows} rows, written in ${(result.exportMs / 1000).toFixed(1)} s`);
  console.log(`  heap before: ${mb(result.baselineBytes)} (the vouchers themselves)`);
  console.log(
    `  heap growth after garbage collection while it ran: ${mb(result.peakLiveGrowth)} (peak over ${result.collections} collections) = ${((result.peakLiveGrowth / result.fileBytes) * 100).toFixed(1)}% of the file ` +
      `(below the file's size: ${result.peakLiveGrowth < result.fileBytes ? 'yes' : 'NO'})`,
  );
  console.log(`  heapUsed growth while it ran: ${mb(result.peakUsedGrowth)} (peak, uncollected garbage included)`);
  console.log(`  retained after it ended: ${mb(result.retainedGrowth)}`);
}

if (process.argv[2] === 'measure') {
  measure(Number(process.argv[3]), process.argv[4] ?? 'memory').then(
    (result) => process.send?.(result, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

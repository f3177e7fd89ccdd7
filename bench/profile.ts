/**
 * A CPU profile of the bench server while one route is driven, taken in the server's own process with the
 * inspector, and summarised as where the time went: the samples' self time grouped by the part of the stack
 * that spent it (the validator, Express, the store, the domain, serialising, garbage collection…), and the
 * functions that spent most. `make bench` prints this for every route that stays under its target, so the
 * reason it prints is measured in the same run, not written down once.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileSummary {
  /** Busy time sampled (idle left out), ms. */
  busyMs: number;
  /** Share of the busy time per part of the stack, largest first. */
  parts: { part: string; share: number }[];
  /** The functions with the most self time, largest first. */
  functions: { name: string; share: number }[];
  /**
   * Time in the server's own code (handlers, domain, store, webhooks, asset URLs), what it calls included, in µs,
   * by the part of that code nearest the sample, largest first (see `ownCodeOf`).
   */
  ownCode: { part: string; us: number }[];
}

/** The part of the stack a frame belongs to, from where its code lives. */
export function partOf(frame: ProfileNode['callFrame']): string | undefined {
  const { url, functionName } = frame;
  if (functionName === '(idle)') return undefined;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 and native code outside JavaScript';
  if (url === '' && /^(stringify|parse)$/.test(functionName)) return 'JSON text (JSON.stringify, JSON.parse)';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (module) {
    if (module === 'express-openapi-validator' || module === 'ajv' || module === 'ajv-formats' || module === 'path-to-regexp') return 'request validation (express-openapi-validator, AJV)';
    if (['express', 'router', 'body-parser', 'raw-body', 'type-is', 'content-type', 'on-finished', 'finalhandler', 'send', 'qs', 'iconv-lite', 'mime-types', 'etag', 'fresh', 'debug'].includes(module)) return 'Express and body parsing';
    if (module === 'pino' || module === 'pino-http' || module === 'pino-std-serializers' || module === 'sonic-boom') return 'logging';
    if (module === 'pg' || module === 'pg-protocol' || module === '@electric-sql/pglite') return 'database client';
    return `other packages (${module})`;
  }
  if (url.includes('/server/store/')) return 'store (units of work, locks, indexes)';
  if (url.includes('/server/domain/loyalty/')) return 'domain: loyalty';
  if (url.includes('/server/domain/')) return 'domain';
  if (url.includes('/server/http/')) return 'HTTP layer (auth, errors, logging, metrics)';
  if (url.includes('/server/handlers/')) return 'handlers';
  if (url.includes('/server/webhooks/')) return 'webhooks and events';
  if (url.includes('/server/assets.')) return 'asset URLs (signed tokens)';
  if (url.includes('/server/')) return 'server (other)';
  if (url.startsWith('node:')) return 'Node.js (HTTP, streams, timers)';
  if (url === '') return 'V8 builtins';
  return 'other';
}

/** Code a route's own work runs in: what the handler does between the HTTP layer's call and its answer. */
const OWN_CODE = /\/server\/(handlers|domain|store|webhooks)\/|\/server\/assets\./;
/** The HTTP layer, which calls a handler and, in sending its answer, may start the next request's way in. */
const HTTP_LAYER = '/server/http/';

/**
 * The part of the server's own code a sample was spent in, or undefined when it was not: its stack is walked from
 * the sampled frame outwards, up to the first frame of the HTTP layer, and the nearest frame of own code there
 * names the part. A builtin or a package called by own code counts for the part that called it (a Map lookup made
 * by the store is the store's); a frame above the HTTP layer does not count (sending one response starts the next
 * waiting request, whose way in then runs within the first one's stack). Garbage collection has no stack, so
 * what own code leaves to collect is not counted here.
 */
function ownCodeOf(id: number, byId: Map<number, ProfileNode>, parentOf: Map<number, number>): string | undefined {
  for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
    const url = byId.get(current)?.callFrame.url ?? '';
    if (url.includes(HTTP_LAYER)) return undefined;
    if (OWN_CODE.test(url)) return partOf(byId.get(current)!.callFrame);
  }
  return undefined;
}

/** Sums a profile's samples by part and by function, and those in own code by the part of it they ran in. */
export function summarise(profile: Profile, top = 6): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // Each sample's time is the delta to the next sample (the last one gets none).
  for (let i = 0; i < samples.length; i++) {
    const delta = deltas[i + 1] ?? 0;
    selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + delta);
  }
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  const ownCode = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const part = partOf(node.callFrame);
    if (part === undefined) continue;
    busy += us;
    parts.set(part, (parts.get(part) ?? 0) + us);
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^.*\/(node_modules|server|dist)\//, '$1/')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    const own = ownCodeOf(id, byId, parentOf);
    if (own !== undefined) ownCode.set(own, (ownCode.get(own) ?? 0) + us);
  }
  const ranked = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, share: busy === 0 ? 0 : us / busy }));
  return {
    busyMs: busy / 1000,
    parts: ranked(parts).map(({ name, share }) => ({ part: name, share })),
    functions: ranked(functions),
    ownCode: [...ownCode].sort((a, b) => b[1] - a[1]).map(([part, us]) => ({ part, us })),
  };
}

/**
 * The line a short route prints of its own code's CPU time in its profile, a request: the total and each part,
 * over the `requests` answered while it was taken. Undefined when none was answered or none of it was seen.
 */
export function ownCodeLine(summary: ProfileSummary, requests: number): string | undefined {
  const total = summary.ownCode.reduce((sum, { us }) => sum + us, 0);
  if (requests <= 0 || total === 0) return undefined;
  const perRequest = (us: number) => (us / requests).toFixed(0);
  const parts = summary.ownCode.map(({ part, us }) => `${part} ${perRequest(us)}`).join('; ');
  return `in its own code (handlers, domain, store, webhooks, asset URLs, and what they call) the profile saw ${perRequest(total)} µs of CPU a request: ${parts}`;
}

/**
 * Starts sampling this process; the returned function stops and summarises, and when given a file also
 * writes the whole profile there (for Chrome DevTools or any `.cpuprofile` viewer).
 */
export async function startProfiling(): Promise<(file?: string) => Promise<ProfileSummary>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async (file) => {
    const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
    await session.post('Profiler.disable');
    session.disconnect();
    if (file) writeFileSync(file, JSON.stringify(profile));
    return summarise(profile, Number(process.env.BENCH_PROFILE_TOP ?? 6));
  };
}

interface SamplingNode {
  selfSize: number;
  children: SamplingNode[];
}

/**
 * Starts counting what this process allocates: V8's sampling heap profiler, keeping the samples of objects that
 * garbage collection has since freed too, so the count is all that was allocated, not what is still alive. The
 * returned function stops and gives the bytes allocated meanwhile (sampled every 4 KB on average, so an estimate;
 * it does not drift with what else the machine is doing, as time does).
 */
export async function startCountingAllocations(): Promise<() => Promise<number>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return async () => {
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } };
    await session.post('HeapProfiler.disable');
    session.disconnect();
    let bytes = 0;
    const pending = [profile.head];
    for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
      bytes += node.selfSize;
      pending.push(...node.children);
    }
    return bytes;
  };
}

/**
 * What a short route's own work (its unit of work, domain and store) costs, against what it could cost for the
 * route to reach the target, from CPU per request measured in one run: the route's (`ours`), bare Express's
 * (`bare`) and the route's with its handler's first answer given again (`rest`, the rest of the way in and out).
 * Its own work is `ours - rest`; at the target it could take `bare / target - rest`. Undefined where any CPU
 * figure is missing.
 */
export function ownWorkBudget(ours: number | undefined, bare: number | undefined, rest: number | undefined, target: number): string | undefined {
  if (ours === undefined || bare === undefined || rest === undefined) return undefined;
  const own = ours - rest;
  const allowed = bare / target - rest;
  const us = (value: number) => `${value.toFixed(0)} µs`;
  const verdict =
    allowed <= 0
      ? 'the rest of the way alone costs more than the target allows'
      : own <= allowed
        ? "within that: what is short here is not the route's own work"
        : `${(own / allowed).toFixed(1)} times what the target allows`;
  return `its own work: ${us(own)} of CPU a request (${us(ours)} less ${us(rest)}); at ${target * 100}% of bare Express (${us(bare)}) it could take ${us(Math.max(0, allowed))}: ${verdict}`;
}

/**
 * The lowest and highest of a route's per-round ratios, as a cell (`61–77%`), and whether the target lies within
 * them. Ours and bare Express are driven in turn, so each round's ratio compares the two under the same drift; on
 * a shared 2-core machine the rounds of one route still spread by a tenth or more, and the same build measured
 * against itself (two servers of it, in turn) came out anywhere from 89% to 108%. A route whose rounds straddle
 * the target is short or not by the run's own noise, which the line printed for it says.
 */
export function roundSpread(ratios: readonly number[], target: number): { cell: string; straddles: boolean } {
  if (ratios.length === 0) return { cell: '', straddles: false };
  let low = ratios[0]!;
  let high = low;
  for (const ratio of ratios) {
    if (ratio < low) low = ratio;
    if (ratio > high) high = ratio;
  }
  const percent = (value: number) => (value * 100).toFixed(0);
  return { cell: `${percent(low)}–${percent(high)}%`, straddles: low < target && high >= target };
}

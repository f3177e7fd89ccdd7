/**
 * The server under test. By default a reference server starts in-process on a free port, with response
 * validation on. With CONTRACT_BASE_URL set, the suite talks to that server instead, using
 * CONTRACT_APP_ID/CONTRACT_APP_TOKEN, and CONTRACT_OTHER_APP_ID/CONTRACT_OTHER_APP_TOKEN for a second
 * project where the isolation tests need one, and CONTRACT_MANAGEMENT_ID/CONTRACT_MANAGEMENT_TOKEN for the
 * management API.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { createApiClient, type ApiClient } from '../../client/index.js';
import { createApp, type AppOptions } from '../../server/app.js';
import { OffsetClock } from '../../server/domain/clock.js';
import { Jobs } from '../../server/jobs.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA, type DomainStore } from '../../server/domain/schema.js';
import { loadFixtureFile } from '../../server/fixtures.js';
import { BUNDLED_CONTRACT, packageRoot, STRICT_CONTRACT } from '../../server/paths.js';
import { ConformanceChecker } from './conformance.js';
import { SchemaPruner } from '../../server/contract/schema-pruner.js';
import { nextSeq, record, recordsBodies } from './kit-record.js';

/** The objects every target must hold in its first project: start another server with this file. */
export const CONTRACT_FIXTURES = join(packageRoot(), 'tests', 'fixtures', 'contract.json');

export interface Credentials {
  appId: string;
  appToken: string;
}

export interface ManagementCredentials {
  id: string;
  token: string;
}

export interface Target {
  baseUrl: string;
  credentials: Credentials;
  /** A key of a second project, when the target has one. */
  otherProject?: Credentials;
  /** The management key, when the target's management API is reachable. */
  management?: ManagementCredentials;
  /** The ID of the project `credentials` act in, when known (management calls on it need it). */
  projectId?: string;
  /** A client-side key of the first project and one of its allowed origins, when the target has one. */
  client?: { appId: string; token: string; origin: string };
  /** Whether this run started the server itself (so test-only settings such as rate limits apply). */
  inProcess: boolean;
  /** The in-process server's clock, which tests may move; absent for a remote target. */
  clock?: OffsetClock;
  /** The in-process server's background jobs (webhook deliveries, generation); absent for a remote target. */
  jobs?: Jobs;
  /** The in-process server's storage, for the few checks that must not send a request; absent for a remote target. */
  store?: DomainStore;
  close(): Promise<void>;
}

export async function listen(app: { listen: (port: number, host: string) => Server }): Promise<{ server: Server; baseUrl: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  // The server shares its event loop with the tests; a busy test can delay the client's idle-socket timer
  // past the server's, which then closes a socket the client is about to reuse. Let the client close first.
  server.keepAliveTimeout = 60_000;
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}` };
}

export function secret(): string {
  return randomBytes(12).toString('hex');
}

/**
 * In-process webhook settings: plain http and private addresses for loopback receivers (the two switches
 * WEBHOOKS_ALLOW_HTTP and WEBHOOKS_ALLOW_PRIVATE), and retries fast enough for tests (delays of 20, 40,
 * 80 ms). Tests assert on outcomes, never on these timings.
 */
export const TEST_WEBHOOKS = { allowPlainHttp: true, allowPrivateTargets: true, maxAttempts: 4, backoffMs: 20, timeoutMs: 1000 };

/**
 * Whether the run can reach a path's API: the in-process server has every key; a remote target only the APIs
 * whose keys the run was given (client-side and management keys are optional).
 */
export function reachable(path: string): boolean {
  if (path.startsWith('/client/')) return !lacks('client');
  if (path.startsWith('/management/')) return !lacks('management');
  return true;
}

/**
 * What an in-process target is started with: app options, and the store its app runs on (the memory store by
 * default; `pglite`, an in-memory PGlite database, for the suites that must hold on the SQL stores too).
 */
export type TargetOptions = Partial<AppOptions> & { storeKind?: 'memory' | 'pglite' };

export async function startTarget(options: TargetOptions = {}): Promise<Target> {
  const { storeKind = 'memory', ...overrides } = options;
  const remote = process.env.CONTRACT_BASE_URL;
  if (remote) {
    const { CONTRACT_APP_ID, CONTRACT_APP_TOKEN, CONTRACT_OTHER_APP_ID, CONTRACT_OTHER_APP_TOKEN, CONTRACT_MANAGEMENT_ID, CONTRACT_MANAGEMENT_TOKEN } =
      process.env;
    const { CONTRACT_PROJECT_ID, CONTRACT_CLIENT_APP_ID, CONTRACT_CLIENT_TOKEN, CONTRACT_CLIENT_ORIGIN } = process.env;
    if (!CONTRACT_APP_ID || !CONTRACT_APP_TOKEN) throw new Error('CONTRACT_BASE_URL needs CONTRACT_APP_ID and CONTRACT_APP_TOKEN');
    return {
      baseUrl: remote.replace(/\/$/, ''),
      credentials: { appId: CONTRACT_APP_ID, appToken: CONTRACT_APP_TOKEN },
      ...(CONTRACT_OTHER_APP_ID &&
        CONTRACT_OTHER_APP_TOKEN && { otherProject: { appId: CONTRACT_OTHER_APP_ID, appToken: CONTRACT_OTHER_APP_TOKEN } }),
      ...(CONTRACT_MANAGEMENT_ID && CONTRACT_MANAGEMENT_TOKEN && { management: { id: CONTRACT_MANAGEMENT_ID, token: CONTRACT_MANAGEMENT_TOKEN } }),
      ...(CONTRACT_PROJECT_ID && { projectId: CONTRACT_PROJECT_ID }),
      ...(CONTRACT_CLIENT_APP_ID &&
        CONTRACT_CLIENT_TOKEN &&
        CONTRACT_CLIENT_ORIGIN && { client: { appId: CONTRACT_CLIENT_APP_ID, token: CONTRACT_CLIENT_TOKEN, origin: CONTRACT_CLIENT_ORIGIN } }),
      inProcess: false,
      close: async () => {},
    };
  }
  const credentials = { appId: `app-${secret()}`, appToken: secret() };
  const otherProject = { appId: `app-${secret()}`, appToken: secret() };
  const clock = new OffsetClock();
  const jobs = new Jobs();
  const management = { id: `mgmt-${secret()}`, token: secret() };
  const client = { appId: `client-${secret()}`, token: secret(), origin: 'https://shop.example.test' };
  // Loaded only when asked for: the kit's package runs the suite against a URL and need not carry PGlite.
  const store: DomainStore = storeKind === 'pglite' ? await (await import('../../server/store/sql/sql-store.js')).openPgliteStore(SCHEMA) : new MemoryStore(SCHEMA);
  // Export files go to a directory of this target's own, removed when it closes: the server removes its default
  // one only when its process exits normally, and Jest may end a worker otherwise.
  const exportsDir = mkdtempSync(join(tmpdir(), 'contract-exports-'));
  const app = await createApp({
    store,
    clock,
    exportsDir,
    apiKeys: [
      { name: 'contract-suite', ...credentials, projectId: 'proj_contract_a' },
      { name: 'contract-suite-other', ...otherProject, projectId: 'proj_contract_b' },
    ],
    validateResponses: true,
    testClocks: true,
    jobs,
    managementKey: management,
    clientKeys: [{ name: 'contract-client', appId: client.appId, token: client.token, projectId: 'proj_contract_a', origins: [client.origin, 'http://localhost:8080'] }],
    webhooks: TEST_WEBHOOKS,
    ...overrides,
  });
  await loadFixtureFile(store, clock, 'proj_contract_a', CONTRACT_FIXTURES, BUNDLED_CONTRACT);
  const { server, baseUrl } = await listen(app);
  return {
    baseUrl,
    credentials,
    otherProject,
    management,
    projectId: 'proj_contract_a',
    client,
    inProcess: true,
    clock,
    jobs,
    store,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs.shutdown();
      await store.close();
      rmSync(exportsDir, { recursive: true, force: true });
    },
  };
}

/** Every status the suite has seen; no request may ever get a 5xx. */
export const seenStatuses: { method: string; url: string; status: number }[] = [];

/** Every way a response has broken the contract since the last check; each test must leave it empty. */
export const contractViolations: string[] = [];
let checker: ConformanceChecker | undefined;

/**
 * Which view of the contract responses are held to. The in-process reference server, and any server the kit
 * tests with `--strict` (CONTRACT_STRICT=1), meet the strict twin, where every object is closed and an
 * undocumented field fails. Any other server meets the published contract, whose objects are open, as the
 * public API's are: it may send more than the contract names, never less than it requires.
 */
export function strictResponses(): boolean {
  return !process.env.CONTRACT_BASE_URL || process.env.CONTRACT_STRICT === '1';
}

/**
 * The fetch under the whole suite: it remembers every status and checks every response against the
 * contract on the client's side, so a remote server that does not validate its own answers is judged too.
 */
export const recordingFetch: typeof fetch = async (input, init) => {
  const request = input instanceof Request ? input : new Request(input, init);
  const seq = recordsBodies() ? nextSeq() : undefined;
  const sent = Date.now();
  const response = await fetch(request);
  seenStatuses.push({ method: request.method, url: request.url, status: response.status });
  checker ??= new ConformanceChecker(JSON.parse(readFileSync(strictResponses() ? STRICT_CONTRACT : BUNDLED_CONTRACT, 'utf8')));
  const body = await response.clone().text();
  const verdict = checker.check({ method: request.method, url: request.url, status: response.status, contentType: response.headers.get('content-type'), body });
  contractViolations.push(...verdict.violations);
  record({
    kind: 'exchange',
    method: request.method,
    url: request.url,
    status: response.status,
    operationId: verdict.operationId,
    violations: verdict.violations,
    ...(seq !== undefined && { seq, sent, at: Date.now(), body }),
  });
  return strictResponses() ? response : withoutUndocumentedFields(response, verdict.schemaPointer);
};

let pruner: SchemaPruner | undefined;

/**
 * Against a server held to the published contract, which may send fields the contract does not name, the
 * scenarios see the body with those fields taken out: they judge documented behaviour, and a server's own
 * extra fields can never make an exact comparison fail.
 */
async function withoutUndocumentedFields(response: Response, schemaPointer: string | undefined): Promise<Response> {
  if (!schemaPointer) return response;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return response;
  }
  pruner ??= new SchemaPruner(JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Record<string, unknown>);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(pruner.prune(body, schemaPointer)), { status: response.status, statusText: response.statusText, headers });
}

/**
 * What some scenarios need from a remote target besides its server-side key: the suite's variables that
 * give it, and the kit's flags that set those. The in-process reference server of `make test` has all of it.
 */
const NEEDS = {
  management: { what: 'the management key', variables: ['CONTRACT_MANAGEMENT_ID', 'CONTRACT_MANAGEMENT_TOKEN'], flags: ['--management-id', '--management-token'] },
  projectId: { what: "the first project's ID", variables: ['CONTRACT_PROJECT_ID'], flags: ['--project-id'] },
  client: {
    what: 'a client-side key of the first project with one of its origins',
    variables: ['CONTRACT_CLIENT_APP_ID', 'CONTRACT_CLIENT_TOKEN', 'CONTRACT_CLIENT_ORIGIN'],
    flags: ['--client-app-id', '--client-token', '--client-origin'],
  },
  otherProject: { what: "a second project's key", variables: ['CONTRACT_OTHER_APP_ID', 'CONTRACT_OTHER_APP_TOKEN'], flags: ['--other-app-id', '--other-app-token'] },
  inProcess: { what: 'the in-process reference server', variables: [], flags: [] },
} as const satisfies Record<string, { what: string; variables: readonly string[]; flags: readonly string[] }>;
export type Need = keyof typeof NEEDS;

/** The needs this run leaves unmet; none for the in-process server. */
function unmet(needs: Need[]): Need[] {
  if (!process.env.CONTRACT_BASE_URL) return [];
  return needs.filter((need) => need === 'inProcess' || NEEDS[need].variables.some((name) => !process.env[name]));
}

/** Whether this run lacks something these needs name. */
export function lacks(...needs: Need[]): boolean {
  return unmet(needs).length > 0;
}

const inWords = (items: readonly string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * Why a scenario with these needs cannot run against this target, and what would let it: the kit prints
 * this in its table and JUnit, so a skip always names the flags that would have run it.
 */
export function because(...needs: Need[]): string {
  const missing = unmet(needs);
  const named = missing.length > 0 ? missing : needs;
  if (named.includes('inProcess')) {
    return "runs only against the in-process reference server of `make test` (it needs the server's clock, storage or test settings); no flag enables it against another server";
  }
  return `needs ${inWords(named.map((need) => NEEDS[need].what))}: pass ${inWords(named.flatMap((need) => NEEDS[need].flags))}`;
}

type Block = typeof describe | typeof test;

/**
 * `describe` or `test` when this run has what their scenarios need; otherwise their `.skip`, with the
 * reason recorded as they are declared, so the kit's report and JUnit say why and which flags would run them.
 */
export function runsWith<B extends Block>(block: B, needs: Need[], operationIds: string[] = []): (title: string, fn: Parameters<B>[1]) => void {
  if (!lacks(...needs)) return block as (title: string, fn: Parameters<B>[1]) => void;
  const reason = because(...needs);
  return (title, fn) => {
    record({ kind: 'skip', reason, operationIds, scope: title });
    (block.skip as (title: string, fn: Parameters<B>[1]) => void)(title, fn);
  };
}

/**
 * Ends a scenario the target cannot take (no second project, a clock that cannot move), saying why: call
 * it as `return skip(...)`. The contract kit reports the scenario as skipped, and as skipped for the
 * operations named when nothing else calls them.
 */
export function skip(reason: string, operationIds: string[] = []): void {
  console.warn(`skipped: ${reason}`);
  record({ kind: 'skip', reason, operationIds });
}

/** Leaves out part of a scenario while the rest of it runs; the kit reports the scenario as partly skipped. */
export function skipPart(reason: string, operationIds: string[] = []): void {
  console.warn(`partly skipped: ${reason}`);
  record({ kind: 'skip', reason, operationIds, part: true });
}

export function clientFor(target: Target, credentials: Partial<Credentials> = target.credentials): ApiClient {
  return createApiClient({
    baseUrl: target.baseUrl,
    ...(credentials.appId !== undefined && { appId: credentials.appId }),
    ...(credentials.appToken !== undefined && { appToken: credentials.appToken }),
    fetch: recordingFetch,
  });
}

/** A typed client holding the target's management key, for `/management/v1`. */
export function managementClientFor(target: Target, management: Partial<ManagementCredentials> | undefined = target.management): ApiClient {
  return createApiClient({
    baseUrl: target.baseUrl,
    ...(management?.id !== undefined && { managementId: management.id }),
    ...(management?.token !== undefined && { managementToken: management.token }),
    fetch: recordingFetch,
  });
}

/** A raw request, for input the typed client would not let us send. */
export async function raw(
  target: Target,
  method: string,
  path: string,
  options: { body?: string; contentType?: string; credentials?: Partial<Credentials> | null } = {},
): Promise<{ status: number; body: unknown }> {
  const credentials = options.credentials === undefined ? target.credentials : options.credentials;
  const headers: Record<string, string> = {};
  if (credentials?.appId) headers['X-App-Id'] = credentials.appId;
  if (credentials?.appToken) headers['X-App-Token'] = credentials.appToken;
  // The client-side API takes the client key from an allowed origin; the management API the management key.
  // A test that means to send other credentials says so.
  if (options.credentials === undefined && path.startsWith('/client/') && target.client) {
    headers['X-Client-Application-Id'] = target.client.appId;
    headers['X-Client-Token'] = target.client.token;
    headers.Origin = target.client.origin;
  }
  if (options.credentials === undefined && path.startsWith('/management/') && target.management) {
    headers['X-Management-Id'] = target.management.id;
    headers['X-Management-Token'] = target.management.token;
  }
  if (options.body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
  const response = await recordingFetch(`${target.baseUrl}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: options.body }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text so the assertion shows it
  }
  return { status: response.status, body };
}

/** A suffix that keeps names and source IDs unique when the suite runs against a shared server. */
export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/**
 * Starts the target for a test file (the in-process server with `overrides`, if that is the target) and checks
 * after every test that no request got a 5xx.
 * Returns a box filled in before the first test runs.
 */
export function useTarget(overrides: TargetOptions = {}): { target: Target; client: ApiClient } {
  const box = {} as { target: Target; client: ApiClient };
  // Building the app compiles the contract's validators: seconds on an idle machine, more while other suites run.
  beforeAll(async () => {
    box.target = await startTarget(overrides);
    box.client = clientFor(box.target);
  }, 120_000);
  afterEach(() => {
    const serverErrors = seenStatuses.filter((seen) => seen.status >= 500);
    seenStatuses.length = 0;
    const violations = contractViolations.splice(0);
    expect(serverErrors).toEqual([]);
    expect(violations).toEqual([]);
  });
  afterAll(async () => {
    await box.target?.close();
  });
  return box;
}

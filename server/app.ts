/**
 * Composition of the reference server: request id → request log and metrics → the server's own endpoints
 * (health, metrics, docs) → authentication → rate limit → contract validation → handlers → error mapper.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express, { Router, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import * as OpenApiValidator from 'express-openapi-validator';
import { DEFAULT_AUTH_FAILURES_PER_MINUTE, DEFAULT_PROJECT_SLICE_MS, DEFAULT_TOKENS_PER_HOUR } from './config.js';
import type { Clock } from './domain/clock.js';
import { DEFAULT_EVENT_RETENTION } from './domain/events.js';
import { AssetSigner } from './assets.js';
import { KeyCache } from './http/key-cache.js';
import { sharedSecret } from './domain/management/server-secrets.js';
import { handlers } from './handlers/index.js';
import { Jobs } from './jobs.js';
import { findApiKey, listProjects, ORGANIZATION, registerConfiguredKey } from './domain/management/projects.js';
import { clientPreflight, clientSideAuth, managementAuth, serverSideAuth, type ApiKey, type ClientKey, type ManagementKey } from './http/auth.js';
import { errorMapper } from './http/errors.js';
import { sequence } from './http/sequence.js';
import { refuseDeclaredOversize, withBodyReading } from './http/body.js';
import { perProjectSlice } from './http/project-slice.js';
import { refuseNullBodyWhereOneIsTaken } from './http/json-null-body.js';
import { failedAuthenticationLimit, rateLimitPerKey, tokenIssueLimit, type CounterStores } from './http/rate-limit.js';
import { requestId } from './http/request-id.js';
import { normalizeQueryEncoding, refuseNonFiniteQueryNumbers, refuseUnstorableText } from './http/query-encoding.js';
import { parseQuery } from './http/query-parser.js';
import { operationRoutes } from './http/routes.js';
import { pruneUnknownFields } from './http/prune.js';
import { patchValidator } from './http/validator-patches.js';
import { attachUploads, UPLOAD_LIMITS } from './http/uploads.js';
import { DiskExportFiles, StoreExportFiles } from './exports/files.js';
import { JobLeases } from './job-leases.js';
import { TokenRegistry } from './oauth.js';
import { BUNDLED_CONTRACT, STRICT_CONTRACT } from './paths.js';
import { httpPart } from './contract/http-part.js';
import { docsRoutes } from './http/docs.js';
import { healthRoutes, Readiness, storeProbe } from './http/health.js';
import { requestLogging, silentLogger } from './http/logging.js';
import { ServerMetrics } from './http/metrics.js';
import { nameOperation } from './http/request-facts.js';
import { withMetadataSchemas } from './domain/management/metadata-store.js';
import { withRetention } from './store/retention.js';
import type { DomainStore } from './domain/schema.js';
import type { HostResolver } from './domain/management/webhook-targets.js';
import { DEFAULT_DELIVERY_POLICY, systemResolver, WebhookDeliveries, type DeliveryPolicy } from './webhooks/delivery.js';
import { withOutbox } from './webhooks/outbox.js';
import { FRESH } from './store/fresh.js';
import { withStableShapes } from './http/stable-shapes.js';

export interface AppOptions {
  store: DomainStore;
  clock: Clock;
  apiKeys: readonly ApiKey[];
  /** Check every response against the contract; on in tests, off by default in production. */
  validateResponses: boolean;
  /**
   * Serve the test-clock operations and run each project at its frozen test-clock time (domain/test-clock.ts);
   * off by default: those operations then answer 404.
   */
  testClocks?: boolean;
  /** Requests a minute per API key; 0 for no limit. */
  rateLimitPerMinute?: number;
  /** How many of its most recent events each project's log keeps (DEFAULT_EVENT_RETENTION when not given). */
  eventRetention?: number;
  /** Failed authentications a minute per client address before 429 (DEFAULT_AUTH_FAILURES_PER_MINUTE); 0 for no limit. */
  authFailuresPerMinute?: number;
  /** OAuth tokens an hour per API key before 429 (DEFAULT_TOKENS_PER_HOUR); 0 for no limit. */
  tokensPerHour?: number;
  /** Where rate-limit counters are kept (shared by instances, http/rate-limit-postgres.ts); in memory when not given. */
  rateLimitCounters?: CounterStores;
  /**
   * Milliseconds of each event-loop turn one project's requests may take before its next requests wait for a
   * later turn (DEFAULT_PROJECT_SLICE_MS); 0 for no such limit.
   */
  projectSliceMs?: number;
  /** Background work; one is made when not given. */
  jobs?: Jobs;
  /** How long an API key found is trusted without looking again (see http/key-cache.ts); 0 looks every time. */
  keyCacheMs?: number;
  /** Secret for signing asset URLs; when not given, the one the store keeps for every instance (made on first use). */
  assetSecret?: string;
  /** Client-side keys for `/client/v1`. */
  clientKeys?: readonly ClientKey[];
  /** The organization's management key for `/management/v1`; without it every management call is refused. */
  managementKey?: ManagementKey;
  /**
   * Webhook delivery settings; `allowPlainHttp` lets webhooks target `http` URLs and `allowPrivateTargets`
   * loopback and other non-public addresses (local testing only); `resolve` replaces the system's resolver (tests).
   */
  webhooks?: Partial<DeliveryPolicy> & { allowPlainHttp?: boolean; allowPrivateTargets?: boolean; resolve?: HostResolver };
  /**
   * Where clients reach the server, for absolute URLs in responses (voucher asset URLs); never the request's
   * `Host` header, which a caller controls. A function when it is known only once the server listens.
   */
  publicBaseUrl?: string | (() => string);
  /** Where export files are kept; a temporary directory of the process, removed when it exits, when not given. */
  exportsDir?: string;
  /**
   * Keep export files in the store instead of on disk: on a store that outlives the process, so that every
   * instance serves every file.
   */
  exportFilesInStore?: boolean;
  /** How long the lease of a background job lasts before another instance takes it over (DEFAULT_JOB_LEASE_MS). */
  jobLeaseMs?: number;
  /**
   * The log: a line per request, and webhook deliveries that failed. Without it no request is logged, and
   * failed deliveries go to the console.
   */
  logger?: Logger;
  /** When set, `/metrics` answers only requests with `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
  /**
   * Keys the interactive reference at `/docs/try` starts with, by security scheme name; only demo keys, since
   * anyone who opens the page reads them.
   */
  docsCredentials?: Readonly<Record<string, string>>;
}

/**
 * The store the app works through: the given one, with metadata schemas enforced and committed events
 * handed to webhook delivery. Work done outside requests (timers) must use it too, or its events are not delivered.
 */
/** Where the server is reached when nobody says: `make serve`'s address. */
export const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:3000';

/** Where the API's middlewares are mounted: the server-side, client-side and management APIs, and assets. */
const API = { server: '/v1', client: '/client', management: '/management', assets: '/assets' } as const;
type Api = keyof typeof API;
const API_MOUNTS = Object.entries(API) as [Api, string][];

/**
 * Which of the API's mount points a path is under (matched as Express matches a mount path: without case, and
 * only up to a `/` or the end); undefined for none.
 */
export function apiOf(path: string): Api | undefined {
  for (const [api, prefix] of API_MOUNTS) {
    if (path.length >= prefix.length && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) && path.slice(0, prefix.length).toLowerCase() === prefix) return api;
  }
  return undefined;
}

/** The path of the token endpoint, matched as Express matches a route's path: without case, a trailing slash allowed. */
const TOKEN_PATH = /^\/v1\/oauth\/token\/?$/i;

export function appStore(app: Express): DomainStore {
  return app.locals.store as DomainStore;
}

/** The app's leases on background jobs: main starts their timer, which also takes over jobs of dead instances. */
export function jobLeases(app: Express): JobLeases {
  return app.locals.leases as JobLeases;
}

/** Tells the app that the server is stopping: from now on `/readyz` answers 503. */
export function stopServing(app: Express): void {
  (app.locals.readiness as Readiness).stop();
}

export function loadContract(file = BUNDLED_CONTRACT): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** Long enough that a burst of requests costs one look-up, short enough that a key deleted elsewhere soon stops working. */
const DEFAULT_KEY_CACHE_MS = 5000;

export async function createApp(options: AppOptions): Promise<Express> {
  const contract = loadContract();
  const jobs = options.jobs ?? new Jobs();
  const logger = options.logger ?? silentLogger;
  // Without a logger of its own, an app still tells of failed webhook deliveries, on the console as it always did.
  const log = options.logger && ((level: 'warn' | 'error', message: string, error?: unknown) => (error === undefined ? logger[level](message) : logger[level]({ err: error }, message)));
  const webhookTargets = { allowPrivateTargets: options.webhooks?.allowPrivateTargets ?? false, resolve: options.webhooks?.resolve ?? systemResolver };
  const metrics = new ServerMetrics((): number => deliveries.held);
  // A store that outlives the process keeps pending deliveries for the next start (or another instance).
  const deliveryPolicy = { ...FRESH, ...DEFAULT_DELIVERY_POLICY, keepPendingOnStop: options.store.durable, ...options.webhooks };
  const deliveries = new WebhookDeliveries(options.store, jobs, options.clock, deliveryPolicy, webhookTargets, {
    settled: metrics.deliverySettled,
    ...(log && { log }),
  });
  const retained = withRetention(options.store, { events: options.eventRetention ?? DEFAULT_EVENT_RETENTION });
  const checked = withOutbox(withMetadataSchemas(retained), deliveries);
  // Everything that runs on "every project" (such as settling loyalty) leaves the organization's partition out.
  const store: DomainStore = { ...FRESH, ...checked, projectIds: async () => (await checked.projectIds()).filter((id) => id !== ORGANIZATION) };
  await store.createProject(ORGANIZATION);
  for (const key of options.apiKeys) {
    await store.createProject(key.projectId);
    await store.transaction(ORGANIZATION, (uow) => registerConfiguredKey({ uow, clock: options.clock }, key));
  }
  // On a store that outlives the process, every project registered before has its partition (made again if a
  // start was cut off between registering a project and making its partition).
  for (const project of await store.transaction(ORGANIZATION, (uow) => listProjects({ uow, clock: options.clock }))) {
    await store.createProject(project.id);
  }
  const keys = new KeyCache<ApiKey>(async (appId) => {
    const key = await store.transaction(ORGANIZATION, (uow) => findApiKey({ uow, clock: options.clock }, appId));
    return key && { name: key.name, appId: key.app_id, appToken: key.app_token, projectId: key.project_id };
  }, options.keyCacheMs ?? DEFAULT_KEY_CACHE_MS);
  const lookupKey = keys.lookup;

  const app = express();
  // Requests and responses made with the app's prototypes, so that each has the shape of the one before (see
  // http/stable-shapes.ts); `app.listen` makes such a server.
  withStableShapes(app);
  app.disable('x-powered-by');
  // Express's `extended` reading of queries (qs), the quick way when a query is only names and values.
  app.set('query parser', parseQuery);
  // The contract documents no conditional requests, so Express must never answer one with a 304: no ETag
  // (hashing every body also cost a few percent of a list page), and the conditional headers are set aside
  // (`If-None-Match: *` is fresh to Express even without an ETag).
  app.set('etag', false);
  // The start-up probe of the contract (checkContractLoads) is not traffic: it is neither logged nor counted.
  let started = false;
  const observed = [requestLogging(logger), metrics.observe];
  // Every request passes these first, in order.
  const prelude: RequestHandler[] = [
    (req, _res, next) => {
      if (req.headers['if-none-match'] !== undefined) delete req.headers['if-none-match'];
      if (req.headers['if-modified-since'] !== undefined) delete req.headers['if-modified-since'];
      next();
    },
    requestId,
    ...observed.map((middleware): RequestHandler => (req, res, next) => (started ? middleware(req, res, next) : next())),
    refuseDeclaredOversize,
    normalizeQueryEncoding,
    refuseUnstorableText,
  ];

  // The server's own endpoints, outside the contract and without API keys.
  const readiness = new Readiness(storeProbe(store, ORGANIZATION));
  app.locals.readiness = readiness;
  const failures = failedAuthenticationLimit(options.authFailuresPerMinute ?? DEFAULT_AUTH_FAILURES_PER_MINUTE, options.rateLimitCounters);
  const own = Router();
  own.use(healthRoutes(readiness));
  own.get('/metrics', nameOperation('metrics'), ...metrics.endpoint(options.metricsToken, failures));
  own.get('/openapi.json', nameOperation('openapi'), (_req, res) => {
    res.json(contract);
  });
  own.use(docsRoutes({ title: String((contract.info as { title?: unknown } | undefined)?.title ?? 'API reference'), credentials: options.docsCredentials }));

  const tokens = new TokenRegistry(store, options.clock);
  const perKey = () => rateLimitPerKey(options.rateLimitPerMinute ?? 0, options.rateLimitCounters);
  const fairShare = perProjectSlice(options.projectSliceMs ?? DEFAULT_PROJECT_SLICE_MS);
  const tokenLimit = tokenIssueLimit(options.tokensPerHour ?? DEFAULT_TOKENS_PER_HOUR, options.rateLimitCounters);
  // What each part of the API asks of a request before the contract is checked: its credentials, its limits,
  // its project's fair share of the event loop.
  const gates: Record<Api, RequestHandler> = {
    server: sequence([
      failures.gate,
      serverSideAuth(lookupKey, tokens, failures),
      perKey(),
      fairShare,
      (req, res, next) => (req.method === 'POST' && TOKEN_PATH.test(req.path) ? tokenLimit(req, res, next) : next()),
    ]),
    client: sequence([failures.gate, clientPreflight(options.clientKeys ?? []), clientSideAuth(options.clientKeys ?? [], tokens, lookupKey, failures), perKey(), fairShare]),
    management: sequence([failures.gate, managementAuth(options.managementKey, failures), perKey()]),
    assets: perKey(),
  };
  // A call to the API goes to its part's gates, anything else to the server's own endpoints (none of which is
  // under an API prefix), in one step rather than an Express layer for each mount point.
  const dispatch: RequestHandler = (req, res, next) => {
    const api = apiOf(req.path);
    return api === undefined ? own(req, res, next) : gates[api](req, res, next);
  };
  patchValidator();
  // Requests are checked against the published contract, whose objects are open: fields it does not name are
  // accepted and ignored, as the public API does (handlers and the domain take only the fields they know).
  // The body is read inside the validator's steps, once it knows the operation (see http/body.ts).
  const checks: RequestHandler[] = [
    ...withBodyReading(OpenApiValidator.middleware({
      apiSpec: httpPart(contract) as never,
      validateRequests: { allowUnknownQueryParameters: true, coerceTypes: false },
      validateResponses: false,
      // The contract is checked against the OpenAPI 3.1 schema once, by a unit test (validator-patches.test.ts)
      // and `make lint`, rather than at every start (about half a second per validator).
      validateApiSpec: false,
      validateSecurity: false,
      validateFormats: true,
      ajvFormats: { mode: 'full' },
      ignoreUndocumented: false,
      // Multipart bodies (CSV imports) are read into memory by multer, within these limits (413 beyond).
      fileUploader: { limits: UPLOAD_LIMITS },
    }) as RequestHandler[]),
    attachUploads,
    refuseNonFiniteQueryNumbers,
    refuseNullBodyWhereOneIsTaken,
    pruneUnknownFields(contract),
  ];
  // Responses, when checked, are held to the strict twin: this server must never send a field the contract
  // does not name, even though the published contract would let another implementation do so.
  if (options.validateResponses) {
    checks.push(
      ...(OpenApiValidator.middleware({
        apiSpec: httpPart(loadContract(STRICT_CONTRACT)) as never,
        validateRequests: false,
        validateResponses: true,
        validateApiSpec: false,
        validateSecurity: false,
        validateFormats: true,
        ajvFormats: { mode: 'full' },
        ignoreUndocumented: false,
        // The request's multipart body was read above; reading it again would wait for a stream already consumed.
        fileUploader: false,
      }) as RequestHandler[]),
    );
  }
  // Every instance on one database signs download addresses alike, so each serves the files of the others.
  const exportsSecret = Buffer.from(await store.transaction(ORGANIZATION, (uow) => sharedSecret({ uow, clock: options.clock }, 'export-downloads')));
  const services = {
    leases: new JobLeases(store, options.clock, jobs, options.jobLeaseMs),
    tokens,
    store,
    clock: options.clock,
    testClocks: options.testClocks ?? false,
    jobs,
    assets: new AssetSigner(options.assetSecret ?? (await store.transaction(ORGANIZATION, (uow) => sharedSecret({ uow, clock: options.clock }, 'asset-signing')))),
    publicBaseUrl: typeof options.publicBaseUrl === 'function' ? options.publicBaseUrl : () => (options.publicBaseUrl as string | undefined) ?? DEFAULT_PUBLIC_BASE_URL,
    webhookRules: { allowPlainHttp: options.webhooks?.allowPlainHttp ?? false, ...webhookTargets },
    exportFiles: options.exportFilesInStore ? new StoreExportFiles(store, options.clock, exportsSecret) : new DiskExportFiles(options.exportsDir, exportsSecret),
    keysChanged: () => keys.clear(),
  };
  // Exports still being written stop at their next page when the server stops.
  jobs.onShutdown(() => services.exportFiles.stop());
  app.locals.store = store;
  app.locals.leases = services.leases;
  // One Express layer for the whole way to the handler: each layer costs a path match and a closure per
  // request, and a dozen of them were a tenth of a cheap request's time in `make bench`.
  app.use(sequence([...prelude, dispatch, ...checks, operationRoutes(contract as never, handlers, services)]));
  app.use(errorMapper);

  await checkContractLoads(app);
  started = true;
  return app;
}

/**
 * The validator compiles the contract at the first request and, if it cannot, fails every request.
 * Probe it once so a broken contract stops the server at start instead.
 */
async function checkContractLoads(app: Express): Promise<void> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/__contract-probe`);
    if (response.status !== 404) {
      throw new Error(`The contract failed to load: ${response.status} ${await response.text()}`);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

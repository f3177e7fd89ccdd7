/** Server configuration from the environment, with demo defaults that are printed when used. */
import type { ApiKey, ClientKey, ManagementKey } from './http/auth.js';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from './webhooks/delivery.js';

/** Webhook delivery, and the two switches for local testing: plain `http` targets, and non-public addresses. */
/** Whether pending deliveries are kept at shutdown follows from the store (server/app.ts), not from settings. */
export type WebhookSettings = Omit<DeliveryPolicy, 'keepPendingOnStop'> & { allowPlainHttp: boolean; allowPrivateTargets: boolean };
import { DEFAULT_EVENT_RETENTION } from './domain/events.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './http/logging.js';
import { FRESH } from './store/fresh.js';
import { DEFAULT_CONNECTION_LIMITS, defaultMaxConnections, descriptorLimit, type ConnectionLimits } from './http/connections.js';

/**
 * Where the server keeps its data: in memory (lost at exit), in PostgreSQL, or in an embedded PGlite directory. The
 * memory store freezes the rows it keeps only when asked (`FREEZE_ROWS`; see server/store/memory.ts).
 */
export type StorageConfig = { kind: 'memory'; freezeRows: boolean } | { kind: 'postgres'; url: string; poolSize: number } | { kind: 'pglite'; dataDir: string };

/** How long a background job's lease lasts unless renewed (server/job-leases.ts renews it three times in that span). */
export const DEFAULT_JOB_LEASE_MS = 30_000;

/** Connections each server keeps to DATABASE_URL at most, unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

export interface ServerConfig {
  host: string;
  port: number;
  storage: StorageConfig;
  /** How long a background job's lease lasts before another instance takes the job over (JOB_LEASE_MS). */
  jobLeaseMs: number;
  apiKeys: ApiKey[];
  validateResponses: boolean;
  /** The test-clock operations (`/v1/test-clock`), an extension for testing; off unless TEST_CLOCKS is 1 or true. */
  testClocks: boolean;
  rateLimitPerMinute: number;
  /** Failed authentications a minute per client address before 429; 0 for no limit. */
  authFailuresPerMinute: number;
  /** OAuth tokens an hour per API key before 429; 0 for no limit. */
  tokensPerHour: number;
  /** How many of its most recent events each project's event log keeps. */
  eventRetention: number;
  /** Milliseconds of an event-loop turn one project's requests may take before the rest wait; 0 for no limit. */
  projectSliceMs: number;
  managementKey: ManagementKey;
  /** Client-side keys for `/client/v1`, each with the origins it may be used from. */
  clientKeys: ClientKey[];
  webhooks: WebhookSettings;
  /** Scheme, host and port clients reach the server at, for absolute URLs in responses; never taken from a request. */
  publicBaseUrl: string | undefined;
  /** On SIGINT/SIGTERM, how long /readyz answers 503 while the server still serves, before it stops accepting. */
  shutdownDrainMs: number;
  /** Then how long requests in flight may still take before their connections are cut. */
  shutdownGraceMs: number;
  /** Then how long background work (webhook deliveries' last attempts) may take before the process gives up. */
  shutdownJobsMs: number;
  /** The least severe log lines written (`LOG_LEVEL`); `silent` writes none. */
  logLevel: LogLevel;
  /** One JSON object a line, or readable lines for development (`LOG_FORMAT=pretty`). */
  logFormat: LogFormat;
  /** When set, `/metrics` answers only requests that carry it as a bearer token. */
  metricsToken: string | undefined;
  /** Timeouts and the cap on open connections (server/http/connections.ts). */
  connections: ConnectionLimits;
  /** Names of the variables that fell back to demo values. */
  defaulted: string[];
}

export const DEFAULT_PROJECT_ID = 'proj_default';
export const DEMO_APP_ID = 'demo-app-id';
export const DEMO_APP_TOKEN = 'demo-app-token';
export const DEMO_MANAGEMENT_ID = 'demo-management-id';
export const DEMO_CLIENT_APP_ID = 'demo-client-app-id';
export const DEMO_CLIENT_TOKEN = 'demo-client-token';
export const DEMO_MANAGEMENT_TOKEN = 'demo-management-token';

/** Generous for any client that holds its keys, and too few to guess a key. */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 50;
/** With tokens living a day at most, this bounds the tokens alive at once per key. */
export const DEFAULT_TOKENS_PER_HOUR = 1000;
/** Many cheap requests fit in it; another project waits behind about this much of one project's work. */
export const DEFAULT_PROJECT_SLICE_MS = 5;

function integer(name: string, value: string | undefined, fallback: number, minimum = 0): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < minimum) throw new Error(`${name} must be an integer of at least ${minimum}, got '${value}'`);
  return parsed;
}

/** An http(s) origin, optionally with a path prefix, without a trailing slash. */
function baseUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = URL.canParse(value) ? new URL(value) : undefined;
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.username || parsed.search || parsed.hash) {
    throw new Error(`${name} must be an http(s) URL without credentials, query or fragment, got '${value}'`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got '${value}'`);
  return value as T;
}

function flag(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const defaulted: string[] = [];
  const pick = (name: string, fallback: string) => {
    const value = env[name];
    if (value) return value;
    defaulted.push(name);
    return fallback;
  };
  const port = integer('PORT', env.PORT, 3000);
  return {
    host: env.HOST || '0.0.0.0',
    port,
    storage: storageFromEnv(env),
    jobLeaseMs: integer('JOB_LEASE_MS', env.JOB_LEASE_MS, DEFAULT_JOB_LEASE_MS, 300),
    apiKeys: [
      {
        name: 'default',
        appId: pick('APP_ID', DEMO_APP_ID),
        appToken: pick('APP_TOKEN', DEMO_APP_TOKEN),
        projectId: env.PROJECT_ID || DEFAULT_PROJECT_ID,
      },
    ],
    validateResponses: flag(env.VALIDATE_RESPONSES),
    testClocks: flag(env.TEST_CLOCKS),
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 0),
    authFailuresPerMinute: integer('AUTH_FAILURES_PER_MINUTE', env.AUTH_FAILURES_PER_MINUTE, DEFAULT_AUTH_FAILURES_PER_MINUTE),
    tokensPerHour: integer('TOKENS_PER_HOUR', env.TOKENS_PER_HOUR, DEFAULT_TOKENS_PER_HOUR),
    eventRetention: integer('EVENT_RETENTION', env.EVENT_RETENTION, DEFAULT_EVENT_RETENTION, 1),
    projectSliceMs: integer('PROJECT_SLICE_MS', env.PROJECT_SLICE_MS, DEFAULT_PROJECT_SLICE_MS),
    managementKey: { id: pick('MANAGEMENT_ID', DEMO_MANAGEMENT_ID), token: pick('MANAGEMENT_TOKEN', DEMO_MANAGEMENT_TOKEN) },
    clientKeys: [
      {
        name: 'default-client',
        appId: pick('CLIENT_APP_ID', DEMO_CLIENT_APP_ID),
        token: pick('CLIENT_TOKEN', DEMO_CLIENT_TOKEN),
        projectId: env.PROJECT_ID || DEFAULT_PROJECT_ID,
        // By default the server's own pages (/docs/try) on this machine, on whatever port it listens.
        origins: (env.CLIENT_ORIGINS || `http://localhost:${port}`).split(',').map((origin) => origin.trim()).filter(Boolean),
      },
    ],
    webhooks: webhookSettings(env),
    publicBaseUrl: baseUrl('PUBLIC_BASE_URL', env.PUBLIC_BASE_URL),
    shutdownDrainMs: integer('SHUTDOWN_DRAIN_MS', env.SHUTDOWN_DRAIN_MS, 0),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, 10_000),
    shutdownJobsMs: integer('SHUTDOWN_JOBS_MS', env.SHUTDOWN_JOBS_MS, 30_000, 1),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'),
    logFormat: oneOf('LOG_FORMAT', env.LOG_FORMAT, LOG_FORMATS, 'json'),
    metricsToken: env.METRICS_TOKEN || undefined,
    connections: connectionLimits(env),
    defaulted,
  };
}

/** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_CONNECTIONS and CONNECTION_EVICT_AFTER_MS. */
function connectionLimits(env: NodeJS.ProcessEnv): ConnectionLimits {
  const d = DEFAULT_CONNECTION_LIMITS;
  return {
    headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', env.HEADERS_TIMEOUT_MS, d.headersTimeoutMs, 1),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, d.requestTimeoutMs, 1),
    keepAliveTimeoutMs: integer('KEEP_ALIVE_TIMEOUT_MS', env.KEEP_ALIVE_TIMEOUT_MS, d.keepAliveTimeoutMs, 1),
    maxConnections: integer('MAX_CONNECTIONS', env.MAX_CONNECTIONS, defaultMaxConnections(descriptorLimit()), 1),
    evictAfterMs: integer('CONNECTION_EVICT_AFTER_MS', env.CONNECTION_EVICT_AFTER_MS, d.evictAfterMs, 0),
  };
}

function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const d = DEFAULT_DELIVERY_POLICY;
  return {
    allowPlainHttp: flag(env.WEBHOOKS_ALLOW_HTTP),
    allowPrivateTargets: flag(env.WEBHOOKS_ALLOW_PRIVATE),
    maxAttempts: integer('WEBHOOK_MAX_ATTEMPTS', env.WEBHOOK_MAX_ATTEMPTS, d.maxAttempts, 1),
    backoffMs: integer('WEBHOOK_BACKOFF_MS', env.WEBHOOK_BACKOFF_MS, d.backoffMs),
    timeoutMs: integer('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, d.timeoutMs, 1),
    connectTimeoutMs: integer('WEBHOOK_CONNECT_TIMEOUT_MS', env.WEBHOOK_CONNECT_TIMEOUT_MS, d.connectTimeoutMs, 1),
    connectionsPerTarget: integer('WEBHOOK_CONNECTIONS_PER_TARGET', env.WEBHOOK_CONNECTIONS_PER_TARGET, d.connectionsPerTarget, 1),
    connections: integer('WEBHOOK_CONNECTIONS', env.WEBHOOK_CONNECTIONS, d.connections, 1),
    queuePerProject: integer('WEBHOOK_QUEUE_PER_PROJECT', env.WEBHOOK_QUEUE_PER_PROJECT, d.queuePerProject, 1),
    queue: integer('WEBHOOK_QUEUE', env.WEBHOOK_QUEUE, d.queue, 1),
    shutdownDeadlineMs: integer('WEBHOOK_SHUTDOWN_DEADLINE_MS', env.WEBHOOK_SHUTDOWN_DEADLINE_MS, d.shutdownDeadlineMs, 0),
    pollMs: integer('WEBHOOK_POLL_MS', env.WEBHOOK_POLL_MS, d.pollMs, 0),
    leaseMs: integer('WEBHOOK_LEASE_MS', env.WEBHOOK_LEASE_MS, d.leaseMs, 1000),
    keepSettledMs: integer('WEBHOOK_LOG_KEEP_MS', env.WEBHOOK_LOG_KEEP_MS, d.keepSettledMs, 1),
    keepSettledPerProject: integer('WEBHOOK_LOG_KEEP_PER_PROJECT', env.WEBHOOK_LOG_KEEP_PER_PROJECT, d.keepSettledPerProject, 1),
    pruneEveryMs: d.pruneEveryMs,
  };
}

/**
 * The keys the interactive reference at /docs/try starts with: the demo keys in use, never keys from the
 * environment (anyone who opens the page reads them).
 */
export function demoCredentials(config: ServerConfig): Record<string, string> {
  const demo = (...names: string[]) => names.every((name) => config.defaulted.includes(name));
  const [key] = config.apiKeys;
  const [client] = config.clientKeys;
  return {
    ...FRESH,
    ...(key && demo('APP_ID', 'APP_TOKEN') && { 'X-App-Id': key.appId, 'X-App-Token': key.appToken }),
    ...(demo('MANAGEMENT_ID', 'MANAGEMENT_TOKEN') && { 'X-Management-Id': config.managementKey.id, 'X-Management-Token': config.managementKey.token }),
    ...(client && demo('CLIENT_APP_ID', 'CLIENT_TOKEN') && { 'X-Client-Application-Id': client.appId, 'X-Client-Token': client.token }),
  };
}

/** `DATABASE_URL` selects PostgreSQL, `DATA_DIR` an embedded PGlite directory; neither, the memory store. */
function storageFromEnv(env: NodeJS.ProcessEnv): StorageConfig {
  const url = env.DATABASE_URL || undefined;
  const dataDir = env.DATA_DIR || undefined;
  if (url && dataDir) throw new Error('Set DATABASE_URL or DATA_DIR, not both: each names where the data lives');
  if (url) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error('DATABASE_URL must be a URL such as postgres://user:password@host:5432/database');
    }
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
      throw new Error(`DATABASE_URL must start with postgres:// or postgresql://, got ${parsed.protocol}//`);
    }
    return { kind: 'postgres', url, poolSize: integer('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE, DEFAULT_POOL_SIZE, 1) };
  }
  if (dataDir) return { kind: 'pglite', dataDir };
  return { kind: 'memory', freezeRows: flag(env.FREEZE_ROWS) };
}

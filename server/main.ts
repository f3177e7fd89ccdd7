/**
 * Process entry: read the configuration, start the server, stop gracefully on SIGINT/SIGTERM.
 *
 * Stopping keeps a deadline: after `SHUTDOWN_DRAIN_MS` of answering /readyz with 503 while still serving (0 by
 * default; give it a load balancer's probe interval or more), the server stops accepting connections and closes idle ones at once, gives
 * requests in flight `SHUTDOWN_GRACE_MS` to finish (a client that stalls mid-body is then cut off), then
 * lets background work end (each pending webhook delivery gets its last attempt and, failing that, its
 * FAILED mark) and exits 0. Only background work that outlives a further deadline makes it exit 1.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appStore, createApp, jobLeases, stopServing } from './app.js';
import { capConnections, serverOptions } from './http/connections.js';
import { configFromEnv, demoCredentials, type ServerConfig } from './config.js';
import { createLogger } from './http/logging.js';
import { systemClock } from './domain/clock.js';
import { fixturesPath, loadFixtureFile } from './fixtures.js';
import { Jobs } from './jobs.js';
import { startLoyaltyTimer } from './loyalty-timer.js';
import { BUNDLED_CONTRACT } from './paths.js';
import { describeStorage, openStore } from './storage.js';

/** Binds the port, or rejects with what went wrong (port taken, no permission…) in words a user can act on. */
function listen(server: Server, config: ServerConfig): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const where = `${config.host}:${config.port}`;
      const why =
        error.code === 'EADDRINUSE'
          ? `port ${config.port} is already in use (another server, perhaps \`make serve\`, holds it); stop it or set PORT`
          : error.code === 'EACCES'
            ? `no permission to listen on port ${config.port}; choose a port above 1023 with PORT`
            : error.code === 'EADDRNOTAVAIL'
              ? `the address ${config.host} is not one of this machine's; set HOST`
              : error.message;
      reject(new Error(`Cannot listen on ${where}: ${why}`));
    };
    server.once('error', failed);
    server.once('listening', () => {
      server.off('error', failed);
      resolve();
    });
  });
}

function printBanner(config: ServerConfig, port: number): void {
  const base = `http://localhost:${port}`;
  console.log(`Promotions and loyalty reference server on ${base} (docs: ${base}/docs, try it: ${base}/docs/try)`);
  if (config.defaulted.length > 0) {
    const [key] = config.apiKeys;
    console.log(`No ${config.defaulted.join('/')} set; using demo credentials:`);
    if (config.defaulted.some((name) => name.startsWith('APP_'))) {
      console.log(`  project ${key?.projectId}: X-App-Id: ${key?.appId}, X-App-Token: ${key?.appToken}`);
    }
    if (config.defaulted.some((name) => name.startsWith('MANAGEMENT_'))) {
      console.log(`  management: X-Management-Id: ${config.managementKey.id}, X-Management-Token: ${config.managementKey.token}`);
    }
    if (config.defaulted.some((name) => name.startsWith('CLIENT_'))) {
      const [client] = config.clientKeys;
      console.log(`  client-side: X-Client-Application-Id: ${client?.appId}, X-Client-Token: ${client?.token}, origins: ${client?.origins.join(' ')}`);
    }
  }
  if (config.webhooks.allowPlainHttp) console.log('Webhooks may target plain http URLs (WEBHOOKS_ALLOW_HTTP); use for local testing only');
  if (config.webhooks.allowPrivateTargets) {
    console.log('Webhooks may target loopback and private addresses (WEBHOOKS_ALLOW_PRIVATE); use for local testing only');
  }
  console.log(`Response validation: ${config.validateResponses ? 'on' : 'off'}`);
  if (config.testClocks) console.log('Test clocks: on (TEST_CLOCKS); projects can freeze and advance their time at /v1/test-clock; use for testing only');
  console.log(`Data: ${describeStorage(config.storage)}`);
}

async function main(): Promise<void> {
  const config = configFromEnv();
  const logger = await createLogger({ level: config.logLevel, format: config.logFormat });
  const jobs = new Jobs();
  const store = await openStore(config.storage);
  // Several instances on one PostgreSQL database count against the same limits (the driver is loaded only then).
  const counters = config.storage.kind === 'postgres' ? await (await import('./http/rate-limit-postgres.js')).postgresRateLimits(config.storage.url) : undefined;
  let boundPort = config.port;
  const app = await createApp({
    jobs,
    store,
    clock: systemClock,
    apiKeys: config.apiKeys,
    validateResponses: config.validateResponses,
    testClocks: config.testClocks,
    rateLimitPerMinute: config.rateLimitPerMinute,
    managementKey: config.managementKey,
    clientKeys: config.clientKeys,
    webhooks: config.webhooks,
    authFailuresPerMinute: config.authFailuresPerMinute,
    tokensPerHour: config.tokensPerHour,
    eventRetention: config.eventRetention,
    projectSliceMs: config.projectSliceMs,
    publicBaseUrl: () => config.publicBaseUrl ?? `http://localhost:${boundPort}`,
    logger,
    metricsToken: config.metricsToken,
    docsCredentials: demoCredentials(config),
    exportFilesInStore: config.storage.kind !== 'memory',
    jobLeaseMs: config.jobLeaseMs,
    ...(counters && { rateLimitCounters: counters.store }),
  });
  const fixtureFile = fixturesPath(process.argv.slice(2), process.env);
  const loaded = await loadFixtureFile(store, systemClock, config.apiKeys[0]!.projectId, fixtureFile, BUNDLED_CONTRACT);
  if (fixtureFile) console.log(`Loaded ${loaded} object(s) from ${fixtureFile}`);
  // Stalled clients are cut in seconds, and the open connections capped (see http/connections.ts).
  app.locals.serverOptions = serverOptions(config.connections);
  const server = app.listen(config.port, config.host);
  capConnections(server, config.connections);
  await listen(server, config);
  boundPort = (server.address() as AddressInfo).port;
  printBanner(config, boundPort);
  const stopSettling = startLoyaltyTimer(appStore(app), systemClock, 60_000, config.testClocks);
  const stopLeases = jobLeases(app).start((error) => logger.error({ err: error }, 'renewing or claiming background jobs failed'));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stopServing(app);
    stopSettling();
    stopLeases();
    if (config.shutdownDrainMs === 0) close(signal);
    else {
      // Behind a load balancer, /readyz has answered 503 since now; serving on for a while lets the balancer
      // see it and send new requests elsewhere before this instance stops accepting them.
      logger.info(`${signal}: not ready; still serving for ${config.shutdownDrainMs} ms so that load balancers take this instance out`);
      setTimeout(() => close(signal), config.shutdownDrainMs);
    }
  };
  const close = (signal: string) => {
    logger.info(`${signal}: closing; requests in flight have ${config.shutdownGraceMs} ms, then ${jobs.size} background job(s) finish`);
    server.close(() => {
      // Background work may still write, so the store is released after it.
      void jobs
        .shutdown()
        .then(() => store.close())
        .then(() => counters?.close())
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        });
    });
    server.closeIdleConnections();
    // A request still in flight when the grace period ends (such as a client that stalls mid-body) is cut off.
    setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs).unref();
    setTimeout(() => {
      logger.error(`gave up waiting; ${jobs.size} background job(s) unfinished`);
      process.exit(1);
    }, config.shutdownGraceMs + config.shutdownJobsMs).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

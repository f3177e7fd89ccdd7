/** Process entry: read the configuration, start the server, stop gracefully on SIGINT/SIGTERM. */
import { appStore, createApp } from './app.js';
import { configFromEnv } from './config.js';
import { systemClock } from './domain/clock.js';
import { fixturesPath, loadFixtureFile } from './fixtures.js';
import { Jobs } from './jobs.js';
import { startLoyaltyTimer } from './loyalty-timer.js';
import { BUNDLED_CONTRACT } from './paths.js';
import { MemoryStore } from './store/memory.js';

async function main(): Promise<void> {
  const config = configFromEnv();
  const jobs = new Jobs();
  const store = new MemoryStore();
  const app = await createApp({
    jobs,
    store,
    clock: systemClock,
    apiKeys: config.apiKeys,
    validateResponses: config.validateResponses,
    rateLimitPerMinute: config.rateLimitPerMinute,
    managementKey: config.managementKey,
    clientKeys: config.clientKeys,
    webhooks: config.webhooks,
  });
  const fixtureFile = fixturesPath(process.argv.slice(2), process.env);
  const loaded = await loadFixtureFile(store, systemClock, config.apiKeys[0]!.projectId, fixtureFile, BUNDLED_CONTRACT);
  if (fixtureFile) console.log(`Loaded ${loaded} object(s) from ${fixtureFile}`);
  const server = app.listen(config.port, config.host, () => {
    const base = `http://localhost:${config.port}`;
    console.log(`Promotions and loyalty reference server on ${base} (docs: ${base}/docs)`);
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
    console.log(`Response validation: ${config.validateResponses ? 'on' : 'off'}`);
  });
  const stopSettling = startLoyaltyTimer(appStore(app), systemClock, 60_000);
  const stop = (signal: string) => {
    stopSettling();
    console.log(`${signal}: closing; finishing ${jobs.size} background job(s)`);
    server.close(() => {
      void jobs.shutdown().then(() => process.exit(0));
    });
    setTimeout(() => {
      console.error(`gave up waiting; ${jobs.size} background job(s) unfinished`);
      process.exit(1);
    }, 30_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

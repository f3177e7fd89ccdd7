/**
 * The contract kit, run as its users run it (the built command, over HTTP): it passes against the
 * reference server, and it reports each deliberately broken variant as failing, naming the fault.
 * Needs `make build` first (make test does it).
 */
import { afterAll, describe, expect, jest, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { loadFixtureFile } from '../../server/fixtures.js';
import { BUNDLED_CONTRACT, packageRoot } from '../../server/paths.js';
import { MemoryStore } from '../../server/store/memory.js';
import type { KitReport } from '../../bin/kit-report.js';
import { CONTRACT_FIXTURES, listen, secret, type Credentials } from '../contract/target.js';
import { brokenVariant, type Variant } from './broken-variants.js';

jest.setTimeout(900_000);

const KIT = join(packageRoot(), 'dist', 'bin', 'contract.js');

interface Keys {
  credentials: Credentials;
  other: Credentials;
  management: { id: string; token: string };
  client: { appId: string; token: string; origin: string };
}

type ReferenceApp = { app: Awaited<ReturnType<typeof createApp>>; serve: (handler: Parameters<typeof listen>[0]) => ReturnType<typeof listen> } & Keys;

async function referenceApp(): Promise<ReferenceApp> {
  const credentials = { appId: `app-${secret()}`, appToken: secret() };
  const other = { appId: `app-${secret()}`, appToken: secret() };
  const management = { id: `mgmt-${secret()}`, token: secret() };
  const client = { appId: `client-${secret()}`, token: secret(), origin: 'https://shop.example.test' };
  const store = new MemoryStore();
  // Absolute URLs in answers (export downloads, asset images) name wherever the server ends up listening.
  const address = { baseUrl: '' };
  const app = await createApp({
    store,
    clock: systemClock,
    publicBaseUrl: () => address.baseUrl,
    apiKeys: [
      { name: 'kit', ...credentials, projectId: 'proj_kit_a' },
      { name: 'kit-other', ...other, projectId: 'proj_kit_b' },
    ],
    // As a production deployment runs: the server does not check its own answers, the kit does.
    validateResponses: false,
    // The suite sends wrong keys on purpose, far more than a minute's allowance from one address.
    authFailuresPerMinute: 0,
    managementKey: management,
    clientKeys: [{ name: 'kit-client', appId: client.appId, token: client.token, projectId: 'proj_kit_a', origins: [client.origin] }],
  });
  // The objects the suite expects in the first project of any server it tests.
  await loadFixtureFile(store, systemClock, 'proj_kit_a', CONTRACT_FIXTURES, BUNDLED_CONTRACT);
  // Listens (on the app itself or on a broken variant wrapping it) and names that address in absolute URLs.
  const serve = async (handler: Parameters<typeof listen>[0]) => {
    const listening = await listen(handler);
    address.baseUrl = listening.baseUrl;
    return listening;
  };
  return { app, serve, credentials, other, management, client };
}

interface KitRun {
  code: number;
  output: string;
  report: KitReport;
  junit: string;
}

const children = new Set<ChildProcess>();
afterAll(() => {
  // A kit still running when its test timed out.
  for (const child of children) child.kill('SIGTERM');
});

async function runKit(baseUrl: string, keys: Partial<Keys> & { credentials: Credentials }, selection: string[], kit = KIT): Promise<KitRun> {
  const { credentials, other, management, client } = keys;
  const reportDir = mkdtempSync(join(tmpdir(), 'kit-report-'));
  const args = [kit, 'contract', '--base-url', baseUrl, '--report-dir', reportDir, ...selection];
  // The mode comes from the flags given here only, never from this process's environment.
  const { CONTRACT_STRICT: _mode, ...inherited } = process.env;
  const env = {
    ...inherited,
    CONTRACT_APP_ID: credentials.appId,
    CONTRACT_APP_TOKEN: credentials.appToken,
    ...(other && { CONTRACT_OTHER_APP_ID: other.appId, CONTRACT_OTHER_APP_TOKEN: other.appToken }),
    ...(management && { CONTRACT_MANAGEMENT_ID: management.id, CONTRACT_MANAGEMENT_TOKEN: management.token }),
    ...(client && { CONTRACT_CLIENT_APP_ID: client.appId, CONTRACT_CLIENT_TOKEN: client.token, CONTRACT_CLIENT_ORIGIN: client.origin, CONTRACT_PROJECT_ID: 'proj_kit_a' }),
  };
  try {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (status) => {
        children.delete(child);
        resolve({ code: status ?? 1, output });
      });
    });
    const reportFile = join(reportDir, 'contract-report.json');
    if (!existsSync(reportFile)) throw new Error(`the kit wrote no report (exit ${code}):\n${output}`);
    return {
      code,
      output,
      report: JSON.parse(readFileSync(reportFile, 'utf8')) as KitReport,
      junit: readFileSync(join(reportDir, 'junit.xml'), 'utf8'),
    };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

/** Everything the report blames, in one string. */
const blamed = (report: KitReport) =>
  [
    ...report.operations.rows.filter((row) => row.result === 'failed').map((row) => `${row.operationId}: ${row.reason}`),
    ...report.otherFailures.map((failure) => `${failure.test}: ${failure.reason}`),
  ].join('\n');

describe('contract kit', () => {
  test('when run against the reference server, then every scenario passes, every operation is called, and the reports say so', async () => {
    expect(existsSync(KIT)).toBe(true);
    const { app, serve, ...keys } = await referenceApp();
    const { server, baseUrl } = await serve(app);
    try {
      // Fuzzing already runs in this same `make test`, through the same client-side contract check, against
      // the in-process server; over HTTP again it would only double the time.
      const run = await runKit(baseUrl, keys, ['--skip', 'fuzz']);
      expect({ code: run.code, failed: blamed(run.report) }).toEqual({ code: 0, failed: '' });
      expect(run.report.ok).toBe(true);
      expect(run.report.operations.rows.filter((row) => row.result === 'skipped').map((row) => row.operationId)).toEqual([]);
      expect(run.report.tests.passed).toBeGreaterThan(100);
      expect(run.output).toMatch(/\[\d+\/\d+\] tests\/contract\/\S+\.test\.ts: \d+ passed/);
      expect(run.output).toMatch(/operations: \d+ passed, 0 failed, 0 skipped/);
      expect(run.junit).toMatch(/<testsuites [^>]*failures="0"/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('when the package is installed as a dependency (under node_modules), then its kit still finds and runs the suite', async () => {
    // The layout npm makes: this package copied under node_modules, its dependencies beside it.
    const project = mkdtempSync(join(tmpdir(), 'kit-installed-'));
    const installed = join(project, 'node_modules', 'promo-loyalty-contract');
    mkdirSync(installed, { recursive: true });
    for (const part of ['dist', 'generated', 'openapi', 'server', 'client', 'tests', 'bin', 'jest.config.js', 'tsconfig.json', 'package.json']) {
      cpSync(join(packageRoot(), part), join(installed, part), { recursive: true });
    }
    for (const name of readdirSync(join(packageRoot(), 'node_modules'))) {
      symlinkSync(join(packageRoot(), 'node_modules', name), join(project, 'node_modules', name));
    }
    const { app, serve, ...keys } = await referenceApp();
    const { server, baseUrl } = await serve(app);
    try {
      const run = await runKit(baseUrl, keys, ['--only', 'categories'], join(installed, 'dist', 'bin', 'contract.js'));
      expect({ code: run.code, failed: blamed(run.report) }).toEqual({ code: 0, failed: '' });
      expect(run.report.tests.passed).toBeGreaterThan(5);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      rmSync(project, { recursive: true, force: true });
    }
  });

  // Each variant with the areas whose scenarios meet its fault, and what the report must say.
  const cases: { variant: Variant; only: string; blame: RegExp }[] = [
    { variant: 'ignores-limit-bounds', only: 'customer-activity', blame: /list-customer-activity: .*"status": 200/ },
    { variant: 'wrong-object-value', only: 'categories', blame: /\/object must be equal to (constant|one of the allowed values)/ },
    { variant: 'total-per-page', only: 'products', blame: /list-products: .*total/ },
    { variant: 'skips-authentication', only: 'platform', blame: /authentication when credentials are (missing|wrong).*"status": 200/ },
    { variant: '5xx-on-bad-input', only: 'categories', blame: /create-category: .*"status": 500/ },
    { variant: 'repeats-across-cursor-pages', only: 'customer-activity', blame: /list-customer-activity: .*every event exactly once.*Expected length: 13 \| Received length: 1[4-9]/ },
    { variant: 'undocumented-field-type', only: 'categories', blame: /\/created_at must be string/ },
  ];

  test('when the server adds a field the contract does not name, then the default mode passes it and --strict fails it', async () => {
    const { app, serve, credentials } = await referenceApp();
    const { server, baseUrl } = await serve(brokenVariant('adds-undocumented-field', app, credentials));
    try {
      // vouchers.test.ts compares whole vouchers exactly: the scenarios see only the documented part of each body.
      const published = await runKit(baseUrl, { credentials }, ['--only', 'categories,vouchers', '--max-workers', '1']);
      expect({ code: published.code, failed: blamed(published.report) }).toEqual({ code: 0, failed: '' });
      expect(published.output).toMatch(/responses held to the published contract/);
      const strict = await runKit(baseUrl, { credentials }, ['--only', 'categories', '--max-workers', '1', '--strict']);
      expect(strict.code).toBe(1);
      expect(strict.output).toMatch(/responses held to the strict twin/);
      expect(blamed(strict.report)).toMatch(/must NOT have unevaluated properties 'internal_revision'/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('when the server drops a field the contract requires, then both modes fail it', async () => {
    const { app, serve, credentials } = await referenceApp();
    const { server, baseUrl } = await serve(brokenVariant('drops-required-field', app, credentials));
    try {
      for (const mode of [[], ['--strict']]) {
        const run = await runKit(baseUrl, { credentials }, ['--only', 'categories', '--max-workers', '1', ...mode]);
        expect(run.code).toBe(1);
        expect(blamed(run.report)).toMatch(/must have required property 'created_at'/);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test.each(cases)('when the server $variant, then the kit fails and blames it', async ({ variant, only, blame }) => {
    const { app, serve, credentials } = await referenceApp();
    const { server, baseUrl } = await serve(brokenVariant(variant, app, credentials));
    try {
      const run = await runKit(baseUrl, { credentials }, ['--only', only, '--max-workers', '1']);
      expect(run.code).toBe(1);
      expect(run.report.ok).toBe(false);
      expect(run.output).toMatch(/The server does NOT conform to the contract/);
      expect(blamed(run.report)).toMatch(blame);
      expect(run.junit).toMatch(/<testsuites [^>]*failures="[1-9]/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

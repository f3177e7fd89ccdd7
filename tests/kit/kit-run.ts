/**
 * The contract kit as its users run it, for the kit's tests: the built command in a process of its own,
 * against a reference server in this process whose keys the test holds. Needs `make build` first.
 */
import { afterAll } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { loadFixtureFile } from '../../server/fixtures.js';
import { BUNDLED_CONTRACT, packageRoot } from '../../server/paths.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import type { CompareReport } from '../../bin/kit-compare.js';
import type { KitReport } from '../../bin/kit-report.js';
import { CONTRACT_FIXTURES, listen, secret, type Credentials } from '../contract/target.js';

export const KIT = join(packageRoot(), 'dist', 'bin', 'contract.js');

export interface Keys {
  credentials: Credentials;
  other: Credentials;
  management: { id: string; token: string };
  client: { appId: string; token: string; origin: string };
}

export type ReferenceApp = { app: Awaited<ReturnType<typeof createApp>>; serve: (handler: Parameters<typeof listen>[0]) => ReturnType<typeof listen> } & Keys;

/** The export directories of the reference servers this test file made. */
const exportsDirs: string[] = [];

/**
 * A reference server with two projects, a management and a client-side key, and (unless told) the contract
 * fixtures; its limit on failed authentications is off unless `authFailuresPerMinute` is given.
 */
export async function referenceApp({ fixtures = true, authFailuresPerMinute = 0 } = {}): Promise<ReferenceApp> {
  const credentials = { appId: `app-${secret()}`, appToken: secret() };
  const other = { appId: `app-${secret()}`, appToken: secret() };
  const management = { id: `mgmt-${secret()}`, token: secret() };
  const client = { appId: `client-${secret()}`, token: secret(), origin: 'https://shop.example.test' };
  const store = new MemoryStore(SCHEMA);
  // Export files go to this file's own directory, removed when its tests end (see afterAll below).
  const exportsDir = mkdtempSync(join(tmpdir(), 'kit-exports-'));
  exportsDirs.push(exportsDir);
  // Absolute URLs in answers (export downloads, asset images) name wherever the server ends up listening.
  const address = { baseUrl: '' };
  const app = await createApp({
    store,
    clock: systemClock,
    exportsDir,
    publicBaseUrl: () => address.baseUrl,
    apiKeys: [
      { name: 'kit', ...credentials, projectId: 'proj_kit_a' },
      { name: 'kit-other', ...other, projectId: 'proj_kit_b' },
    ],
    // As a production deployment runs: the server does not check its own answers, the kit does.
    validateResponses: false,
    // The suite sends wrong keys on purpose, far more than a minute's allowance from one address.
    authFailuresPerMinute,
    managementKey: management,
    clientKeys: [{ name: 'kit-client', appId: client.appId, token: client.token, projectId: 'proj_kit_a', origins: [client.origin] }],
  });
  // The objects the suite expects in the first project of any server it tests.
  if (fixtures) await loadFixtureFile(store, systemClock, 'proj_kit_a', CONTRACT_FIXTURES, BUNDLED_CONTRACT);
  // Listens (on the app itself or on a broken variant wrapping it) and names that address in absolute URLs.
  const serve = async (handler: Parameters<typeof listen>[0]) => {
    const listening = await listen(handler);
    address.baseUrl = listening.baseUrl;
    return listening;
  };
  return { app, serve, credentials, other, management, client };
}

const children = new Set<ChildProcess>();
afterAll(() => {
  // A kit still running when its test timed out.
  for (const child of children) child.kill('SIGTERM');
  for (const dir of exportsDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The kit's command with these arguments and environment: its exit code and everything it printed. */
export function kitCommand(args: string[], env: NodeJS.ProcessEnv = process.env, kit = KIT): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [kit, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (status) => {
      children.delete(child);
      resolve({ code: status ?? 1, output });
    });
  });
}

export interface KitRun {
  code: number;
  output: string;
  /** The run's report; a run the preflight stopped has only `preflight` and `ok` of it. */
  report: KitReport & { preflight?: string[] };
  junit: string;
}

/** A kit run against `baseUrl` with the keys given (each absent one is not passed), and the reports it wrote. */
export async function runKit(baseUrl: string, keys: Partial<Keys> & { credentials: Credentials }, selection: string[], kit = KIT): Promise<KitRun> {
  const { credentials, other, management, client } = keys;
  const reportDir = mkdtempSync(join(tmpdir(), 'kit-report-'));
  // The mode and the keys come from the arguments here only, never from this process's environment.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CONTRACT_')));
  const env = {
    ...inherited,
    CONTRACT_APP_ID: credentials.appId,
    CONTRACT_APP_TOKEN: credentials.appToken,
    ...(other && { CONTRACT_OTHER_APP_ID: other.appId, CONTRACT_OTHER_APP_TOKEN: other.appToken }),
    ...(management && { CONTRACT_MANAGEMENT_ID: management.id, CONTRACT_MANAGEMENT_TOKEN: management.token }),
    ...(client && { CONTRACT_CLIENT_APP_ID: client.appId, CONTRACT_CLIENT_TOKEN: client.token, CONTRACT_CLIENT_ORIGIN: client.origin, CONTRACT_PROJECT_ID: 'proj_kit_a' }),
  };
  try {
    const { code, output } = await kitCommand(['contract', '--base-url', baseUrl, '--report-dir', reportDir, ...selection], env, kit);
    const reportFile = join(reportDir, 'contract-report.json');
    if (!existsSync(reportFile)) throw new Error(`the kit wrote no report (exit ${code}):\n${output}`);
    return {
      code,
      output,
      report: JSON.parse(readFileSync(reportFile, 'utf8')) as KitRun['report'],
      junit: readFileSync(join(reportDir, 'junit.xml'), 'utf8'),
    };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

export interface CompareRun {
  code: number;
  output: string;
  report: CompareReport & { preflight?: string[] };
}

/** The kit's `compare` of the servers at `a` and `b`, each with its server-side key, and the report it wrote. */
export async function compareKit(a: { baseUrl: string; credentials: Credentials }, b: { baseUrl: string; credentials: Credentials }, selection: string[]): Promise<CompareRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'kit-compare-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CONTRACT_')));
  const keys = (prefix: string, { appId, appToken }: Credentials) => [`--${prefix}app-id`, appId, `--${prefix}app-token`, appToken];
  try {
    const args = ['compare', '--base-url', a.baseUrl, ...keys('', a.credentials), '--other-base-url', b.baseUrl, ...keys('other-base-', b.credentials)];
    const { code, output } = await kitCommand([...args, '--report-dir', reportDir, ...selection], env);
    const reportFile = join(reportDir, 'compare-report.json');
    if (!existsSync(reportFile)) throw new Error(`the kit wrote no report (exit ${code}):\n${output}`);
    return { code, output, report: JSON.parse(readFileSync(reportFile, 'utf8')) as CompareRun['report'] };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

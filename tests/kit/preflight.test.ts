/**
 * The contract kit explains itself: before any scenario runs, its preflight stops a run against a target that
 * does not answer, is not this API, refuses a key, limits failed authentications or lacks the contract fixtures, in one paragraph and exit 2;
 * its flags fail with usage text, not a stack; and every skip names its reason and the flags that would run it,
 * in the printed table and in JUnit. Needs `make build` first (make test does it).
 */
import { describe, expect, jest, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../server/paths.js';
import { kitCommand, referenceApp, runKit } from './kit-run.js';

jest.setTimeout(120_000);

/** A key for targets that never get to check it. */
const SOME_KEY = { appId: 'app-id', appToken: 'app-token' };
const stop = (server: { close: (done: () => void) => void }) => new Promise<void>((resolve) => server.close(() => resolve()));
const baseUrlOf = (server: { address: () => unknown }) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** The paragraph of a stopped run: naming the target and what is wrong, then that nothing ran. */
function expectStopped(run: { code: number; output: string; junit: string; report: { ok: boolean; preflight?: string[] } }, baseUrl: string, problem: RegExp) {
  expect(run.code).toBe(2);
  expect(run.output).toContain(baseUrl);
  expect(run.output).toMatch(problem);
  expect(run.output).toMatch(/No scenario ran \(exit 2\)\./);
  expect(run.output).not.toMatch(/Running \d+ test file|\n\s+at /);
  expect(run.report).toMatchObject({ ok: false, preflight: [expect.stringMatching(problem)] });
  expect(run.junit).toMatch(/<testsuite name="contract kit: preflight"[^>]*failures="1"/);
}

describe('contract kit preflight', () => {
  test('when nothing listens at the base URL, then it says nothing answers there and exits 2', async () => {
    // A port that was free a moment ago: as when the server under test stopped because its port was taken elsewhere.
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const baseUrl = baseUrlOf(probe);
    await stop(probe);
    expectStopped(await runKit(baseUrl, { credentials: SOME_KEY }, ['--only', 'categories']), baseUrl, /Nothing answers at .*connection .* was refused/);
  });

  test('when what answers is an HTTP server but not this API, then it says so and exits 2', async () => {
    // What another program holding the port would look like: a 404 page for everything.
    const other: Server = createHttpServer((_req, res) => res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const baseUrl = baseUrlOf(other);
    try {
      const run = await runKit(baseUrl, { credentials: SOME_KEY }, ['--only', 'categories']);
      expectStopped(run, baseUrl, /Something answers at .*, but not as this API: GET \/v1\/customers\?limit=1 with the server-side key gave 404 text\/html "<h1>Not Found<\/h1>"/);
    } finally {
      await stop(other);
    }
  });

  test('when a key is refused, then it names that key and the flags that give it, and exits 2', async () => {
    const { app, serve, credentials, management } = await referenceApp({ fixtures: false });
    const { server, baseUrl } = await serve(app);
    try {
      const wrongToken = await runKit(baseUrl, { credentials: { ...credentials, appToken: 'not-the-token' } }, ['--only', 'categories']);
      expectStopped(wrongToken, baseUrl, new RegExp(`refused the server-side key \\(X-App-Id ${credentials.appId}\\).*401 unauthorized.*--app-id and --app-token`));
      const wrongManagement = await runKit(baseUrl, { credentials, management: { ...management, token: 'not-the-token' } }, ['--only', 'categories']);
      expectStopped(wrongManagement, baseUrl, new RegExp(`refused the management key \\(X-Management-Id ${management.id}\\).*--management-id and --management-token`));
    } finally {
      await stop(server);
    }
  });

  test('when the server limits failed authentications (the reference server\'s default), then it says what to set and exits 2', async () => {
    const { app, serve, ...keys } = await referenceApp({ authFailuresPerMinute: 50 });
    const { server, baseUrl } = await serve(app);
    try {
      const run = await runKit(baseUrl, keys, ['--only', 'categories']);
      expectStopped(run, baseUrl, /limits failed authentications: its 401 to a wrong key .* carries RateLimit-Policy: "failed-authentication"; ?q=50; ?w=60/);
      expect(run.output).toContain('AUTH_FAILURES_PER_MINUTE=0 node dist/server/main.js --fixtures tests/fixtures/contract.json');
      expect(run.output).toContain('at least 1000 failed authentications a minute');
    } finally {
      await stop(server);
    }
  });

  test('when this address is over the server\'s limit already (429 from the start), then it says so and what to set, and exits 2', async () => {
    const { app, serve, credentials } = await referenceApp({ authFailuresPerMinute: 3 });
    const { server, baseUrl } = await serve(app);
    try {
      const wrong = { 'X-App-Id': credentials.appId, 'X-App-Token': 'wrong' };
      for (let attempt = 0; attempt < 3; attempt += 1) await fetch(`${baseUrl}/v1/customers`, { headers: wrong });
      const run = await runKit(baseUrl, { credentials }, ['--only', 'categories']);
      expectStopped(run, baseUrl, /answered 429 to the kit's first requests \(GET \/v1\/customers\?limit=1 gave 429 too_many_requests: Too Many Requests \(More than 3 failed authentications a minute from this address.*Retry-After \d+ s\)/);
      expect(run.output).toContain('AUTH_FAILURES_PER_MINUTE=0');
    } finally {
      await stop(server);
    }
  });

  test('when the server lacks the contract fixtures, then it names the file to load and how, and exits 2', async () => {
    const { app, serve, ...keys } = await referenceApp({ fixtures: false });
    const { server, baseUrl } = await serve(app);
    try {
      const fixtures = join(packageRoot(), 'tests', 'fixtures', 'contract.json');
      const run = await runKit(baseUrl, keys, ['--only', 'locations']);
      expectStopped(run, baseUrl, /lacks 14 of the 14 objects the contract suite expects .*\(location loc_contract_00, /);
      expect(run.output).toContain(`Load ${fixtures} into that project`);
      expect(run.output).toContain(`--fixtures ${fixtures}`);
      expect(run.output).toContain('--skip locations');
    } finally {
      await stop(server);
    }
  });
});

describe('contract kit flags', () => {
  test('when asked for --version, then it prints the package version', async () => {
    const { name, version } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name: string; version: string };
    expect(await kitCommand(['--version'])).toEqual({ code: 0, output: `${name} ${version}\n` });
  });

  test('when asked for --list-areas, with or without the contract command, then it lists the areas and exits 0', async () => {
    const areas = readdirSync(join(packageRoot(), 'tests', 'contract'))
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => name.replace(/\.test\.ts$/, ''))
      .sort();
    const listed = { code: 0, output: `${areas.join('\n')}\n` };
    expect(areas).toEqual(expect.arrayContaining(['customers', 'vouchers', 'locations']));
    expect(await kitCommand(['--list-areas'])).toEqual(listed);
    expect(await kitCommand(['contract', '--list-areas'])).toEqual(listed);
  });

  test('when given a flag it does not know, then it prints usage and exits 2, without a stack trace', async () => {
    const { code, output } = await kitCommand(['contract', '--frobnicate', '--base-url', 'http://127.0.0.1:9']);
    expect(code).toBe(2);
    expect(output).toMatch(/^Unknown option --frobnicate\.\n\nUsage: promo-loyalty-contract contract --base-url URL/);
    expect(output).not.toMatch(/ERR_PARSE_ARGS|\n\s+at /);
  });
});

describe('contract kit skips', () => {
  test('when run without the management key, then each skip names it and its flags, in the table and in JUnit', async () => {
    const { app, serve, credentials, client } = await referenceApp();
    const { server, baseUrl } = await serve(app);
    try {
      const run = await runKit(baseUrl, { credentials, client }, ['--only', 'client-side,oauth']);
      const reason = 'needs the management key: pass --management-id and --management-token';
      expect({ code: run.code, ok: run.report.ok }).toEqual({ code: 0, ok: true });
      // client-side.test.ts is skipped as declared; oauth.test.ts's project deletion ends through skip().
      expect(run.output).toContain(`skipped: 6 in tests/contract/client-side.test.ts: ${reason}`);
      expect(run.output).toContain(`skipped: 1 in tests/contract/oauth.test.ts: ${reason}`);
      expect(run.output).toMatch(new RegExp(`delete-project +skipped +0 +skipped: ${reason}`));
      expect(run.junit.match(new RegExp(`<skipped message="${reason}"/>`, 'g'))).toHaveLength(7);
      expect(run.junit).not.toContain('<skipped/>');
      expect(run.junit).toMatch(/<testsuite name="contract kit: client-side.test.ts"[^>]* skipped="6"/);
      expect(run.junit).toMatch(/<testsuite name="contract kit: oauth.test.ts"[^>]* skipped="1"/);
      expect(run.report.tests.skipped).toBe(7);
      // The progress lines add up to the summary: oauth.test.ts's scenario that ended through skip() is skipped in both.
      const progress = [...run.output.matchAll(/^\[\d+\/\d+\] \S+: (\d+) passed, (\d+) failed, (\d+) skipped/gm)].map((line) => line.slice(1).map(Number));
      expect(progress).toHaveLength(2);
      const summed = progress.reduce((sum, counts) => sum.map((value, index) => value + counts[index]!), [0, 0, 0]);
      const summary = /^scenarios: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(run.output)!.slice(1).map(Number);
      expect(summed).toEqual(summary);
      expect(summary).toEqual([run.report.tests.passed, 0, 7]);
      // The table lists what the selected areas called; the rest is one line, not a row each.
      expect(run.output).not.toMatch(/ skipped +0 +not called by the selected areas/);
      expect(run.output).toMatch(/^\(\d+ other operations are not called by the selected areas; contract-report\.json lists them\)$/m);
      // The results file the kit reads is its own, gone once the run ends: nothing points at it.
      expect(run.output).not.toContain('Test results written to');
    } finally {
      await stop(server);
    }
  });
});

/**
 * The README's "Contract-test another server" recipe, run as written: its server line starts the built
 * reference server with the contract fixtures, and its kit line (npx, demo keys) runs the suite over HTTP.
 * Only the port is chosen free (the server honours PORT), so a server already on 3000 cannot interfere, and
 * the kit is given a few areas (`--only`) that between them use every key the recipe passes: the whole suite
 * runs over HTTP once in `make test`, against two instances on PostgreSQL (tests/instances/kit.test.ts), and
 * here it would prove no more than the recipe's commands and keys. The recipe passes every key that server
 * has, so the only skips are the ones the README says remain. Needs `make build` first (make test does it).
 */
import { describe, expect, jest, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { KitReport } from '../../bin/kit-report.js';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../server/paths.js';

jest.setTimeout(300_000);

/** Areas that between them use the server-side, client-side and management keys, the project ID and the fixtures. */
const AREAS = 'platform,client-side,management,locations,categories';

const root = packageRoot();

/** The skips the README names for this recipe: in-process-only scenarios, and the second project's checks. */
const EXPECTED_SKIPS = [/runs only against the in-process reference server of `make test`/, /^needs a second project's key: pass --other-app-id and --other-app-token$/];

/** The shell lines of the recipe's code block, continuation lines joined. */
function recipeLines(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /### Contract-test another server\s+```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README has no "Contract-test another server" recipe');
  return block.replace(/\\\n\s*/g, '').split('\n').map((line) => line.trim()).filter(Boolean);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function run(command: string, env: NodeJS.ProcessEnv): { child: ChildProcess; done: Promise<{ code: number | null; output: string }> } {
  // Its own process group, so stopping it stops what the shell started too (a shell may fork rather than
  // exec, and an orphaned server would keep Jest from exiting).
  const child = spawn('sh', ['-c', command], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close': every process holding its output has ended, not just the shell.
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, output }))) };
}

describe('README: the first kit command, under "Installing the package"', () => {
  test('when read, then a server line before it starts the reference server as the kit needs it: fixtures loaded, no limit on failed authentications', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Installing the package'), readme.indexOf('### Use the typed client'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const lines = block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line && !line.startsWith('#'));
    const kit = lines.findIndex((line) => line.startsWith('npx promo-loyalty-contract-kit contract'));
    const serve = lines.findIndex((line) => /^AUTH_FAILURES_PER_MINUTE=0 node dist\/server\/main\.js --fixtures tests\/fixtures\/contract\.json &$/.test(line));
    expect({ kit: kit >= 0, serve: serve >= 0, serveFirst: serve < kit }).toEqual({ kit: true, serve: true, serveFirst: true });
    // The same server line as the recipe this file runs, so what it proves holds for this one too.
    expect(recipeLines()).toContain(lines[serve]);
  });
});

describe('README recipe: contract-test another server', () => {
  test('when its commands run as written, then the kit passes against the reference server', async () => {
    const lines = recipeLines();
    const serve = lines.find((line) => /^(\w+=\S* )*node dist\/server\/main\.js/.test(line));
    const kit = lines.find((line) => line.startsWith('npx promo-loyalty-contract contract'));
    expect({ serve, kit }).toEqual({ serve: expect.stringMatching(/--fixtures tests\/fixtures\/contract\.json &$/), kit: expect.stringContaining('--base-url http://localhost:3000') });
    const port = await freePort();
    const server = run(serve!.replace(/&$/, ''), { ...process.env, PORT: String(port), HOST: '127.0.0.1' });
    try {
      await new Promise<void>((resolve, reject) => {
        server.child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('reference server on') && resolve());
        void server.done.then(({ output }) => reject(new Error(`the server stopped:\n${output}`)));
      });
      // The server's own address stands wherever the recipe names port 3000: its base URL, and the client-side
      // origin, which a server allows by default on its own port (CLIENT_ORIGINS follows PORT).
      const result = await run(`${kit!.replaceAll('http://localhost:3000', `http://localhost:${port}`)} --only ${AREAS}`, { ...process.env }).done;
      expect({ code: result.code, tail: result.output.slice(-3000) }).toEqual({ code: 0, tail: expect.stringContaining('The server conforms to the contract.') });
      const reportFile = /^reports: (\S+contract-report\.json),/m.exec(result.output)?.[1];
      const report = JSON.parse(readFileSync(reportFile!, 'utf8')) as KitReport;
      const unexpected = report.skipped.filter((entry) => !EXPECTED_SKIPS.some((reason) => reason.test(entry.reason)));
      expect(unexpected).toEqual([]);
      // Every kind of key was used: operations of the server-side, client-side and management APIs passed.
      const passed = report.operations.rows.filter((row) => row.result === 'passed').map((row) => row.operationId);
      expect(passed).toEqual(expect.arrayContaining(['list-categories', 'track-custom-event-client-side', 'list-projects']));
      expect(result.output).not.toContain('Test results written to');
    } finally {
      // The group may be gone already (the server died); the failure above must then be the one reported.
      try {
        process.kill(-server.child.pid!, 'SIGTERM');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      await server.done;
    }
  });
});

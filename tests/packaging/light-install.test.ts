/**
 * The light package as a team that wants only the contract, the types and the client gets it: its tarball
 * installed into an empty project (the registry supplies openapi-fetch), then the README's recipes run there as
 * written, compiled under `tsc --strict` and run against an in-process reference server with the demo key.
 * Needs `make build` and the docs page first (make test makes them).
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient } from '../../client/index.js';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { Jobs } from '../../server/jobs.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { codeBlocks, installed, mustRun, readmeSection, root, run, shellLines } from './packaging.js';

jest.setTimeout(600_000);

const DEMO = { appId: 'demo-app-id', appToken: 'demo-app-token' };
const TSC = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

let scratch: string;
let project: string;
let server: Server;
let jobs: Jobs;
let baseUrl: string;
let lightInstall: { bytes: number; packages: string[] } | undefined;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'light-install-'));
  project = join(scratch, 'project');
  mkdirSync(project);
  // dist/ and the docs page are built already; tarballs.test.ts runs the prepack that builds them.
  const packed = await mustRun('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch], root);
  const tarball = join(scratch, packed.stdout.trim().split('\n').pop()!);
  // The recipe's install lines as written, with the packed tarball where the registry's package would be.
  const recipe = codeBlocks(readmeSection('### Use the typed client'), 'sh')[0]!;
  for (const line of shellLines(recipe)) {
    await mustRun('sh', ['-c', line.replace(/^npm install promo-loyalty-contract$/, `npm install ${tarball}`)], project);
    // What the light package brings, measured before the recipe adds the project's own compiler.
    if (line === 'npm install promo-loyalty-contract') lightInstall = installed(join(project, 'node_modules'));
  }
  jobs = new Jobs();
  const app = await createApp({
    store: new MemoryStore(SCHEMA),
    clock: systemClock,
    jobs,
    apiKeys: [{ name: 'demo', ...DEMO, projectId: 'proj_readme' }],
    // Whatever the recipes send, the answers they get are held to the strict twin.
    validateResponses: true,
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await jobs?.shutdown();
  rmSync(scratch, { recursive: true, force: true });
});

/** A README snippet pointed at the in-process server instead of `make serve`'s port. */
const here = (snippet: string) => snippet.replaceAll('http://localhost:3000', baseUrl);

describe('the light package installed into an empty project', () => {
  test('when installed, then it brings a few megabytes and no test runner or server framework', () => {
    expect(lightInstall).toBeDefined();
    const { bytes, packages } = lightInstall!;
    console.log(`light install: ${packages.length} packages (${packages.join(', ')}), ${(bytes / 1e6).toFixed(1)} MB in node_modules`);
    expect(packages).toContain('promo-loyalty-contract');
    expect(packages).toContain('openapi-fetch');
    expect(packages.filter((name) => /^(jest|@jest\/.*|express|@swc\/.*|ajv|typescript)$/.test(name))).toEqual([]);
    expect(bytes).toBeLessThan(15e6);
  });

  test('when its command is asked to run the kit, then it exits 2 and names the kit\'s package and command', async () => {
    const ran = await run(join(project, 'node_modules', '.bin', 'promo-loyalty-contract'), ['contract', '--base-url', baseUrl], project);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('npx promo-loyalty-contract-kit contract --base-url');
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  });

  test('when the README client snippet is compiled under tsc --strict and run, then it creates a customer and lists vouchers', async () => {
    const section = readmeSection('### Use the typed client');
    writeFileSync(join(project, 'tsconfig.json'), codeBlocks(section, 'json')[0]!);
    writeFileSync(join(project, 'main.ts'), here(codeBlocks(section, 'ts')[0]!));
    // `npx tsc` as the README says: the recipe's own install put TypeScript in the project, so npx runs that
    // one (without it, npx fetches an unrelated package named tsc).
    const compiler = JSON.parse(readFileSync(join(project, 'node_modules', 'typescript', 'package.json'), 'utf8')) as { version: string };
    expect(compiler.version).toMatch(/^5\./);
    await mustRun('npx', ['--no-install', 'tsc', '--strict'], project);
    const ran = await mustRun(process.execPath, ['main.js'], project);
    expect(ran.stdout).toMatch(/^customer cust_\S+\nvouchers: \d+\n$/);
    // The customer is on the server, under the source ID the snippet gave it.
    const api = createApiClient({ baseUrl, ...DEMO });
    const stored = await api.GET('/v1/customers/{customerId}', { params: { path: { customerId: 'ada-lovelace' } } });
    expect(stored.data).toMatchObject({ source_id: 'ada-lovelace', name: 'Ada Lovelace' });
  });

  test('when imported by name and by default, then both are the same typed function (a wrong body or path does not compile)', async () => {
    const dir = join(project, 'named');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    writeFileSync(join(dir, 'tsconfig.json'), codeBlocks(readmeSection('### Use the typed client'), 'json')[0]!);
    // Each expected error must occur, or tsc fails on the unused directive: the types are not `any`.
    writeFileSync(
      join(dir, 'main.ts'),
      [
        "import createClient, { createApiClient, type paths } from 'promo-loyalty-contract/client';",
        `const api = createApiClient({ baseUrl: '${baseUrl}', appId: 'demo-app-id', appToken: 'demo-app-token' });`,
        'export function neverCalled() {',
        '  // @ts-expect-error source_id is a string in the contract',
        "  void api.POST('/v1/customers', { body: { source_id: 42 } });",
        '  // @ts-expect-error no such path',
        "  void api.GET('/v1/no-such-path');",
        "  const listed: keyof paths = '/v1/vouchers';",
        '  return listed;',
        '}',
        "const { data } = await api.GET('/v1/vouchers', { params: { query: { limit: 1 } } });",
        "console.log(createClient === createApiClient ? 'same function' : 'two functions', data?.object);",
      ].join('\n'),
    );
    await mustRun(process.execPath, [TSC, '-p', dir, '--strict'], dir);
    const ran = await mustRun(process.execPath, ['main.js'], dir);
    expect(ran.stdout.trim()).toBe('same function list');
  });

  test('when the README generator recipe runs (openapi-typescript with the Makefile\'s flags), then a minimal campaign body compiles and is created', async () => {
    const section = readmeSection('### Generate a client from `generated/openapi.json`');
    const lines = shellLines(codeBlocks(section, 'sh')[0]!);
    expect(lines).toEqual(['make install', expect.stringMatching(/^npx openapi-typescript generated\/openapi\.json .*--default-non-nullable false/)]);
    // A clone's layout: the bundle at generated/, openapi-typescript installed. make test has run `make install`.
    symlinkSync(join(root, 'generated'), join(project, 'generated'));
    symlinkSync(join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), join(project, 'node_modules', '.bin', 'openapi-typescript'));
    for (const line of lines.slice(1)) await mustRun('sh', ['-c', line], project);
    writeFileSync(join(project, 'my-client', 'tsconfig.json'), codeBlocks(readmeSection('### Use the typed client'), 'json')[0]!);
    writeFileSync(join(project, 'my-client', 'main.ts'), here(codeBlocks(section, 'ts')[0]!));
    await mustRun(process.execPath, [TSC, '-p', 'my-client', '--strict'], project);
    const ran = await mustRun(process.execPath, ['my-client/main.js'], project);
    expect(ran.stdout.trim()).toBe('campaign Spring sale: 5 vouchers');
    // A second run meets the first one's campaign (409): it reads that one instead of printing `campaign undefined`.
    const again = await mustRun(process.execPath, ['my-client/main.js'], project);
    expect(again.stdout.trim()).toBe('campaign Spring sale: 5 vouchers');
  });
});

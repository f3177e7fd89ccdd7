/**
 * The generator matrix: each client generator teams already use writes a TypeScript client from the bundled
 * contract into a temp dir, every client compiles under `tsc --strict` (one compiler run for all of them),
 * and each makes two real calls, create a customer and list vouchers, to an in-process reference server.
 * Every client compiles twice: under the README's own tsconfig (NodeNext, in an ES module package, as the
 * typed-client recipe sets up), whose output the programs run; and under CommonJS with `node10` resolution, the
 * setting the generators' extensionless output was written for. Each generator runs with the options the
 * README gives for it. A contract that a generator calls invalid, or that yields code which does not compile,
 * fails here.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { BUNDLED_CONTRACT, packageRoot } from '../../server/paths.js';
import { clientFor, raw, startTarget, unique, type Target } from '../contract/target.js';
import { codeBlocks, readmeSection } from '../packaging/packaging.js';
import { COMMON, GENERATORS, type Generator } from './generators.js';

jest.setTimeout(120_000);

interface Run {
  code: number;
  output: string;
  seconds: number;
}

function run(bin: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      bin,
      args,
      { cwd: options.cwd, env: { ...process.env, NO_UPDATE_NOTIFIER: '1', ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`, seconds: (Date.now() - started) / 1000 });
      },
    );
  });
}

/** Lines in which a generator says the document is wrong, or that it had to guess. */
const COMPLAINT = /⚠|warn|invalid|error|fail/i;

const ROOT = packageRoot();
const state = {} as {
  target: Target;
  dir: string;
  generated: Map<string, Run>;
  /** tsc's diagnostics per tsconfig, by the generator folder they are in (`common` for the shared file). */
  diagnostics: Record<Setting, Map<string, string[]>>;
  voucherCode: string;
};

/**
 * The two compiler settings. `nodenext` is the README's typed-client tsconfig, read from the README (it emits
 * beside the sources, as `npx tsc && node main.js` there); `commonjs` is the setting where extensionless
 * imports resolve, checked without output.
 */
const README_TSCONFIG = JSON.parse(codeBlocks(readmeSection('### Use the typed client'), 'json')[0]!) as { compilerOptions: Record<string, unknown> };
const SETTINGS = {
  nodenext: README_TSCONFIG.compilerOptions,
  commonjs: {
    strict: true,
    target: 'ES2022',
    module: 'commonjs',
    moduleResolution: 'node10',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: ['node'],
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
  },
};
type Setting = keyof typeof SETTINGS;

/** The files below a folder, leaving out the linked node_modules. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name !== 'node_modules')
    .flatMap((name) => {
      const path = join(dir, name);
      return lstatSync(path).isDirectory() ? filesUnder(path) : [path];
    });
}

beforeAll(async () => {
  state.target = await startTarget();
  const voucher = await clientFor(state.target).POST('/v1/vouchers', { body: { type: 'GIFT_VOUCHER', gift: { amount: 2500 } } });
  state.voucherCode = voucher.data!.code!;

  state.dir = mkdtempSync(join(tmpdir(), 'generator-matrix-'));
  // The generated code and the callers import openapi-fetch and Node's types as a project of its own would.
  symlinkSync(join(ROOT, 'node_modules'), join(state.dir, 'node_modules'), 'dir');
  // An ES module package, as the README's typed-client recipe makes one (`npm pkg set type=module`).
  writeFileSync(join(state.dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  writeFileSync(join(state.dir, 'common.ts'), COMMON);
  // The contract as a team holds it: a copy in its project, named by a relative path.
  copyFileSync(BUNDLED_CONTRACT, join(state.dir, 'openapi.json'));
  const contract = './openapi.json';

  state.generated = new Map();
  for (const generator of GENERATORS) {
    const folder = join(state.dir, generator.dir);
    mkdirSync(folder, { recursive: true });
    for (const [name, text] of Object.entries(generator.setup?.(state.dir, join(state.dir, 'openapi.json')) ?? {})) writeFileSync(join(folder, name), text);
    writeFileSync(join(folder, 'call.ts'), generator.caller);
    const { bin, args } = generator.command(state.dir, contract);
    // From the temp dir, as in a project of its own: no lint settings of this repository apply.
    const result = await run(process.execPath, [join(ROOT, bin), ...args], { cwd: state.dir });
    for (const [name, text] of Object.entries(generator.after ?? {})) writeFileSync(join(folder, name), text);
    state.generated.set(generator.dir, result);
    console.log(`${generator.name}: generated in ${result.seconds.toFixed(1)} s (exit ${result.code})`);
  }

  // One compiler run per setting for every client, both at once (one core each).
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiles = await Promise.all(
    (Object.keys(SETTINGS) as Setting[]).map((setting) => {
      writeFileSync(
        join(state.dir, `tsconfig.${setting}.json`),
        JSON.stringify({ compilerOptions: SETTINGS[setting], include: ['**/*.ts'], exclude: ['node_modules'] }),
      );
      return run(process.execPath, [tsc, '-p', `tsconfig.${setting}.json`, '--pretty', 'false'], { cwd: state.dir });
    }),
  );
  const files = filesUnder(state.dir).filter((file) => file.endsWith('.ts'));
  state.diagnostics = { nodenext: new Map(), commonjs: new Map() };
  (Object.keys(SETTINGS) as Setting[]).forEach((setting, index) => {
    const compile = compiles[index]!;
    const lines = compile.output.split('\n').filter((text) => /error TS\d+/.test(text));
    console.log(`tsc --strict (${setting}): ${files.length} files of ${GENERATORS.length} clients, ${lines.length} errors, ${compile.seconds.toFixed(1)} s`);
    for (const line of lines) {
      const folder = relative(state.dir, join(state.dir, line)).split(/[\\/]/)[0] ?? '';
      const where = folder.startsWith('common') ? 'common' : folder;
      state.diagnostics[setting].set(where, [...(state.diagnostics[setting].get(where) ?? []), line]);
    }
  });
}, 600_000);

afterAll(async () => {
  await state.target?.close();
  if (state.dir) rmSync(state.dir, { recursive: true, force: true });
});

test.each(Object.keys(SETTINGS))('the shared part of the callers compiles (%s)', (setting) => {
  expect(state.diagnostics[setting as Setting].get('common') ?? []).toEqual([]);
});

describe.each(GENERATORS.map((generator) => [generator.name, generator] as [string, Generator]))('%s', (_, generator) => {
  test('writes a client without calling the contract invalid or warning about it', () => {
    const result = state.generated.get(generator.dir)!;
    expect(result).toMatchObject({ code: 0 });
    expect(result.output.split('\n').filter((line) => COMPLAINT.test(line))).toEqual([]);
  });

  test.each(Object.keys(SETTINGS))('the client and its caller compile under tsc --strict (%s)', (setting) => {
    expect(filesUnder(join(state.dir, generator.dir, 'client')).length).toBeGreaterThan(0);
    expect(state.diagnostics[setting as Setting].get(generator.dir) ?? []).toEqual([]);
  });

  test('its default server is the concrete local address, never a templated one', () => {
    const templated = filesUnder(join(state.dir, generator.dir, 'client')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /\{scheme\}|\{host\}/.test(line))
        .map((line) => `${relative(state.dir, file)}: ${line.trim()}`),
    );
    expect(templated).toEqual([]);
  });

  test('creates a customer and lists vouchers on the reference server', async () => {
    const sourceId = unique(`matrix-${generator.dir}`);
    // The NodeNext build: ES modules, as Node runs the README's recipe.
    const result = await run(process.execPath, [join(state.dir, generator.dir, 'call.js')], {
      cwd: state.dir,
      env: {
        BASE_URL: state.target.baseUrl,
        APP_ID: state.target.credentials.appId,
        APP_TOKEN: state.target.credentials.appToken,
        SOURCE_ID: sourceId,
      },
    });
    expect(result).toMatchObject({ code: 0 });
    const outcome = JSON.parse(result.output.trim().split('\n').pop()!) as {
      customer: { id: string; source_id: string };
      voucherCodes: string[];
    };
    expect(outcome.customer).toEqual({ id: expect.stringMatching(/^cust_/), source_id: sourceId });
    expect(outcome.voucherCodes).toContain(state.voucherCode);
    // The customer is really there, as the server tells anyone who asks.
    const stored = await raw(state.target, 'GET', `/v1/customers/${outcome.customer.id}`);
    expect(stored).toMatchObject({ status: 200, body: { id: outcome.customer.id, source_id: sourceId, name: 'Generated client' } });
  });
});

test('the clients that keep a default base URL take the contract’s first server, http://localhost:3000', () => {
  const read = (...path: string[]): string => readFileSync(join(state.dir, ...path), 'utf8');
  expect(read('swagger-typescript-api', 'client', 'api.ts')).toMatch(/baseUrl: string = "http:\/\/localhost:3000"/);
  expect(read('openapi-typescript-codegen', 'client', 'core', 'OpenAPI.ts')).toMatch(/BASE: 'http:\/\/localhost:3000'/);
  expect(read('hey-api', 'client', 'types.gen.ts')).toMatch(/baseUrl: 'http:\/\/localhost:3000'/);
});

test('the contract names concrete servers only, with plain-text descriptions', () => {
  const { servers } = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as { servers: { url: string; description?: string; variables?: unknown }[] };
  expect(servers[0]?.url).toBe('http://localhost:3000');
  for (const server of servers) {
    // Generators copy variables into base URLs verbatim or refuse them; renderers show descriptions as they are.
    expect(server).not.toHaveProperty('variables');
    expect(server.url).not.toMatch(/[{}]/);
    expect(server.description ?? '').not.toMatch(/[`*_[\]]/);
  }
});

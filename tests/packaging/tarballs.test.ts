/**
 * What each published package holds. The light package (`npm pack` at the root, whose prepack builds dist/ and
 * the docs page) ships the contract, its types, the client and the docs page, and nothing else; the kit's
 * package (`make kit-pack`) ships the suite, the reference server and the contract, declares every package its
 * files import, and runs from its tarball. Needs `make build` and the docs page first (make test makes them).
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { loadFixtureFile } from '../../server/fixtures.js';
import { Jobs } from '../../server/jobs.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { installed, mustRun, root, run, userEnv } from './packaging.js';

jest.setTimeout(600_000);

interface Manifest {
  name: string;
  version: string;
  files: string[];
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const manifest = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest;
const light = manifest(join(root, 'package.json'));
const kit = manifest(join(root, 'packages', 'kit', 'package.json'));

let scratch: string;
let kitFiles: string[];
let kitTarball: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'packaging-'));
  await mustRun('make', ['--no-print-directory', '-s', 'kit-pack', `KIT_PACK_DIR=${scratch}`], root);
  kitTarball = join(scratch, `${kit.name}-${kit.version}.tgz`);
  const listing = await mustRun('tar', ['-tzf', kitTarball], scratch);
  kitFiles = listing.stdout.split('\n').filter(Boolean).map((path) => path.replace(/^package\//, ''));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Neither package may carry these: screenshots, build tools and reports, the repository's own test families. */
const STRAY = /\.png$|^dist\/(tools|bench|docs-screenshot)|^dist\/[^/]+\.json$|^tests\/(unit|inventory|browser|hardening)\/|^(openapi|bench|coverage|reports|contract-report|site)\//;

describe('the light package', () => {
  test('when the root is packed, then the tarball holds exactly the contract, the client and its types, the docs page and the launcher', async () => {
    // prepack runs as for a publish: it builds dist/ and the docs page when they are not up to date.
    const packed = await mustRun('npm', ['pack', '--dry-run', '--json'], root);
    const [tarball] = JSON.parse(packed.stdout) as { files: { path: string; size: number }[]; size: number; unpackedSize: number }[];
    const files = tarball!.files.map((file) => file.path).sort();
    console.log(`light package: ${files.length} files, ${(tarball!.size / 1e6).toFixed(1)} MB packed, ${(tarball!.unpackedSize / 1e6).toFixed(1)} MB unpacked`);
    expect(files).toEqual([
      'README.md',
      'dist/bin/launcher.js',
      'dist/client/index.d.ts',
      'dist/client/index.js',
      'dist/docs/index.html',
      'dist/generated/openapi.d.ts',
      'generated/openapi.json',
      'package.json',
    ]);
    // Each export and the command point at a file the tarball holds.
    expect(files).toEqual(expect.arrayContaining(['dist/client/index.js', 'dist/client/index.d.ts', 'generated/openapi.json', light.bin!['promo-loyalty-contract']!]));
  });

  test('when the light package\'s shipped code is read, then it imports nothing but Node and its own dependencies', () => {
    const imported = importedPackages(['dist/client/index.js', 'dist/client/index.d.ts', 'dist/bin/launcher.js'].map((file) => join(root, file)));
    expect(imported).toEqual(Object.keys(light.dependencies ?? {}).sort());
  });
});

describe('the kit\'s package', () => {
  test('when packed, then it holds the suite, the server, both contracts and what its runner names, and no stray files', () => {
    const contractTests = readdirSync(join(root, 'tests', 'contract')).map((name) => `tests/contract/${name}`);
    const serverSources = walk(join(root, 'server')).map((path) => relative(root, path));
    expect(kitFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'jest.config.js',
        kit.bin!['promo-loyalty-contract-kit']!,
        'dist/server/main.js',
        'dist/docs/index.html',
        'generated/openapi.json',
        'generated/openapi.strict.json',
        'client/index.ts',
        'tests/fixtures/contract.json',
        'tests/kit/progress-reporter.cjs',
        'tests/kit/results-reporter.cjs',
        // The file order of `compare`, which its runs name.
        'tests/kit/sequencer-by-name.cjs',
        // Both reporters require it: without it the kit's progress and results would not load.
        'tests/kit/first-difference.cjs',
        'tests/summary-reporter.cjs',
        ...contractTests,
        ...serverSources,
      ]),
    );
    expect(kitFiles.filter((path) => STRAY.test(path))).toEqual([]);
    const bytes = statSync(kitTarball).size;
    console.log(`kit package: ${kitFiles.length} files, ${(bytes / 1e6).toFixed(1)} MB packed`);
  });

  test('when its version and dependencies are compared, then it is the root\'s version and takes each package at the range the repository tests with', () => {
    expect(kit.version).toBe(light.version);
    const tested = { ...light.dependencies, ...light.devDependencies };
    const ranges = Object.fromEntries(Object.keys(kit.dependencies ?? {}).map((name) => [name, tested[name]]));
    expect(ranges).toEqual(kit.dependencies);
  });

  test('when every file it ships is read, then each package imported (or named to Jest) is one of its dependencies', () => {
    const shipped = kitFiles.filter((path) => /\.(ts|js|cjs|mjs)$/.test(path) && !path.endsWith('.d.ts')).map((path) => join(root, path));
    // The runner and its transform are named in jest.config.js and bin/contract.ts as strings, not imported.
    const named = ['jest', 'jest-junit', '@swc/jest', '@swc/core'];
    const needed = [...new Set([...importedPackages(shipped), ...named])].sort();
    expect(needed.filter((name) => !(name in (kit.dependencies ?? {})))).toEqual([]);
  });

  test('when its tarball is installed into an empty project, then it brings no docs UI, and its command runs the suite against the reference server', async () => {
    // As a team installs it, from the registry (npm's cache first: `make install` filled it with these packages).
    const project = join(scratch, 'project');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true }));
    const started = Date.now();
    await mustRun('npm', ['install', '--prefer-offline', kitTarball], project);
    const seconds = (Date.now() - started) / 1000;
    const modules = join(project, 'node_modules');
    const { bytes, packages } = installed(modules);
    console.log(`kit install: ${packages.length} packages, ${(bytes / 1e6).toFixed(0)} MB in node_modules, ${seconds.toFixed(0)} s`);
    // The interactive docs page (Scalar, its icons and editor) is the reference server's own extra; the kit's
    // server answers /docs/try with a 404 that says which package to install.
    expect(packages.filter((name) => /^@scalar\/|^@phosphor-icons\/|^@vue\/|^vue$/.test(name))).toEqual([]);
    const installedKit = join(modules, kit.name);
    const credentials = { appId: 'kit-app', appToken: 'kit-token' };
    const store = new MemoryStore(SCHEMA);
    const jobs = new Jobs();
    const app = await createApp({
      store,
      clock: systemClock,
      jobs,
      apiKeys: [{ name: 'kit', ...credentials, projectId: 'proj_kit' }],
      validateResponses: false,
      // As the README starts a server under test: the suite sends wrong keys on purpose, and the preflight
      // stops the run when the server limits them.
      authFailuresPerMinute: 0,
    });
    await loadFixtureFile(store, systemClock, 'proj_kit', join(installedKit, 'tests', 'fixtures', 'contract.json'), BUNDLED_CONTRACT);
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const reportDir = join(scratch, 'report');
    try {
      const { CONTRACT_STRICT: _mode, ...env } = userEnv();
      const ran = await run(
        process.execPath,
        [join(installedKit, kit.bin!['promo-loyalty-contract-kit']!), 'contract', '--base-url', `http://127.0.0.1:${port}`,
          '--app-id', credentials.appId, '--app-token', credentials.appToken, '--only', 'categories', '--report-dir', reportDir],
        project,
        env,
      );
      expect({ code: ran.code, tail: (ran.stdout + ran.stderr).slice(-2000) }).toEqual({ code: 0, tail: expect.stringContaining('categories') });
      const report = JSON.parse(readFileSync(join(reportDir, 'contract-report.json'), 'utf8')) as { ok: boolean; tests: { passed: number } };
      expect(report.ok).toBe(true);
      expect(report.tests.passed).toBeGreaterThan(5);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await jobs.shutdown();
    }
  });
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** The packages (not Node's own modules, not relative paths) that these files import or require. */
function importedPackages(files: string[]): string[] {
  const names = new Set<string>();
  for (const file of files) {
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (fileName.startsWith('.') || fileName.startsWith('node:') || builtinModules.includes(fileName)) continue;
      const [scope, name] = fileName.split('/');
      names.add(scope!.startsWith('@') ? `${scope}/${name}` : scope!);
    }
  }
  return [...names].sort();
}

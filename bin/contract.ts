#!/usr/bin/env node
/**
 * The contract kit: `promo-loyalty-contract contract --base-url URL` runs this package's contract suite
 * against any implementation of the interface. A preflight first checks that the target answers as this
 * API, takes the keys given and holds the contract fixtures; then every response is checked against the
 * contract on the client's side, and the suite's scenarios check behaviour. It prints progress, then a
 * table per operation and the skipped scenarios with their reasons, writes a JSON report and JUnit XML,
 * and exits 1 when anything failed, 2 when it could not run (bad flags, or a target the preflight stopped).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../server/paths.js';
import { annotateJUnit, preflightJUnit, SUITE_PREFIX } from './kit-junit.js';
import { buildReport, formatTable, NOT_SELECTED, readRecords, type JestResults } from './kit-report.js';
import { preflight, type PreflightTarget } from './preflight.js';

const USAGE = `Usage: promo-loyalty-contract contract --base-url URL [options]

Runs the contract suite against the server at URL and checks every response against the contract.

Options (each may also be given by the environment variable in brackets):
  --base-url URL          the server under test                       [CONTRACT_BASE_URL]
  --app-id ID             server-side API key: X-App-Id                [CONTRACT_APP_ID]
  --app-token TOKEN       server-side API key: X-App-Token             [CONTRACT_APP_TOKEN]
  --other-app-id ID       a key of a second project, for the checks    [CONTRACT_OTHER_APP_ID]
  --other-app-token TOKEN   that projects cannot see each other        [CONTRACT_OTHER_APP_TOKEN]
  --management-id ID      the management key, for /management/v1       [CONTRACT_MANAGEMENT_ID]
  --management-token TOKEN                                             [CONTRACT_MANAGEMENT_TOKEN]
  --client-app-id ID      a client-side key of the first project       [CONTRACT_CLIENT_APP_ID]
  --client-token TOKEN                                                 [CONTRACT_CLIENT_TOKEN]
  --client-origin ORIGIN  one of that key's allowed origins            [CONTRACT_CLIENT_ORIGIN]
  --project-id ID         the first project's ID (its event schemas)   [CONTRACT_PROJECT_ID]
  --strict                hold responses to the strict twin of the contract, where every object is
                          closed: a field the contract does not name fails (default: the published
                          contract, whose objects are open, as the public API's are)
  --only AREAS            comma-separated areas to run (see --list-areas); default all
  --skip AREAS            comma-separated areas to leave out
  --report-dir DIR        where contract-report.json and junit.xml go (default: contract-report)
  --max-workers N         test files run in parallel (default: jest's choice)
  --list-areas            print the areas and exit
  --version               print the kit's version and exit
  -h, --help              print this help

Exit status: 0 when the server conforms, 1 when anything failed, 2 when the kit could not run (bad
flags, or a preflight check of the target failed: nothing answers, a key is refused, fixtures missing).
`;

const root = packageRoot();
const contractDir = join(root, 'tests', 'contract');
const FIXTURES = join(root, 'tests', 'fixtures', 'contract.json');
/** The areas whose scenarios read the objects of the contract fixture file. */
const FIXTURE_AREAS = ['locations'];

function areasOnDisk(): string[] {
  return readdirSync(contractDir)
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => name.replace(/\.test\.ts$/, ''))
    .sort();
}

/**
 * An area names test files: `vouchers` takes vouchers.test.ts and every file named after a voucher
 * (voucher-listing.test.ts), so an area keeps its meaning as files are added.
 */
function selectFiles(only: string[], areas: string[]): { files: string[]; unknown: string[] } {
  const files = new Set<string>();
  const unknown: string[] = [];
  for (const wanted of only) {
    const stem = wanted.replace(/s$/, '');
    const matches = areas.filter((area) => area === wanted || area === stem || area.startsWith(`${stem}-`) || area.startsWith(`${wanted}-`));
    if (matches.length === 0) unknown.push(wanted);
    for (const match of matches) files.add(match);
  }
  return { files: [...files].sort(), unknown };
}

/** The suite's variable behind each flag; a flag wins over the variable set in the environment. */
const VARIABLES = {
  'base-url': 'CONTRACT_BASE_URL',
  'app-id': 'CONTRACT_APP_ID',
  'app-token': 'CONTRACT_APP_TOKEN',
  'other-app-id': 'CONTRACT_OTHER_APP_ID',
  'other-app-token': 'CONTRACT_OTHER_APP_TOKEN',
  'management-id': 'CONTRACT_MANAGEMENT_ID',
  'management-token': 'CONTRACT_MANAGEMENT_TOKEN',
  'client-app-id': 'CONTRACT_CLIENT_APP_ID',
  'client-token': 'CONTRACT_CLIENT_TOKEN',
  'client-origin': 'CONTRACT_CLIENT_ORIGIN',
  'project-id': 'CONTRACT_PROJECT_ID',
} as const;

type Settings = Partial<Record<(typeof VARIABLES)[keyof typeof VARIABLES], string>>;

function settingsOf(values: Partial<Record<keyof typeof VARIABLES, string>>, env: NodeJS.ProcessEnv): Settings {
  return Object.fromEntries(
    Object.entries(VARIABLES).flatMap(([flag, variable]) => {
      const value = values[flag as keyof typeof VARIABLES] ?? env[variable];
      return value ? [[variable, value]] : [];
    }),
  );
}

/** A key's halves only together: with one missing, the suite runs as if neither was given. */
function paired(settings: Settings): Settings {
  const { CONTRACT_OTHER_APP_ID, CONTRACT_OTHER_APP_TOKEN, CONTRACT_MANAGEMENT_ID, CONTRACT_MANAGEMENT_TOKEN, ...rest } = settings;
  return {
    ...rest,
    ...(CONTRACT_OTHER_APP_ID && CONTRACT_OTHER_APP_TOKEN && { CONTRACT_OTHER_APP_ID, CONTRACT_OTHER_APP_TOKEN }),
    ...(CONTRACT_MANAGEMENT_ID && CONTRACT_MANAGEMENT_TOKEN && { CONTRACT_MANAGEMENT_ID, CONTRACT_MANAGEMENT_TOKEN }),
  };
}

/** The environment without the suite's variables: the kit sets those itself, each key whole or not at all. */
function withoutSuiteVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !(Object.values(VARIABLES) as string[]).includes(name)));
}

/** What the preflight checks: each key the suite will use, and the fixtures when the selected areas read them. */
function preflightTarget(settings: Settings, files: string[]): PreflightTarget {
  const s = settings;
  const fixtureAreas = FIXTURE_AREAS.filter((area) => files.includes(area));
  return {
    baseUrl: s.CONTRACT_BASE_URL!.replace(/\/$/, ''),
    app: { appId: s.CONTRACT_APP_ID!, appToken: s.CONTRACT_APP_TOKEN! },
    ...(s.CONTRACT_OTHER_APP_ID && s.CONTRACT_OTHER_APP_TOKEN && { other: { appId: s.CONTRACT_OTHER_APP_ID, appToken: s.CONTRACT_OTHER_APP_TOKEN } }),
    ...(s.CONTRACT_MANAGEMENT_ID && s.CONTRACT_MANAGEMENT_TOKEN && { management: { id: s.CONTRACT_MANAGEMENT_ID, token: s.CONTRACT_MANAGEMENT_TOKEN } }),
    ...(s.CONTRACT_CLIENT_APP_ID &&
      s.CONTRACT_CLIENT_TOKEN &&
      s.CONTRACT_CLIENT_ORIGIN && { client: { appId: s.CONTRACT_CLIENT_APP_ID, token: s.CONTRACT_CLIENT_TOKEN, origin: s.CONTRACT_CLIENT_ORIGIN } }),
    ...(s.CONTRACT_PROJECT_ID && { projectId: s.CONTRACT_PROJECT_ID }),
    ...(fixtureAreas.length > 0 && { fixtures: { file: FIXTURES, areas: fixtureAreas } }),
  };
}

const OPTIONS = {
  'base-url': { type: 'string' },
  'app-id': { type: 'string' },
  'app-token': { type: 'string' },
  'other-app-id': { type: 'string' },
  'other-app-token': { type: 'string' },
  'management-id': { type: 'string' },
  'management-token': { type: 'string' },
  'client-app-id': { type: 'string' },
  'client-token': { type: 'string' },
  'client-origin': { type: 'string' },
  'project-id': { type: 'string' },
  strict: { type: 'boolean', default: false },
  only: { type: 'string' },
  skip: { type: 'string' },
  'report-dir': { type: 'string', default: 'contract-report' },
  'max-workers': { type: 'string' },
  'list-areas': { type: 'boolean', default: false },
  version: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The command line, or what is wrong with it in one sentence (node's own message goes on about positionals). */
function parse(argv: string[]): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>> | { error: string } {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error;
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
    return { error: unknown ? `Unknown option ${unknown}.` : (message.split(/\.\s/)[0] ?? message).replace(/\.?$/, '.') };
  }
}

async function main(argv: string[]): Promise<number> {
  const parsed = parse(argv);
  if ('error' in parsed) {
    process.stderr.write(`${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
    process.stdout.write(`${name} ${version}\n`);
    return 0;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const areas = areasOnDisk();
  // Like --help and --version, a question about the kit itself: it needs no command (and takes `contract`).
  if (values['list-areas'] && (positionals.length === 0 || (positionals.length === 1 && positionals[0] === 'contract'))) {
    process.stdout.write(`${areas.join('\n')}\n`);
    return 0;
  }
  if (positionals[0] !== 'contract' || positionals.length > 1) {
    process.stderr.write(`${positionals.length === 0 ? 'No command given.' : `Unknown command: ${positionals.join(' ')}.`}\n\n${USAGE}`);
    return 2;
  }
  const env = process.env;
  const settings = paired(settingsOf(values, env));
  const baseUrl = settings.CONTRACT_BASE_URL;
  if (!baseUrl || !settings.CONTRACT_APP_ID || !settings.CONTRACT_APP_TOKEN) {
    process.stderr.write(`The server and its key are needed: --base-url, --app-id and --app-token.\n\n${USAGE}`);
    return 2;
  }
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    process.stderr.write(`--base-url must be an http(s) URL, such as http://localhost:3000; got '${baseUrl}'.\n`);
    return 2;
  }
  const list = (text?: string) => text?.split(',').map((area) => area.trim()).filter(Boolean) ?? [];
  const only = list(values.only);
  const skipped = list(values.skip);
  const selected = only.length > 0 ? selectFiles(only, areas) : { files: areas, unknown: [] };
  const left = selectFiles(skipped, areas);
  const unknown = [...selected.unknown, ...left.unknown];
  if (unknown.length > 0) {
    process.stderr.write(`Unknown area(s): ${unknown.join(', ')}. Areas: ${areas.join(', ')}\n`);
    return 2;
  }
  selected.files = selected.files.filter((file) => !left.files.includes(file));
  if (selected.files.length === 0) {
    process.stderr.write('No area is left to run.\n');
    return 2;
  }

  const reportDir = resolve(values['report-dir']);
  mkdirSync(reportDir, { recursive: true });
  const startedAt = new Date();
  const problems = await preflight(preflightTarget(settings, selected.files));
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n\n')}\n`);
    // Reports of an earlier run must not stay behind to pass for this one.
    writeFileSync(join(reportDir, 'contract-report.json'), `${JSON.stringify({ baseUrl, areas: selected.files, startedAt, preflight: problems, ok: false }, null, 2)}\n`);
    writeFileSync(join(reportDir, 'junit.xml'), preflightJUnit(problems, startedAt));
    return 2;
  }
  const recordDir = mkdtempSync(join(tmpdir(), 'contract-kit-'));
  const resultsFile = join(recordDir, 'jest-results.json');
  const require = createRequire(import.meta.url);
  const jest = require.resolve('jest/bin/jest');
  const args = [
    '--experimental-vm-modules',
    jest,
    '--config',
    join(root, 'jest.config.js'),
    '--selectProjects',
    'contract',
    '--silent',
    '--ci',
    // Whole diffs, not hunks: the report names the path where received and expected first differ, from the top.
    '--expand',
    '--reporters',
    join(root, 'tests', 'kit', 'progress-reporter.cjs'),
    '--reporters',
    join(root, 'tests', 'kit', 'results-reporter.cjs'),
    '--reporters',
    'jest-junit',
    ...(values['max-workers'] ? ['--maxWorkers', values['max-workers']] : []),
    '--runTestsByPath',
    ...selected.files.map((area) => join(contractDir, `${area}.test.ts`)),
  ];
  process.stdout.write(
    `Contract kit: ${baseUrl}, areas: ${only.length + skipped.length > 0 ? selected.files.join(', ') : 'all'}, ` +
      `responses held to the ${values.strict ? 'strict twin (closed objects)' : 'published contract (open objects)'}\n`,
  );
  const code = await new Promise<number>((done) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...withoutSuiteVariables(env),
        NODE_NO_WARNINGS: '1',
        ...settings,
        ...(values.strict ? { CONTRACT_STRICT: '1' } : {}),
        CONTRACT_KIT_RECORD: recordDir,
        CONTRACT_KIT_RESULTS: resultsFile,
        JEST_JUNIT_OUTPUT_DIR: reportDir,
        JEST_JUNIT_OUTPUT_NAME: 'junit.xml',
        JEST_JUNIT_SUITE_NAME: `${SUITE_PREFIX}{filename}`,
        JEST_JUNIT_CLASSNAME: '{classname}',
        JEST_JUNIT_TITLE: '{title}',
      },
    });
    child.on('exit', (status) => done(status ?? 1));
  });

  let results: JestResults;
  try {
    results = JSON.parse(readFileSync(resultsFile, 'utf8')) as JestResults;
  } catch {
    process.stderr.write(`The suite did not run (jest exited ${code}).\n`);
    rmSync(recordDir, { recursive: true, force: true });
    return 1;
  }
  const contract = JSON.parse(readFileSync(join(root, 'generated', 'openapi.json'), 'utf8'));
  const report = buildReport({
    contract,
    results,
    records: readRecords(recordDir),
    rootDir: root,
    baseUrl,
    areas: selected.files,
    allAreas: only.length === 0 && skipped.length === 0,
    startedAt: startedAt.toISOString(),
  });
  rmSync(recordDir, { recursive: true, force: true });
  writeFileSync(join(reportDir, 'contract-report.json'), `${JSON.stringify(report, null, 2)}\n`);
  const junit = join(reportDir, 'junit.xml');
  writeFileSync(junit, annotateJUnit(readFileSync(junit, 'utf8'), report.skipped));

  process.stdout.write(`\n${formatTable(report, process.stdout.columns || 150)}\n\n`);
  const { operations, tests } = report;
  const unselected = operations.rows.filter((row) => row.result === 'skipped' && row.reason === NOT_SELECTED).length;
  process.stdout.write(
    `operations: ${operations.passed} passed, ${operations.failed} failed, ${operations.skipped} skipped` +
      `${unselected > 0 ? ` (${unselected} of them not called by the selected areas)` : ''}\n`,
  );
  process.stdout.write(`scenarios: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped\n`);
  process.stdout.write(`reports: ${join(reportDir, 'contract-report.json')}, ${join(reportDir, 'junit.xml')}\n`);
  process.stdout.write(report.ok ? 'The server conforms to the contract.\n' : 'The server does NOT conform to the contract.\n');
  return report.ok && code === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);

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
import { compareRuns, formatDifferences, type CompareReport } from './kit-compare.js';
import { annotateJUnit, preflightJUnit, SUITE_PREFIX } from './kit-junit.js';
import { buildReport, formatTable, NOT_SELECTED, readRecords, type JestResults } from './kit-report.js';
import { preflight, type PreflightTarget } from './preflight.js';

const USAGE = `Usage: promo-loyalty-contract contract --base-url URL [options]
       promo-loyalty-contract compare --base-url A --other-base-url B [options]

contract runs the contract suite against the server at URL and checks every response against the contract.
compare runs the same scenarios against A and B and prints every difference in status and body, one line
each (operation, JSON path, A's value, B's value); IDs, codes and timestamps are normalised (README, "Compare
two implementations"). B takes A's keys unless given its own: --other-base-app-id, --other-base-app-token and
so on, each key flag below with other-base- in front. It writes compare-report.json to the report directory
and exits 1 on any difference.

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
  --other-base-url URL    compare: the second server
  --report-dir DIR        where contract-report.json and junit.xml go (compare: compare-report.json;
                          default: contract-report)
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

/** What one run of the suite needs: the areas' files, the target's settings, and where its records go. */
interface SuiteRun {
  files: string[];
  settings: Settings;
  env: NodeJS.ProcessEnv;
  strict: boolean;
  maxWorkers?: string | undefined;
  recordDir: string;
  resultsFile: string;
  /** Where junit.xml goes; none for a compare run. */
  reportDir?: string;
  /** For `compare`: record bodies too, and run the files one at a time in a fixed order. */
  comparable?: boolean;
  /** Progress lines go here instead of the console (a compare run's two runs would interleave). */
  quiet?: boolean;
}

/** Runs the selected files of the suite in Jest against the target; resolves with Jest's exit code. */
function runSuite(run: SuiteRun): Promise<number> {
  const require = createRequire(import.meta.url);
  const jest = require.resolve('jest/bin/jest');
  const reporters = [
    ...(run.quiet ? [] : [join(root, 'tests', 'kit', 'progress-reporter.cjs')]),
    join(root, 'tests', 'kit', 'results-reporter.cjs'),
    ...(run.reportDir ? ['jest-junit'] : []),
  ];
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
    ...reporters.flatMap((reporter) => ['--reporters', reporter]),
    // Both servers of a comparison must see the same requests in the same order: one file at a time, by name.
    ...(run.comparable ? ['--runInBand', '--testSequencer', join(root, 'tests', 'kit', 'sequencer-by-name.cjs')] : []),
    ...(run.maxWorkers && !run.comparable ? ['--maxWorkers', run.maxWorkers] : []),
    '--runTestsByPath',
    ...run.files.map((area) => join(contractDir, `${area}.test.ts`)),
  ];
  return new Promise<number>((done) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: ['ignore', run.quiet ? 'ignore' : 'inherit', run.quiet ? 'ignore' : 'inherit'],
      env: {
        ...withoutSuiteVariables(run.env),
        NODE_NO_WARNINGS: '1',
        ...run.settings,
        ...(run.strict ? { CONTRACT_STRICT: '1' } : {}),
        ...(run.comparable ? { CONTRACT_KIT_BODIES: '1' } : {}),
        CONTRACT_KIT_RECORD: run.recordDir,
        CONTRACT_KIT_RESULTS: run.resultsFile,
        ...(run.reportDir && {
          JEST_JUNIT_OUTPUT_DIR: run.reportDir,
          JEST_JUNIT_OUTPUT_NAME: 'junit.xml',
          JEST_JUNIT_SUITE_NAME: `${SUITE_PREFIX}{filename}`,
          JEST_JUNIT_CLASSNAME: '{classname}',
          JEST_JUNIT_TITLE: '{title}',
        }),
      },
    });
    child.on('exit', (status) => done(status ?? 1));
  });
}

/** For `compare`: the second server's keys, each flag of the first prefixed with `other-base-`; unset, the first's. */
const OTHER_BASE_OPTIONS = Object.fromEntries(
  Object.keys(VARIABLES)
    .filter((flag) => flag !== 'base-url')
    .map((flag) => [`other-base-${flag}`, { type: 'string' as const }]),
) as Record<`other-base-${Exclude<keyof typeof VARIABLES, 'base-url'>}`, { type: 'string' }>;

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
  'other-base-url': { type: 'string' },
  ...OTHER_BASE_OPTIONS,
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

const COMMANDS = ['contract', 'compare'];

/** The values of the `--other-base-*` flags, under the names of the first server's flags. */
function otherBaseValues(values: Record<string, unknown>): Partial<Record<keyof typeof VARIABLES, string>> {
  return Object.fromEntries(
    Object.keys(VARIABLES).flatMap((flag) => {
      const value = values[flag === 'base-url' ? 'other-base-url' : `other-base-${flag}`];
      return typeof value === 'string' ? [[flag, value]] : [];
    }),
  );
}

/**
 * `compare`: the selected scenarios against both servers at once, each run one file at a time in the same order,
 * then every difference in status and body between the two runs (bin/kit-compare.ts says what is normalised).
 */
async function compare(input: { a: Settings; b: Settings; files: string[]; env: NodeJS.ProcessEnv; strict: boolean; reportDir: string; startedAt: Date }): Promise<number> {
  const { a, b, files, reportDir, startedAt } = input;
  const reportFile = join(reportDir, 'compare-report.json');
  const otherBaseUrl = b.CONTRACT_BASE_URL;
  if (!otherBaseUrl || !URL.canParse(otherBaseUrl) || !/^https?:$/.test(new URL(otherBaseUrl).protocol)) {
    process.stderr.write(`compare needs the second server: --other-base-url, an http(s) URL; got '${otherBaseUrl ?? ''}'.\n`);
    return 2;
  }
  const problems = [
    ...(await preflight(preflightTarget(a, files))).map((problem) => `A (${a.CONTRACT_BASE_URL}): ${problem}`),
    ...(await preflight(preflightTarget(b, files))).map((problem) => `B (${otherBaseUrl}): ${problem}`),
  ];
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n\n')}\n`);
    writeFileSync(reportFile, `${JSON.stringify({ baseUrl: a.CONTRACT_BASE_URL, otherBaseUrl, areas: files, startedAt, preflight: problems, ok: false }, null, 2)}\n`);
    return 2;
  }
  // The fuzzing scenarios draw their requests from one seed on both sides, so that both servers get the same ones.
  const seed = input.env.FUZZ_SEED ?? String(Date.now() % 2 ** 31);
  process.stdout.write(`Comparing A ${a.CONTRACT_BASE_URL} with B ${otherBaseUrl}, ${files.length} areas, each run one file at a time (FUZZ_SEED=${seed})\n`);
  const runs = await Promise.all(
    [a, b].map(async (settings) => {
      const recordDir = mkdtempSync(join(tmpdir(), 'contract-compare-'));
      const resultsFile = join(recordDir, 'jest-results.json');
      try {
        const code = await runSuite({ files, settings, env: { ...input.env, FUZZ_SEED: seed }, strict: input.strict, recordDir, resultsFile, comparable: true, quiet: true });
        let results: JestResults;
        try {
          results = JSON.parse(readFileSync(resultsFile, 'utf8')) as JestResults;
        } catch {
          return { error: `The suite did not run against ${settings.CONTRACT_BASE_URL} (jest exited ${code}).` };
        }
        return { records: readRecords(recordDir), results };
      } finally {
        rmSync(recordDir, { recursive: true, force: true });
      }
    }),
  );
  const [runA, runB] = runs as [(typeof runs)[number], (typeof runs)[number]];
  if ('error' in runA || 'error' in runB) {
    process.stderr.write(`${[runA, runB].flatMap((run) => ('error' in run ? [run.error] : [])).join('\n')}\n`);
    return 1;
  }
  const compared = compareRuns({ a: { ...runA, baseUrl: a.CONTRACT_BASE_URL! }, b: { ...runB, baseUrl: otherBaseUrl }, rootDir: root });
  const report: CompareReport = {
    baseUrl: a.CONTRACT_BASE_URL!,
    otherBaseUrl,
    areas: files,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    ...compared,
    ok: compared.differences.length === 0,
  };
  writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  if (compared.differences.length > 0) process.stdout.write(`${formatDifferences(compared.differences)}\n`);
  const { scenarios, exchanges, differences } = compared;
  process.stdout.write(
    `scenarios compared: ${scenarios.compared} (${scenarios.onlyA} only against A, ${scenarios.onlyB} only against B); ` +
      `exchanges compared: ${exchanges.compared}; differences: ${differences.length}\n`,
  );
  process.stdout.write(`report: ${reportFile}\n`);
  return report.ok ? 0 : 1;
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
  if (values['list-areas'] && (positionals.length === 0 || (positionals.length === 1 && COMMANDS.includes(positionals[0]!)))) {
    process.stdout.write(`${areas.join('\n')}\n`);
    return 0;
  }
  if (!COMMANDS.includes(positionals[0] ?? '') || positionals.length > 1) {
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
  if (positionals[0] === 'compare') {
    const other = paired({ ...settings, ...settingsOf(otherBaseValues(values), {}) });
    return compare({ a: settings, b: other, files: selected.files, env, strict: values.strict, reportDir, startedAt });
  }
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
  process.stdout.write(
    `Contract kit: ${baseUrl}, areas: ${only.length + skipped.length > 0 ? selected.files.join(', ') : 'all'}, ` +
      `responses held to the ${values.strict ? 'strict twin (closed objects)' : 'published contract (open objects)'}\n`,
  );
  const code = await runSuite({ files: selected.files, settings, env, strict: values.strict, maxWorkers: values['max-workers'], recordDir, resultsFile, reportDir });

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

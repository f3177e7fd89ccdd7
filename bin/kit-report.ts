/**
 * The contract kit's report: the jest results joined with what the suite recorded (every exchange, with
 * the test that made it and the contract check's verdict, and every skipped check), per operation.
 *
 * An operation fails when one of its responses broke the contract, or when a scenario failed right after
 * calling it (the last exchange of a failed test is taken as the one the failing assertion was about).
 * It passes when it was called and nothing of that kind happened, and is skipped, with the reason, when
 * nothing called it. Every skipped scenario is listed with the reason the suite recorded for it, which
 * names the flags that would have run it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { KitRecord } from '../tests/contract/kit-record.js';

export interface JestAssertion {
  ancestorTitles: string[];
  title: string;
  fullName: string;
  status: 'passed' | 'failed' | 'pending' | 'skipped' | 'todo' | 'disabled' | 'focused';
  failureMessages: string[];
  /** For each failure that compared two values, where they first differ (tests/kit/first-difference.cjs). */
  differences?: string[];
}
export interface JestFileResult {
  name: string;
  status: string;
  message: string;
  assertionResults: JestAssertion[];
}
export interface JestResults {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numRuntimeErrorTestSuites: number;
  testResults: JestFileResult[];
}

export interface OperationRow {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  result: 'passed' | 'failed' | 'skipped';
  requests: number;
  violations: string[];
  failedScenarios: string[];
  reason: string;
}

export interface SkippedScenario {
  /** The test file, relative to the package. */
  file: string;
  /** The scenario's full name: its describe blocks and its title. */
  name: string;
  reason: string;
  /** The scenario ran, and only part of it was left out. */
  part: boolean;
}

export interface KitReport {
  baseUrl: string;
  areas: string[];
  startedAt: string;
  finishedAt: string;
  tests: { passed: number; failed: number; skipped: number };
  operations: { passed: number; failed: number; skipped: number; rows: OperationRow[] };
  /** Failed tests that made no request of an operation (a failed set-up, a broken file). */
  otherFailures: { test: string; reason: string }[];
  /** Scenarios skipped, wholly or in part, and why. */
  skipped: SkippedScenario[];
  /** Responses that were 429 Too Many Requests: a few are the suite's own rate-limit checks; many, a limit on the kit. */
  tooManyRequests: number;
  ok: boolean;
}

interface ContractOperations {
  paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
}

export function readRecords(dir: string): KitRecord[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as KitRecord),
    );
}

const firstLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .find(Boolean) ?? '';

/** Paths as the contract names them: `{customerId}`, not the `%7BcustomerId%7D` a URL makes of a template left unfilled. */
export const decodedPaths = (text: string) => text.replace(/%7B([^%/?#\s]*)%7D/gi, '{$1}');

/** The longest reason kept: whole assertion messages, but not a response body of megabytes. */
const REASON_MAX = 1000;

/**
 * The assertion's message on one line, without jest's colours or stack: what was expected, what came, and
 * where the two first differ when the assertion compared values.
 */
function reasonOf(messages: string[], differences: string[] = []): string {
  // eslint-disable-next-line no-control-regex
  const plain = (messages[0] ?? '').replace(/\u001b\[[0-9;]*m/g, '');
  const lines = plain.split('\n');
  const end = lines.findIndex((line) => /^\s+at /.test(line));
  const body = (end === -1 ? lines : lines.slice(0, end)).map((line) => line.trimEnd()).filter((line) => line.trim());
  const header = (body[0] ?? '').replace(/^Error: /, '').replace(/ \/\/ deep equality$/, '');
  const details = body
    .slice(1)
    .filter((line) => /^(Expected|Received)[^-+]*:/.test(line.trim()) || /^[-+] {2,}\S/.test(line))
    .map((line) => line.trim().replace(/\s+/g, ' '));
  const text = decodedPaths([header, ...differences.slice(0, 1), ...details].join(' | '));
  return text.length > REASON_MAX ? `${text.slice(0, REASON_MAX - 1)}…` : text;
}

export function buildReport(input: {
  contract: ContractOperations;
  results: JestResults;
  records: KitRecord[];
  rootDir: string;
  baseUrl: string;
  areas: string[];
  allAreas: boolean;
  startedAt: string;
}): KitReport {
  const { contract, results, records, rootDir } = input;
  const key = (file: string, test: string) => `${relative(rootDir, file)} › ${test}`;
  const failedTests = new Map<string, string>();
  for (const file of results.testResults) {
    for (const assertion of file.assertionResults) {
      if (assertion.status === 'failed') failedTests.set(key(file.name, assertion.fullName), reasonOf(assertion.failureMessages, assertion.differences));
    }
  }
  const otherFailures: KitReport['otherFailures'] = [];
  for (const file of results.testResults) {
    if (file.status === 'failed' && file.assertionResults.length === 0) {
      otherFailures.push({ test: relative(rootDir, file.name), reason: firstLine(file.message) });
    }
  }

  const exchanges = records.filter((entry): entry is Extract<KitRecord, { kind: 'exchange' }> => entry.kind === 'exchange');
  const skips = records.filter((entry): entry is Extract<KitRecord, { kind: 'skip' }> => entry.kind === 'skip');
  const { skipped, endedBySkip } = skippedScenarios(results, skips, rootDir);
  const lastOperationOfTest = new Map<string, string>();
  for (const exchange of exchanges) {
    if (exchange.operationId) lastOperationOfTest.set(key(exchange.file, exchange.test), exchange.operationId);
  }
  const blamed = new Map<string, string[]>();
  for (const [test, reason] of failedTests) {
    const operationId = lastOperationOfTest.get(test);
    if (!operationId) {
      otherFailures.push({ test, reason });
      continue;
    }
    blamed.set(operationId, [...(blamed.get(operationId) ?? []), `${test}: ${reason}`]);
  }

  const rows: OperationRow[] = [];
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation?.operationId) continue;
      const operationId = operation.operationId;
      const mine = exchanges.filter((exchange) => exchange.operationId === operationId);
      const violations = [...new Set(mine.flatMap((exchange) => exchange.violations))];
      const failedScenarios = blamed.get(operationId) ?? [];
      const skip = skips.find((entry) => entry.operationIds.includes(operationId));
      let result: OperationRow['result'] = 'passed';
      let reason = '';
      if (violations.length > 0) {
        result = 'failed';
        reason = decodedPaths(violations[0]!);
      } else if (failedScenarios.length > 0) {
        result = 'failed';
        reason = failedScenarios[0]!;
      } else if (mine.length === 0) {
        result = 'skipped';
        reason = skip ? `skipped: ${skip.reason}` : !input.allAreas ? NOT_SELECTED : skipped.some((entry) => !entry.part) ? 'no scenario that ran calls it (skipped scenarios are listed below)' : 'no scenario of the suite calls it';
      } else if (skip) {
        reason = `partly skipped: ${skip.reason}`;
      }
      rows.push({ operationId, method: method.toUpperCase(), path, tag: operation.tags?.[0] ?? '', result, requests: mine.length, violations, failedScenarios, reason });
    }
  }
  const count = (result: OperationRow['result']) => rows.filter((row) => row.result === result).length;
  // A scenario that ended through `skip()` passed for jest, but checked nothing: it counts as skipped.
  const tests = {
    passed: results.numPassedTests - endedBySkip,
    failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
    skipped: results.numPendingTests + endedBySkip,
  };
  return {
    baseUrl: input.baseUrl,
    areas: input.areas,
    startedAt: input.startedAt,
    finishedAt: new Date().toISOString(),
    tests,
    operations: { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), rows },
    otherFailures,
    skipped,
    tooManyRequests: exchanges.filter((exchange) => exchange.status === 429).length,
    ok: tests.failed === 0 && count('failed') === 0 && otherFailures.length === 0,
  };
}

const NOT_RUN = new Set<JestAssertion['status']>(['pending', 'skipped', 'todo', 'disabled']);

/**
 * Each skipped scenario with its reason: those skipped as they were declared (matched by the describe block
 * or test the suite recorded), and those that passed after calling `skip()` or `skipPart()`.
 */
function skippedScenarios(results: JestResults, skips: Extract<KitRecord, { kind: 'skip' }>[], rootDir: string): { skipped: SkippedScenario[]; endedBySkip: number } {
  const skipped: SkippedScenario[] = [];
  let endedBySkip = 0;
  for (const file of results.testResults) {
    const here = skips.filter((entry) => entry.file === file.name);
    for (const assertion of file.assertionResults) {
      const scenario = { file: relative(rootDir, file.name), name: assertion.fullName };
      if (NOT_RUN.has(assertion.status)) {
        const cause = here.find((entry) => entry.scope !== undefined && [...assertion.ancestorTitles, assertion.title].includes(entry.scope));
        skipped.push({ ...scenario, reason: cause?.reason ?? 'skipped in the suite itself; no reason was recorded', part: false });
        continue;
      }
      if (assertion.status !== 'passed') continue;
      const during = here.filter((entry) => entry.scope === undefined && entry.test === assertion.fullName);
      const ended = during.find((entry) => !entry.part);
      if (ended) {
        endedBySkip += 1;
        skipped.push({ ...scenario, reason: ended.reason, part: false });
      } else {
        for (const reason of new Set(during.map((entry) => entry.reason))) skipped.push({ ...scenario, reason, part: true });
      }
    }
  }
  return { skipped, endedBySkip };
}

/** Text in lines of at most `width` characters, broken at spaces where it can be (a long word is cut). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = text.trim();
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width);
    const cut = space > width / 3 ? space : width;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest || lines.length === 0) lines.push(rest);
  return lines;
}

/** The reason a row gets when the selection (--only, --skip) left its operation out; such rows are counted, not listed. */
export const NOT_SELECTED = 'not called by the selected areas';

/**
 * The per-operation table, for a terminal, then the skipped scenarios grouped by file and reason. Every reason
 * is printed whole, wrapped under the "why" column; operations the selected areas do not call are one count.
 */
export function formatTable(report: KitReport, width = 150): string {
  const header = ['operation', 'result', 'requests', 'why'];
  const order = { failed: 0, skipped: 1, passed: 2 };
  const unselected = report.operations.rows.filter((row) => row.result === 'skipped' && row.reason === NOT_SELECTED);
  const rows = report.operations.rows.filter((row) => !unselected.includes(row)).sort((a, b) => order[a.result] - order[b.result]);
  const idWidth = Math.max(...rows.map((row) => row.operationId.length), header[0]!.length);
  const lines = [`${header[0]!.padEnd(idWidth)}  ${'result'.padEnd(7)}  ${'requests'.padStart(8)}  why`];
  lines.push('-'.repeat(Math.min(width, idWidth + 40)));
  const indent = idWidth + 21;
  const whyWidth = Math.max(40, width - indent);
  for (const row of rows) {
    const [first = '', ...more] = wrap(decodedPaths(row.reason), whyWidth);
    lines.push(`${row.operationId.padEnd(idWidth)}  ${row.result.padEnd(7)}  ${String(row.requests).padStart(8)}  ${first}`.trimEnd());
    for (const line of more) lines.push(`${' '.repeat(indent)}${line}`);
  }
  if (unselected.length > 0) {
    lines.push(`(${unselected.length} other operations are not called by the selected areas; contract-report.json lists them)`);
  }
  for (const failure of report.otherFailures) {
    const [first = '', ...more] = wrap(decodedPaths(`(no operation) failed: ${failure.test}: ${failure.reason}`), width - 2);
    lines.push(first, ...more.map((line) => `  ${line}`));
  }
  if (!report.ok && report.tooManyRequests > 0) {
    const note =
      `${report.tooManyRequests} response(s) were 429 Too Many Requests: when failures above name a 429, the server limited the kit ` +
      `(the suite sends wrong keys on purpose, and many requests). Lift the limit for the kit's address: the reference server ` +
      `takes AUTH_FAILURES_PER_MINUTE=0 (and has no other limit unless RATE_LIMIT_PER_MINUTE is set).`;
    lines.push('', ...wrap(note, width));
  }
  const groups = new Map<string, { entry: SkippedScenario; count: number }>();
  for (const entry of report.skipped) {
    const key = JSON.stringify([entry.part, entry.file, entry.reason]);
    groups.set(key, { entry, count: (groups.get(key)?.count ?? 0) + 1 });
  }
  if (groups.size > 0) lines.push('', 'Skipped scenarios, and what would run them:');
  for (const { entry, count } of groups.values()) {
    lines.push(`  ${entry.part ? 'partly skipped' : 'skipped'}: ${count} in ${entry.file}: ${entry.reason}`);
  }
  return lines.join('\n');
}

/**
 * The contract kit's report: the jest results joined with what the suite recorded (every exchange, with
 * the test that made it and the contract check's verdict, and every skipped check), per operation.
 *
 * An operation fails when one of its responses broke the contract, or when a scenario failed right after
 * calling it (the last exchange of a failed test is taken as the one the failing assertion was about).
 * It passes when it was called and nothing of that kind happened, and is skipped, with the reason, when
 * nothing called it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { KitRecord } from '../tests/contract/kit-record.js';

export interface JestAssertion {
  fullName: string;
  status: 'passed' | 'failed' | 'pending' | 'skipped' | 'todo' | 'disabled' | 'focused';
  failureMessages: string[];
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

export interface KitReport {
  baseUrl: string;
  areas: string[];
  startedAt: string;
  finishedAt: string;
  tests: { passed: number; failed: number; skipped: number };
  operations: { passed: number; failed: number; skipped: number; rows: OperationRow[] };
  /** Failed tests that made no request of an operation (a failed set-up, a broken file). */
  otherFailures: { test: string; reason: string }[];
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

/** The assertion's message on one line, without jest's colours or stack: what was expected, what came. */
function reasonOf(messages: string[]): string {
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
  return [header, ...details].join(' | ').slice(0, 300);
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
      if (assertion.status === 'failed') failedTests.set(key(file.name, assertion.fullName), reasonOf(assertion.failureMessages));
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
        reason = violations[0]!;
      } else if (failedScenarios.length > 0) {
        result = 'failed';
        reason = failedScenarios[0]!;
      } else if (mine.length === 0) {
        result = 'skipped';
        reason = skip ? `skipped: ${skip.reason}` : input.allAreas ? 'no scenario of the suite calls it' : 'not called by the selected areas';
      } else if (skip) {
        reason = `partly skipped: ${skip.reason}`;
      }
      rows.push({ operationId, method: method.toUpperCase(), path, tag: operation.tags?.[0] ?? '', result, requests: mine.length, violations, failedScenarios, reason });
    }
  }
  const count = (result: OperationRow['result']) => rows.filter((row) => row.result === result).length;
  const tests = {
    passed: results.numPassedTests,
    failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
    skipped: results.numPendingTests,
  };
  return {
    baseUrl: input.baseUrl,
    areas: input.areas,
    startedAt: input.startedAt,
    finishedAt: new Date().toISOString(),
    tests,
    operations: { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), rows },
    otherFailures,
    ok: tests.failed === 0 && count('failed') === 0 && otherFailures.length === 0,
  };
}

/** The per-operation table, for a terminal. */
export function formatTable(report: KitReport, width = 150): string {
  const header = ['operation', 'result', 'requests', 'why'];
  const idWidth = Math.max(...report.operations.rows.map((row) => row.operationId.length), header[0]!.length);
  const lines = [`${header[0]!.padEnd(idWidth)}  ${'result'.padEnd(7)}  ${'requests'.padStart(8)}  why`];
  lines.push('-'.repeat(Math.min(width, idWidth + 40)));
  const order = { failed: 0, skipped: 1, passed: 2 };
  const rows = [...report.operations.rows].sort((a, b) => order[a.result] - order[b.result]);
  for (const row of rows) {
    const why = row.reason.slice(0, Math.max(20, width - idWidth - 24));
    lines.push(`${row.operationId.padEnd(idWidth)}  ${row.result.padEnd(7)}  ${String(row.requests).padStart(8)}  ${why}`);
  }
  for (const failure of report.otherFailures) lines.push(`(no operation) failed: ${failure.test}: ${failure.reason}`.slice(0, width));
  return lines.join('\n');
}

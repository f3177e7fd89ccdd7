/**
 * The contract kit's console report, without running the suite: a failure says where received and expected
 * first differ, reasons are printed whole (wrapped under their column), paths read as the contract writes them,
 * a selection's table lists only what it ran, and the progress lines count as the summary does.
 */
import { describe, expect, test } from '@jest/globals';
import { createRequire } from 'node:module';
import { buildReport, formatTable, wrap, type JestResults } from '../../bin/kit-report.js';
import type { KitRecord } from '../contract/kit-record.js';

const require = createRequire(import.meta.url);
const { describeDifference, firstDifference, endedBySkip } = require('../kit/first-difference.cjs') as {
  describeDifference: (detail: unknown) => string | undefined;
  firstDifference: (expected: unknown, actual: unknown, subset?: boolean) => { path: string; expected: unknown; actual: unknown } | undefined;
  endedBySkip: (records: unknown[], file: string, passed: string[]) => number;
};

/** What jest keeps of a failed expectation: the error it threw, as failureDetails holds it. */
function failureOf(assertion: () => void): unknown {
  try {
    assertion();
  } catch (error) {
    // Across jest's workers the details arrive serialized: plain data, no prototypes or functions.
    return JSON.parse(JSON.stringify(error, (_key, value: unknown) => (value === undefined ? null : value)));
  }
  throw new Error('the assertion passed');
}

const contract = {
  paths: {
    '/v1/customers/{customerId}': { get: { operationId: 'get-customer', tags: ['Customers'] } },
    '/v1/customers': { get: { operationId: 'list-customers', tags: ['Customers'] }, post: { operationId: 'create-customer', tags: ['Customers'] } },
    '/v1/vouchers': { get: { operationId: 'list-vouchers', tags: ['Vouchers'] } },
    '/v1/products': { get: { operationId: 'list-products', tags: ['Products'] } },
  },
};

const FILE = '/kit/tests/contract/customers.test.ts';

function results(assertions: JestResults['testResults'][number]['assertionResults']): JestResults {
  return {
    numPassedTests: assertions.filter((entry) => entry.status === 'passed').length,
    numFailedTests: assertions.filter((entry) => entry.status === 'failed').length,
    numPendingTests: assertions.filter((entry) => entry.status === 'pending').length,
    numRuntimeErrorTestSuites: 0,
    testResults: [{ name: FILE, status: 'failed', message: '', assertionResults: assertions }],
  };
}

const exchange = (test: string, operationId: string, url: string, violations: string[] = []): KitRecord => ({
  kind: 'exchange',
  file: FILE,
  test,
  method: 'GET',
  url,
  status: 200,
  operationId,
  violations,
});

describe('first difference of a failed comparison', () => {
  test('when toEqual compares two bodies, then it names the first differing path with both values', () => {
    const detail = failureOf(() => expect({ object: 'list', data: [{ id: 'a', status: 200 }, { id: 'b', status: 429 }] }).toEqual({ object: 'list', data: [{ id: 'a', status: 200 }, { id: 'b', status: 200 }] }));
    expect(describeDifference(detail)).toBe('first difference at data[1].status: expected 200, received 429');
  });

  test('when toMatchObject misses a property, then it says nothing was received there, and ignores extra fields', () => {
    const detail = failureOf(() => expect({ id: 'cust_1', extra: true }).toMatchObject({ id: 'cust_1', name: 'Ada' }));
    expect(describeDifference(detail)).toBe('first difference at name: expected "Ada", received nothing (no such property)');
  });

  test('when toMatchObject finds a different value deep in a list, then the path and both values come from its diff', () => {
    const detail = failureOf(() =>
      expect({ object: 'list', data: [{ id: 'a', total: 1 }, { id: 'b', total: 2, address: { city: 'Oslo' } }] }).toMatchObject({
        object: 'list',
        data: [{ id: 'a' }, { id: 'b', address: { city: 'Bergen' } }],
      }),
    );
    // Without --expand (the kit passes it) jest cuts a long diff to hunks, and where the path starts is unknown.
    expect(describeDifference(detail)).toBe('first difference at ….address.city: expected "Bergen", received "Oslo"');
    const whole = failureOf(() => expect({ a: { b: [1, { c: 2 }] } }).toMatchObject({ a: { b: [1, { c: 3 }] } }));
    expect(describeDifference(whole)).toBe('first difference at a.b[1].c: expected 3, received 2');
  });

  test('when arrays differ in length only, then it names the first index past the shorter and both lengths', () => {
    const detail = failureOf(() => expect([1, 2, 3]).toEqual([1, 2]));
    expect(describeDifference(detail)).toBe('first difference at [2]: expected undefined, received 3 (length: expected 2, received 3)');
  });

  test('when toBe compares two statuses, then the difference is the whole value', () => {
    expect(describeDifference(failureOf(() => expect(429).toBe(201)))).toBe('first difference at (the whole value): expected 201, received 429');
  });

  test('when the expected value holds asymmetric matchers, then they are not reported as differences', () => {
    const detail = failureOf(() => expect({ id: 'x', code: 3 }).toEqual({ id: expect.any(String), code: 4 }));
    expect(describeDifference(detail)).toBe('first difference at code: expected 4, received 3');
    expect(firstDifference({ a: undefined, b: 1 }, { b: 1 })).toBeUndefined();
  });

  test('when the failure compared no values (a thrown error), then there is nothing to add', () => {
    expect(describeDifference({ message: 'boom' })).toBeUndefined();
    expect(describeDifference(failureOf(() => expect('text').toMatch(/number/)))).toBeUndefined();
  });
});

describe('the console table', () => {
  const reason = 'expected the list to hold every customer created in this scenario, in the order of creation, with its metadata and its address';
  const failed = 'customers › when listed, then every customer comes back';
  const report = buildReport({
    contract,
    results: results([
      {
        ancestorTitles: ['customers'],
        title: 'when listed, then every customer comes back',
        fullName: failed,
        status: 'failed',
        failureMessages: [`Error: expect(received).toEqual(expected) // deep equality\n\n${reason}\n    at Object.<anonymous> (customers.test.ts:1:1)`],
        differences: ['first difference at data[0].name: expected "Ada", received "Grace"'],
      },
      { ancestorTitles: ['customers'], title: 'when read', fullName: 'customers › when read', status: 'passed', failureMessages: [] },
    ]),
    records: [
      exchange(failed, 'list-customers', 'http://h/v1/customers'),
      exchange('customers › when read', 'get-customer', 'http://h/v1/customers/%7BcustomerId%7D', ['GET /v1/customers/%7BcustomerId%7D → 404: status 404 is not documented for get-customer, whose documented answers are 200, 400, 401 and 429 in the shared error shape']),
    ],
    rootDir: '/kit',
    baseUrl: 'http://h',
    areas: ['customers'],
    allAreas: false,
    startedAt: new Date(0).toISOString(),
  });
  const table = formatTable(report, 100);

  test('when a scenario failed on a comparison, then its row shows jest\'s header and the first difference', () => {
    const row = report.operations.rows.find((entry) => entry.operationId === 'list-customers')!;
    expect(row.reason).toContain('expect(received).toEqual(expected) | first difference at data[0].name: expected "Ada", received "Grace"');
    expect(table.replace(/\n +/g, ' ')).toContain('first difference at data[0].name: expected "Ada", received "Grace"');
  });

  test('when a reason is longer than the column, then it is wrapped, not cut', () => {
    const row = report.operations.rows.find((entry) => entry.operationId === 'get-customer')!;
    expect(row.reason.length).toBeGreaterThan(150);
    expect(table.split('\n').every((line) => line.length <= 100)).toBe(true);
    expect(table.replace(/\n +/g, ' ')).toContain('whose documented answers are 200, 400, 401 and 429 in the shared error shape');
  });

  test('when a path went out with its template unfilled, then the report prints it as the contract writes it', () => {
    expect(table).toContain('GET /v1/customers/{customerId} → 404');
    expect(table).not.toContain('%7B');
    expect(report.operations.rows.find((entry) => entry.operationId === 'get-customer')!.reason).not.toContain('%7B');
  });

  test('when the selection left operations out, then the table counts them in one line instead of a row each', () => {
    expect(table).not.toMatch(/list-vouchers|list-products|create-customer/);
    expect(table).toContain('(3 other operations are not called by the selected areas; contract-report.json lists them)');
    // The JSON report still has every operation.
    expect(report.operations.rows).toHaveLength(5);
  });

  test('when wrapping, then lines break at spaces and a word longer than the width is cut', () => {
    expect(wrap('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrap('', 10)).toEqual(['']);
  });
});

describe('429s in a failed run', () => {
  test('when responses were 429 and the run failed, then the console says how many and which setting lifts the limit', () => {
    const failed = 'customers › when created';
    const report = buildReport({
      contract,
      results: results([{ ancestorTitles: ['customers'], title: 'when created', fullName: failed, status: 'failed', failureMessages: ['Error: expect(received).toBe(expected)'] }]),
      records: [{ ...exchange(failed, 'create-customer', 'http://h/v1/customers'), status: 429 } as KitRecord],
      rootDir: '/kit',
      baseUrl: 'http://h',
      areas: ['customers'],
      allAreas: false,
      startedAt: new Date(0).toISOString(),
    });
    expect(report.tooManyRequests).toBe(1);
    expect(formatTable(report, 120).replace(/\n/g, ' ')).toContain('1 response(s) were 429 Too Many Requests');
    expect(formatTable(report, 120).replace(/\n/g, ' ')).toContain('AUTH_FAILURES_PER_MINUTE=0');
    expect(formatTable({ ...report, ok: true }, 120)).not.toContain('429');
  });
});

describe('progress counts', () => {
  test('when a scenario passed for jest but ended through skip(), then progress counts it skipped, as the summary does', () => {
    const skips = [
      { kind: 'skip', file: FILE, test: 'customers › deleted', reason: 'needs the management key', operationIds: [] },
      { kind: 'skip', file: FILE, test: 'customers › listed', reason: 'part of it', operationIds: [], part: true },
      { kind: 'skip', file: '/kit/other.test.ts', test: 'customers › read', reason: 'elsewhere', operationIds: [] },
    ];
    const passed = ['customers › deleted', 'customers › listed', 'customers › read'];
    expect(endedBySkip(skips, FILE, passed)).toBe(1);
    const report = buildReport({
      contract,
      results: results(passed.map((fullName) => ({ ancestorTitles: ['customers'], title: fullName.split(' › ')[1]!, fullName, status: 'passed', failureMessages: [] }))),
      records: skips as KitRecord[],
      rootDir: '/kit',
      baseUrl: 'http://h',
      areas: ['customers'],
      allAreas: false,
      startedAt: new Date(0).toISOString(),
    });
    expect(report.tests).toEqual({ passed: passed.length - endedBySkip(skips, FILE, passed), failed: 0, skipped: 1 });
  });
});

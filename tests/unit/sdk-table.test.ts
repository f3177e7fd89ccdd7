/**
 * README's table of the published SDKs' methods: one row for every method that reaches an operation of the
 * contract (as tests/contract/sdk-methods.ts reads the SDKs), naming the operation and the test file that calls
 * it. Each of those files ends by checking that it called every method of its namespaces; this test keeps the
 * table whole and true to the files.
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_CONTRACT, packageRoot } from '../../server/paths.js';
import { nodeSdkMethods, voucherifySdkMethods, type SdkMethod } from '../contract/sdk-methods.js';

const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
const contractDir = join(packageRoot(), 'tests', 'contract');
const files = readdirSync(contractDir).filter((name) => /^sdk.*\.test\.ts$/.test(name));
const sources = new Map(files.map((name) => [name, readFileSync(join(contractDir, name), 'utf8')]));

/** The test files of an SDK that call the method (by its place on the client object). */
function testedIn(method: SdkMethod): string[] {
  const ofSdk = files.filter((name) => (method.sdk === 'voucherify') === name.startsWith('sdk-node-'));
  const [first, ...rest] = method.name.split('.');
  // Client-side methods are called on the client-side SDK object, whatever the test names it.
  const call = first === 'client' ? new RegExp(`\\.${rest.join('\\.')}\\(`) : new RegExp(`\\.${method.name.replace(/\./g, '\\.')}\\(`);
  return ofSdk.filter((name) => call.test(sources.get(name)!) && (first !== 'client' || name.includes('client-side')));
}

function expectedRows(): string[] {
  const methods = [...voucherifySdkMethods(contract), ...nodeSdkMethods(contract)].filter((method) => method.operationId);
  return methods.map((method) => `| \`${method.sdk}\` | \`${method.name}\` | \`${method.operationId}\` | ${testedIn(method).map((name) => `\`${name}\``).join(', ') || 'not tested'} |`);
}

describe("README's table of SDK methods", () => {
  test('when the SDKs are read, then every method that reaches the contract has its row, with the operation and the test that calls it', () => {
    const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
    const rows = readme.split('\n').filter((line) => /^\| `(@voucherify\/sdk|voucherify)` \|/.test(line));
    const expected = expectedRows();
    expect(expected.length).toBeGreaterThan(150);
    expect(expected.filter((row) => row.endsWith('| not tested |'))).toEqual([]);
    // On a difference, the expected rows are printed in full: paste them into README.
    expect(rows.join('\n')).toEqual(expected.join('\n'));
  });
});

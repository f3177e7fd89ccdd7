/**
 * The kit's `compare`, run as its users run it (the built command, over HTTP) between two reference servers:
 * a server changed on purpose shows exactly its change, one line per difference, even where the contract allows
 * it. (Memory against PostgreSQL, with no difference, is tests/instances/compare.test.ts.) Needs `make build`.
 */
import { describe, expect, jest, test } from '@jest/globals';
import { brokenVariant, type Variant } from './broken-variants.js';
import { compareKit, referenceApp, type CompareRun } from './kit-run.js';

jest.setTimeout(300_000);

/** `compare` of a reference server (A) with one that has the variant's fault (B), over one area. */
async function compareWithVariant(variant: Variant, area: string): Promise<CompareRun> {
  const a = await referenceApp();
  const b = await referenceApp();
  const [servedA, servedB] = [await a.serve(a.app), await b.serve(brokenVariant(variant, b.app, b.credentials))];
  try {
    return await compareKit({ baseUrl: servedA.baseUrl, credentials: a.credentials }, { baseUrl: servedB.baseUrl, credentials: b.credentials }, ['--only', area]);
  } finally {
    await Promise.all([servedA, servedB].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  }
}

describe('contract kit: compare', () => {
  test('when B adds a field A does not send, then compare reports each place it does, and nothing else, and exits 1', async () => {
    // The contract kit passes this variant in its default mode (the contract's objects are open): compare does not.
    const run = await compareWithVariant('adds-undocumented-field', 'categories');
    const { differences } = run.report;
    expect(run.code).toBe(1);
    expect(run.report.scenarios.compared).toBeGreaterThan(10);
    expect(differences.length).toBeGreaterThan(10);
    // Every difference is the seeded one: IDs, timestamps and the two servers' addresses were normalised away.
    expect(differences.filter((difference) => !(difference.path.endsWith('.internal_revision') && difference.a === '(absent)' && difference.b === 7))).toEqual([]);
    expect(differences.map((difference) => difference.operation)).toEqual(expect.arrayContaining(['create-category', 'get-category', 'list-categories']));
    expect(run.output).toMatch(/^create-category {2}\$\.internal_revision {2}A: \(absent\) {2}B: 7$/m);
    expect(run.output).toMatch(/^list-categories {2}\$\.data\[0\]\.internal_revision {2}A: \(absent\) {2}B: 7$/m);
    expect(run.output).toContain(`differences: ${differences.length}\n`);
  });

  test('when B counts a list’s total over the page, then compare names the totals that differ, and exits 1', async () => {
    const run = await compareWithVariant('total-per-page', 'products');
    expect(run.code).toBe(1);
    const totals = run.report.differences.filter((difference) => difference.path === '$.total');
    expect(totals.length).toBeGreaterThan(0);
    for (const { a: total, b: page } of totals) expect(typeof total === 'number' && typeof page === 'number' && page < total).toBe(true);
    expect(run.output).toMatch(/^list-products {2}\$\.total {2}A: \d+ {2}B: \d+$/m);
  });
});

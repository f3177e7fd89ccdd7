/**
 * The operations the public API deprecates are deprecated in the contract too, each naming what replaces it
 * (or saying that the API names nothing), and no operation the API keeps is marked deprecated.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { findOperation } from '../inventory/coverage.js';
import { readOperations } from '../inventory/public-api.js';

const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Record<string, unknown>;
const inContract = readOperations().flatMap((operation) => {
  const found = findOperation(contract, operation.method, operation.path);
  if (!found) return [];
  const own = found.operation as unknown as { deprecated?: boolean; description?: string; operationId: string };
  return [{ inventory: operation, own }];
});

describe('deprecated operations', () => {
  test('the inventory marks operations of the contract as deprecated', () => {
    // A reader that found no mark would pass the checks below without checking anything.
    expect(inContract.filter(({ inventory }) => inventory.deprecated).length).toBeGreaterThan(40);
  });

  test('every operation the public API deprecates is deprecated here, and its description names its replacement', () => {
    const unmarked = inContract
      .filter(({ inventory, own }) => inventory.deprecated && (own.deprecated !== true || !/deprecat/i.test(own.description ?? '')))
      .map(({ own }) => own.operationId);
    expect(unmarked).toEqual([]);
    // A replacement is named by its method and path; the few the API leaves without one say so.
    const replacementNamed = (text: string) => /`(GET|POST|PUT|DELETE) \/[^`]*`/.test(text) || /no replacement|without naming a replacement|names? no/i.test(text);
    expect(inContract.filter(({ inventory, own }) => inventory.deprecated && !replacementNamed(own.description ?? '')).map(({ own }) => own.operationId)).toEqual([]);
  });

  test('no operation the public API keeps is marked deprecated', () => {
    expect(inContract.filter(({ inventory, own }) => !inventory.deprecated && own.deprecated === true).map(({ own }) => own.operationId)).toEqual([]);
  });
});

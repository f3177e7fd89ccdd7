/**
 * The contract against the public API's field inventory (tests/inventory/data): for every operation the
 * contract has, every documented parameter, request field and response field is there, accepts every type,
 * enum value and null the API uses, and is required only where the API always sends it. `make inventory`
 * prints the same gaps, with the looser warnings.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { checkOperation, findOperation } from '../inventory/coverage.js';
import { readOperations } from '../inventory/public-api.js';

const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Record<string, unknown>;

/**
 * Facts of the inventory the contract does not follow, each with its reason. They are slips in the public API's
 * reference itself, which its other operations and examples contradict.
 */
const DEVIATIONS: Record<string, string> = {
  // Every other response shows a voucher's `active` as a boolean (its own schema says so); only this one
  // operation's reference types it as a required string.
  'transfer-points response-200 active': 'the loyalty card in a transfer response is the same voucher object as everywhere else',
  // Every other asynchronous operation's reference requires `async_action_id`, and this one's own description
  // says the answer carries the ID to follow; only its schema leaves the flag off.
  'delete-campaign response-202 async_action_id': 'an accepted deletion always names the async action that carries it out',
};
const operations = readOperations().filter((operation) => findOperation(contract, operation.method, operation.path));
/** Each operation's gaps, worked out once: the deviations' test and the operation's own test read the same list. */
const gapsOf = new Map<(typeof operations)[number], ReturnType<typeof checkOperation>>();
const gaps = (operation: (typeof operations)[number]) => {
  let found = gapsOf.get(operation);
  if (found === undefined) gapsOf.set(operation, (found = checkOperation(contract, operation)));
  return found;
};

describe('the contract against the public API field inventory', () => {
  test('the inventory is read and matches most of the contract operations', () => {
    // A broken reader would match nothing and pass every check below.
    expect(operations.length).toBeGreaterThan(150);
    expect(operations.reduce((sum, operation) => sum + operation.facts.length, 0)).toBeGreaterThan(10_000);
  });

  test('every deviation named is still a difference (a stale one would hide nothing, and is removed)', () => {
    const all = new Set(operations.flatMap(gaps).map((gap) => `${gap.subject} ${gap.where} ${gap.field}`));
    expect(Object.keys(DEVIATIONS).filter((key) => !all.has(key))).toEqual([]);
  });

  test.each(operations.map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation] as const))(
    '%s documents every field the public API documents',
    (_, operation) => {
      const errors = gaps(operation)
        .filter((gap) => gap.severity === 'error' && !DEVIATIONS[`${gap.subject} ${gap.where} ${gap.field}`])
        .map((gap) => `${gap.where} ${gap.field}: ${gap.problem}`);
      expect(errors).toEqual([]);
      // Generated clients get the names integrators already know.
      expect(findOperation(contract, operation.method, operation.path)!.operation.operationId).toBe(operation.operationId);
    },
  );
});

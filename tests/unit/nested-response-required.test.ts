/**
 * The nested half of response-required.test.ts, for three families of objects the public API always fills in:
 * an order's items, the redeemables of a validation, redemption or qualification answer, and the transactions
 * of gift and loyalty cards. Every field the inventory marks required inside one of them must be required by
 * the contract's schema at that place (generated clients then type it as present, and the strict twin holds
 * the reference server to sending it). The few left optional are named below, each with its reason.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { ContractWalker, findOperation, type Schema } from '../inventory/coverage.js';
import { hasInventory, readOperations } from '../inventory/public-api.js';

type Json = Record<string, unknown>;
const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Json;
const walker = new ContractWalker(contract);
const describeWithInventory = hasInventory() ? describe : describe.skip;

/** Nested fields the API's reference marks required that the contract leaves optional, keyed `operationId status field`. */
const OPTIONAL: Record<string, string> = {};

type Family = 'order item' | 'redeemable' | 'transaction';

/**
 * Which family a response field belongs to, if any: a field of the family's object itself. Objects nested
 * further in (a redeemable's discount, a transaction's vouchers) are other schemas, shared far beyond these.
 */
function familyOf(path: string, field: string): Family | undefined {
  if (/(^|\.)items\[\]\.[a-z_]+$/.test(field)) return 'order item';
  if (/(^|_|\.)redeemables(\.data)?\[\]\.[a-z_]+$/.test(field) || /^redeemables(\.data)?\[\]\.[a-z_]+$/.test(field)) return 'redeemable';
  // A transaction's own fields, and those of the earning rule its details name.
  if (/\/transactions$/.test(path) && /^data\[\]\.(details\.earning_rule\.)?[a-z_]+$/.test(field)) return 'transaction';
  return undefined;
}

function splitSteps(field: string): string[] {
  const steps: string[] = [];
  for (const segment of field.split('.')) {
    const match = /^(.*?)((?:\[\])*)$/.exec(segment)!;
    if (match[1]) steps.push(match[1]);
    for (let i = 0; i < match[2]!.length / 2; i++) steps.push('[]');
  }
  return steps;
}

interface NestedField {
  key: string;
  family: Family;
  ours: boolean;
}

/** Every nested required field of the three families, and whether the contract requires it there too. */
export function nestedRequiredFields(): NestedField[] {
  const out = new Map<string, NestedField>();
  const optionalSomewhere = new Set<string>();
  for (const operation of readOperations()) {
    const found = findOperation(contract, operation.method, operation.path);
    if (!found) continue;
    for (const fact of operation.facts) {
      const status = /^response-(2\d\d)$/.exec(fact.where)?.[1];
      if (!status) continue;
      const family = familyOf(operation.path, fact.field);
      if (!family) continue;
      const key = `${found.operation.operationId} ${status} ${fact.field}`;
      // One kind of a union the inventory records without it (an activity's data): the API may leave it out.
      if (!fact.required) {
        out.set(key, { key, family, ours: true });
        optionalSomewhere.add(key);
      }
      if (!fact.required || optionalSomewhere.has(key)) continue;
      const response = walker.resolve(found.operation.responses[status]) as Json | undefined;
      const schema = (response?.content as Record<string, { schema?: Schema }> | undefined)?.['application/json']?.schema;
      const steps = splitSteps(fact.field);
      const name = steps.pop()!;
      const parent = walker.view(schema, steps);
      // Required when a schema that describes the parent requires it (a union's member, for a fact the
      // inventory records of one kind of redeemable only).
      const ours = !parent.open && parent.schemas.some((each) => walker.requires(each, name));
      const known = out.get(key);
      out.set(key, { key, family, ours: ours || (known?.ours ?? false) });
    }
  }
  return [...out.values()].filter((field) => !optionalSomewhere.has(field.key));
}

describeWithInventory('order items, redeemables and transactions require what the public API always sends', () => {
  const fields = nestedRequiredFields();

  test('the inventory is read: each family has required nested fields', () => {
    for (const family of ['order item', 'redeemable', 'transaction'] as Family[]) {
      expect(fields.filter((field) => field.family === family).length).toBeGreaterThan(5);
    }
  });

  test.each(['order item', 'redeemable', 'transaction'] as Family[])('every required field of a %s is required here, but for the named ones', (family) => {
    const optional = fields.filter((field) => field.family === family && !field.ours).map((field) => field.key);
    expect(optional.filter((key) => OPTIONAL[key] === undefined)).toEqual([]);
  });

  test('every named exception is still optional', () => {
    const optional = new Set(fields.filter((field) => !field.ours).map((field) => field.key));
    expect(Object.keys(OPTIONAL).filter((key) => !optional.has(key))).toEqual([]);
  });
});

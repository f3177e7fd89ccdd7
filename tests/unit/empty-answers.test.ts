/**
 * The kit judges each response with ConformanceChecker, against the published contract by default. A server
 * that answers `{}` to everything must fail every operation whose success response requires a field: this
 * feeds the checker that answer for every such operation of the contract and expects it refused, naming a
 * missing property. (tests/kit/kit.test.ts runs the built kit against such a server over HTTP.)
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { ConformanceChecker } from '../contract/conformance.js';
import { ContractWalker, type Schema } from '../inventory/coverage.js';

type Json = Record<string, unknown>;
const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Json & { paths: Record<string, Record<string, Json>> };
const checker = new ConformanceChecker(contract as never);
const walker = new ContractWalker(contract);

/** Whether an empty object satisfies the schema's `required` (own, allOf members', every union member's). */
function requiresSomething(schema: Schema): boolean {
  const resolved = walker.resolve(schema) as Json | undefined;
  if (!resolved) return false;
  if (Array.isArray(resolved.required) && resolved.required.length > 0) return true;
  if (Array.isArray(resolved.allOf) && resolved.allOf.some((member) => requiresSomething(member as Schema))) return true;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const members = resolved[key] as Schema[] | undefined;
    if (Array.isArray(members)) return members.every((member) => requiresSomething(member) || (walker.resolve(member) as Json | undefined)?.type === 'null');
  }
  return false;
}

/** Every operation's JSON success responses: where to send a request, and whether its schema requires a field. */
const cases = Object.entries(contract.paths).flatMap(([template, item]) =>
  Object.entries(item).flatMap(([method, operation]) => {
    const responses = (operation as { responses?: Record<string, Schema> }).responses;
    if (!responses) return [];
    return Object.entries(responses)
      .filter(([status]) => /^2\d\d$/.test(status))
      .flatMap(([status, reference]) => {
        const schema = ((walker.resolve(reference) as Json | undefined)?.content as Record<string, { schema?: Schema }> | undefined)?.['application/json']?.schema;
        if (!schema) return [];
        const url = template.replace(/\{[^}]+\}/g, 'x1');
        return [{ operationId: (operation as { operationId: string }).operationId, method: method.toUpperCase(), url, status: Number(status), requires: requiresSomething(schema) }];
      });
  }),
);

describe('a server answering {} to everything', () => {
  test('most success responses of the contract require a field, the core resources among them', () => {
    const requiring = new Set(cases.filter((each) => each.requires).map((each) => each.operationId));
    expect(requiring.size).toBeGreaterThan(150);
    for (const operationId of ['create-campaign', 'get-campaign', 'create-loyalty-program', 'create-customer', 'get-customer', 'import-vouchers', 'update-customers-in-bulk']) {
      expect(requiring).toContain(operationId);
    }
  });

  test('fails the check of every operation whose success response requires a field, naming what is missing', () => {
    const passed = cases
      .filter((each) => each.requires)
      .filter((each) => {
        const verdict = checker.check({ method: each.method, url: each.url, status: each.status, contentType: 'application/json', body: '{}' });
        return !verdict.violations.some((violation) => /must have required property|must be (array|equal)|must match/.test(violation));
      })
      .map((each) => `${each.operationId} ${each.status}`);
    expect(passed).toEqual([]);
  });
});

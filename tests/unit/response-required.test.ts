/**
 * The other half of the inventory check: `public-api-coverage` makes sure the contract requires nothing the
 * public API may leave out; this one makes sure it requires, at the top of every success response, what the
 * API always sends. Generated clients then type those fields as present (`id: string`, not `id?: string`),
 * and the kit refuses a server that leaves them out. The few the contract leaves optional are listed below,
 * each with its reason, and there are at most ten.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { ContractWalker, findOperation, type Schema } from '../inventory/coverage.js';
import { hasInventory, readOperations } from '../inventory/public-api.js';

type Json = Record<string, unknown>;
const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Json & { components: { schemas: Record<string, Json> } };
const walker = new ContractWalker(contract);
const describeWithInventory = hasInventory() ? describe : describe.skip;

/**
 * Top-level response fields the API's reference marks required that the contract leaves optional, keyed
 * `operationId status field`. The public API's own documented answers to these operations leave the field out.
 */
const OPTIONAL: Record<string, string> = {
  'get-campaign 200 categories': "the API's documented answer to this operation leaves it out (its other campaign operations show it)",
  'transfer-points 200 expiration_date': 'the API leaves the key out of a card whose expiration date was cleared, as for any voucher',
  'list-campaign-templates 200 campaign_template': "the API's documented list has no such member (the templates are in `data`)",
  'management-list-campaign-templates 200 campaign_template': "the API's documented list has no such member (the templates are in `data`)",
  'list-metadata-schemas 200 data': "the API's documented list has no such member (the schemas are in `schemas`)",
  'get-redemption 200 redemption': "most of the API's documented redemptions (11 of 13) leave it out",
  'rollback-redemption 200 channel': "half of the API's documented rollbacks leave it out",
  'add-tier-from-template 200 campaign': "the API's documented answer has no such member (the tier it made is in `promotion_tier`)",
};

/**
 * Fields the contract requires in one kind of answer of a union and leaves out of the other, where the
 * public API documents that other kind without them: an inactive token's introspection is `{"active": false}`
 * alone (RFC 7662, and the API's documented answer), while an active one carries every field.
 */
const CONDITIONAL: Record<string, string> = Object.fromEntries(
  ['access_token', 'client_id', 'expires_at', 'expires_in', 'scope', 'token_type'].map((field) => [
    `introspect-oauth-token 200 ${field}`,
    'required of an active token; an inactive one is answered with `active: false` alone',
  ]),
);

/** Whether some member of the schema's union requires the field. */
function requiredInABranch(schema: Schema, field: string): boolean {
  const resolved = walker.resolve(schema) as Json | undefined;
  const members = (resolved?.oneOf ?? resolved?.anyOf) as Schema[] | undefined;
  return Array.isArray(members) && members.some((member) => walker.requires(member, field));
}

/** Every `operationId status field` the API requires at the top of a success response, and whether ours does too. */
function requiredFields(): { key: string; ours: boolean }[] {
  const out: { key: string; ours: boolean }[] = [];
  for (const operation of readOperations()) {
    const found = findOperation(contract, operation.method, operation.path);
    if (!found) continue;
    for (const fact of operation.facts) {
      const status = /^response-(2\d\d)$/.exec(fact.where)?.[1];
      if (!status || !fact.required || fact.field === '(body)' || /[.[{]/.test(fact.field)) continue;
      // Required in one member of a union only (a publication's `voucher` or `vouchers`): not always sent.
      if (fact.notes.variant !== undefined) continue;
      const response = walker.resolve(found.operation.responses[status]) as Json | undefined;
      const content = response?.content as Record<string, { schema?: Schema }> | undefined;
      const schema = content?.['application/json']?.schema;
      const key = `${found.operation.operationId} ${status} ${fact.field}`;
      if (CONDITIONAL[key] !== undefined && schema !== undefined && requiredInABranch(schema, fact.field)) continue;
      out.push({ key, ours: schema !== undefined && walker.requires(schema, fact.field) });
    }
  }
  return out;
}

describeWithInventory('the contract requires what the public API always sends', () => {
  const fields = requiredFields();

  test('the inventory is read: the API requires hundreds of top-level response fields', () => {
    expect(fields.length).toBeGreaterThan(900);
  });

  test('every top-level response field the API requires is required here, but for at most ten named ones', () => {
    const optional = fields.filter((field) => !field.ours).map((field) => field.key);
    expect(optional.filter((key) => OPTIONAL[key] === undefined)).toEqual([]);
    expect(Object.keys(OPTIONAL).length).toBeLessThanOrEqual(10);
  });

  test('every named exception is still optional (a stale one would hide nothing, and is removed)', () => {
    const optional = new Set(fields.filter((field) => !field.ours).map((field) => field.key));
    expect(Object.keys(OPTIONAL).filter((key) => !optional.has(key))).toEqual([]);
  });
});

describe('core resources require their identity', () => {
  const requires = (name: string, field: string) => walker.requires({ $ref: `#/components/schemas/${name}` }, field);

  test.each([
    ['Campaign', ['id', 'name', 'object', 'campaign_type', 'type', 'created_at', 'categories', 'category_id', 'protected']],
    ['Customer', ['object', 'summary', 'loyalty', 'referrals']],
    ['AsyncActionReference', ['async_action_id']],
  ])('%s requires %j', (name, fieldsOf) => {
    expect(fieldsOf.filter((field) => !requires(name, field))).toEqual([]);
  });

  test('every asynchronous operation (a 202 naming an async action) requires its async_action_id', () => {
    const lacking: string[] = [];
    for (const item of Object.values(contract.paths as Record<string, Record<string, Json>>)) {
      for (const operation of Object.values(item)) {
        const responses = (operation as { responses?: Record<string, Schema> }).responses;
        if (!responses) continue;
        for (const [status, reference] of Object.entries(responses)) {
          if (!status.startsWith('2')) continue;
          const response = walker.resolve(reference) as Json | undefined;
          const schema = (response?.content as Record<string, { schema?: Json }> | undefined)?.['application/json']?.schema;
          if (schema?.$ref === '#/components/schemas/AsyncActionReference' && !walker.requires(schema, 'async_action_id')) {
            lacking.push(`${(operation as { operationId: string }).operationId} ${status}`);
          }
        }
      }
    }
    expect(lacking).toEqual([]);
    expect(requires('AsyncActionReference', 'async_action_id')).toBe(true);
  });
});

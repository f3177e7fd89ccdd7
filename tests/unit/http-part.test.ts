import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { httpPart } from '../../server/contract/http-part.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';

describe('the part of the contract the HTTP validators are given', () => {
  test('when a schema is reached from a path through any kind of component, then it is kept; webhooks and what only they reach are not', () => {
    const contract = {
      openapi: '3.1.0',
      paths: { '/a': { get: { responses: { '200': { $ref: '#/components/responses/A' } } } } },
      webhooks: { sent: { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Payload' } } } } } } },
      components: {
        responses: { A: { content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } } },
        schemas: {
          A: { properties: { b: { $ref: '#/components/schemas/B/properties/c' } } },
          B: { properties: { c: { $ref: '#/components/schemas/C' } } },
          C: { type: 'string' },
          Payload: { properties: { a: { $ref: '#/components/schemas/A' } } },
        },
      },
    };
    const part = httpPart(contract);
    expect(part.webhooks).toBeUndefined();
    expect(Object.keys((part.components as { schemas: object }).schemas).sort()).toEqual(['A', 'B', 'C']);
    expect((part.components as { responses: unknown }).responses).toBe(contract.components.responses);
    // The document given is left as it was.
    expect(Object.keys(contract.components.schemas)).toHaveLength(4);
    expect(contract.webhooks).toBeDefined();
  });

  test('when the bundled contract is taken apart, then every path is kept, with every schema a path reaches', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as { paths: object; components: { schemas: object } };
    const part = httpPart(contract) as typeof contract;
    expect(part.paths).toBe(contract.paths);
    const text = JSON.stringify(part);
    const missing = [...text.matchAll(/"#\/components\/schemas\/([^"/]+)/g)].map((match) => match[1]!).filter((name) => !(name in part.components.schemas));
    expect(missing).toEqual([]);
    expect(Object.keys(part.components.schemas).length).toBeLessThan(Object.keys(contract.components.schemas).length);
  });
});

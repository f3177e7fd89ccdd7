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
    expect((part.components as { responses: unknown }).responses).toEqual(contract.components.responses);
    // The document given is left as it was.
    expect(Object.keys(contract.components.schemas)).toHaveLength(4);
    expect(contract.webhooks).toBeDefined();
  });

  test('when an operation, a parameter or a shared response has named examples, then they are left out; a schema keeps its own', () => {
    const contract = {
      paths: {
        '/a': {
          parameters: [{ name: 'p', in: 'query', schema: { type: 'string' }, example: 'x' }],
          post: {
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/A' }, examples: { one: { $ref: '#/components/examples/One' } } } } },
            responses: { '200': { $ref: '#/components/responses/Ok' }, '400': { description: 'bad', content: { 'application/json': { schema: { type: 'object' }, example: {} } } } },
          },
        },
      },
      components: {
        schemas: { A: { type: 'object', properties: { examples: { type: 'array', examples: [['x']] } } } },
        responses: { Ok: { description: 'ok', content: { 'application/json': { schema: { type: 'object' }, examples: { two: { value: {} } } } } } },
        examples: { One: { value: {} } },
      },
    };
    const part = httpPart(contract) as typeof contract;
    expect(JSON.stringify(part)).not.toMatch(/"example"|#\/components\/examples|"One"|"two"/);
    // The schema's own field named `examples`, and its `examples` keyword, stay.
    expect(part.components.schemas.A).toEqual(contract.components.schemas.A);
    // The given document keeps its examples.
    expect(contract.components.examples.One).toBeDefined();
    expect(contract.paths['/a'].post.requestBody.content['application/json'].examples).toBeDefined();
  });

  test('when the bundled contract is taken apart, then every path is kept, with every schema a path reaches', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as { paths: object; components: { schemas: object } };
    const part = httpPart(contract) as typeof contract;
    expect(Object.keys(part.paths)).toEqual(Object.keys(contract.paths));
    const text = JSON.stringify(part);
    // No named example is left, and none is referred to.
    expect(text).not.toMatch(/#\/components\/examples\//);
    expect((part.components as { examples?: unknown }).examples).toBeUndefined();
    const missing = [...text.matchAll(/"#\/components\/schemas\/([^"/]+)/g)].map((match) => match[1]!).filter((name) => !(name in part.components.schemas));
    expect(missing).toEqual([]);
    expect(Object.keys(part.components.schemas).length).toBeLessThan(Object.keys(contract.components.schemas).length);
  });
});

/**
 * Every request body of the contract is bounded: no string, array or map a client sends can grow without
 * a limit the contract states (and the validator enforces), and what JSON Schema cannot state (nesting, the
 * size of metadata written out) is checked by the server without recursion.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { MAX_BODY_DEPTH, METADATA_LIMITS, metadataProblem, metadataProblemIn, nestsDeeperThan } from '../../server/domain/input-limits.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { UNSTORED, unboundedRequestPlaces } from './request-limits.js';

const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Record<string, any>;

describe('limits in the contract', () => {
  test('when a request body takes a string, an array or a map, then the contract bounds it (maxLength, maxItems, maxProperties)', () => {
    // Each place is named by the schema file that declares it: add the limit there, then `make generate`.
    expect(unboundedRequestPlaces(contract)).toEqual([]);
  });

  test('when a field is left unbounded on purpose, then it is never stored and still exists where it is named', () => {
    for (const place of Object.keys(UNSTORED)) {
      const [file, path] = place.split(': ');
      const schema = contract.components.schemas[file!.replace(/\.yaml$/, '')];
      expect({ place, exists: Boolean(schema?.properties?.[path!]) }).toEqual({ place, exists: true });
      expect({ place, ignored: /ignored/.test(String(schema.properties[path!].description)) }).toEqual({ place, ignored: true });
    }
  });

  test('when the checker meets an unbounded string, array or map in a request body, then it names the place', () => {
    const document = {
      paths: { '/x': { post: { operationId: 'x', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Body' } } } } } } },
      components: {
        schemas: {
          Body: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              short: { type: 'string', maxLength: 5 },
              kind: { type: 'string', enum: ['a'] },
              iso: { type: 'string', pattern: '^[A-Z]{3}$' },
              open: { type: 'string', pattern: '^[A-Z]+$' },
              tags: { type: 'array', items: { type: 'string', maxLength: 3 } },
              map: { type: 'object', additionalProperties: true },
              any: { type: ['object', 'string'], maxLength: 3 },
              nested: { allOf: [{ $ref: '#/components/schemas/Part' }] },
            },
          },
          Part: { type: 'object', properties: { note: { type: ['string', 'null'] } } },
        },
      },
    };
    expect(unboundedRequestPlaces(document).map(({ place, kind }) => `${kind} ${place}`)).toEqual([
      'map Body.yaml: any',
      'map Body.yaml: map',
      'string Body.yaml: name',
      'string Body.yaml: open',
      'array Body.yaml: tags',
      'string Part.yaml: note',
    ]);
  });
});

describe('nesting and metadata checks', () => {
  test('when a value nests objects and arrays past a limit, then it is found without recursion, however deep', () => {
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) as unknown;
    expect(nestsDeeperThan(deep, MAX_BODY_DEPTH)).toBe(true);
    const exactly = JSON.parse(`${'{"a":'.repeat(MAX_BODY_DEPTH - 1)}{}${'}'.repeat(MAX_BODY_DEPTH - 1)}`) as unknown;
    expect(nestsDeeperThan(exactly, MAX_BODY_DEPTH)).toBe(false);
    expect(nestsDeeperThan({ a: exactly }, MAX_BODY_DEPTH)).toBe(true);
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
  });

  test('when metadata is past its depth or size, then the problem is named; within, none', () => {
    const inside = (levels: number) => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`) as unknown;
    expect(metadataProblem(inside(METADATA_LIMITS.depth))).toBeUndefined();
    expect(metadataProblem(inside(METADATA_LIMITS.depth + 1))).toMatch(/levels/);
    expect(metadataProblem({ text: 'x'.repeat(METADATA_LIMITS.bytes - 11) })).toBeUndefined();
    expect(metadataProblem({ text: 'x'.repeat(METADATA_LIMITS.bytes - 10) })).toMatch(/16385 bytes/);
    expect(metadataProblem(Object.fromEntries(Array.from({ length: METADATA_LIMITS.keys }, (_, i) => [`k${i}`, i])))).toBeUndefined();
    expect(metadataProblem(Object.fromEntries(Array.from({ length: METADATA_LIMITS.keys + 1 }, (_, i) => [`k${i}`, i])))).toMatch(/101 keys/);
    // Bytes, not characters: two bytes each in UTF-8.
    expect(metadataProblem({ text: 'é'.repeat(8_200) })).toMatch(/bytes/);
  });

  test('when a body holds metadata anywhere, then each `metadata` object is checked, and its own keys are data', () => {
    const big = { text: 'x'.repeat(20_000) };
    expect(metadataProblemIn({ metadata: big })?.[0]).toBe('body/metadata');
    expect(metadataProblemIn({ items: [{}, { metadata: big }] })?.[0]).toBe('body/items/1/metadata');
    expect(metadataProblemIn({ customer: { metadata: { metadata: 'a user key' } } })).toBeUndefined();
    expect(metadataProblemIn({ metadata: null, name: 'x'.repeat(20_000) })).toBeUndefined();
  });
});

/**
 * Every operation shows what it takes and what it gives: a request example where it takes a body, and an
 * example for each success response with a JSON body. Lint (`make lint`) validates each example against its
 * schema; this test makes sure none is missing, and validates each against the strict twin as well, since lint
 * lets undocumented fields through where a schema is built with allOf.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT, STRICT_CONTRACT } from '../../server/paths.js';
import { ConformanceChecker, pointerPart } from '../contract/conformance.js';

type Json = Record<string, any>;
const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Json;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

const resolve = (node: Json | undefined): Json | undefined => {
  let current = node;
  while (current?.$ref) current = current.$ref.slice(2).split('/').reduce((at: Json, key: string) => at?.[key], contract);
  return current;
};

/** A media type shows an example of the whole body (`examples` or `example` beside its schema). */
function hasExample(media: Json | undefined): boolean {
  if (!media) return false;
  return media.example !== undefined || (media.examples !== undefined && Object.keys(media.examples).length > 0);
}

const operations = Object.entries(contract.paths as Json).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method]).map((method) => ({ label: `${method.toUpperCase()} ${path}`, operation: item[method] as Json })),
);
const webhooks = Object.entries((contract.webhooks ?? {}) as Json).flatMap(([name, item]) =>
  METHODS.filter((method) => item[method]).map((method) => ({ label: `webhook ${name}`, operation: item[method] as Json })),
);

const strict = new ConformanceChecker(JSON.parse(readFileSync(STRICT_CONTRACT, 'utf8')));

/** Every named example of an operation, with the pointer to the schema it shows. */
function examplesOf(path: string, method: string, operation: Json): { name: string; pointer: string; value: unknown }[] {
  const base = `#/paths/${pointerPart(path)}/${method}`;
  const places: { at: string; media: Json }[] = [];
  const body = operation.requestBody;
  const bodyAt = body?.$ref ? body.$ref : `${base}/requestBody`;
  for (const [type, media] of Object.entries((resolve(body)?.content ?? {}) as Json)) {
    if (type === 'application/json') places.push({ at: `${bodyAt}/content/${pointerPart(type)}`, media });
  }
  for (const [status, response] of Object.entries(operation.responses as Json)) {
    const responseAt = (response as Json).$ref ?? `${base}/responses/${status}`;
    const media = resolve(response as Json)?.content?.['application/json'];
    if (/^2/.test(status) && media) places.push({ at: `${responseAt}/content/application~1json`, media });
  }
  return places.flatMap(({ at, media }) =>
    Object.entries((media.examples ?? {}) as Json).map(([name, example]) => ({ name, pointer: `${at}/schema`, value: resolve(example as Json)?.value })),
  );
}

describe('examples in the contract', () => {
  test('when an operation shows an example, then it validates against the strict twin: no field the contract does not name', () => {
    const shown = Object.entries(contract.paths as Json).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).flatMap((method) =>
        examplesOf(path, method, item[method] as Json).map((example) => ({ ...example, label: `${method.toUpperCase()} ${path}: ${example.name}` })),
      ),
    );
    // Every operation has at least one example (checked below), so there are well over a hundred.
    expect(shown.length).toBeGreaterThan(200);
    expect(shown.filter(({ pointer, value }) => !strict.accepts(pointer, value)).map(({ label }) => label)).toEqual([]);
  });

  test.each([...operations, ...webhooks].map(({ label, operation }) => [label, operation] as const))('%s has its request and response examples', (_, operation) => {
    const missing: string[] = [];
    const body = resolve(operation.requestBody);
    for (const [media, content] of Object.entries((body?.content ?? {}) as Json)) {
      if (!hasExample(content)) missing.push(`request ${media}`);
    }
    for (const [status, response] of Object.entries(operation.responses as Json)) {
      if (!/^2/.test(status)) continue;
      const json = resolve(response)?.content?.['application/json'];
      if (json && !hasExample(json)) missing.push(`response ${status}`);
    }
    expect(missing).toEqual([]);
  });
});

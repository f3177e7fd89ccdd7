/**
 * Every operation shows what it takes and what it gives: a request example where it takes a body, and an
 * example for each success response with a JSON body. Lint (`make lint`) validates each example against its
 * schema with no undocumented field allowed; this test makes sure none is missing.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';

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

describe('examples in the contract', () => {
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

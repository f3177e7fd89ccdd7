/**
 * Every operation of the contract, fed input that breaks it in assorted ways: the answer is always a
 * 4xx in the error shape, never a 5xx and never a success.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { ConformanceChecker, pointerPart } from './conformance.js';
import { raw, useTarget } from './target.js';

const ctx = useTarget();

interface Operation {
  operationId: string;
  requestBody?: unknown;
  parameters?: { $ref?: string; name?: string }[];
}
const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as {
  paths: Record<string, Record<string, Operation | unknown>>;
  components: { parameters: Record<string, { name: string }> };
};
/** The names of an operation's parameters: a bad value is only bad for a parameter the operation takes. */
const parameterNames = (operation: Operation) =>
  new Set((operation.parameters ?? []).map((parameter) => (parameter.$ref ? contract.components.parameters[parameter.$ref.split('/').at(-1)!]?.name : parameter.name)));
const METHODS = ['get', 'post', 'put', 'delete'];
const operations = Object.entries(contract.paths).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] as Operation })),
);

const BAD_BODIES = ['null', '[]', '"text"', '42', 'true', '{"metadata":[]}', '{'];
/** Requests are judged by the published contract, whose objects are open. */
const published = new ConformanceChecker(contract as never);
/**
 * Whether a body is bad for the operation: not JSON, or refused by its schema. (`{"metadata":[]}` is fine for
 * a body without `metadata`: fields the contract does not name are ignored, as the public API ignores them.)
 */
function isBad(path: string, method: string, body: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return true;
  }
  const content = (contract.paths[path]![method] as { requestBody?: { content?: Record<string, unknown> } }).requestBody?.content;
  // An operation that takes no JSON answers a JSON body with a 415, whatever the body.
  if (!content?.['application/json']) return true;
  return !published.accepts(`#/paths/${pointerPart(path)}/${method}/requestBody/content/application~1json/schema`, value);
}
const BAD_QUERIES = ['limit=-1', 'limit=1e3', 'page=x', 'order=%00', 'limit=1&limit=2'];

function concrete(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, value);
}

describe.each(operations)('$operation.operationId ($method $path)', ({ path, method, operation }) => {
  test('when the body or query is malformed, or the IDs are strange, then a 4xx error and never a 5xx', async () => {
    const verb = method.toUpperCase();
    const results: { input: string; status: number; key: unknown }[] = [];
    const record = (input: string, response: { status: number; body: unknown }) =>
      results.push({ input, status: response.status, key: (response.body as { key?: unknown } | undefined)?.key });

    if (operation.requestBody) {
      for (const body of BAD_BODIES.filter((text) => isBad(path, method, text))) {
        record(`body ${body}`, await raw(ctx.target, verb, concrete(path, 'x'), { body }));
      }
    }
    const names = parameterNames(operation);
    for (const query of BAD_QUERIES.filter((text) => names.has(text.split('=')[0]))) {
      record(`query ${query}`, await raw(ctx.target, verb, `${concrete(path, 'x')}?${query}`));
    }
    for (const id of ['%E2%9C%93', 'a'.repeat(300), '..', '%2F', '__proto__', 'constructor']) {
      const response = await raw(ctx.target, verb, concrete(path, id), operation.requestBody ? { body: '{"price":1}' } : {});
      if (!path.includes('{') || response.status < 300) continue;
      record(`id ${id.slice(0, 20)}`, response);
    }
    for (const result of results) {
      expect({ ...result, ok: result.status >= 400 && result.status < 500 && typeof result.key === 'string' }).toEqual(
        expect.objectContaining({ ok: true }),
      );
    }
  });
});

/**
 * Every operation of the contract, fed input that breaks it in assorted ways: the answer is always a
 * 4xx in the error shape, never a 5xx and never a success.
 *
 * Defined once here and run on the memory store (robustness.test.ts) and on PGlite (robustness-pglite.test.ts): the SQL
 * stores refused what the memory store took (a NUL in a string), so both must hold.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { ConformanceChecker, pointerPart } from './conformance.js';
import { raw, reachable, useTarget } from './target.js';
import { BROKEN_GZIP, nestedArrays, nestedObjects, wire, type WireResponse } from './wire.js';

/** Defines the suite against an in-process target on the given store. */
export function robustnessSuite(storeKind: 'memory' | 'pglite'): void {
  const ctx = useTarget({ storeKind });

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
  /** Whether an empty JSON body, read as `{}`, is a body the operation takes (or it takes none at all). */
  function takesEmptyObject(path: string, method: string): boolean {
    const requestBody = (contract.paths[path]![method] as { requestBody?: { content?: Record<string, unknown> } }).requestBody;
    if (!requestBody) return true;
    if (!requestBody.content?.['application/json']) return false;
    return published.accepts(`#/paths/${pointerPart(path)}/${method}/requestBody/content/application~1json/schema`, {});
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
      // Bracket nesting far past the query parser's depth (5), on a filter and on a name the contract does not
      // know: kept as flat text past the depth, so it is refused or ignored, never walked.
      for (const query of [`filters${'[a]'.repeat(500)}=1`, `${'['.repeat(2_000)}=1`]) {
        const response = await raw(ctx.target, verb, `${concrete(path, 'x')}?${query}`, operation.requestBody ? { body: '{}' } : {});
        expect({ query: query.slice(0, 24), status: response.status }).toEqual({ query: query.slice(0, 24), status: expect.any(Number) });
        expect(response.status).toBeLessThan(500);
      }
      for (const result of results) {
        expect({ ...result, ok: result.status >= 400 && result.status < 500 && typeof result.key === 'string' }).toEqual(
          expect.objectContaining({ ok: true }),
        );
      }
    });
  });

  const isErrorShape = (response: WireResponse) =>
    typeof response.body === 'object' && response.body !== null && (response.body as { code?: unknown }).code === response.status && typeof (response.body as { key?: unknown }).key === 'string';
  const JSON_TYPE = { 'Content-Type': 'application/json' };

  // Bodies are read after authentication: an API whose key the run was not given answers 401 to any of them.
  describe.each(operations.filter(({ method, path }) => method !== 'get' && reachable(path)))('$operation.operationId ($method $path) body bytes', ({ path, method }) => {
    const verb = method.toUpperCase();
    const url = concrete(path, 'x');

    test('when a JSON request has no body (none at all, Content-Length 0, or chunked with no bytes), then it is read as `{}`: taken where `{}` is, refused with a 400 where not', async () => {
      const takes = takesEmptyObject(path, method);
      const ways = { unframed: { unframed: true }, 'Content-Length 0': { body: '' }, 'chunked, no bytes': { body: '', chunked: true } };
      // A request with no framing goes over plain HTTP only (see wire.ts).
      const plain = ctx.target.baseUrl.startsWith('http:');
      for (const [way, framing] of Object.entries(ways).filter(([way]) => plain || way !== 'unframed')) {
        const response = await wire(ctx.target, verb, url, { headers: JSON_TYPE, ...framing });
        const key = (response.body as { key?: unknown } | undefined)?.key;
        const verdict = takes
          ? response.status < 500 && !(response.status === 400 && key === 'invalid_payload')
          : response.status >= 400 && response.status < 500 && isErrorShape(response);
        expect({ way, takes, status: response.status, body: response.body, ok: verdict }).toEqual(expect.objectContaining({ ok: true }));
      }
    });

    const takesBody = Boolean((contract.paths[path]![method] as Operation).requestBody);

    // An operation that takes no body documents no 415: a body it cannot read is a 400 there.
    test('when the body is not valid in its Content-Encoding, then a 400; when the encoding is not taken, then a 415 (a 400 where no body is taken); both in the error shape', async () => {
      // More codings and bodies are drawn by the schema-driven fuzzing (fuzz.test.ts, "body transport").
      const cases: [string, Uint8Array | string, number][] = [
        ['gzip', BROKEN_GZIP, 400],
        ['deflate', BROKEN_GZIP.subarray(10), 400],
        ['BR', '{}', 400],
        ['compress', '{}', 415],
        ['zstd', '{}', 415],
      ];
      for (const [encoding, body, status] of cases) {
        const response = await wire(ctx.target, verb, url, { headers: { ...JSON_TYPE, 'Content-Encoding': encoding }, body });
        const verdict = response.status === (takesBody ? status : 400) && isErrorShape(response);
        expect({ encoding, takesBody, status: response.status, body: response.body, ok: verdict }).toEqual(expect.objectContaining({ ok: true }));
      }
    });

    // An operation that takes a form may refuse JSON for its media type first (415).
    const takesForm = !(contract.paths[path]![method] as { requestBody?: { content?: Record<string, unknown> } }).requestBody?.content?.['application/json'] && takesBody;
    test('when the body nests deeper than the documented limit, then a 400 in the error shape before anything recurses', async () => {
      for (const body of [nestedArrays(5_000), `{"metadata":${nestedObjects(2_000)},"name":"deep","code":"DEEP","type":"x"}`]) {
        const response = await wire(ctx.target, verb, url, { headers: JSON_TYPE, body });
        const verdict = (takesForm ? response.status >= 400 && response.status < 500 : response.status === 400) && isErrorShape(response);
        expect({ takesForm, status: response.status, body: response.body, ok: verdict }).toEqual(expect.objectContaining({ ok: true }));
      }
    });
  });
}

/**
 * Schema-driven fuzzing with fast-check: for every operation of the contract, request bodies and query
 * strings generated from the contract's own schemas.
 * - Valid input (checked with ajv against the operation's schema) is never refused as malformed: the answer
 *   is a success, or a domain answer (not found, duplicate, a business rule), never `invalid_payload` or
 *   `invalid_query_params`.
 * - Input broken in one way is refused with a 4xx in the shared error shape.
 * - Nothing ever gives a 5xx, and every response conforms to the contract (both checked after each test).
 *
 * - A valid body sent badly (in a content coding that does not decode, or is not taken; nested past the
 *   documented depth; with metadata past its documented limits; or with no bytes at all) is refused with a
 *   4xx in the error shape, as the contract's limits say; a valid body compressed in a coding that is taken
 *   is accepted like the same body uncompressed.
 *
 * FUZZ_RUNS sets the cases per property (a few in `make test`, many in `make fuzz`); FUZZ_SEED replays a run.
 *
 * Defined once here and run on the memory store (fuzz.test.ts) and on PGlite (fuzz-pglite.test.ts): the SQL
 * stores refused what the memory store took (a NUL in a string), so both must hold.
 */
import { describe, expect, jest, test } from '@jest/globals';
import fc, { type Arbitrary } from 'fast-check';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { ConformanceChecker, pointerPart } from './conformance.js';
import { firstAccepted, SchemaArbitraries, type Document, type Schema } from './schema-arbitrary.js';
import { lacks, raw, reachable, runsWith, useTarget } from './target.js';
import { nestedArrays, nestedObjects, wire } from './wire.js';

// `make fuzz` mints thousands of OAuth tokens with one key: past the hourly allowance every case would be a 429.
/** Defines the suite against an in-process target on the given store. */
export function fuzzSuite(storeKind: 'memory' | 'pglite'): void {
  const ctx = useTarget({ tokensPerHour: 0, storeKind });
  const RUNS = Number(process.env.FUZZ_RUNS ?? 5);
  const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
  jest.setTimeout(Math.max(30_000, RUNS * 2_000));

  interface Parameter {
    $ref?: string;
    name: string;
    in: string;
    style?: string;
    required?: boolean;
    schema: Schema;
  }
  interface Operation {
    operationId: string;
    parameters?: Parameter[];
    requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  }
  type Contract = Document & {
    paths: Record<string, Record<string, Operation> & { parameters?: Parameter[] }>;
    components: { parameters: Record<string, Parameter> };
  };

  const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Contract;
  const checker = new ConformanceChecker(contract as never);
  const arbitraries = new SchemaArbitraries(contract);
  const SCHEMA_KEYS = ['invalid_payload', 'invalid_query_params'];
  const JSON_MEDIA = 'application/json';
  const FORM_MEDIA = 'application/x-www-form-urlencoded';

  /** A query parameter with the pointer to its schema, for ajv. */
  interface QueryParameter {
    name: string;
    schema: Schema;
    pointer: string;
  }

  /** A remote target is fuzzed only on the APIs whose keys the run was given. */
  const KEYED_APIS = [['client', '/client/'], ['management', '/management/']] as const;
  // The APIs left out are reported as skipped, with the flags that would fuzz them too.
  for (const [need, prefix] of KEYED_APIS) {
    const left = Object.entries(contract.paths)
      .filter(([path]) => path.startsWith(prefix))
      .flatMap(([, item]) => (['get', 'post', 'put', 'delete'] as const).flatMap((method) => (item[method] as Operation | undefined)?.operationId ?? []));
    if (lacks(need)) runsWith(test, [need], left)(`fuzzing of the ${left.length} operations under ${prefix}`, () => {});
  }

  const operations = Object.entries(contract.paths).filter(([path]) => reachable(path)).flatMap(([path, item]) =>
    (['get', 'post', 'put', 'delete'] as const).flatMap((method) => {
      const operation = item[method] as Operation | undefined;
      if (!operation) return [];
      const query: QueryParameter[] = [];
      const all = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      all.forEach((parameter, index) => {
        const name = parameter.$ref?.split('/').at(-1);
        const resolved = name ? contract.components.parameters[name]! : parameter;
        // deepObject filters are left to the hand-written listing scenarios.
        if (resolved.in !== 'query' || resolved.style === 'deepObject') return;
        const inOperation = index >= (item.parameters ?? []).length;
        const pointer = name
          ? `#/components/parameters/${name}/schema`
          : `#/paths/${pointerPart(path)}${inOperation ? `/${method}` : ''}/parameters/${inOperation ? index - (item.parameters ?? []).length : index}/schema`;
        query.push({ name: resolved.name, schema: resolved.schema, pointer });
      });
      const content = operation.requestBody?.content ?? {};
      const media = [JSON_MEDIA, FORM_MEDIA].find((type) => content[type]);
      return [
        {
          path,
          method: method.toUpperCase(),
          operationId: operation.operationId,
          query,
          media: media ?? JSON_MEDIA,
          bodyPointer: media ? `#/paths/${pointerPart(path)}/${method}/requestBody/content/${media.replace('/', '~1')}/schema` : undefined,
          bodySchema: media ? content[media]!.schema : undefined,
        },
      ];
    }),
  );

  /**
   * A body as it travels, and what the server reads from it. A form carries flat fields of text only, so a value
   * with nested parts cannot travel as one (undefined); what the server reads is then judged, not what was drawn.
   */
  interface Encoded {
    text: string;
    seen: unknown;
  }

  function encode(media: string, value: unknown): Encoded | undefined {
    if (media === JSON_MEDIA) return { text: JSON.stringify(value), seen: value };
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const entries = Object.entries(value).filter((entry) => entry[1] !== undefined);
    if (entries.some(([, field]) => field !== null && typeof field === 'object')) return undefined;
    const fields = entries.map(([name, field]) => [name, String(field)] as [string, string]);
    return { text: new URLSearchParams(fields).toString(), seen: Object.fromEntries(fields) };
  }

  /** Path parameters name objects that do not exist: valid input then meets a 404 at most. */
  const concrete = (path: string) => path.replace(/\{[^}]+\}/g, () => `fuzz-${randomBytes(4).toString('hex')}`);

  const asQueryValue = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [String(value)]);

  function queryString(values: Record<string, unknown>): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) {
      // A parameter with no accepted value this time is left out, which is valid too.
      if (value === undefined) continue;
      for (const item of asQueryValue(value)) search.append(name, item);
    }
    const text = search.toString();
    return text ? `?${text}` : '';
  }

  /** A valid value for each of some of the parameters; cursors are left out, as a made-up one is rightly refused. */
  function validQuery(parameters: QueryParameter[]): Arbitrary<Record<string, unknown>> {
    const usable = parameters.filter((parameter) => !parameter.name.startsWith('starting_after'));
    const model: Record<string, Arbitrary<unknown>> = Object.fromEntries(
      usable.map((parameter) => [parameter.name, firstAccepted(arbitraries.valid(parameter.schema), (value) => checker.accepts(parameter.pointer, value))]),
    );
    // Sometimes with a parameter the contract does not name, which must be ignored, never refused.
    const unknown = fc.option(fc.string({ minLength: 1, maxLength: 8 }).map((name) => ({ [`fuzz_${name.replace(/[^a-z]/gi, 'x')}`]: '1' })), { nil: {} });
    return fc.tuple(fc.record(model, { requiredKeys: [] }), unknown).map(([known, extra]) => ({ ...extra, ...known })) as Arbitrary<Record<string, unknown>>;
  }

  /**
   * One parameter given a value its schema refuses, in the form it travels in a URL. (A parameter the contract
   * does not name is ignored, as the public API ignores it: see `validQuery`.)
   */
  function invalidQuery(parameters: QueryParameter[]): Arbitrary<Record<string, unknown> | undefined> {
    const broken = brokenQueries(parameters);
    return broken.length > 0 ? fc.oneof(...broken) : fc.constant<Record<string, unknown> | undefined>(undefined);
  }

  const invalidQueryCases = (parameters: QueryParameter[]) => brokenQueries(parameters).length;

  function brokenQueries(parameters: QueryParameter[]): Arbitrary<Record<string, unknown>>[] {
    return parameters.flatMap((parameter): Arbitrary<Record<string, unknown>>[] => {
      const s = arbitraries.resolve(parameter.schema);
      const values: string[] = [];
      if (s.type === 'integer' || s.type === 'number') values.push('not-a-number', ...(s.maximum !== undefined ? [String(s.maximum + 1)] : []), ...(s.minimum !== undefined ? [String(s.minimum - 1)] : []));
      if (s.type === 'boolean') values.push('maybe');
      if (s.enum) values.push(`not-${String(s.enum[0])}`);
      if (s.type === 'string' && s.maxLength !== undefined) values.push('x'.repeat(s.maxLength + 1));
      if (s.format === 'date-time') values.push('not-a-date');
      if (s.type === 'array' && s.maxItems !== undefined) {
        return [fc.constant({ [parameter.name]: Array.from({ length: s.maxItems + 1 }, (_, i) => `i${i}`) })];
      }
      if (values.length === 0) return [];
      return [fc.constantFrom(...values).map((value) => ({ [parameter.name]: value }))];
    });
  }

  function expectAccepted(response: { status: number; body: unknown }, input: unknown): void {
    const key = (response.body as { key?: unknown } | undefined)?.key;
    const refusedAsMalformed = response.status === 400 && SCHEMA_KEYS.includes(String(key));
    const details = (response.body as { details?: unknown } | undefined)?.details;
    expect({ status: response.status, key, details, refusedAsMalformed, input }).toEqual(
      expect.objectContaining({ refusedAsMalformed: false, status: expect.any(Number) }),
    );
    expect(response.status).toBeLessThan(500);
    // The suite's own credentials go with every call: valid input must get past them, or it tested nothing.
    expect({ passedCredentials: ![401, 403].includes(response.status), status: response.status, key }).toEqual(expect.objectContaining({ passedCredentials: true }));
  }

  function expectRefused(response: { status: number; body: unknown }, input: unknown): void {
    const body = response.body as Record<string, unknown> | undefined;
    expect({ status: response.status, input }).toEqual({ status: expect.any(Number), input });
    expect({ clientError: response.status >= 400 && response.status < 500, input }).toEqual({ clientError: true, input });
    expect(body).toEqual(
      expect.objectContaining({ code: response.status, key: expect.any(String), message: expect.any(String), details: expect.any(String), request_id: expect.any(String) }),
    );
  }

  /**
   * Refused with a 4xx in the error shape; by the reference server with exactly the status its contract
   * documents (another implementation may check the path before the body, say, and answer 404 first).
   */
  function expectStatus(response: { status: number; body: unknown }, status: number, input: unknown): void {
    expectRefused(response, input);
    if (ctx.target.inProcess) expect({ status: response.status, input, body: response.body }).toEqual({ status, input, body: response.body });
  }

  const parameters = { numRuns: RUNS, ...(SEED !== undefined && { seed: SEED }), endOnFailure: true };

  describe.each(operations.filter((operation) => operation.bodySchema))('$operationId ($method $path) body', (operation) => {
    const schema = operation.bodySchema!;
    const pointer = operation.bodyPointer!;

    test('when the body is valid for the contract, then it is not refused as malformed, and never 5xx', async () => {
      const valid = firstAccepted(
        arbitraries.valid(schema).map((value) => encode(operation.media, value)),
        (encoded) => encoded !== undefined && checker.accepts(pointer, encoded.seen),
      );
      await fc.assert(
        fc.asyncProperty(valid, async (body) => {
          fc.pre(body !== undefined);
          expectAccepted(await raw(ctx.target, operation.method, concrete(operation.path), { body: body!.text, contentType: operation.media }), body!.seen);
        }),
        parameters,
      );
    });

    test('when the body breaks the contract in one way, then a 4xx in the error shape', async () => {
      const invalid = firstAccepted(
        arbitraries.invalid(schema).map((value) => encode(operation.media, value)),
        (encoded) => encoded !== undefined && !checker.accepts(pointer, encoded.seen),
      );
      await fc.assert(
        fc.asyncProperty(invalid, async (body) => {
          fc.pre(body !== undefined);
          expectRefused(await raw(ctx.target, operation.method, concrete(operation.path), { body: body!.text, contentType: operation.media }), body!.seen);
        }),
        parameters,
      );
    });
  });

  /** How a valid body is sent badly (or, for `compressed`, well); see `sendBadly`. */
  type Transport =
    | { kind: 'compressed'; coding: 'gzip' | 'deflate' | 'br' }
    | { kind: 'undecodable'; coding: 'gzip' | 'deflate' | 'br' }
    | { kind: 'coding not taken'; coding: string }
    | { kind: 'too deep'; depth: number; objects: boolean }
    | { kind: 'metadata too large'; keys: number; valueLength: number }
    | { kind: 'metadata too deep'; depth: number }
    | { kind: 'metadata too many keys'; keys: number }
    | { kind: 'empty'; chunked: boolean };

  const COMPRESS = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
  /** The figures the contract documents (components/schemas/Metadata.yaml and the Limits in the README). */
  const BODY_DEPTH = 32;
  /** `nesting` counts the metadata object itself: objects and arrays go at most 5 levels inside it. */
  const METADATA = { keys: 100, bytes: 16 * 1024, nesting: 6 };

  function transports(hasMetadata: boolean, json: boolean): Arbitrary<Transport> {
    const coding = fc.constantFrom<'gzip' | 'deflate' | 'br'>('gzip', 'deflate', 'br');
    const kinds: Arbitrary<Transport>[] = [
      coding.map((value) => ({ kind: 'compressed', coding: value }) as const),
      coding.map((value) => ({ kind: 'undecodable', coding: value }) as const),
      fc.constantFrom('compress', 'xyz', 'zstd', 'gzip, br', 'x-gzip').map((value) => ({ kind: 'coding not taken', coding: value }) as const),
      fc.boolean().map((chunked) => ({ kind: 'empty', chunked }) as const),
    ];
    if (json) {
      kinds.push(fc.record({ depth: fc.integer({ min: BODY_DEPTH + 1, max: 5_000 }), objects: fc.boolean() }).map((deep) => ({ kind: 'too deep', ...deep }) as const));
    }
    if (json && hasMetadata) {
      kinds.push(
        // Past the size whichever way: a few long values, or many short ones under the key limit.
        fc.oneof(fc.constant({ keys: 5, valueLength: 4_000 }), fc.constant({ keys: 90, valueLength: 200 }), fc.constant({ keys: 1, valueLength: 900_000 })).map(
          (size) => ({ kind: 'metadata too large', ...size }) as const,
        ),
        fc.integer({ min: METADATA.nesting + 1, max: 30 }).map((depth) => ({ kind: 'metadata too deep', depth }) as const),
        fc.integer({ min: METADATA.keys + 1, max: 300 }).map((keys) => ({ kind: 'metadata too many keys', keys }) as const),
      );
    }
    return fc.oneof(...kinds);
  }

  /** The body's text with one more field in front (one more item, for an array), whose value is given as JSON text. */
  function withField(text: string, name: string, json: string): string {
    if (text.startsWith('[')) return text === '[]' ? `[${json}]` : `[${json},${text.slice(1)}`;
    return text === '{}' ? `{"${name}":${json}}` : `{"${name}":${json},${text.slice(1)}`;
  }

  function metadataText(transport: Transport): string {
    switch (transport.kind) {
      case 'metadata too large':
        return JSON.stringify(Object.fromEntries(Array.from({ length: transport.keys }, (_, i) => [`k${i}`, 'm'.repeat(transport.valueLength)])));
      case 'metadata too deep':
        return nestedObjects(transport.depth);
      case 'metadata too many keys':
        return JSON.stringify(Object.fromEntries(Array.from({ length: transport.keys }, (_, i) => [`k${i}`, i])));
      default:
        return '{}';
    }
  }

  describe.each(operations.filter((operation) => operation.bodySchema))('$operationId ($method $path) body transport', (operation) => {
    const schema = operation.bodySchema!;
    const pointer = operation.bodyPointer!;
    const json = operation.media === JSON_MEDIA;
    const hasMetadata = Boolean(arbitraries.flatten(schema).properties?.metadata);
    const emptyTaken = checker.accepts(pointer, {});

    test('when a valid body is sent badly, then a 4xx in the error shape; compressed in a coding that is taken, it is accepted', async () => {
      const valid = firstAccepted(
        arbitraries.valid(schema).map((value) => encode(operation.media, value)),
        (encoded) => encoded !== undefined && checker.accepts(pointer, encoded.seen),
      );
      await fc.assert(
        fc.asyncProperty(valid, transports(hasMetadata, json), async (body, transport) => {
          fc.pre(body !== undefined);
          const headers: Record<string, string> = { 'Content-Type': operation.media };
          const send = (bytes: string | Uint8Array, chunked = false) => wire(ctx.target, operation.method, concrete(operation.path), { headers, body: bytes, chunked });
          const input = { transport, body: body!.seen };
          switch (transport.kind) {
            case 'compressed':
              headers['Content-Encoding'] = transport.coding;
              return expectAccepted(await send(COMPRESS[transport.coding](body!.text)), input);
            case 'undecodable':
              headers['Content-Encoding'] = transport.coding;
              return expectStatus(await send(body!.text), 400, input);
            case 'coding not taken':
              headers['Content-Encoding'] = transport.coding;
              return expectStatus(await send(body!.text), 415, input);
            case 'too deep': {
              const deep = transport.objects ? nestedObjects(transport.depth) : nestedArrays(transport.depth);
              return expectStatus(await send(withField(body!.text, 'fuzz_deep', deep)), 400, input);
            }
            case 'empty': {
              const response = await send('', transport.chunked);
              return emptyTaken ? expectAccepted(response, input) : expectStatus(response, 400, input);
            }
            default: {
              const { metadata: _metadata, ...rest } = body!.seen as Record<string, unknown>;
              return expectStatus(await send(withField(JSON.stringify(rest), 'metadata', metadataText(transport))), 400, input);
            }
          }
        }),
        parameters,
      );
    });
  });

  describe.each(operations.filter((operation) => operation.query.length > 0))('$operationId ($method $path) query', (operation) => {
    // An operation with a body gets a valid one, so only the query is on trial.
    const validBody = operation.bodySchema
      ? firstAccepted(
          arbitraries.valid(operation.bodySchema).map((value) => encode(operation.media, value)),
          (encoded) => encoded !== undefined && checker.accepts(operation.bodyPointer!, encoded.seen),
        )
      : fc.constant(undefined);
    // An operation that takes a body must get one here: skip the case when no valid one was drawn.
    const hasBody = (body: unknown) => !operation.bodySchema || body !== undefined;

    test('when the query is valid for the contract, then it is not refused as malformed, and never 5xx', async () => {
      await fc.assert(
        fc.asyncProperty(validQuery(operation.query), validBody, async (query, body) => {
          fc.pre(hasBody(body));
          const response = await raw(ctx.target, operation.method, `${concrete(operation.path)}${queryString(query)}`, body === undefined ? {} : { body: body.text, contentType: operation.media });
          expectAccepted(response, query);
        }),
        parameters,
      );
    });

    // An operation whose parameters have no value to break (free strings only) has no such case.
    if (invalidQueryCases(operation.query) === 0) return;
    test('when one query parameter breaks the contract, then a 4xx in the error shape', async () => {
      await fc.assert(
        fc.asyncProperty(invalidQuery(operation.query), validBody, async (query, body) => {
          fc.pre(hasBody(body) && query !== undefined);
          const response = await raw(ctx.target, operation.method, `${concrete(operation.path)}${queryString(query!)}`, body === undefined ? {} : { body: body.text, contentType: operation.media });
          expectRefused(response, query);
        }),
        parameters,
      );
    });
  });
}

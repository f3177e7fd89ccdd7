import { describe, expect, jest, test } from '@jest/globals';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { CONTENT_TYPES_KEPT, leadingSegments, patchValidator, referencesStayInside, routeSchemaAlone, segmentCount } from '../../server/http/validator-patches.js';
import { BUNDLED_CONTRACT, STRICT_CONTRACT } from '../../server/paths.js';

type Compiled = { regexp: RegExp; keys: { name: string }[] };

const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));

type Walked = { modifyRequest(req: unknown): void; parseQueryStringUndecoded(query: unknown): unknown };
const { RequestParameterMutator: Mutator } = fromValidator('./middlewares/parsers/req.parameter.mutator') as { RequestParameterMutator: { prototype: Walked } };
/** The library's own walk over a request's parameters, taken before any test patches it. */
const libraryWalk = Mutator.prototype.modifyRequest;

type Preprocessing = { preProcess(): { apiDoc: unknown; apiDocRes: unknown }; resolveSchema(schema: unknown): unknown };
type PreprocessorClass = new (apiDoc: unknown, ajvOptions: unknown, responses: unknown) => Preprocessing;
const { SchemaPreprocessor } = fromValidator('./middlewares/parsers/schema.preprocessor') as { SchemaPreprocessor: PreprocessorClass & { prototype: Preprocessing } };
type UseAjvCache = (ajv: object, schema: object, key: string) => ((data: unknown) => boolean) & { errors?: unknown };
/** The library's own compiling of a route's schemas, taken before any test patches it. */
const libraryCompile = (fromValidator('./middlewares/util') as { useAjvCache: UseAjvCache }).useAjvCache;
type Framework = { prototype: { loadSpec(spec: unknown, refParser?: { mode?: string }): Promise<unknown> } };
const { OpenAPIFramework } = fromValidator('./framework/index') as { OpenAPIFramework: Framework };
/** The library's own loading of a document, taken before any test patches it. */
const libraryLoad = OpenAPIFramework.prototype.loadSpec;
const newFramework = () => new (OpenAPIFramework.prototype.constructor as new (args: object) => Framework['prototype'])({});
/** The library's own preprocessing of a contract, taken before any test patches it. */
const libraryPreprocessing = { preProcess: SchemaPreprocessor.prototype.preProcess, resolveSchema: SchemaPreprocessor.prototype.resolveSchema };

describe("the validator's route lookup cache", () => {
  test('when the validator compiles a route again, then it gets the same compiled pattern, which still matches', () => {
    patchValidator();
    const { pathToRegexp } = fromValidator('path-to-regexp') as { pathToRegexp: (path: string, options?: object) => Compiled };
    const first = pathToRegexp('/v1/vouchers/:code', { sensitive: false, strict: false });
    expect(pathToRegexp('/v1/vouchers/:code', { sensitive: false, strict: false })).toBe(first);
    expect(first.regexp.exec('/v1/vouchers/SUMMER-1')?.[1]).toBe('SUMMER-1');
    expect(first.regexp.exec('/v1/vouchers/SUMMER-2')?.[1]).toBe('SUMMER-2');
    expect(first.keys.map((key) => key.name)).toEqual(['code']);
    // Other options are another pattern: case-sensitive matching refuses what the insensitive one takes.
    const sensitive = pathToRegexp('/v1/vouchers/:code', { sensitive: true, strict: false });
    expect(sensitive).not.toBe(first);
    expect(first.regexp.test('/V1/vouchers/A')).toBe(true);
    expect(sensitive.regexp.test('/V1/vouchers/A')).toBe(false);
    // Options beyond the two the validator passes are compiled for themselves, and kept too.
    const open = pathToRegexp('/v1/vouchers/:code', { sensitive: false, strict: false, end: false });
    expect(open).not.toBe(first);
    expect(pathToRegexp('/v1/vouchers/:code', { sensitive: false, strict: false, end: false })).toBe(open);
    expect(open.regexp.test('/v1/vouchers/A/redemption')).toBe(true);
    expect(first.regexp.test('/v1/vouchers/A/redemption')).toBe(false);
  });
});

describe("the validator's parsing of JSON query values", () => {
  type Request = Record<string, Record<string, unknown>>;
  const { RequestParameterMutator } = fromValidator('./middlewares/parsers/req.parameter.mutator') as {
    RequestParameterMutator: { prototype: { parseJsonAndMutateRequest(req: Request, where: string, name: string): void } };
  };
  const parse = (value: unknown) => {
    patchValidator();
    const req: Request = { query: { filters: value } };
    RequestParameterMutator.prototype.parseJsonAndMutateRequest.call(undefined, req, 'query', 'filters');
    return req.query!.filters;
  };

  test('when a query value is JSON text, then it is still parsed', () => {
    expect(parse('{"junction":"or"}')).toEqual({ junction: 'or' });
  });

  test('when a query value is already an object, then it is left as it is, without a parse that can only throw', () => {
    const value = { junction: 'and' };
    const jsonParse = jest.spyOn(JSON, 'parse');
    try {
      expect(parse(value)).toBe(value);
      expect(jsonParse).not.toHaveBeenCalled();
    } finally {
      jsonParse.mockRestore();
    }
  });

  test('when a query value is text that is not JSON, or an array, then the library does what it always did', () => {
    expect(parse('not json')).toBe('not json');
    // The library reads an array as its comma-joined text.
    expect(parse(['{"junction":"or"}'])).toEqual({ junction: 'or' });
  });
});

describe('the leading segments a request is narrowed by', () => {
  test('when a path has two segments or more, then its first two are the key, lowercased', () => {
    expect(leadingSegments('/v1/vouchers')).toBe('v1/vouchers');
    expect(leadingSegments('/V1/Vouchers/SUMMER-1/redemption')).toBe('v1/vouchers');
    expect(leadingSegments('/client/v1/events')).toBe('client/v1');
  });

  test('when a path has fewer than two segments, is not absolute or has text beyond ASCII, then there is no key', () => {
    expect(leadingSegments('/v1')).toBeUndefined();
    expect(leadingSegments('v1/vouchers')).toBeUndefined();
    expect(leadingSegments('http://host/v1/vouchers')).toBeUndefined();
    // The Kelvin sign lowercases to an ASCII k, which a case-insensitive pattern does not take for one.
    expect(leadingSegments('/v1/\u212Aeys')).toBeUndefined();
  });
});

describe('the number of segments a request is narrowed by', () => {
  test('each slash begins a segment, and one trailing slash begins none, as a route that is not strict takes it', () => {
    expect(segmentCount('/v1/vouchers')).toBe(2);
    expect(segmentCount('/v1/vouchers/')).toBe(2);
    expect(segmentCount('/v1/vouchers/SUMMER-1/redemption')).toBe(4);
    // Two slashes at the end leave an empty segment, which no route's parameter takes.
    expect(segmentCount('/v1/vouchers//')).toBe(3);
    // An encoded slash is part of a segment.
    expect(segmentCount('/v1/vouchers/A%2FB')).toBe(3);
    expect(segmentCount('/')).toBe(1);
  });
});

describe('the narrowed route walk', () => {
  test('when any operation of the contract is requested, then the validator finds that operation, with and without a trailing slash', async () => {
    patchValidator();
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const app = express();
    app.use(OpenApiValidator.middleware({ apiSpec: structuredClone(contract) as never, validateRequests: false, validateResponses: false, validateSecurity: false }));
    app.use((req, res) => {
      res.json({ found: (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId ?? null });
    });
    app.use(((_error, _req, res, _next) => {
      res.json({ found: null });
    }) as express.ErrorRequestHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    try {
      const missed: string[] = [];
      for (const [template, operations] of Object.entries(contract.paths)) {
        // A value no literal segment of the contract has, so no other route takes the path first.
        const path = template.replace(/\{[^}]+\}/g, 'zq-param-7');
        for (const [method, operation] of Object.entries(operations)) {
          if (!operation?.operationId || !['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
          for (const url of [path, `${path}/`]) {
            const response = await fetch(`http://127.0.0.1:${port}${url}`, { method: method.toUpperCase() });
            const { found } = (await response.json()) as { found: string | null };
            if (found !== operation.operationId) missed.push(`${method.toUpperCase()} ${url}: ${found}`);
          }
        }
      }
      expect(missed).toEqual([]);
    } finally {
      server.close();
    }
  }, 120_000);
});

describe("the validator's parameters, normalised once", () => {
  const util = fromValidator('./middlewares/parsers/util') as {
    dereferenceParameter(apiDocs: object, parameter: object): object;
    normalizeParameter(ajv: object, parameter: object): { name: string; schema: unknown };
  };
  const { RequestParameterMutator } = fromValidator('./middlewares/parsers/req.parameter.mutator') as {
    RequestParameterMutator: { prototype: { isObjectOrXOf(schema: unknown): boolean } };
  };

  test('when a parameter is normalised again, then the first outcome is handed out, for that AJV instance only', () => {
    patchValidator();
    const ajv = { getSchema: jest.fn(() => ({ schema: { type: 'integer' } })) };
    const parameter = { name: 'Limit', in: 'header', schema: { $ref: '#/components/schemas/Limit' } };
    const first = util.normalizeParameter(ajv, parameter);
    expect(first).toEqual({ name: 'limit', schema: { type: 'integer' } });
    expect(util.normalizeParameter(ajv, parameter)).toBe(first);
    expect(ajv.getSchema).toHaveBeenCalledTimes(1);
    const other = { getSchema: jest.fn(() => ({ schema: { type: 'string' } })) };
    expect(util.normalizeParameter(other, parameter).schema).toEqual({ type: 'string' });
    const query = { name: 'page', in: 'query', schema: { type: 'integer' } };
    expect(util.normalizeParameter(ajv, query).schema).toEqual({ type: 'integer' });
    expect(query).toMatchObject({ style: 'form', explode: true });
  });

  test('when a parameter is a reference, then it is looked up once per document; a reference the document lacks is looked up each time', () => {
    patchValidator();
    const apiDoc = { components: { parameters: { limit: { name: 'limit', in: 'query' } } } };
    const reference = { $ref: '#/components/parameters/limit' };
    expect(util.dereferenceParameter(apiDoc, reference)).toBe(apiDoc.components.parameters.limit);
    (apiDoc.components.parameters as Record<string, unknown>).limit = { name: 'changed', in: 'query' };
    expect(util.dereferenceParameter(apiDoc, reference)).toEqual({ name: 'limit', in: 'query' });
    const missing = { $ref: '#/components/parameters/page' };
    expect(util.dereferenceParameter(apiDoc, missing)).toBeUndefined();
    (apiDoc.components.parameters as Record<string, unknown>).page = { name: 'page', in: 'query' };
    expect(util.dereferenceParameter(apiDoc, missing)).toEqual({ name: 'page', in: 'query' });
  });

  test('whether a schema takes an object is answered as the library answers it, and kept per schema', () => {
    patchValidator();
    const isObject = (schema: unknown) => RequestParameterMutator.prototype.isObjectOrXOf.call({}, schema);
    const nested = { anyOf: [{ type: 'string' }, { allOf: [{ type: 'object' }] }] };
    expect(isObject(nested)).toBe(true);
    expect(isObject(nested)).toBe(true);
    expect(isObject({ type: 'string' })).toBe(false);
    expect(isObject({ $ref: '#/components/schemas/Filters' })).toBe(true);
    expect(isObject(undefined)).toBe(false);
  });
});

describe("the validator's steps, settled once the contract has loaded", () => {
  type Step = ((req: unknown, res: unknown, next: (error?: unknown) => void) => unknown) & { name: string };
  const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Record<string, unknown>;

  test('when a request comes after the first, then each step runs in the same turn; errors still reach next, and the steps keep their names', async () => {
    patchValidator();
    const steps = OpenApiValidator.middleware({ apiSpec: structuredClone(contract) as never, validateRequests: { allowUnknownQueryParameters: true }, validateResponses: false, validateSecurity: false, fileUploader: false }) as unknown as Step[];
    expect(steps.map((step) => step.name)).toEqual(['pathParamsMiddleware', 'metadataMiddleware', 'securityMiddleware', 'requestMiddleware']);
    const request = (url: string) => ({ method: 'GET', url, originalUrl: url, path: url.split('?')[0], query: Object.fromEntries(new URL(url, 'http://x').searchParams), headers: {}, app: { param: () => undefined, enabled: () => false }, body: {} });
    // Through every step, each waiting for the one before; what the last passes on (or the first error).
    const through = async (req: ReturnType<typeof request>) => {
      for (const step of steps) {
        const outcome = await new Promise<unknown>((resolve) => void step(req, {}, (error?: unknown) => resolve(error ?? 'passed')));
        if (outcome !== 'passed') return outcome;
      }
      return 'passed';
    };
    // The first request has the library build each step's working middleware.
    expect(await through(request('/v1/vouchers?limit=10'))).toBe('passed');
    // From then on, each step passes on before it returns.
    const req = request('/v1/vouchers?limit=20');
    for (const step of steps) {
      let passed: unknown;
      step(req, {}, (error?: unknown) => (passed = error ?? 'passed'));
      expect([step.name, passed]).toEqual([step.name, 'passed']);
    }
    expect((req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId).toBeDefined();
    // A request the contract refuses gets the library's error, through next.
    const refused = (await through(request('/v1/vouchers?limit=abc'))) as { status?: number };
    expect(refused.status).toBe(400);
    // A path the contract lacks passes with no operation found (the server's routes then answer 404).
    const unknown = request('/v1/no-such-thing');
    expect(await through(unknown)).toBe('passed');
    expect((unknown as { openapi?: unknown }).openapi).toBeUndefined();
  });

  test('when the contract does not load, then every request gets the loading error, as the library gives it', async () => {
    patchValidator();
    const steps = OpenApiValidator.middleware({ apiSpec: { openapi: '3.1.0', info: { title: 'broken', version: '1' }, paths: { '/x': { get: { responses: { 200: { $ref: '#/components/responses/Missing' } } } } } } as never, validateRequests: true, validateResponses: false, validateSecurity: false, fileUploader: false }) as unknown as Step[];
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await new Promise<unknown>((resolve) => void steps[0]!({ method: 'GET', url: '/x', originalUrl: '/x', path: '/x', headers: {}, app: { param: () => undefined } }, {}, resolve));
      expect(String((error as Error).message)).toMatch(/Missing/);
    }
  });
});

describe("the validator's parsed content types", () => {
  type Parsed = { mediaType: string | null; parameters: Record<string, string>; normalize(): string | undefined };
  const parse = (header: string | undefined) => {
    patchValidator();
    const { ContentType } = fromValidator('./middlewares/util') as { ContentType: { from(req: { headers: Record<string, unknown> }): Parsed } };
    return ContentType.from({ headers: header === undefined ? {} : { 'content-type': header } });
  };

  test('when a header text comes again, then its first parse is handed out, frozen, and reads as the library reads it', () => {
    const first = parse('Application/JSON; Charset=UTF-8');
    expect(parse('Application/JSON; Charset=UTF-8')).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.parameters)).toBe(true);
    expect(first.mediaType).toBe('application/json');
    expect(first.parameters).toEqual({ charset: 'utf-8' });
    expect(first.normalize()).toBe('application/json; charset=utf-8');
    // Another text is parsed for itself.
    const other = parse('text/csv');
    expect(other).not.toBe(first);
    expect(other.mediaType).toBe('text/csv');
    // No header is no media type, as before.
    expect(parse(undefined).mediaType).toBeNull();
  });

  test('when more header texts come than are kept, then every one still parses right', () => {
    const texts = Array.from({ length: CONTENT_TYPES_KEPT + 10 }, (_, i) => `application/x-kind-${i}; q=${i}`);
    for (const text of texts) expect(parse(text).parameters).toEqual({ q: text.split('=')[1] });
    for (const text of texts.slice(0, 5)) expect(parse(text).mediaType).toBe(text.split(';')[0]);
  });
});

describe("the validator's parameter walk, skipped when it has nothing to reshape", () => {
  const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };

  /** An app that answers with what the validator left on the request, whether it passed it or refused it. */
  async function validatorApp() {
    patchValidator();
    const app = express();
    app.use(express.json());
    app.use(OpenApiValidator.middleware({ apiSpec: structuredClone(contract) as never, validateRequests: true, validateResponses: false, validateSecurity: false, fileUploader: false }));
    const seen = (req: express.Request, res: express.Response, status: number, message: string | null) =>
      res.status(200).json({ status, message, params: req.params, query: req.query, operation: (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId ?? null });
    app.use((req, res) => seen(req, res, 200, null));
    app.use(((error: { status?: number; message?: string }, req, res, _next) => seen(req, res, error.status ?? 500, error.message ?? null)) as express.ErrorRequestHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const send = async (method: string, url: string, body = '{}') => {
      const response = await fetch(`http://127.0.0.1:${port}${url}`, { method, ...(method !== 'GET' && method !== 'DELETE' && { headers: { 'content-type': 'application/json' }, body }) });
      return (await response.json()) as Record<string, unknown>;
    };
    return { server, send };
  }

  test('when any operation of the contract is requested with no query, then the request is left as the library leaves it', async () => {
    const { server, send } = await validatorApp();
    const undecoded = jest.spyOn(Mutator.prototype, 'parseQueryStringUndecoded');
    const prototype = Mutator.prototype;
    const patchedWalk = prototype.modifyRequest;
    try {
      const differences: string[] = [];
      let skipped = 0;
      for (const [template, operations] of Object.entries(contract.paths)) {
        const path = template.replace(/\{[^}]+\}/g, 'zq-param-7');
        for (const [method, operation] of Object.entries(operations)) {
          if (!operation?.operationId || !['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
          // With no query (a query field always takes the library's walk, which the next test shows).
          for (const url of [path]) {
            undecoded.mockClear();
            const patched = await send(method.toUpperCase(), url);
            if (undecoded.mock.calls.length === 0) skipped++;
            prototype.modifyRequest = libraryWalk;
            try {
              const library = await send(method.toUpperCase(), url);
              if (JSON.stringify(patched) !== JSON.stringify(library)) differences.push(`${method.toUpperCase()} ${url}: ${JSON.stringify(patched)} != ${JSON.stringify(library)}`);
            } finally {
              prototype.modifyRequest = patchedWalk;
            }
          }
        }
      }
      expect(differences).toEqual([]);
      // The skip is taken: most writes of the contract have no query parameters.
      expect(skipped).toBeGreaterThan(50);
    } finally {
      undecoded.mockRestore();
      server.close();
    }
  }, 120_000);

  test('when an operation has only path parameters and the query is empty, then the walk is skipped; a query field or query parameters take it', async () => {
    const { server, send } = await validatorApp();
    const undecoded = jest.spyOn(Mutator.prototype, 'parseQueryStringUndecoded');
    try {
      expect(await send('PUT', '/v1/customers/cust_1', '{"name":"Ann"}')).toMatchObject({ status: 200, query: {}, operation: 'update-customer' });
      expect(undecoded).not.toHaveBeenCalled();
      // A query field the operation does not take: the library's walk runs, and the request is refused as before.
      expect(await send('PUT', '/v1/customers/cust_1?limit=5', '{"name":"Ann"}')).toMatchObject({ status: 400, message: expect.stringMatching(/limit/) });
      expect(undecoded).toHaveBeenCalledTimes(1);
      // An operation with query parameters: the walk runs even with no query.
      expect(await send('GET', '/v1/vouchers')).toMatchObject({ status: 200 });
      expect(undecoded).toHaveBeenCalledTimes(2);
    } finally {
      undecoded.mockRestore();
      server.close();
    }
  });
});

describe("the validator's preprocessing of the contract", () => {
  const { OpenApiValidator: Validator } = fromValidator('./openapi.validator') as { OpenApiValidator: new (options: object) => { ajvOpts: { preprocessor: object } } };
  /** The AJV options the validator gives its preprocessor. */
  const options = () => new Validator({ apiSpec: {}, validateRequests: true, validateResponses: true, validateFormats: true, ajvFormats: { mode: 'full' } }).ajvOpts.preprocessor;
  type Spied = { getSchema(ref: string): unknown; compile(schema: unknown): unknown };

  test('when references are looked up instead of compiled, then the preprocessed contract is the one the library makes', () => {
    patchValidator();
    const text = readFileSync(BUNDLED_CONTRACT, 'utf8');
    // The library's own steps, on a copy of the contract.
    class Library extends SchemaPreprocessor {
      override preProcess() {
        return libraryPreprocessing.preProcess.call(this);
      }
      override resolveSchema(schema: unknown) {
        return libraryPreprocessing.resolveSchema.call(this, schema);
      }
    }
    const libraryPreprocessor = new Library(JSON.parse(text), options(), {});
    const libraryGets = jest.spyOn((libraryPreprocessor as unknown as { ajv: Spied }).ajv, 'getSchema');
    const libraryCompiles = jest.spyOn((libraryPreprocessor as unknown as { ajv: Spied }).ajv, 'compile');
    const library = libraryPreprocessor.preProcess();
    const patchedPreprocessor = new SchemaPreprocessor(JSON.parse(text), options(), {});
    const gets = jest.spyOn((patchedPreprocessor as unknown as { ajv: Spied }).ajv, 'getSchema');
    const compiles = jest.spyOn((patchedPreprocessor as unknown as { ajv: Spied }).ajv, 'compile');
    const patched = patchedPreprocessor.preProcess();
    // The library asked its AJV instance (which compiles) for hundreds of component references; the patch for none.
    const componentGets = (calls: [string][]) => calls.filter(([ref]) => ref.startsWith('#/components/schemas/')).length;
    expect(componentGets(libraryGets.mock.calls)).toBeGreaterThan(300);
    expect(componentGets(gets.mock.calls)).toBe(0);
    // What it compiles to keep (the validators of discriminated unions) it still compiles, once each.
    expect(compiles.mock.calls.length).toBe(libraryCompiles.mock.calls.length);
    expect(patched.apiDoc).toEqual(library.apiDoc);
    expect(patched.apiDocRes).toEqual(library.apiDocRes);
  }, 120_000);

  test('when a reference names no component schema, then the library resolves it as before', () => {
    patchValidator();
    const apiDoc = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas: { Known: { type: 'string' } }, responses: { Gone: { description: 'gone' } } } };
    const preprocessor = new SchemaPreprocessor(apiDoc, options(), false);
    preprocessor.preProcess();
    expect(preprocessor.resolveSchema({ $ref: '#/components/schemas/Known' })).toBe(apiDoc.components.schemas.Known);
    expect(preprocessor.resolveSchema({ $ref: '#/components/responses/Gone' })).toBe(apiDoc.components.responses.Gone);
    expect(preprocessor.resolveSchema({ $ref: '#/components/schemas/Unknown' })).toBeUndefined();
  });
});

describe("the validator's compiling of route schemas", () => {
  type Json = Record<string, unknown>;
  type Operation = { operationId: string; requestBody?: { content: Record<string, { schema: Json; examples?: Record<string, Json> }> }; responses: Record<string, { content?: Record<string, { schema: Json; examples?: Record<string, Json> }> }> };
  const { OpenApiValidator: Validator } = fromValidator('./openapi.validator') as {
    OpenApiValidator: new (options: object) => { ajvOpts: { preprocessor: object; request: object; response: object } };
  };
  const { createRequestAjv, createResponseAjv } = fromValidator('./framework/ajv') as Record<'createRequestAjv' | 'createResponseAjv', (doc: unknown, options: object) => object>;
  // Operations whose schemas reach most of the contract's components (vouchers, campaigns, orders, customers,
  // loyalty, validation and redemption results), through unions, compositions and nullable fields.
  const OPERATIONS = ['create-campaign', 'update-customer', 'create-order', 'redeem-stacked-discounts', 'validate-stacked-discounts', 'list-vouchers', 'create-voucher', 'get-member'];

  /** Each example, and variants of it that a validator must refuse or take: each top-level field left out, given a wrong type, and a field added. */
  function variants(example: unknown): unknown[] {
    if (typeof example !== 'object' || example === null || Array.isArray(example)) return [example];
    const fields = Object.keys(example);
    return [
      example,
      { ...example, zz_undocumented: 1 },
      ...fields.map((field) => Object.fromEntries(Object.entries(example).filter(([name]) => name !== field))),
      ...fields.map((field) => ({ ...example, [field]: typeof (example as Json)[field] === 'string' ? 12345 : 'text' })),
    ];
  }

  /** Compiles the route's schema with the library's way and the patched one, and checks both give the same verdicts, errors and data on every variant. */
  function compare(kind: 'request' | 'response', contractFile: string) {
    patchValidator();
    const patchedCompile = (fromValidator('./middlewares/util') as { useAjvCache: UseAjvCache }).useAjvCache;
    expect(patchedCompile).not.toBe(libraryCompile);
    const options = new Validator({ apiSpec: {}, validateRequests: { allowUnknownQueryParameters: true, coerceTypes: false }, validateResponses: true, validateFormats: true, ajvFormats: { mode: 'full' } }).ajvOpts;
    type Contract = { paths: Record<string, Record<string, Operation>>; components: { examples: Record<string, { value: unknown }> } };
    const text = readFileSync(contractFile, 'utf8');
    const raw = JSON.parse(text) as Contract;
    // The preprocessor takes the examples out of the document it is given: they are read from another copy.
    const pristine = JSON.parse(text) as Contract;
    const examples = pristine.components.examples;
    const { apiDoc, apiDocRes } = new SchemaPreprocessor(raw, options.preprocessor, {}).preProcess() as { apiDoc: typeof raw; apiDocRes: typeof raw };
    const doc = kind === 'request' ? apiDoc : apiDocRes;
    const make = kind === 'request' ? () => createRequestAjv(doc, options.request) : () => createResponseAjv(doc, options.response);
    const [libraryAjv, patchedAjv] = [make(), make()];
    const exampleValue = (named: Json) => (typeof named.$ref === 'string' ? examples[named.$ref.replace('#/components/examples/', '')]?.value : named.value);
    let compared = 0;
    const differences: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!OPERATIONS.includes(operation.operationId)) continue;
        const mediaOf = (of: Operation) => (kind === 'request' ? of.requestBody?.content : Object.entries(of.responses).find(([status]) => status.startsWith('2'))?.[1].content)?.['application/json'];
        const json = mediaOf(operation);
        if (!json) continue;
        const wrapper = (schema: Json) =>
          kind === 'request'
            ? { paths: doc.paths, components: doc.components, properties: { query: {}, headers: {}, params: {}, cookies: {}, body: schema }, required: ['body'] }
            : { type: 'object', properties: { response: schema }, components: doc.components, paths: doc.paths };
        const key = `${method}-${path}`;
        const library = libraryCompile(libraryAjv, wrapper(json.schema), key);
        const patched = patchedCompile(patchedAjv, wrapper(json.schema), key);
        const samples = Object.values(mediaOf(pristine.paths[path]![method]!)?.examples ?? {}).map(exampleValue);
        for (const sample of samples.flatMap(variants)) {
          const data = () => (kind === 'request' ? { query: {}, headers: {}, params: {}, cookies: {}, body: structuredClone(sample) } : { response: structuredClone(sample) });
          const [libraryData, patchedData] = [data(), data()];
          const outcome = (validate: ReturnType<UseAjvCache>, given: unknown) => ({ valid: validate(given), errors: validate.errors, data: given });
          const expected = outcome(library, libraryData);
          const actual = outcome(patched, patchedData);
          compared++;
          if (JSON.stringify(actual) !== JSON.stringify(expected)) differences.push(`${operation.operationId}: ${JSON.stringify(actual).slice(0, 400)} != ${JSON.stringify(expected).slice(0, 400)}`);
        }
      }
    }
    return { compared, differences };
  }

  test('when a response schema is compiled against the registry, then every verdict and error is the one the library gives, on the strict twin', () => {
    const { compared, differences } = compare('response', STRICT_CONTRACT);
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThan(60);
  }, 120_000);

  test('when a request body schema is compiled against the registry, then every verdict, error and reshaped body is the one the library gives', () => {
    const { compared, differences } = compare('request', BUNDLED_CONTRACT);
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThan(40);
  }, 120_000);

  test('when a route schema names a reference the registry cannot answer, or an identifier of its own, then it is compiled the library way', () => {
    const components = { schemas: { Known: { type: 'string' } } };
    expect(routeSchemaAlone({ properties: { a: { $ref: '#/components/schemas/Known' } }, components, paths: {} })).toEqual({ properties: { a: { $ref: '#/components/schemas/Known' } } });
    expect(routeSchemaAlone({ properties: { a: { $ref: '#/components/schemas/Unknown' } }, components })).toBeUndefined();
    expect(routeSchemaAlone({ properties: { a: { $ref: '#/components/schemas/Known/properties/x' } }, components })).toBeUndefined();
    expect(routeSchemaAlone({ properties: { a: { $ref: '#/paths/x' } }, components })).toBeUndefined();
    expect(routeSchemaAlone({ properties: { a: { $id: 'other', type: 'string' } }, components })).toBeUndefined();
    expect(routeSchemaAlone({ properties: { a: { type: 'string' } } })).toBeUndefined();
  });
});

describe("the validator's loading of the contract", () => {
  test('when the contract (published or strict) is loaded, then it is the document the library would bundle it to, handed back at once', async () => {
    patchValidator();
    for (const file of [BUNDLED_CONTRACT, STRICT_CONTRACT]) {
      const text = readFileSync(file, 'utf8');
      const given = JSON.parse(text) as object;
      const bundled = await libraryLoad.call(newFramework(), JSON.parse(text), { mode: 'bundle' });
      const loaded = await OpenAPIFramework.prototype.loadSpec.call(newFramework(), given, { mode: 'bundle' });
      expect(loaded).toBe(given);
      expect(loaded).toEqual(bundled);
    }
  }, 60_000);

  test('when a document refers to another file or to a part it lacks, then the library bundles it as before', async () => {
    expect(referencesStayInside({ components: { schemas: { A: {}, 'a/b': {} } }, x: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/a~1b' }], y: { $ref: '#/x/0' } })).toBe(true);
    expect(referencesStayInside({ components: { schemas: { A: {} } }, x: { $ref: '#/components/schemas/B' } })).toBe(false);
    expect(referencesStayInside({ a: { $ref: 'other.yaml#/components/schemas/A' } })).toBe(false);
    expect(referencesStayInside({ a: [{ b: { $ref: 'https://example.test/schema.json' } }] })).toBe(false);
    patchValidator();
    const framework = newFramework();
    const outside = { openapi: '3.1.0', paths: {}, components: { schemas: { A: { $ref: 'missing-file.yaml' } } } };
    // Bundling follows the reference to the file, which is not there: the library's own failure.
    await expect(framework.loadSpec(outside, { mode: 'bundle' })).rejects.toThrow(/missing-file/);
  });
});

describe('the contract as the validator would check it', () => {
  test('when the published contract and its strict twin are checked against the OpenAPI 3.1 schema, then both are valid (the server no longer checks them at every start)', () => {
    const { OpenAPISchemaValidator } = fromValidator('./framework/openapi.schema.validator') as {
      OpenAPISchemaValidator: new (options: { version: string; validateApiSpec: boolean }) => { validate(doc: unknown): { errors: unknown[] } };
    };
    for (const file of [BUNDLED_CONTRACT, STRICT_CONTRACT]) {
      const contract = JSON.parse(readFileSync(file, 'utf8')) as { openapi: string };
      expect(new OpenAPISchemaValidator({ version: contract.openapi, validateApiSpec: true }).validate(contract).errors).toEqual([]);
    }
  });
});

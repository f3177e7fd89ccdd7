/**
 * Changes to how express-openapi-validator 5.6.2 (pinned; the newest stable release) does its work
 * per request, each found by profiling `make bench` and each leaving every outcome the same. They patch the
 * module instances the validator itself loads, once.
 *
 * 1. Route lookup. The validator finds the operation of each request by walking every route of the contract
 *    and compiling a path-to-regexp pattern for each until one matches (`lookupRoute` in its openapi.metadata
 *    middleware). With the contract's ~170 paths that compiling was most of the time a cheap request took (a
 *    campaign's page of 10 vouchers went from 383 to 935 requests a second with this cache). Patterns and their
 *    options are fixed, so the compiled result is kept; the returned regular expressions carry no state
 *    between matches (no `g` or `y` flag), so sharing them is safe. Only string patterns with scalar options
 *    are kept; anything else is compiled as before.
 *
 * 1b. Routes walked. Even with compiled patterns, the walk visits the routes in the validator's order (sorted
 *    by path, so `/v1/vouchers` comes after nearly all ~170 of them) and was the largest single cost of a
 *    voucher list request. The validator's own metadata middleware is kept, but each request is handed to a
 *    copy of it that sees only the routes that can match the request's first two path segments: those whose
 *    segments are the same text (compared without ASCII case, which the patterns ignore) or parameters. The
 *    routes stay in the validator's order, so the first match is the one the full walk finds; a request whose
 *    first two segments name no known pair of segments gets the full walk, as before. The copies are also
 *    split by number of segments (a route's parameters take no slash), which took the voucher list's walk from
 *    15 routes to 1, and a customer's from 10 to 2.
 *
 * 2. Query values already parsed. For every object-valued query parameter (`filters`, `created_at`…) the
 *    validator's parameter mutator hands the value to `JSON.parse`, in case it was sent as JSON text. When the
 *    value is already an object (bracket form, or the empty default it puts in when the parameter is absent),
 *    `JSON.parse` reads "[object Object]", throws, and the error is dropped: three thrown and discarded errors
 *    on every voucher list request, about a tenth of its time. A plain object can never parse that way, so
 *    it is now left as it is without the attempt, which is exactly what the failed parse left. Strings and
 *    arrays go through the library's parsing as before.
 *
 * 3. Parameters normalised once. For every parameter of the operation, on every request, the parameter
 *    mutator looked the parameter up again (`dereferenceParameter`) and resolved its schema through AJV's
 *    registry (`normalizeParameter`, which asks `ajv.getSchema` for the reference each time). The contract
 *    does not change while the server runs, so each parameter's outcome is kept (per AJV instance, since the
 *    schema comes from it) and handed out again. The library's first call also fills in the parameter's
 *    default `style` and `explode`; later calls find them set, so skipping them changes nothing. Whether a
 *    parameter's schema takes an object (`isObjectOrXOf`, a walk of its `allOf`/`oneOf`/`anyOf`) depends on the
 *    schema alone, and is kept per schema too.
 *
 * 4. Steps settled at start. Each of the validator's steps (find the operation, security, multipart,
 *    validate the request, validate the response) waits on the promise of the loaded contract on every
 *    request, `.then` and `.catch` included, even long after it has loaded: five promise hops and their
 *    closures per request. Each step's working middleware is built once, by the library, on the first request
 *    that reaches it; from then on the step calls it directly. A throw or a rejected promise goes to `next`,
 *    as the library's `.catch(next)` sends it. The steps that only wait for the contract before passing on
 *    (path parameters once installed, security when it is not checked) pass on at once, once the contract is
 *    known to have loaded. Until then, and if it fails to load, every step is the library's own.
 *
 * 5. Content types parsed once. The request step parses the request's `Content-Type` header on every request
 *    (`ContentType.from`: a global regular expression run over it, a split, and a regular expression built
 *    anew), about one percent of a request with a body. Nothing the library does changes a parsed content
 *    type afterwards, so the outcome for each header text is kept, frozen so that nothing can, and handed out
 *    again. Headers are the client's, so at most CONTENT_TYPES_KEPT texts are kept; past that the kept ones
 *    are dropped and parsing starts over.
 *
 * 6. Nothing to reshape. On every request the parameter mutator parses the URL again (`url.parse`), reads its
 *    query undecoded and walks the operation's parameters, reshaping query, array, form and content values.
 *    When the query has no fields and every parameter of the operation is a path or header value that takes
 *    no content, no array and is not of the exploded form style (the parameters of every write of the
 *    contract that has no query), that walk changes nothing, and it is skipped (about 2 µs of a validation or
 *    a customer update in `make bench`'s profiles). Whether an operation's parameters are of that kind is
 *    worked out once per parameter list, with the library's own lookups (see 3).
 *
 * 7. References looked up, not compiled. When the validator loads the contract, its schema preprocessor
 *    resolves every `$ref` it meets (each operation's request and response bodies, and every nested schema it
 *    walks) by asking an AJV instance of its own for the reference (`ajv.getSchema`), which compiles the whole
 *    schema and everything it reaches, only to read back the schema object it was given. What it compiled that
 *    way is dropped with the instance (which keeps only the validators of discriminated unions, compiled on
 *    purpose, as before), so the compiling was wasted: about four fifths of the time `createApp` took (two
 *    validators, each about 3 s of compiling on an idle machine for this contract), paid by every server start
 *    and by every test file that starts an in-process server. A reference of the
 *    form `#/components/schemas/<name>` to a schema that AJV instance was given is now answered with that same
 *    object, found by name in the components as they were when the instance was made (the library registers
 *    each one under exactly that key and hands back the very object it registered). Any other reference goes
 *    through the library's own lookup, as before.
 *
 * 8. Route schemas compiled against the registry. For each route, the request step compiles two schemas (its
 *    parameters, its body) and the response step one per documented status and media type, each the first time
 *    the route is used. The library hands AJV each of them as a new root document that carries the contract's
 *    whole `components` and `paths` beside the route's own schema, so that its `#/components/schemas/…`
 *    references resolve inside that root. AJV then checks the whole root against the JSON Schema meta-schema,
 *    walks all of it for identifiers, and compiles every component the route reaches afresh as a part of that
 *    root, though the same AJV instance already holds each component, registered by the library under exactly
 *    that reference (`#/components/schemas/<name>`), and compiles each of those once. The first request of a
 *    route took 1 to 2 s (about 7 compiled roots for a route with the shared error responses), on every server
 *    start and in every test file. Now the route's schema is added without the document beside it, under a key
 *    that is a fragment (so AJV resolves its references from the registry): each reference reaches the very
 *    schema object it reached before, now compiled once per AJV instance and shared by every route. This is
 *    done only when every reference in the route's schema is of that form and names a registered component,
 *    and the schema declares no identifiers of its own (`$id`, `$anchor`, dynamic references); anything else
 *    is compiled the library's way.
 *
 * 9. A bundled document is not bundled again. When it loads the contract, the validator hands it to
 *    json-schema-ref-parser's `bundle`, which gathers references to other files into the one document. The
 *    contract given is already one document (`make generate` bundles it), and on a document whose references
 *    all point inside it, `bundle` hands back the very object it was given, unchanged; but it first follows
 *    every reference and walks what each reaches, about 0.9 s for this contract on an idle machine, twice per
 *    server (a validator for requests, another for responses) and three times that inside Jest. A document
 *    given as an object whose every `$ref` points inside it, at a part that is there, is now handed back at
 *    once; a file name, or a document with a reference elsewhere or to a missing part (which the library's
 *    bundling refuses, so that a broken contract stops the server at its start), is bundled as before.
 */
import { createRequire } from 'node:module';

type Compile = (path: unknown, options?: Record<string, unknown>) => unknown;

/** Loads a module the way the validator's own code does, so the patch reaches the instance it uses. */
const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));

let installed = false;

export function patchValidator(): void {
  if (installed) return;
  installed = true;
  cacheRouteLookup();
  narrowRouteWalk();
  skipParsingParsedQueryValues();
  normalizeParametersOnce();
  runSettledSteps();
  parseContentTypesOnce();
  skipReshapingNothing();
  resolveReferencesWithoutCompiling();
  compileRouteSchemasAgainstRegistry();
  skipBundlingBundledDocuments();
}

function cacheRouteLookup(): void {
  const pathToRegexp = fromValidator('path-to-regexp') as { pathToRegexp: Compile };
  const compile = pathToRegexp.pathToRegexp;
  // The validator always passes `sensitive` and `strict`; those four combinations get a slot per path, found
  // without building a key (this runs for every route on every request). Other options are keyed by text.
  const byPath = new Map<string, unknown[]>();
  const other = new Map<string, unknown>();
  pathToRegexp.pathToRegexp = (path, options) => {
    if (typeof path !== 'string') return compile(path, options);
    let plain = true;
    for (const name in options) {
      const value = options[name];
      if (value !== undefined && typeof value === 'object') return compile(path, options);
      if ((name !== 'sensitive' && name !== 'strict') || (value !== undefined && typeof value !== 'boolean')) plain = false;
    }
    if (plain) {
      const slot = (options?.sensitive ? 2 : 0) + (options?.strict ? 1 : 0);
      let slots = byPath.get(path);
      if (slots === undefined) byPath.set(path, (slots = []));
      return (slots[slot] ??= compile(path, options));
    }
    let key = path;
    for (const name in options) key += `\u0000${name}=${String(options[name])}`;
    let result = other.get(key);
    if (result === undefined) other.set(key, (result = compile(path, options)));
    return result;
  };
}

interface ParameterMutator {
  parseJsonAndMutateRequest(req: Record<string, Record<string, unknown> | undefined>, where: string, name: string): void;
}

function skipParsingParsedQueryValues(): void {
  const { RequestParameterMutator } = fromValidator('./middlewares/parsers/req.parameter.mutator') as {
    RequestParameterMutator: { prototype: ParameterMutator };
  };
  const prototype = RequestParameterMutator.prototype;
  const parse = prototype.parseJsonAndMutateRequest;
  // Which request field each parameter location reads; the library keeps the same table.
  const fields: Record<string, string> = { query: 'query', path: 'params', header: 'headers', cookie: 'cookies' };
  prototype.parseJsonAndMutateRequest = function (this: ParameterMutator, req, where, name) {
    const value = req[fields[where] ?? where]?.[name];
    // A plain object reads as "[object Object]", which never parses: the library's own outcome is no change.
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return;
    parse.call(this, req, where, name);
  };
}

type Middleware = (req: { originalUrl: string; url: string }, res: unknown, next: unknown) => unknown;

interface RouteContext {
  expressRouteMap: Record<string, unknown>;
  useRequestUrl?: boolean;
}

/**
 * How many segments a path has, one trailing slash aside (a route takes one, as Express's routing is not
 * strict): `/v1/vouchers` and `/v1/vouchers/` have two.
 */
export function segmentCount(path: string): number {
  let count = 0;
  const end = path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 47) count++;
  return count;
}

/** The first two segments of a path, lowercased (ASCII only), or undefined when there are not two. */
export function leadingSegments(path: string): string | undefined {
  if (path.charCodeAt(0) !== 47) return undefined;
  const second = path.indexOf('/', 1);
  if (second < 0) return undefined;
  const third = path.indexOf('/', second + 1);
  const key = third < 0 ? path.slice(1) : path.slice(1, third);
  // Text beyond ASCII is left to the full walk: only ASCII letters are compared without case here.
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) > 127) return undefined;
  return key.toLowerCase();
}

function narrowRouteWalk(): void {
  const { OpenApiValidator } = fromValidator('./openapi.validator') as {
    OpenApiValidator: { prototype: { metadataMiddleware(context: RouteContext, responseApiDoc: unknown): Middleware } };
  };
  const prototype = OpenApiValidator.prototype;
  const original = prototype.metadataMiddleware;
  prototype.metadataMiddleware = function (this: unknown, context, responseApiDoc) {
    const full = original.call(this, context, responseApiDoc);
    // Each route's first two segments, lowercased; undefined stands for a parameter (or a missing segment),
    // which any request segment may meet.
    const literal = (segment: string | undefined) => (segment === undefined || /[:*(){}]/.test(segment) ? undefined : segment.toLowerCase());
    // A route's parameters never take a slash, so it matches paths of its own number of segments only; a route
    // with a wildcard or an optional part (none in this contract) may match any number.
    const routes = Object.keys(context.expressRouteMap).map((route) => {
      const [first, second] = route.split('/').slice(1);
      return { route, segments: [literal(first), literal(second)], count: /[*?()]/.test(route) ? undefined : segmentCount(route) };
    });
    // Every pair of literal leading segments a route has, with each number of segments a route has; a request
    // naming one walks a shorter list.
    const pairs = new Set<string>();
    for (const { segments } of routes) if (segments[0] !== undefined && segments[1] !== undefined) pairs.add(segments.join('/'));
    const counts = new Set(routes.map(({ count }) => count).filter((count) => count !== undefined));
    const narrowed = new Map<string, Middleware>();
    for (const pair of pairs) {
      const wanted = pair.split('/');
      for (const count of counts) {
        const subset: Record<string, unknown> = {};
        for (const { route, segments, count: own } of routes) {
          if ((own === undefined || own === count) && segments.every((segment, i) => segment === undefined || segment === wanted[i])) subset[route] = context.expressRouteMap[route];
        }
        if (Object.keys(subset).length === 0) continue;
        const view = Object.create(context as object, { expressRouteMap: { value: subset } }) as RouteContext;
        narrowed.set(`${pair}#${count}`, original.call(this, view, responseApiDoc));
      }
    }
    return (req, res, next) => {
      const url = context.useRequestUrl ? req.url : req.originalUrl;
      const query = url.indexOf('?');
      const path = query < 0 ? url : url.slice(0, query);
      const pair = leadingSegments(path);
      const middleware = (pair !== undefined && narrowed.get(`${pair}#${segmentCount(path)}`)) || full;
      return middleware(req, res, next);
    };
  };
}

type Normalized = { name: string; schema: unknown };
interface ParameterUtil {
  dereferenceParameter(apiDocs: unknown, parameter: object): object;
  normalizeParameter(ajv: object, parameter: object): Normalized;
}

/**
 * `compute` kept per pair of objects (a document or AJV instance, and a parameter); anything else, and an
 * undefined outcome, is computed each time. A third argument is handed to `compute` and is not part of the key:
 * it must be fixed for the pair. (A fixed third parameter, not a rest one: the wrapped library lookups run for
 * every parameter of every request, and a rest parameter would make an array on each call.)
 */
function keptPerPair<A, B, R, C = undefined>(compute: (first: A, second: B, context: C) => R): (first: A, second: B, context?: C) => R {
  const byFirst = new WeakMap<object, WeakMap<object, R>>();
  return (first, second, context) => {
    if (typeof first !== 'object' || first === null || typeof second !== 'object' || second === null) return compute(first, second, context as C);
    let known = byFirst.get(first);
    if (known === undefined) byFirst.set(first, (known = new WeakMap()));
    let found = known.get(second);
    if (found === undefined) {
      found = compute(first, second, context as C);
      if (found !== undefined) known.set(second, found);
    }
    return found;
  };
}

function normalizeParametersOnce(): void {
  const util = fromValidator('./middlewares/parsers/util') as ParameterUtil;
  // A reference to a parameter the document lacks is looked up again each time (the library then fails).
  util.dereferenceParameter = keptPerPair(util.dereferenceParameter);
  util.normalizeParameter = keptPerPair(util.normalizeParameter);
  const { RequestParameterMutator } = fromValidator('./middlewares/parsers/req.parameter.mutator') as {
    RequestParameterMutator: { prototype: { isObjectOrXOf(schema: unknown): boolean } };
  };
  const takesObject = RequestParameterMutator.prototype.isObjectOrXOf;
  const objectTaking = new WeakMap<object, boolean>();
  RequestParameterMutator.prototype.isObjectOrXOf = function (this: unknown, schema) {
    if (typeof schema !== 'object' || schema === null) return takesObject.call(this, schema);
    let found = objectTaking.get(schema);
    if (found === undefined) objectTaking.set(schema, (found = takesObject.call(this, schema)));
    return found;
  };
}

type Step = ((req: unknown, res: unknown, next: (error?: unknown) => void) => unknown) & { name: string };

/** The library's steps by name, and the method of the validator that builds each one's working middleware. */
const STEP_BUILDERS: Readonly<Record<string, string>> = {
  metadataMiddleware: 'metadataMiddleware',
  securityMiddleware: 'securityMiddleware',
  multipartMiddleware: 'multipartMiddleware',
  requestMiddleware: 'requestValidationMiddleware',
  responseMiddleware: 'responseValidationMiddleware',
};

function runSettledSteps(): void {
  const { OpenApiValidator } = fromValidator('./openapi.validator') as {
    OpenApiValidator: { prototype: Record<string, unknown> & { installMiddleware(spec: unknown): Step[] } };
  };
  const prototype = OpenApiValidator.prototype;
  const install = prototype.installMiddleware;
  prototype.installMiddleware = function (this: Record<string, unknown> & { options: { validateSecurity?: unknown } }, spec) {
    // What each builder made, for this validator only: its instance's methods wrap the prototype's.
    const built = new Map<string, Step>();
    for (const builder of Object.values(STEP_BUILDERS)) {
      const build = this[builder] as (...args: unknown[]) => Step;
      this[builder] = function (this: unknown, ...args: unknown[]) {
        const made = build.apply(this, args);
        built.set(builder, made);
        return made;
      };
    }
    // The contract has loaded once the operation finder was built: it is built from the loaded contract.
    const loaded = () => built.has('metadataMiddleware');
    const checksSecurity = Boolean(this.options.validateSecurity);
    return install.call(this, spec).map((step) => {
      const builder = STEP_BUILDERS[step.name];
      const passes = step.name === 'pathParamsMiddleware' || (step.name === 'securityMiddleware' && !checksSecurity);
      if (builder === undefined && !passes) return step;
      const settled = function (req: unknown, res: unknown, next: (error?: unknown) => void): unknown {
        if (passes) return loaded() ? next() : step(req, res, next);
        const middleware = built.get(builder!);
        if (middleware === undefined) return step(req, res, next);
        try {
          const returned = middleware(req, res, next);
          if (returned instanceof Promise) returned.catch(next);
          return undefined;
        } catch (error) {
          return next(error);
        }
      };
      // Others find the steps by name (http/body.ts reads the body before `requestMiddleware`).
      Object.defineProperty(settled, 'name', { value: step.name });
      return settled as Step;
    });
  };
}

/** How many distinct `Content-Type` header texts keep their parsed outcome (see 5). */
export const CONTENT_TYPES_KEPT = 256;

function parseContentTypesOnce(): void {
  type Parsed = { parameters: Record<string, string> };
  const { ContentType } = fromValidator('./middlewares/util') as {
    ContentType: { from(req: { headers: Record<string, unknown> }): Parsed; fromString(text: string): Parsed };
  };
  const kept = new Map<string, Parsed>();
  const from = ContentType.from.bind(ContentType);
  ContentType.from = (req) => {
    const header = req.headers['content-type'];
    if (typeof header !== 'string') return from(req);
    let parsed = kept.get(header);
    if (parsed === undefined) {
      if (kept.size >= CONTENT_TYPES_KEPT) kept.clear();
      parsed = from(req);
      Object.freeze(parsed.parameters);
      kept.set(header, Object.freeze(parsed));
    }
    return parsed;
  };
}

interface Reshaping {
  _apiDocs: unknown;
  ajv: object;
  modifyRequest(req: { openapi?: { schema?: { parameters?: object[] } }; query?: unknown }): void;
}

interface Parameter {
  in?: string;
  content?: unknown;
  style?: string;
  explode?: boolean;
}

/** Whether the query has no fields of its own: the only case in which the library's bracket handling changes nothing. */
function noFields(query: unknown): boolean {
  if (typeof query !== 'object' || query === null) return false;
  for (const name in query) if (Object.hasOwn(query, name)) return false;
  return true;
}

function skipReshapingNothing(): void {
  const util = fromValidator('./middlewares/parsers/util') as ParameterUtil;
  const { RequestParameterMutator } = fromValidator('./middlewares/parsers/req.parameter.mutator') as {
    RequestParameterMutator: { prototype: Reshaping };
  };
  const prototype = RequestParameterMutator.prototype;
  const modify = prototype.modifyRequest;
  // The library's own tests, for each branch of its walk that could change the request, run on the same values.
  // Kept per AJV instance (one per validator, which has one document) and parameter list.
  const reshapesNothing = keptPerPair((ajv: object, parameters: object[], apiDocs: unknown) =>
    parameters.every((given) => {
      const parameter = util.dereferenceParameter(apiDocs, given) as Parameter;
      const { schema } = util.normalizeParameter(ajv, parameter) as { schema: { type?: unknown } };
      return (parameter.in === 'path' || parameter.in === 'header') && !parameter.content && schema.type !== 'array' && !(parameter.style === 'form' && parameter.explode);
    }),
  );
  const NONE: object[] = [];
  prototype.modifyRequest = function (this: Reshaping, req) {
    const parameters = req.openapi?.schema?.parameters ?? NONE;
    if (Array.isArray(parameters) && noFields(req.query) && reshapesNothing(this.ajv, parameters, this._apiDocs)) return;
    modify.call(this, req);
  };
}

interface Preprocessor {
  apiDoc: { components?: { schemas?: Record<string, unknown> } };
  preProcess(): unknown;
  resolveSchema(schema: unknown): unknown;
}

const COMPONENT_SCHEMA = '#/components/schemas/';

function resolveReferencesWithoutCompiling(): void {
  const { SchemaPreprocessor } = fromValidator('./middlewares/parsers/schema.preprocessor') as {
    SchemaPreprocessor: { prototype: Preprocessor };
  };
  const prototype = SchemaPreprocessor.prototype;
  const preProcess = prototype.preProcess;
  const resolve = prototype.resolveSchema;
  // The component schemas each preprocessor's AJV instance was given, taken before its walk replaces any of them.
  const registered = new WeakMap<Preprocessor, Readonly<Record<string, unknown>>>();
  prototype.preProcess = function (this: Preprocessor) {
    registered.set(this, Object.assign(Object.create(null) as Record<string, unknown>, this.apiDoc.components?.schemas));
    return preProcess.call(this);
  };
  prototype.resolveSchema = function (this: Preprocessor, schema) {
    const ref = (schema as { $ref?: unknown } | null | undefined)?.$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENT_SCHEMA)) {
      const found = registered.get(this)?.[ref.slice(COMPONENT_SCHEMA.length)];
      if (found !== undefined) return found;
    }
    return resolve.call(this, schema);
  };
}

interface RegistryAjv {
  addSchema(schema: object, key: string): unknown;
  getSchema(key: string): unknown;
}

type RouteSchema = Record<string, unknown> & { components?: { schemas?: Record<string, unknown> } };

/** Keywords by which a schema names a base or an anchor of its own, which the registry's resolution would not see. */
const OWN_IDENTIFIERS = new Set(['$id', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveRef', '$recursiveAnchor']);

/**
 * The route's schema without the document the library puts beside it, when every reference in it is one the
 * AJV instance's registry answers with the same schema (see 8); undefined when the library's way is needed.
 */
export function routeSchemaAlone(schema: RouteSchema): Record<string, unknown> | undefined {
  const registered = schema.components?.schemas;
  if (typeof registered !== 'object' || registered === null) return undefined;
  const { components: _components, paths: _paths, ...alone } = schema;
  const seen = new Set<object>();
  const pending: unknown[] = [alone];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    for (const [key, inner] of Object.entries(value)) {
      if (OWN_IDENTIFIERS.has(key)) return undefined;
      if (key === '$ref' && typeof inner === 'string') {
        if (!inner.startsWith(COMPONENT_SCHEMA)) return undefined;
        const name = inner.slice(COMPONENT_SCHEMA.length);
        if (name.includes('/') || name.includes('~') || !Object.hasOwn(registered, name)) return undefined;
      }
      pending.push(inner);
    }
  }
  return alone;
}

function compileRouteSchemasAgainstRegistry(): void {
  const util = fromValidator('./middlewares/util') as { useAjvCache(ajv: RegistryAjv, schema: RouteSchema, key: string): unknown };
  const useAjvCache = util.useAjvCache;
  const compiled = new WeakMap<RegistryAjv, Map<string, unknown>>();
  util.useAjvCache = (ajv, schema, key) => {
    let kept = compiled.get(ajv);
    if (kept === undefined) compiled.set(ajv, (kept = new Map()));
    let validator = kept.get(key);
    if (validator !== undefined) return validator;
    const alone = routeSchemaAlone(schema);
    if (alone === undefined) {
      validator = useAjvCache(ajv, schema, key);
    } else {
      // A fragment as the key: AJV registers it by that key only, and resolves `#/components/schemas/…` from its
      // registry rather than inside this schema.
      const fragmentKey = `#route:${key}`;
      ajv.addSchema(alone, fragmentKey);
      validator = ajv.getSchema(fragmentKey);
    }
    kept.set(key, validator);
    return validator;
  };
}

/**
 * Whether every `$ref` in the document points inside it (starts with `#`) at something that is there. A reference
 * to a part that is missing makes the library's bundling fail, which stops a server with a broken contract at
 * its start: such a document goes to the library.
 */
export function referencesStayInside(document: unknown): boolean {
  const references = new Set<string>();
  const pending: unknown[] = [document];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') references.add(inner);
      else pending.push(inner);
    }
  }
  for (const reference of references) {
    if (reference !== '#' && !reference.startsWith('#/')) return false;
    let target: unknown = document;
    for (const part of reference.split('/').slice(1)) {
      const name = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      if (typeof target !== 'object' || target === null || !Object.hasOwn(target, name)) return false;
      target = (target as Record<string, unknown>)[name];
    }
  }
  return true;
}

function skipBundlingBundledDocuments(): void {
  const { OpenAPIFramework } = fromValidator('./framework/index') as {
    OpenAPIFramework: { prototype: { loadSpec(spec: unknown, refParser?: { mode?: string }): unknown } };
  };
  const prototype = OpenAPIFramework.prototype;
  const loadSpec = prototype.loadSpec;
  prototype.loadSpec = function (this: unknown, spec, refParser) {
    if (typeof spec === 'object' && spec !== null && (refParser?.mode ?? 'bundle') === 'bundle' && referencesStayInside(spec)) return Promise.resolve(spec);
    return loadSpec.call(this, spec, refParser);
  };
}

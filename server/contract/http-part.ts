/**
 * The part of the contract that HTTP requests and responses are checked against: the document without its
 * `webhooks`, without the component schemas that no path reaches (the webhook payloads and their union), and
 * without the named examples of requests, responses and parameters (`components.examples` and the `examples`
 * and `example` of media types and parameters). The request and response validators walk the whole document
 * they are given several times when they load (six AJV instances each walk it) and prepare every component
 * schema; the webhook payloads are for receivers to generate types from, the examples for readers, and no
 * request or response is checked against either, so walking them was work for nothing at every start (the
 * payloads' discriminated union alone cost about a second of compiling a variant per kind, and the examples
 * are a fifth of the document). Examples inside schemas stay: they are schema keywords, and a schema's
 * `properties` may name a field `examples`.
 */

type Json = Record<string, unknown>;

const COMPONENT_SCHEMA = '#/components/schemas/';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Every `$ref` text found in the value, without following any. */
function referencesIn(value: unknown, found: (ref: string) => void): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (!isObject(next)) continue;
    if (Array.isArray(next)) {
      pending.push(...next);
      continue;
    }
    for (const [key, inner] of Object.entries(next)) {
      if (key === '$ref' && typeof inner === 'string') found(inner);
      else pending.push(inner);
    }
  }
}

/** A JSON pointer's segments, unescaped. */
const segments = (pointer: string) => pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));

/** Drops the named examples of a media type map (`content`), in place. */
function dropMediaExamples(content: unknown): void {
  if (!isObject(content)) return;
  for (const media of Object.values(content)) {
    if (!isObject(media)) continue;
    delete media.examples;
    delete media.example;
  }
}

/** Drops the examples of a parameter, a request body or a response object (`$ref`s are left alone), in place. */
function dropExamples(part: unknown): void {
  if (!isObject(part) || typeof part.$ref === 'string') return;
  delete part.examples;
  delete part.example;
  dropMediaExamples(part.content);
}

/** Drops the examples of every operation of a path item, in place. */
function dropOperationExamples(item: unknown): void {
  if (!isObject(item)) return;
  for (const parameter of Array.isArray(item.parameters) ? item.parameters : []) dropExamples(parameter);
  for (const operation of Object.values(item)) {
    if (!isObject(operation) || Array.isArray(operation)) continue;
    for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) dropExamples(parameter);
    dropExamples(operation.requestBody);
    if (isObject(operation.responses)) for (const response of Object.values(operation.responses)) dropExamples(response);
  }
}

/**
 * The contract as the HTTP validators need it. Everything reachable from `paths` stays, through any kind of
 * component (parameters, responses, schemas…); of the component schemas, only those; named examples go. The
 * result is a copy: the document given is not changed, and the validators may change theirs.
 */
export function httpPart(given: Json): Json {
  const contract = structuredClone(given);
  delete contract.webhooks;
  const components = isObject(contract.components) ? contract.components : {};
  delete components.examples;
  for (const item of Object.values(isObject(contract.paths) ? contract.paths : {})) dropOperationExamples(item);
  for (const kind of ['parameters', 'requestBodies', 'responses'] as const) {
    for (const part of Object.values(isObject(components[kind]) ? components[kind] : {})) dropExamples(part);
  }
  const schemas = isObject(components.schemas) ? (components.schemas as Json) : undefined;
  if (!schemas) return contract;
  const reached = new Set<string>();
  const pending: unknown[] = [contract.paths];
  const seenRefs = new Set<string>();
  while (pending.length > 0) {
    referencesIn(pending.pop(), (ref) => {
      if (seenRefs.has(ref) || !ref.startsWith('#/')) return;
      seenRefs.add(ref);
      if (ref.startsWith(COMPONENT_SCHEMA)) reached.add(segments(ref.slice(1))[2]!);
      let target: unknown = contract;
      for (const part of segments(ref.slice(1))) target = isObject(target) ? target[part] : undefined;
      pending.push(target);
    });
  }
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
  return contract;
}

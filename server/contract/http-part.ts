/**
 * The part of the contract that HTTP requests and responses are checked against: the document without its
 * `webhooks`, and without the component schemas that no path reaches (the webhook payloads and their union).
 * The request and response validators walk and prepare every component schema they are given when they load;
 * the webhook payloads are for receivers to generate types from, and no request or response of this server
 * carries one, so preparing them was work for nothing at every start (their discriminated union alone cost the
 * validator about a second of compiling a variant per kind, twice).
 */

import { FRESH } from '../store/fresh.js';

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

/**
 * The contract as the HTTP validators need it. Everything reachable from `paths` stays, through any kind of
 * component (parameters, responses, schemas…); of the component schemas, only those. The document given is
 * not changed; the result shares its parts.
 */
export function httpPart(contract: Json): Json {
  const { webhooks: _webhooks, ...rest } = contract;
  const components = isObject(contract.components) ? contract.components : {};
  const schemas = isObject(components.schemas) ? (components.schemas as Json) : undefined;
  if (!schemas) return rest;
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
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)));
  return { ...FRESH, ...rest, components: { ...FRESH, ...components, schemas: kept } };
}

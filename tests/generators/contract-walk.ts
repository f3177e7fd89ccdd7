/** Reading the bundled contract the way the generator checks need: its list operations and sample values. */
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';

type Json = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

export interface ListOperation {
  operationId: string;
  path: string;
  parameters: Parameter[];
  /** Header names of the first security requirement that takes only API-key headers or a bearer token. */
  credentials: Record<string, string>;
}

export const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Json;

function resolve<T = Json>(node: unknown): T {
  let current = node as Json | undefined;
  for (let hops = 0; current && typeof current.$ref === 'string'; hops += 1) {
    if (hops > 20) throw new Error(`$ref loop at ${String(current.$ref)}`);
    current = (current.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Json | undefined>((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json | undefined, contract);
  }
  return current as T;
}

/** A property of a schema, looked up through `allOf`, as list envelopes are built from `ListEnvelope`. */
function property(schema: Json | undefined, name: string): Json | undefined {
  if (!schema) return undefined;
  const own = (schema.properties as Json | undefined)?.[name];
  if (own) return resolve(own);
  for (const part of (schema.allOf as unknown[] | undefined) ?? []) {
    const found = property(resolve(part), name);
    if (found) return found;
  }
  return undefined;
}

/** A list is a 200 JSON answer in the list envelope: `object: list`, with `data_ref` naming the array. */
function isList(schema: Json | undefined): boolean {
  return property(schema, 'data_ref') !== undefined;
}

export function sampleValue(parameter: Parameter): string {
  const example =
    parameter.example ??
    Object.values(parameter.examples ?? {})[0]?.value ??
    (resolve(parameter.schema).examples as unknown[] | undefined)?.[0] ??
    resolve(parameter.schema).default ??
    (resolve(parameter.schema).enum as unknown[] | undefined)?.[0];
  return example === undefined ? 'sample' : String(example);
}

function credentialsFor(security: Record<string, unknown>[]): Record<string, string> {
  const schemes = (contract.components as Json).securitySchemes as Json;
  for (const requirement of security) {
    const headers: Record<string, string> = {};
    let usable = true;
    for (const name of Object.keys(requirement)) {
      const scheme = resolve(schemes[name]);
      if (scheme.type === 'apiKey' && scheme.in === 'header') headers[scheme.name as string] = `sample-${name}`;
      else if (scheme.type === 'http' && scheme.scheme === 'bearer') headers.Authorization = 'Bearer sample';
      else usable = false;
    }
    if (usable) return headers;
  }
  return {};
}

export function listOperations(): ListOperation[] {
  const found: ListOperation[] = [];
  const globalSecurity = (contract.security as Record<string, unknown>[] | undefined) ?? [];
  for (const [path, item] of Object.entries(contract.paths as Record<string, Json>)) {
    const operation = item.get as Json | undefined;
    if (!operation) continue;
    const answer = resolve((operation.responses as Json)['200']);
    const schema = resolve((answer?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema;
    if (!isList(resolve(schema))) continue;
    const parameters = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])].map((p) => resolve<Parameter>(p));
    found.push({
      operationId: operation.operationId as string,
      path,
      parameters,
      credentials: credentialsFor((operation.security as Record<string, unknown>[] | undefined) ?? globalSecurity),
    });
  }
  return found;
}

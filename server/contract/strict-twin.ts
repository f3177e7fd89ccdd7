/**
 * The strict twin of the bundled contract: the same document with every object closed, so that a response
 * carrying a field the contract does not name fails validation. The published contract leaves objects open
 * (a server may send more than it documents, as the public API does); the reference server's own tests,
 * and the contract kit's `--strict` mode, hold responses to this twin instead.
 *
 * Rules:
 * - An object schema that declares `properties` and says nothing of `additionalProperties` is closed with
 *   `unevaluatedProperties: false`. Maps (`additionalProperties: true` or a schema) stay open: they are
 *   open on purpose.
 * - A schema built with `allOf` (or with its own `properties` beside a union) is closed once, at the top,
 *   and the component schemas it is built from are referenced through open copies (`<Name>__Open`), since
 *   a closed member would refuse its siblings' properties.
 * - Union members (`oneOf`/`anyOf` without own properties) are closed each on its own.
 */

import { FRESH } from '../store/fresh.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const COMPONENT_SCHEMA = '#/components/schemas/';
export const OPEN_SUFFIX = '__Open';

/** Keywords whose value is one subschema. */
const ONE_SCHEMA = ['items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems'] as const;
/** Keywords whose value is a map of subschemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'] as const;
const COMPOSITIONS = ['allOf', 'oneOf', 'anyOf'] as const;

function declaresObject(schema: Json): boolean {
  return isObject(schema.properties) || schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'));
}

/** Whether the schema sets its own openness (a map, or closed already). */
function decidesOpenness(schema: Json): boolean {
  return schema.additionalProperties !== undefined || schema.unevaluatedProperties !== undefined;
}

class Closer {
  /** Component schemas that need an open copy, because a composition references them as a part. */
  readonly openCopies = new Set<string>();

  constructor(private readonly schemas: Record<string, Json>) {}

  /**
   * Returns the closed form of a schema. `asPart` is true for a schema that is one part of a composition
   * closed above it: it stays open at its own top level.
   */
  close(schema: unknown, asPart = false): unknown {
    if (!isObject(schema)) return schema;
    const out: Json = { ...schema };
    const ownProperties = isObject(schema.properties);
    const composedWith = COMPOSITIONS.filter((key) => Array.isArray(schema[key]));
    // Parts of a composition are closed at the composition: allOf always; a union when the schema has its
    // own properties beside it (otherwise each union member is a whole object and closes itself).
    const closesAtTop = composedWith.includes('allOf') || (ownProperties && composedWith.length > 0);
    for (const key of composedWith) {
      const partsAreOpen = key === 'allOf' || ownProperties;
      out[key] = (schema[key] as unknown[]).map((member) => (partsAreOpen ? this.part(member) : this.close(member)));
    }
    for (const key of ONE_SCHEMA) if (schema[key] !== undefined) out[key] = this.close(schema[key]);
    if (Array.isArray(schema.prefixItems)) out.prefixItems = schema.prefixItems.map((member) => this.close(member));
    for (const key of SCHEMA_MAPS) {
      if (isObject(schema[key])) {
        out[key] = Object.fromEntries(Object.entries(schema[key] as Json).map(([name, member]) => [name, this.close(member)]));
      }
    }
    if (isObject(schema.additionalProperties)) out.additionalProperties = this.close(schema.additionalProperties);
    if (typeof schema.$ref === 'string' && asPart && schema.$ref.startsWith(COMPONENT_SCHEMA)) {
      const name = schema.$ref.slice(COMPONENT_SCHEMA.length);
      if (this.closable(name)) {
        this.openCopies.add(name);
        out.$ref = `${COMPONENT_SCHEMA}${name}${OPEN_SUFFIX}`;
      }
    }
    const closable = declaresObject(schema) || closesAtTop;
    if (!asPart && closable && !decidesOpenness(schema) && (ownProperties || closesAtTop)) out.unevaluatedProperties = false;
    return out;
  }

  private part(member: unknown): unknown {
    return this.close(member, true);
  }

  /** Whether a component would be closed at its top (so a part that references it needs the open copy). */
  private closable(name: string): boolean {
    const schema = this.schemas[name];
    if (!isObject(schema)) return false;
    if (typeof schema.$ref === 'string') return true;
    return !decidesOpenness(schema) && (isObject(schema.properties) || COMPOSITIONS.some((key) => Array.isArray(schema[key])));
  }
}

/** Walks every place a document holds schemas and closes them. */
function closeEverywhere(node: unknown, closer: Closer, key?: string): unknown {
  if (Array.isArray(node)) return node.map((item) => closeEverywhere(item, closer));
  if (!isObject(node)) return node;
  if (key === 'schema') return closer.close(node);
  const out: Json = {};
  for (const [name, value] of Object.entries(node)) {
    if (key === 'examples' || name === 'example') {
      out[name] = value;
      continue;
    }
    out[name] = closeEverywhere(value, closer, name);
  }
  return out;
}

export function strictTwin(contract: Json): Json {
  const components = (contract.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  const closer = new Closer(schemas);
  const closedSchemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(schemas)) closedSchemas[name] = closer.close(schema);
  const rest = closeEverywhere({ ...FRESH, ...contract, components: { ...FRESH, ...components, schemas: undefined } }, closer) as Json;
  // Open copies: the component as a part, open at its top, with everything below it closed. Copies may
  // ask for more copies (a part built from parts), so repeat until none is new.
  const done = new Set<string>();
  while ([...closer.openCopies].some((name) => !done.has(name))) {
    for (const name of [...closer.openCopies]) {
      if (done.has(name)) continue;
      done.add(name);
      closedSchemas[`${name}${OPEN_SUFFIX}`] = closer.close(schemas[name], true);
    }
  }
  const restComponents = rest.components as Json;
  delete restComponents.schemas;
  return {
    ...FRESH,
    ...rest,
    info: { ...FRESH, ...(rest.info as Json), 'x-strict-twin': true },
    components: { ...FRESH, ...restComponents, schemas: closedSchemas },
  };
}

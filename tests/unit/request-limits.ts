/**
 * Every place in a request body that can grow without a bound the contract states: a string with no
 * `maxLength`, an array with no `maxItems`, a map (an object open to names it does not list) with no
 * `maxProperties`. A value with an `enum` or `const`, of format `date`, or matching an anchored pattern with no
 * open repetition, is bounded by what it may be.
 *
 * Places are named by the component schema that declares them (one file under openapi/components/schemas)
 * and the path inside it, so a finding points at the YAML to change; a place inline in an operation is named
 * by its operation. Each schema is walked once wherever it is used, so a place shared by many bodies is
 * reported once.
 */
type Json = Record<string, any>;

export interface Unbounded {
  /** `Schema.yaml: path` or `operationId: path`. */
  place: string;
  kind: 'string' | 'array' | 'map';
}

const COMPONENT = '#/components/schemas/';

/**
 * Request fields that are never stored, so their size costs nothing beyond the 1 MB body limit, and whose
 * schema is a response's, where a bound would describe the server's own output.
 */
export const UNSTORED: Record<string, string> = {
  'PromotionTierFields.yaml: validation_rule_assignments':
    'the tier\'s assignments as GET lists them, accepted and ignored in a request; the schema is the list response',
};

function types(schema: Json): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return typeof schema.type === 'string' ? [schema.type] : [];
}

/** An anchored pattern without `*`, `+` or an open `{n,}` matches strings of bounded length only. */
function boundedPattern(pattern: unknown): boolean {
  return typeof pattern === 'string' && pattern.startsWith('^') && pattern.endsWith('$') && !/[*+]|\{\d+,\}/.test(pattern);
}

function boundedByValue(schema: Json): boolean {
  return Array.isArray(schema.enum) || 'const' in schema || schema.format === 'date' || boundedPattern(schema.pattern);
}

export function unboundedRequestPlaces(contract: Json): Unbounded[] {
  const found = new Map<string, Unbounded>();
  const walked = new Set<string>();

  const visit = (schema: unknown, owner: string, path: string): void => {
    if (schema === null || typeof schema !== 'object') return;
    const s = schema as Json;
    if (typeof s.$ref === 'string') {
      if (!s.$ref.startsWith(COMPONENT)) return;
      const name = s.$ref.slice(COMPONENT.length);
      if (walked.has(name)) return;
      walked.add(name);
      visit(contract.components.schemas[name], `${name}.yaml`, '');
      return;
    }
    const at = (kind: Unbounded['kind']) => {
      const place = `${owner}: ${path || '(top)'}`;
      found.set(`${place} ${kind}`, { place, kind });
    };
    const typeList = types(s);
    if (typeList.includes('string') && s.maxLength === undefined && !boundedByValue(s)) at('string');
    if (typeList.includes('array') && s.maxItems === undefined) at('array');
    // An object that lists no properties takes any names: a map, open by `additionalProperties` or by default.
    const objectLike = typeList.includes('object') || (typeList.length === 0 && s.additionalProperties !== undefined);
    const isMap = objectLike && s.additionalProperties !== false && s.properties === undefined && s.patternProperties === undefined && !s.allOf && !s.oneOf && !s.anyOf;
    if (isMap && s.maxProperties === undefined) at('map');
    for (const [name, property] of Object.entries((s.properties ?? {}) as Json)) {
      const inner = path ? `${path}.${name}` : name;
      if (!(`${owner}: ${inner}` in UNSTORED)) visit(property, owner, inner);
    }
    if (s.items) visit(s.items, owner, `${path}[]`);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') visit(s.additionalProperties, owner, `${path}{*}`);
    for (const [pattern, property] of Object.entries((s.patternProperties ?? {}) as Json)) visit(property, owner, `${path}{${pattern}}`);
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      (s[key] as unknown[] | undefined)?.forEach((member, index) => visit(member, owner, `${path}<${key}${index}>`));
    }
    // `not`, `if`, `then` and `else` only add conditions to a value the schema bounds already.
  };

  for (const item of Object.values(contract.paths as Json)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const operation = (item as Json)[method] as Json | undefined;
      for (const media of Object.values((operation?.requestBody?.content ?? {}) as Json)) {
        visit((media as Json).schema, String(operation!.operationId), '');
      }
    }
  }
  return [...found.values()].sort((a, b) => a.place.localeCompare(b.place));
}

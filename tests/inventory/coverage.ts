/**
 * Holds the bundled contract to the public API's field inventory. For every inventory fact of an
 * operation the contract has (parameters, request fields, response fields) and of every webhook payload,
 * the contract must document the field, accept every type and enum value the API uses, allow null where
 * the API does, never require what the API leaves optional, and never be stricter in format or limits.
 */
import type { Fact, InventoryOperation, InventoryWebhook } from './public-api.js';

type Json = Record<string, unknown>;
export type Schema = Json | boolean;

export interface Gap {
  /** `list-vouchers`, or `webhook:voucher.created`. */
  subject: string;
  where: string;
  field: string;
  problem: string;
  /** Errors make the contract refuse or mistype what the API documents; warnings are looser differences. */
  severity: 'error' | 'warning';
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON types of a value, as JSON Schema names them. */
function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** What the contract says about one field, gathered over every schema that may describe it. */
interface FieldView {
  schemas: Json[];
  /** An open map (additionalProperties: true, or an object without properties) takes the field and anything under it. */
  open: boolean;
}

export class ContractWalker {
  /**
   * Per root schema, the view after each path prefix walked so far (keyed by the prefix's steps joined): facts of
   * one operation share most of their prefixes (`vouchers[].code`, `vouchers[].id`), and walking each from the
   * root again made the inventory test the slowest unit test by far. The contract is not changed while a walker
   * is used, so a view once worked out stays right.
   */
  private readonly views = new WeakMap<Json, Map<string, FieldView>>();
  /** Each `$ref`'s target, and each schema's parts (see parts), once worked out. */
  private readonly pointed = new Map<string, Schema | undefined>();
  private readonly made = new WeakMap<Json, Json[]>();

  constructor(private readonly doc: Json) {}

  resolve(schema: Schema | undefined, seen = new Set<string>()): Schema | undefined {
    let current = schema;
    while (isObject(current) && typeof current.$ref === 'string') {
      const ref = current.$ref;
      if (seen.has(ref)) return {};
      seen.add(ref);
      const target = this.pointer(ref);
      const { $ref: _ref, ...siblings } = current;
      current = Object.keys(siblings).length > 0 ? { allOf: [target, siblings] } : target;
    }
    return current;
  }

  pointer(ref: string): Schema | undefined {
    if (this.pointed.has(ref)) return this.pointed.get(ref);
    let node: unknown = ref.startsWith('#/') ? this.doc : undefined;
    if (node !== undefined) {
      for (const part of ref.slice(2).split('/')) {
        const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
        node = isObject(node) ? node[key] : undefined;
      }
    }
    this.pointed.set(ref, node as Schema | undefined);
    return node as Schema | undefined;
  }

  /** The schema and every schema it is made of (allOf, oneOf, anyOf, $ref), resolved. */
  parts(schema: Schema | undefined, depth = 0): Json[] {
    // Worked out once per schema object from the top (a deeper call is cut at a depth, against cycles).
    const known = depth === 0 && isObject(schema) ? this.made.get(schema) : undefined;
    if (known) return known;
    const resolved = this.resolve(schema);
    if (!isObject(resolved) || depth > 12) return [];
    const out: Json[] = [resolved];
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const members = resolved[key];
      if (Array.isArray(members)) for (const member of members) out.push(...this.parts(member as Schema, depth + 1));
    }
    if (depth === 0 && isObject(schema)) this.made.set(schema, out);
    return out;
  }

  /** The schemas that describe one step below `schemas`: a property name, `[]` (array items) or `{}` (map values). */
  step(view: FieldView, step: string): FieldView {
    if (view.open) return view;
    const next: Json[] = [];
    let open = false;
    for (const schema of view.schemas.flatMap((each) => this.parts(each))) {
      if (step === '[]') {
        if (schema.items !== undefined) next.push(...this.parts(schema.items as Schema));
        if (Array.isArray(schema.prefixItems)) for (const member of schema.prefixItems) next.push(...this.parts(member as Schema));
        continue;
      }
      const properties = isObject(schema.properties) ? schema.properties : undefined;
      if (step !== '{}' && properties && properties[step] !== undefined) {
        next.push(...this.parts(properties[step] as Schema));
        continue;
      }
      const additional = schema.additionalProperties;
      if (additional === true || (step === '{}' && additional === undefined && !properties && isObjectTyped(schema))) open = true;
      else if (isObject(additional)) next.push(...this.parts(additional));
      else if (step !== '{}' && !properties && isObjectTyped(schema) && additional === undefined && !hasComposition(schema)) open = true;
    }
    return { schemas: next, open: open && next.length === 0 };
  }

  view(root: Schema | undefined, path: string[]): FieldView {
    let known: Map<string, FieldView> | undefined;
    if (isObject(root)) {
      known = this.views.get(root);
      if (!known) this.views.set(root, (known = new Map()));
    }
    const remembered = (prefix: number, make: () => FieldView): FieldView => {
      if (!known) return make();
      const key = path.slice(0, prefix).join('\u0000');
      let found = known.get(key);
      if (!found) known.set(key, (found = make()));
      return found;
    };
    let view = remembered(0, () => ({ schemas: root === undefined ? [] : this.parts(root), open: false }));
    for (let i = 0; i < path.length; i++) {
      // A vendor property name that holds a dot (`publications.created_at` in export filters) is one step.
      const joined = i + 1 < path.length ? `${path[i]}.${path[i + 1]}` : undefined;
      const named = joined !== undefined && view.schemas.flatMap((each) => this.parts(each)).some((part) => isObject(part.properties) && part.properties[joined] !== undefined);
      const from = view;
      view = remembered(named ? i + 2 : i + 1, () => this.step(from, named ? joined : path[i]!));
      if (named) i++;
      if (view.open) return view;
      if (view.schemas.length === 0) return view;
    }
    return view;
  }

  /** Whether the schema's object requires the property (own `required` or an allOf member's). */
  requires(schema: Schema | undefined, property: string, depth = 0): boolean {
    const resolved = this.resolve(schema);
    if (!isObject(resolved) || depth > 12) return false;
    if (Array.isArray(resolved.required) && resolved.required.includes(property)) return true;
    if (Array.isArray(resolved.allOf)) return resolved.allOf.some((member) => this.requires(member as Schema, property, depth + 1));
    // Every branch of a union requires it.
    for (const key of ['oneOf', 'anyOf'] as const) {
      const members = resolved[key];
      if (Array.isArray(members) && members.length > 0) {
        const objects = members.filter((member) => this.parts(member as Schema).some((part) => part.type !== 'null'));
        if (objects.length > 0 && objects.every((member) => this.requires(member as Schema, property, depth + 1))) return true;
      }
    }
    return false;
  }
}

function isObjectTyped(schema: Json): boolean {
  const type = schema.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object'));
}

function hasComposition(schema: Json): boolean {
  return ['allOf', 'oneOf', 'anyOf', '$ref'].some((key) => schema[key] !== undefined);
}

/** Types a set of schemas accepts; undefined when one of them accepts any type. */
function acceptedTypes(schemas: Json[]): Set<string> | undefined {
  const types = new Set<string>();
  let constrained = false;
  let unconstrained = false;
  for (const schema of schemas) {
    if (schema.const !== undefined) {
      types.add(typeOfValue(schema.const));
      constrained = true;
    } else if (Array.isArray(schema.enum)) {
      for (const value of schema.enum) types.add(typeOfValue(value));
      constrained = true;
    } else if (typeof schema.type === 'string') {
      types.add(schema.type);
      constrained = true;
    } else if (Array.isArray(schema.type)) {
      for (const type of schema.type) types.add(type as string);
      constrained = true;
    } else if (!hasComposition(schema) && schema.not === undefined) unconstrained = true;
  }
  if (unconstrained || !constrained) return undefined;
  if (types.has('number')) types.add('integer');
  return types;
}

/** Values a set of schemas allows for a string field; undefined when any string goes. */
function acceptedValues(schemas: Json[]): Set<unknown> | undefined {
  const values = new Set<unknown>();
  for (const schema of schemas) {
    if (schema.const !== undefined) values.add(schema.const);
    else if (Array.isArray(schema.enum)) for (const value of schema.enum) values.add(value);
    else if (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'))) return undefined;
    else if (schema.type === undefined && !hasComposition(schema)) return undefined;
  }
  return values.size > 0 ? values : undefined;
}

const numericLimit = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** The loosest of each limit over the schemas (a schema without the limit makes it absent). */
function loosest(schemas: Json[], key: string, pick: (a: number, b: number) => number): number | undefined {
  let result: number | undefined;
  for (const schema of schemas) {
    const value = numericLimit(schema[key]);
    if (value === undefined) {
      // A schema that does not constrain this kind of value leaves the field unconstrained.
      return undefined;
    }
    result = result === undefined ? value : pick(result, value);
  }
  return result;
}

function splitField(field: string): string[] {
  if (field === '(body)') return [];
  const steps: string[] = [];
  for (const segment of field.split('.')) {
    const match = /^(.*?)((?:\[\]|\{\})*)$/.exec(segment)!;
    if (match[1]) steps.push(match[1]);
    for (const suffix of match[2]!.match(/\[\]|\{\}/g) ?? []) steps.push(suffix);
  }
  return steps;
}

/** Checks one fact against the schema it belongs under. Returns its gaps. */
export function checkFact(walker: ContractWalker, root: Schema | undefined, fact: Fact, subject: string, direction: 'request' | 'response'): Gap[] {
  const gap = (problem: string, severity: Gap['severity'] = 'error'): Gap => ({ subject, where: fact.where, field: fact.field, problem, severity });
  const steps = splitField(fact.field);
  const view = walker.view(root, steps);
  if (view.open) return [];
  if (view.schemas.length === 0) return [gap('not documented')];
  const gaps: Gap[] = [];
  // Only the schemas that describe a value (not `null` branches or pure compositions) speak for its type.
  const valueSchemas = view.schemas.filter((schema) => !hasComposition(schema) || schema.type !== undefined);
  const types = acceptedTypes(valueSchemas);
  if (types) {
    for (const type of fact.types) {
      if (!types.has(type)) gaps.push(gap(`type ${type} is not accepted (contract: ${[...types].join('|')})`));
    }
    if (fact.nullable && !types.has('null')) gaps.push(gap('null is not accepted'));
  }
  if (fact.enumValues && fact.types.every((type) => type === 'string' || type === 'integer')) {
    const values = acceptedValues(valueSchemas);
    if (values) {
      const lacking = fact.enumValues.filter((value) => !values.has(value) && !values.has(Number(value)));
      if (lacking.length > 0) gaps.push(gap(`enum lacks ${lacking.join(', ')}`));
    }
  }
  const formats = new Set(valueSchemas.map((schema) => schema.format).filter((format) => format !== undefined));
  if (formats.size > 0 && !valueSchemas.some((schema) => schema.format === undefined && schema.type !== 'null')) {
    if (fact.format && !formats.has(fact.format)) gaps.push(gap(`format ${fact.format} is not the contract's ${[...formats].join('|')}`));
    if (!fact.format && fact.types.includes('string')) gaps.push(gap(`the contract requires format ${[...formats].join('|')}, the API none`, 'warning'));
  }
  const stringSchemas = valueSchemas.filter((schema) => schema.type !== 'null');
  const checks: [string, string, (a: number, b: number) => number, (ours: number, theirs: number) => boolean][] = [
    ['maxLength', 'maxLength', Math.max, (ours, theirs) => ours < theirs],
    ['minLength', 'minLength', Math.min, (ours, theirs) => ours > theirs],
    ['maximum', 'max', Math.max, (ours, theirs) => ours < theirs],
    ['minimum', 'min', Math.min, (ours, theirs) => ours > theirs],
    ['maxItems', 'maxItems', Math.max, (ours, theirs) => ours < theirs],
  ];
  for (const [key, theirKey, pick, stricter] of checks) {
    const ours = loosest(stringSchemas, key, pick);
    if (ours === undefined) continue;
    const theirs = fact.limits[theirKey] === undefined ? undefined : Number(fact.limits[theirKey]);
    if (theirs === undefined) gaps.push(gap(`the contract sets ${key} ${ours}, the API none`, 'warning'));
    else if (stricter(ours, theirs)) gaps.push(gap(`${key} ${ours} is stricter than the API's ${theirs}`));
  }
  if (fact.open === true && valueSchemas.some((schema) => schema.additionalProperties === false || schema.unevaluatedProperties === false)) {
    gaps.push(gap('closed, while the API leaves it open'));
  }
  // Requiredness: the parent must not require what the API leaves optional.
  if (steps.length > 0 && !steps.at(-1)!.startsWith('[') && !steps.at(-1)!.startsWith('{')) {
    const parent = walker.view(root, steps.slice(0, -1));
    const name = steps.at(-1)!;
    const required = parent.schemas.some((schema) => walker.requires(schema, name));
    if (required && !fact.required) gaps.push(gap(`required, while the API ${direction === 'request' ? 'takes it as optional' : 'may leave it out'}`));
  }
  return gaps;
}

interface ContractOperation {
  operationId: string;
  parameters?: Schema[];
  requestBody?: Schema;
  responses: Record<string, Schema>;
}

/** The contract's operation for a method and path, matching parameter names loosely (`{id}` ~ `{code}`). */
export function findOperation(doc: Json, method: string, path: string): { operation: ContractOperation; pathItem: Json } | undefined {
  const shape = (template: string) => template.replace(/\{[^}]+\}/g, '{}');
  const paths = doc.paths as Record<string, Json>;
  // The public API serves one operation from another host under a path another operation has on the API host (an
  // export's file, `/v1/exports/{export_Id}` on its download host): the contract serves it at a path of its own and
  // names the public API's path in `x-public-api-path`.
  for (const item of Object.values(paths)) {
    const operation = item[method];
    if (isObject(operation) && operation['x-public-api-path'] === path) return { operation: operation as unknown as ContractOperation, pathItem: item };
  }
  for (const [template, item] of Object.entries(paths)) {
    if (shape(template) !== shape(path)) continue;
    const operation = item[method];
    if (isObject(operation)) return { operation: operation as unknown as ContractOperation, pathItem: item };
  }
  return undefined;
}

/** One walker per contract document, so that what one check worked out serves the next. */
const walkers = new WeakMap<Json, ContractWalker>();
function walkerOf(doc: Json): ContractWalker {
  let walker = walkers.get(doc);
  if (!walker) walkers.set(doc, (walker = new ContractWalker(doc)));
  return walker;
}

export function checkOperation(doc: Json, inventory: InventoryOperation): Gap[] {
  const walker = walkerOf(doc);
  const found = findOperation(doc, inventory.method, inventory.path);
  if (!found) return [];
  const { operation, pathItem } = found;
  const subject = operation.operationId;
  const gaps: Gap[] = [];
  const parameters = [...((pathItem.parameters as Schema[] | undefined) ?? []), ...(operation.parameters ?? [])]
    .map((parameter) => walker.resolve(parameter))
    .filter(isObject);
  const media = (content: unknown) => (isObject(content) ? (content as Record<string, Json>) : undefined);
  for (const fact of inventory.facts) {
    const gap = (problem: string): Gap => ({ subject, where: fact.where, field: fact.field, problem, severity: 'error' });
    if (fact.where === 'query' || fact.where === 'path' || fact.where === 'header') {
      // Bracket names are the parameter's serialisation: `ids[]` is the array `ids`, `created_at[before]` the
      // deepObject `created_at` with its `before`.
      const dotted = fact.field.replace(/\[([^\]]+)\]/g, '.$1');
      const [first, ...afterFirst] = dotted.split('.');
      const name = first!.replace(/(\[\])+$/, '');
      const rest = [...(first!.endsWith('[]') ? [first!.slice(name.length)] : []), ...afterFirst];
      const location = fact.where;
      const parameter = parameters.find(
        (candidate) => candidate.in === location && String(candidate.name).toLowerCase() === name!.toLowerCase(),
      );
      if (location === 'path') {
        if (!parameters.some((candidate) => candidate.in === 'path')) gaps.push(gap('path parameter not documented'));
        continue;
      }
      if (!parameter) {
        if (rest.length === 0) gaps.push(gap(`${location} parameter not documented`));
        continue;
      }
      const subFact = { ...fact, field: rest.length === 0 ? '(body)' : rest.join('.').replace(/^\.|\.(?=\[)/g, '') };
      const found = checkFact(walker, parameter.schema as Schema, subFact, subject, 'request').map((each) => ({ ...each, field: fact.field }));
      // A parameter's own requiredness is on the parameter, not in a schema.
      if (rest.length === 0 && parameter.required === true && !fact.required) found.push(gap('required, while the API takes it as optional'));
      gaps.push(...found);
      continue;
    }
    if (fact.where === 'request') {
      const body = walker.resolve(operation.requestBody);
      const contents = media(isObject(body) ? body.content : undefined);
      const mediaType = fact.notes.media;
      if (fact.field === '(body)') {
        if (!contents) gaps.push(gap('the contract takes no request body'));
        else if (mediaType && !contents[mediaType]) gaps.push(gap(`the contract takes no ${mediaType} body`));
        continue;
      }
      const schema = contents ? (contents['application/json'] ?? Object.values(contents)[0])?.schema : undefined;
      if (!schema) continue;
      gaps.push(...checkFact(walker, schema as Schema, fact, subject, 'request'));
      continue;
    }
    const status = /^response-(\d+)$/.exec(fact.where)?.[1];
    if (status) {
      const response = walker.resolve(operation.responses[status]);
      if (!isObject(response)) {
        if (fact.field === '(body)') gaps.push(gap(`the contract documents no ${status} response (it has ${Object.keys(operation.responses).join(', ')})`));
        continue;
      }
      const contents = media(response.content);
      if (fact.field === '(body)') {
        if (!contents && fact.notes.media) gaps.push(gap(`the contract's ${status} response has no body`));
        continue;
      }
      const schema = contents ? (contents['application/json'] ?? Object.values(contents)[0])?.schema : undefined;
      if (!schema) continue;
      gaps.push(...checkFact(walker, schema as Schema, fact, subject, 'response'));
    }
  }
  return gaps;
}

/** A webhook of the contract's `webhooks` with its payload schema, found by the event type it carries. */
export function checkWebhook(doc: Json, inventory: InventoryWebhook, payloadSchema: Schema | undefined): Gap[] {
  const walker = walkerOf(doc);
  const subject = `webhook:${inventory.type}`;
  if (!payloadSchema) return [{ subject, where: 'payload', field: '(body)', problem: 'no payload schema', severity: 'error' }];
  return inventory.facts.filter((fact) => fact.field !== '(body)').flatMap((fact) => checkFact(walker, payloadSchema, fact, subject, 'response'));
}

/**
 * Takes out of a value every field its schema in the contract does not name.
 *
 * Requests: unknown request fields are accepted and ignored, as the public API ignores them. The published contract's
 * objects are open, so the validator lets such fields through; this pruner then takes every field the
 * request schema does not name out of the body before a handler sees it. What reaches the domain is
 * exactly what the contract documents, so no field a client invents (an `id`, a counter, a balance, a
 * timestamp, `object`) can ever be stored, whatever the handler spreads.
 *
 * Responses: the contract suite, run against a server held to the published contract (which may send more than
 * it documents), shows its scenarios the documented part of each body.
 *
 * Maps stay whole: an object whose schema sets `additionalProperties` (true or a schema) or declares no
 * properties at all keeps every key. So does one marked `x-unknown-keys: refused`: a filter or a rule's
 * conditions, whose unknown keys the domain refuses with a 400 instead (dropping an unknown operator would
 * silently widen what a filter matches). Of a union (`oneOf`/`anyOf`), the branches the value validates
 * against say which fields are known.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options?: { mode: 'full' }) => Ajv2020;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const escape = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

interface Located {
  schema: Json;
  pointer: string;
}

/** What one object level of a schema says of its keys. */
interface KeyRules {
  properties: Map<string, Located>;
  patterns: { pattern: RegExp; target: Located }[];
  additional: Located[];
  /** Every key is kept: a map, or an object that names no property. */
  keepAll: boolean;
}

export class SchemaPruner {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly patterns = new Map<string, RegExp>();
  // The contract never changes, and a pointer always names the same schema, so what is read from it is kept:
  // walking the schema again for every request body was a few percent of a redemption (`make bench`).
  private readonly nodes = new Map<string, unknown>();
  /** The parts of schemas with no union in them (which parts apply depends on the schema alone). */
  private readonly fixedParts = new Map<string, Located[]>();
  /** The key rules of each set of parts, by their pointers. */
  private readonly rules = new Map<string, KeyRules>();
  /** Whether each schema has a union among its parts. */
  private readonly unions = new Map<string, boolean>();

  constructor(private readonly contract: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv, { mode: 'full' });
    this.ajv.addSchema(contract, 'schema-pruner-contract');
  }

  /** The schema of an operation's JSON (or form) request body, as a pointer, or undefined when it has none. */
  bodyPointer(pathTemplate: string, method: string): string | undefined {
    const base = `#/paths/${escape(pathTemplate)}/${method.toLowerCase()}/requestBody`;
    const body = this.resolve({ schema: (this.at(base) ?? {}) as Json, pointer: base });
    const content = body.schema.content;
    if (!isObject(content)) return undefined;
    for (const media of ['application/json', 'application/x-www-form-urlencoded']) {
      if (isObject(content[media]) && (content[media] as Json).schema !== undefined) return `${body.pointer}/content/${escape(media)}/schema`;
    }
    return undefined;
  }

  /** The value with every field its schema does not name taken out, at every depth. */
  prune(value: unknown, pointer: string): unknown {
    const located = this.at(pointer);
    if (located === undefined) return value;
    return this.pruneAt(value, { schema: located as Json, pointer }, 0);
  }

  private pruneAt(value: unknown, at: Located, depth: number): unknown {
    if (depth > 64) return value;
    const target = this.resolve(at);
    if (Array.isArray(value)) {
      const items = this.parts(target, value).map((part) => part.schema.items);
      const index = items.findIndex((item) => item !== undefined);
      if (index < 0) return value;
      const parts = this.parts(target, value);
      const itemsAt = { schema: items[index] as Json, pointer: `${parts[index]!.pointer}/items` };
      return value.map((item) => this.pruneAt(item, itemsAt, depth + 1));
    }
    if (!isObject(value)) return value;
    const rules = this.rulesFor(target, value);
    if (rules.keepAll && rules.additional.length === 0 && rules.properties.size === 0) return value;
    const out: Json = {};
    for (const [key, field] of Object.entries(value)) {
      const property = rules.properties.get(key);
      if (property) {
        out[key] = this.pruneAt(field, property, depth + 1);
        continue;
      }
      const pattern = rules.patterns.find((each) => each.pattern.test(key));
      if (pattern) out[key] = this.pruneAt(field, pattern.target, depth + 1);
      else if (rules.additional.length > 0) out[key] = this.pruneAt(field, rules.additional[0]!, depth + 1);
      else if (rules.keepAll) out[key] = field;
    }
    return out;
  }

  /** What the schema's parts that apply to this value say of its keys. */
  private rulesFor(at: Located, value: unknown): KeyRules {
    let parts = this.fixedParts.get(at.pointer);
    if (parts === undefined) {
      parts = this.parts(at, value);
      let union = this.unions.get(at.pointer);
      if (union === undefined) this.unions.set(at.pointer, (union = this.hasUnion(at)));
      if (!union) this.fixedParts.set(at.pointer, parts);
    }
    const key = parts.length === 1 ? parts[0]!.pointer : parts.map((part) => part.pointer).join('\n');
    let rules = this.rules.get(key);
    if (rules === undefined) this.rules.set(key, (rules = this.keyRules(parts)));
    return rules;
  }

  /** Whether the schema or one of its `allOf` members (at any depth) is a union, whose parts depend on the value. */
  private hasUnion(at: Located, depth = 0): boolean {
    const target = this.resolve(at);
    if (depth > 16) return true;
    if (Array.isArray(target.schema.oneOf) || Array.isArray(target.schema.anyOf)) return true;
    const members = Array.isArray(target.schema.allOf) ? (target.schema.allOf as Json[]) : [];
    return members.some((member, index) => this.hasUnion({ schema: member, pointer: `${target.pointer}/allOf/${index}` }, depth + 1));
  }

  private keyRules(parts: Located[]): KeyRules {
    const rules: KeyRules = { properties: new Map(), patterns: [], additional: [], keepAll: false };
    let named = false;
    for (const { schema, pointer } of parts) {
      if (isObject(schema.properties)) {
        named = true;
        for (const [name, property] of Object.entries(schema.properties)) {
          if (!rules.properties.has(name)) rules.properties.set(name, { schema: property as Json, pointer: `${pointer}/properties/${escape(name)}` });
        }
      }
      if (isObject(schema.patternProperties)) {
        named = true;
        for (const [source, property] of Object.entries(schema.patternProperties)) {
          rules.patterns.push({ pattern: this.pattern(source), target: { schema: property as Json, pointer: `${pointer}/patternProperties/${escape(source)}` } });
        }
      }
      if (schema.additionalProperties === true || schema['x-unknown-keys'] === 'refused') rules.keepAll = true;
      else if (isObject(schema.additionalProperties)) {
        rules.additional.push({ schema: schema.additionalProperties, pointer: `${pointer}/additionalProperties` });
      }
    }
    if (!named) rules.keepAll = true;
    return rules;
  }

  /** The schema and the parts it is made of that apply to this value: allOf members, and the union branches it matches. */
  private parts(at: Located, value: unknown, depth = 0): Located[] {
    const target = this.resolve(at);
    if (depth > 16) return [target];
    const out: Located[] = [target];
    const members = (key: 'allOf' | 'oneOf' | 'anyOf') =>
      Array.isArray(target.schema[key])
        ? (target.schema[key] as Json[]).map((member, index) => ({ schema: member, pointer: `${target.pointer}/${key}/${index}` }))
        : [];
    for (const member of members('allOf')) out.push(...this.parts(member, value, depth + 1));
    for (const key of ['oneOf', 'anyOf'] as const) {
      const branches = members(key);
      if (branches.length === 0) continue;
      const matching = branches.filter((branch) => this.validates(branch.pointer, value));
      for (const branch of key === 'oneOf' ? matching.slice(0, 1) : matching) out.push(...this.parts(branch, value, depth + 1));
    }
    return out;
  }

  private validates(pointer: string, value: unknown): boolean {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `schema-pruner-contract${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate(value) as boolean;
  }

  private resolve(at: Located): Located {
    let current = at;
    for (let hops = 0; hops < 32 && typeof current.schema.$ref === 'string'; hops++) {
      const pointer = current.schema.$ref as string;
      const target = this.at(pointer);
      if (!isObject(target)) break;
      current = { schema: target, pointer };
    }
    return current;
  }

  private at(pointer: string): unknown {
    if (this.nodes.has(pointer)) return this.nodes.get(pointer);
    const node = this.walk(pointer);
    this.nodes.set(pointer, node);
    return node;
  }

  private walk(pointer: string): unknown {
    if (!pointer.startsWith('#')) return undefined;
    let node: unknown = this.contract;
    for (const part of pointer.slice(2).split('/')) {
      if (part === '') continue;
      node = isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    return node;
  }

  private pattern(source: string): RegExp {
    let pattern = this.patterns.get(source);
    if (!pattern) {
      pattern = new RegExp(source, 'u');
      this.patterns.set(source, pattern);
    }
    return pattern;
  }
}

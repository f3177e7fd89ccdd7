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

/** A union of a schema: its branches, and the JSON types each branch can take (undefined: any). */
interface Union {
  oneOf: boolean;
  branches: Plan[];
  types: (ReadonlySet<string> | undefined)[];
}

/**
 * A schema as the pruner reads it, worked out once (the contract never changes): where its `$ref`s lead, its
 * `allOf` members and its unions. Its parts and their key rules depend on the schema alone when no union is
 * among them (`fixed`); otherwise on the branches a value matches, and are kept per set of parts.
 */
interface Plan {
  at: Located;
  allOf: Plan[];
  unions: Union[];
  /** Whether the schema or one of its `allOf` members (at any depth) is a union. */
  union: boolean;
  fixed?: { parts: Located[]; rules: KeyRules };
}

/** Key rules of sets of parts, reached part by part (parts are kept, so each is one object). */
interface RulesNode {
  next: Map<Located, RulesNode>;
  rules?: KeyRules;
}

/** The JSON types a value has, as a schema's `type` names them. */
function typesOf(value: unknown): readonly string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  switch (typeof value) {
    case 'object':
      return ['object'];
    case 'string':
      return ['string'];
    case 'boolean':
      return ['boolean'];
    case 'number':
      return Number.isInteger(value) ? ['number', 'integer'] : ['number'];
    default:
      return [];
  }
}

/** The JSON types a schema's `type` takes, or undefined when it names none (it may then take any). */
function typesTaken(schema: Json): ReadonlySet<string> | undefined {
  const { type } = schema;
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type) && type.every((each) => typeof each === 'string')) return new Set(type as string[]);
  return undefined;
}

export class SchemaPruner {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly patterns = new Map<string, RegExp>();
  // The contract never changes, and a pointer always names the same schema, so what is read from it is kept:
  // walking the schema again for every request body was a few percent of a redemption (`make bench`).
  private readonly nodes = new Map<string, unknown>();
  /**
   * The plan of each schema object of the contract, by the object itself (each sits at one place in the
   * document, so it has one pointer). Working the parts out again for every value, with their pointers made
   * anew as text, was most of what pruning a request body cost (`make bench`).
   */
  private readonly plans = new WeakMap<Json, Plan>();
  private readonly rulesRoot: RulesNode = { next: new Map() };
  /** The schemas whose plans are being made, to find a schema that is its own member. */
  private readonly planning = new Set<Json>();

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
    const plan = this.planOf(at);
    if (Array.isArray(value)) {
      const parts = this.partsOf(plan, value);
      const index = parts.findIndex((part) => part.schema.items !== undefined);
      if (index < 0) return value;
      const itemsAt = { schema: parts[index]!.schema.items as Json, pointer: `${parts[index]!.pointer}/items` };
      return value.map((item) => this.pruneAt(item, itemsAt, depth + 1));
    }
    if (!isObject(value)) return value;
    const rules = this.rulesFor(plan, value);
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
  private rulesFor(plan: Plan, value: unknown): KeyRules {
    if (plan.fixed) return plan.fixed.rules;
    const parts = this.partsOf(plan, value);
    let node = this.rulesRoot;
    for (const part of parts) {
      let next = node.next.get(part);
      if (next === undefined) node.next.set(part, (next = { next: new Map() }));
      node = next;
    }
    return (node.rules ??= this.keyRules(parts));
  }

  /**
   * The plan of a schema (by the object at `at`, `$ref` or not), made at its first use. A schema that is its own
   * `allOf` member or union branch, at any depth, is its own only part there, and its value's parts are
   * worked out each time.
   */
  private planOf(at: Located): Plan {
    const kept = this.plans.get(at.schema);
    if (kept !== undefined) return kept;
    if (this.planning.has(at.schema)) return { at: this.resolve(at), allOf: [], unions: [], union: true };
    this.planning.add(at.schema);
    try {
      const target = this.resolve(at);
      const members = (key: 'allOf' | 'oneOf' | 'anyOf'): Plan[] =>
        Array.isArray(target.schema[key])
          ? (target.schema[key] as Json[]).map((member, index) => this.planOf({ schema: member, pointer: `${target.pointer}/${key}/${index}` }))
          : [];
      const allOf = members('allOf');
      const unions: Union[] = [];
      for (const key of ['oneOf', 'anyOf'] as const) {
        const branches = members(key);
        if (branches.length > 0) unions.push({ oneOf: key === 'oneOf', branches, types: branches.map((branch) => typesTaken(branch.at.schema)) });
      }
      const plan: Plan = { at: target, allOf, unions, union: unions.length > 0 || allOf.some((member) => member.union) };
      if (!plan.union) {
        const parts = this.partsOf(plan, undefined);
        plan.fixed = { parts, rules: this.keyRules(parts) };
      }
      this.plans.set(at.schema, plan);
      return plan;
    } finally {
      this.planning.delete(at.schema);
    }
  }

  /** The schema and the parts it is made of that apply to this value: allOf members, and the union branches it matches. */
  private partsOf(plan: Plan, value: unknown): Located[] {
    if (plan.fixed) return plan.fixed.parts;
    const out: Located[] = [plan.at];
    for (const member of plan.allOf) out.push(...this.partsOf(member, value));
    const valueTypes = plan.unions.length > 0 ? typesOf(value) : [];
    for (const { oneOf, branches, types } of plan.unions) {
      for (let index = 0; index < branches.length; index++) {
        const taken = types[index];
        // A branch whose `type` takes none of the value's types cannot validate, so it is not asked.
        if (taken !== undefined && !valueTypes.some((type) => taken.has(type))) continue;
        const branch = branches[index]!;
        if (!this.validates(branch.at.pointer, value)) continue;
        out.push(...this.partsOf(branch, value));
        // Of a oneOf, the first branch the value matches.
        if (oneOf) break;
      }
    }
    return out;
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

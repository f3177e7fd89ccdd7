/**
 * fast-check arbitraries made from the contract's own JSON Schemas: values a schema accepts, and values
 * made invalid by one mutation of a valid one. Generation is approximate (composition keywords are only
 * roughly followed), so the fuzz test filters every candidate through ajv with the very schema it came
 * from: what it sends as valid is valid, and what it sends as invalid is invalid.
 */
import fc, { type Arbitrary } from 'fast-check';

export type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  pattern?: string;
  format?: string;
  examples?: unknown[];
};

export interface Document {
  components: { schemas: Record<string, Schema> };
}

/** Wide ranges are sampled at their low end, so a run never asks for 100,000 generated codes. */
const SMALL = 1000;
const MAX_DEPTH = 5;
/** Candidates drawn before a value is given up on (see `firstAccepted`). */
const TRIES = 25;

/**
 * The first of at most TRIES candidates that `accepts` takes, or undefined when none does. It stands in for
 * fast-check's `filter`, which draws forever when its predicate rarely holds: that once hung the whole suite
 * (a 16-character minimum on a pattern whose generated matches are shorter). A property skips an undefined
 * case with `fc.pre`, and fast-check fails the run past its skip limit, naming the seed, instead of hanging.
 */
export function firstAccepted<T>(arbitrary: Arbitrary<T>, accepts: (value: T) => boolean): Arbitrary<T | undefined> {
  return new FirstAccepted(arbitrary, accepts);
}

class FirstAccepted<T> extends fc.Arbitrary<T | undefined> {
  constructor(
    private readonly source: Arbitrary<T>,
    private readonly accepts: (value: T) => boolean,
  ) {
    super();
  }

  generate(random: fc.Random, biasFactor: number | undefined): fc.Value<T | undefined> {
    for (let drawn = 0; drawn < TRIES; drawn++) {
      const candidate = this.source.generate(random, biasFactor);
      if (this.accepts(candidate.value)) return candidate;
    }
    return new fc.Value(undefined, undefined);
  }

  canShrinkWithoutContext(value: unknown): value is T | undefined {
    return value !== undefined && this.source.canShrinkWithoutContext(value) && this.accepts(value as T);
  }

  shrink(value: T | undefined, context: unknown): fc.Stream<fc.Value<T | undefined>> {
    if (value === undefined) return fc.Stream.nil();
    return this.source.shrink(value, context).filter((candidate) => this.accepts(candidate.value));
  }
}

export class SchemaArbitraries {
  constructor(private readonly document: Document) {}

  resolve(schema: Schema): Schema {
    let current = schema;
    for (let hops = 0; current.$ref && hops < 20; hops++) {
      const name = current.$ref.split('/').at(-1)!;
      const { $ref: _ref, ...siblings } = current;
      current = { ...this.document.components.schemas[name], ...siblings };
    }
    return current;
  }

  /** allOf parts folded into one schema: properties and required lists merged. */
  flatten(schema: Schema): Schema {
    const resolved = this.resolve(schema);
    if (!resolved.allOf) return resolved;
    const { allOf, ...rest } = resolved;
    return allOf.map((part) => this.flatten(part)).reduce<Schema>(
      (merged, part) => ({
        ...merged,
        ...part,
        properties: { ...merged.properties, ...part.properties },
        required: [...(merged.required ?? []), ...(part.required ?? [])],
      }),
      rest,
    );
  }

  valid(schema: Schema, depth = 0): Arbitrary<unknown> {
    const s = this.flatten(schema);
    if ('const' in s) return fc.constant(s.const);
    if (s.enum) return fc.constantFrom(...s.enum);
    const choices = s.oneOf ?? s.anyOf;
    if (choices) return fc.oneof(...choices.map((choice) => this.valid({ ...s, oneOf: undefined, anyOf: undefined, ...this.flatten(choice) }, depth + 1)));
    const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : ['string', 'integer', 'boolean'];
    return fc.oneof(...types.map((type) => this.ofType(type, s, depth)));
  }

  private ofType(type: string, s: Schema, depth: number): Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -SMALL);
        const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : min + SMALL * 100);
        return fc.integer({ min, max: Math.min(max, Math.max(min, 0) + SMALL) });
      }
      case 'number': {
        const min = s.minimum ?? s.exclusiveMinimum ?? -SMALL;
        const max = s.maximum ?? s.exclusiveMaximum ?? min + SMALL * 100;
        return fc
          .double({ min, max: Math.min(max, Math.max(min, 0) + SMALL), noNaN: true, noDefaultInfinity: true })
          .filter((n) => (s.exclusiveMinimum === undefined || n > s.exclusiveMinimum) && (s.exclusiveMaximum === undefined || n < s.exclusiveMaximum));
      }
      case 'string':
        return this.string(s);
      case 'array': {
        const item = s.items ? this.valid(s.items, depth + 1) : fc.string();
        const minLength = s.minItems ?? 0;
        const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 3, depth >= MAX_DEPTH ? minLength : 3));
        return s.uniqueItems
          ? fc.uniqueArray(item, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
          : fc.array(item, { minLength, maxLength });
      }
      case 'object':
        return this.object(s, depth);
      default:
        return fc.constant(null);
    }
  }

  private string(s: Schema): Arbitrary<string> {
    const minLength = s.minLength ?? 0;
    const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 24, minLength + 24));
    switch (s.format) {
      case 'date-time':
        return fc
          .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
          .map((date) => date.toISOString());
      case 'date':
        return fc
          .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
          .map((date) => date.toISOString().slice(0, 10));
      case 'email':
        return fc.emailAddress();
      case 'uri':
      case 'url':
        return fc.webUrl();
      case 'uuid':
        return fc.uuid();
      default:
        break;
    }
    if (s.pattern) {
      const pattern = new RegExp(s.pattern);
      const fits = (text: string) => text.length >= minLength && text.length <= (s.maxLength ?? Infinity) && pattern.test(text);
      // A repeated character class (`^[...]+$`) is built to length, so its minimum is always reached.
      const repeated = /^\^(\[(?:\\.|[^\]])+\])[+*]\$$/.exec(s.pattern);
      if (repeated) return fc.string({ unit: fc.stringMatching(new RegExp(`^${repeated[1]}$`)), minLength: Math.max(minLength, 1), maxLength });
      let matching: Arbitrary<string>;
      try {
        matching = fc.stringMatching(pattern, { maxLength: s.maxLength });
      } catch {
        // fast-check cannot generate from lookarounds: generate without them, keep what the real pattern takes.
        matching = fc.stringMatching(new RegExp(s.pattern.replace(/\(\?[=!][^()]*\)/g, '')), { maxLength: s.maxLength });
      }
      // A documented example stands in when no candidate fits; the caller's own check refuses anything else.
      const example = s.examples?.find((value): value is string => typeof value === 'string' && fits(value));
      return firstAccepted(matching, fits).map((text) => text ?? example ?? '');
    }
    return fc.string({ minLength, maxLength });
  }

  private object(s: Schema, depth: number): Arbitrary<unknown> {
    const properties = s.properties ?? {};
    const required = new Set(s.required ?? []);
    // Deep in a tree only what is required is generated, so values stay small.
    const names = Object.keys(properties).filter((name) => depth < MAX_DEPTH || required.has(name));
    const model = Object.fromEntries(names.map((name) => [name, this.valid(properties[name]!, depth + 1)]));
    const record = fc.record(model, { requiredKeys: names.filter((name) => required.has(name)) });
    const extra = s.additionalProperties;
    if (!extra || Object.keys(properties).length > 0 || depth >= MAX_DEPTH) return record;
    // A free-form map such as metadata.
    const values = extra === true ? fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean()) : this.valid(extra, depth + 1);
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), values, { maxKeys: 3 });
  }

  /** A valid value broken in one way: a required field dropped, an unknown one added, a wrong type, a bound crossed. */
  invalid(schema: Schema): Arbitrary<unknown> {
    const s = this.flatten(schema);
    const wrongType = fc.constantFrom<unknown>(null, 42, 'text', true, [], {}, [1, 'two']);
    if (!s.properties) return fc.oneof(wrongType, this.valid(s).map((value) => crossBound(s, value)));
    const names = Object.keys(s.properties);
    return this.valid(s).chain((value) => {
      const body = { ...(value as Record<string, unknown>) };
      const mutations: Arbitrary<unknown>[] = [
        wrongType,
        fc.string({ minLength: 1, maxLength: 10 }).map((name) => ({ ...body, [`fuzz_${name}`]: 1 })),
      ];
      const present = (s.required ?? []).filter((name) => name in body);
      if (present.length > 0) {
        mutations.push(fc.constantFrom(...present).map((name) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name))));
      }
      if (names.length > 0) {
        mutations.push(
          fc.tuple(fc.constantFrom(...names), wrongType).map(([name, wrong]) => ({ ...body, [name]: wrong })),
          fc.constantFrom(...names).chain((name) =>
            this.valid(s.properties![name]!).map((inner) => ({ ...body, [name]: crossBound(this.flatten(s.properties![name]!), inner) })),
          ),
        );
      }
      return fc.oneof(...mutations);
    });
  }
}

/** The value pushed just past one of its schema's bounds, where it has one. */
function crossBound(s: Schema, value: unknown): unknown {
  if (typeof value === 'string' && s.maxLength !== undefined) return value.padEnd(s.maxLength + 1, 'x');
  if (typeof value === 'number' && s.maximum !== undefined) return s.maximum + 1;
  if (typeof value === 'number' && s.minimum !== undefined) return s.minimum - 1;
  if (Array.isArray(value) && s.maxItems !== undefined) return [...value, ...Array.from({ length: s.maxItems + 1 }, () => value[0] ?? 'x')];
  if (s.enum) return `not-${String(s.enum[0])}`;
  return { unexpected: value };
}

/**
 * Metadata against a metadata schema: every rule a property definition can state, checked on the value
 * written. A broken rule is a 400 `invalid_metadata` that names the property and the rule.
 */
import type { DomainError } from '../errors.js';
import { invalid } from '../errors.js';
import type { MetadataSchema } from './schemas.js';
import { FRESH } from '../../store/fresh.js';

type Definition = MetadataSchema['properties'][string];

function broken(relatedObject: string, name: string, rule: string, wanted: string): DomainError {
  return invalid('invalid_metadata', 'Invalid metadata', `metadata.${name} ${wanted} (${relatedObject} metadata schema rule: ${rule})`);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function isValidDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether one value (one element, for arrays) has the definition's type. */
function hasType(definition: Definition, value: unknown): boolean {
  switch (definition.type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && isValidDate(value);
    case 'datetime':
      return typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
    case 'object':
      return isPlainObject(value);
    case 'geopoint':
      return (
        isPlainObject(value) &&
        typeof value.latitude === 'number' &&
        typeof value.longitude === 'number' &&
        Math.abs(value.latitude) <= 90 &&
        Math.abs(value.longitude) <= 180
      );
    case 'image_url':
      return typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  }
}

/**
 * A definition with the management API's snake_case spellings (`exact_length`, `min_length`, `max_length`,
 * `object_type`) read as the camelCase ones the public reads use; either spelling is honoured.
 */
function normalized(definition: Definition): Definition {
  const snake = definition as Definition & { exact_length?: number; min_length?: number; max_length?: number; object_type?: string | null };
  return {
    ...FRESH,
    ...definition,
    exactLength: definition.exactLength ?? snake.exact_length,
    minLength: definition.minLength ?? snake.min_length,
    maxLength: definition.maxLength ?? snake.max_length,
    objectType: definition.objectType ?? snake.object_type,
  };
}

/** The first constraint a typed value breaks, as [rule, what was wanted], or undefined. */
function brokenConstraint(definition: Definition, value: unknown): [string, string] | undefined {
  if (typeof value === 'string') {
    if (definition.exactLength !== undefined && value.length !== definition.exactLength) return ['exactLength', `must be exactly ${definition.exactLength} characters long`];
    if (definition.minLength !== undefined && value.length < definition.minLength) return ['minLength', `must be at least ${definition.minLength} characters long`];
    if (definition.maxLength !== undefined && value.length > definition.maxLength) return ['maxLength', `must be at most ${definition.maxLength} characters long`];
  }
  if (typeof value === 'number') {
    if (definition.min !== undefined && value < definition.min) return ['min', `must be at least ${definition.min}`];
    if (definition.max !== undefined && value > definition.max) return ['max', `must be at most ${definition.max}`];
    if (definition.gt !== undefined && !(value > definition.gt)) return ['gt', `must be greater than ${definition.gt}`];
    if (definition.gte !== undefined && !(value >= definition.gte)) return ['gte', `must be greater than or equal to ${definition.gte}`];
    if (definition.lt !== undefined && !(value < definition.lt)) return ['lt', `must be less than ${definition.lt}`];
    if (definition.lte !== undefined && !(value <= definition.lte)) return ['lte', `must be less than or equal to ${definition.lte}`];
  }
  if (typeof value === 'string' || typeof value === 'number') {
    if (definition.eq && !definition.eq.includes(value)) return ['eq', `must be one of ${definition.eq.join(', ')}`];
    if (definition.ne?.includes(value)) return ['ne', `must not be ${definition.ne.join(' or ')}`];
  }
  return undefined;
}

/** The schema of a custom resource type, for `object` properties that name one in `objectType`. */
export type SchemaOf = (relatedObject: string) => MetadataSchema | undefined;

/** Custom types that the schema's own `object` properties name in `objectType`. */
export function namedObjectTypes(schema: MetadataSchema): string[] {
  return Object.values(schema.properties)
    .map(normalized)
    .flatMap((definition) => (definition.type === 'object' && !definition.deleted && definition.objectType ? [definition.objectType] : []));
}

/**
 * Throws the first rule of the schema that the metadata breaks. An `object` value whose property names a
 * custom type with a schema of its own is checked against that schema too, its properties named by path.
 */
export function checkMetadata(schema: MetadataSchema, metadata: Record<string, unknown> | null | undefined, schemaOf: SchemaOf = () => undefined, path = ''): void {
  const given = metadata ?? {};
  const where = schema.related_object;
  if (schema.allow_defined_only) {
    const undefinedKey = Object.keys(given).find((name) => !Object.hasOwn(schema.properties, name));
    if (undefinedKey !== undefined) throw broken(where, `${path}${undefinedKey}`, 'allow_defined_only', 'is not defined in the schema');
  }
  for (const [name, stored] of Object.entries(schema.properties)) {
    // A definition marked deleted only records that the property was once defined: it checks nothing.
    if (stored.deleted) continue;
    const definition = normalized(stored);
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    const at = `${path}${name}`;
    if (value === undefined || value === null) {
      if (definition.optional === false) throw broken(where, at, 'optional: false', 'is required');
      continue;
    }
    const values = definition.array ? value : [value];
    if (definition.array && !Array.isArray(value)) throw broken(where, at, 'array', `must be an array of ${definition.type}`);
    if (!definition.array && Array.isArray(value)) throw broken(where, at, 'array', `must be a single ${definition.type}, not an array`);
    const nested = definition.type === 'object' && definition.objectType ? schemaOf(definition.objectType) : undefined;
    (values as unknown[]).forEach((item, index) => {
      if (!hasType(definition, item)) throw broken(where, at, `type: ${definition.type}`, `must be a ${definition.type}`);
      const constraint = brokenConstraint(definition, item);
      if (constraint) throw broken(where, at, constraint[0], constraint[1]);
      if (nested) checkMetadata(nested, item as Record<string, unknown>, schemaOf, `${at}${definition.array ? `[${index}]` : ''}.`);
    });
  }
}

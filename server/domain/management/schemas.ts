/** Metadata schemas (one per resource type) and custom event schemas (one per event name) of a project. */
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import { writeUnique } from '../unique.js';
import { table } from '../../store/schema.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

export type MetadataSchema = components['schemas']['MetadataSchema'];

export const METADATA_SCHEMAS_TABLE = table<MetadataSchema>({ unique: ['related_object'], indexed: [], kept: true });
/** A custom event schema as stored: `updated_at` is always kept (null until it changes). */
export type CustomEventSchema = components['schemas']['CustomEventSchema'] & { updated_at: string | null };

export const CUSTOM_EVENT_SCHEMAS_TABLE = table<CustomEventSchema>({ unique: ['name'], indexed: [], kept: true });
type MetadataSchemaCreate = components['schemas']['MetadataSchemasCreateRequestBody'];
type MetadataSchemaUpdate = components['schemas']['MetadataSchemasUpdateRequestBody'];
type CustomEventCreate = components['schemas']['CustomEventSchemasCreateRequestBody'];
type CustomEventUpdate = components['schemas']['CustomEventSchemasUpdateRequestBody'];

type Properties = MetadataSchema['properties'];
type Definition = Properties[string];

/** A definition with its flags filled in, so that every stored definition says whether it is an array and optional. */
function complete(definition: Definition): Definition {
  return { ...FRESH, ...definition, array: definition.array ?? false, optional: definition.optional ?? true };
}

function completeAll(properties: Properties): Properties {
  return Object.fromEntries(Object.entries(properties).map(([name, definition]) => [name, complete(definition)]));
}

export async function findMetadataSchema({ uow }: DomainContext, id: string): Promise<MetadataSchema> {
  const schema = await uow.metadata_schemas.get(id);
  if (!schema) throw notFound('metadata_schema', id);
  return schema;
}

export async function metadataSchemaOf({ uow }: DomainContext, relatedObject: string): Promise<MetadataSchema> {
  const schema = await uow.metadata_schemas.getBy('related_object', relatedObject);
  if (!schema) throw notFound('metadata_schema', relatedObject);
  return schema;
}

export async function listMetadataSchemas({ uow }: DomainContext): Promise<MetadataSchema[]> {
  return (await uow.metadata_schemas.query({})).rows;
}

export async function createMetadataSchema(ctx: DomainContext, input: MetadataSchemaCreate): Promise<MetadataSchema> {
  const schema: MetadataSchema = {
    id: newId('ms'),
    related_object: input.related_object,
    properties: completeAll(input.properties),
    allow_defined_only: input.allow_defined_only ?? false,
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'metadata_schema',
  };
  return writeUnique('metadata_schema', () => ctx.uow.metadata_schemas.insert(schema));
}

export async function updateMetadataSchema(ctx: DomainContext, id: string, input: MetadataSchemaUpdate): Promise<MetadataSchema> {
  const schema = await findMetadataSchema(ctx, id);
  const properties = { ...schema.properties };
  for (const [name, definition] of Object.entries(input.properties ?? {})) {
    if (definition === null) delete properties[name];
    else properties[name] = complete(definition);
  }
  return ctx.uow.metadata_schemas.update({
    ...FRESH,
    ...schema,
    properties,
    allow_defined_only: input.allow_defined_only ?? schema.allow_defined_only,
    updated_at: isoNow(ctx.clock),
  });
}

export async function deleteMetadataSchema(ctx: DomainContext, id: string): Promise<void> {
  await findMetadataSchema(ctx, id);
  await ctx.uow.metadata_schemas.delete(id);
}

export async function findCustomEventSchema({ uow }: DomainContext, id: string): Promise<CustomEventSchema> {
  const schema = await uow.custom_event_schemas.get(id);
  if (!schema) throw notFound('custom_event_schema', id);
  return schema;
}

export async function listCustomEventSchemas({ uow }: DomainContext): Promise<CustomEventSchema[]> {
  return (await uow.custom_event_schemas.query({})).rows;
}

export async function createCustomEventSchema(ctx: DomainContext, input: CustomEventCreate): Promise<CustomEventSchema> {
  const schema: CustomEventSchema = {
    id: newId('ms'),
    name: input.name,
    schema: { properties: completeAll(input.schema?.properties ?? {}) },
    created_at: isoNow(ctx.clock),
    updated_at: null,
    object: 'custom-event-schema',
  };
  return writeUnique('custom_event_schema', () => ctx.uow.custom_event_schemas.insert(schema));
}

export async function updateCustomEventSchema(ctx: DomainContext, id: string, input: CustomEventUpdate): Promise<CustomEventSchema> {
  const schema = await findCustomEventSchema(ctx, id);
  const updated: CustomEventSchema = {
    ...FRESH,
    ...schema,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.schema !== undefined && { schema: { properties: completeAll(input.schema.properties) } }),
    updated_at: isoNow(ctx.clock),
  };
  return writeUnique('custom_event_schema', () => ctx.uow.custom_event_schemas.update(updated));
}

export async function deleteCustomEventSchema(ctx: DomainContext, id: string): Promise<void> {
  await findCustomEventSchema(ctx, id);
  await ctx.uow.custom_event_schemas.delete(id);
}

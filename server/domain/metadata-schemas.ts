/**
 * The public API's reads of metadata schemas. Every project has a schema for each standard resource from the
 * start, empty until properties are defined for it (through the management API); custom resources have one
 * only once it is defined.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { listMetadataSchemas } from './management/schemas.js';

type MetadataSchema = components['schemas']['MetadataSchema'];

export const STANDARD_RESOURCES: readonly string[] = [
  'campaign',
  'customer',
  'earning_rule',
  'loyalty_tier',
  'order',
  'order_item',
  'product',
  'promotion_tier',
  'publication',
  'redemption',
  'reward',
  'voucher',
];

/** What the v1 reads need of the project: its ID and when it was created (when its standard schemas began). */
export interface ProjectOrigin {
  id: string;
  created_at: string;
}

/**
 * The standard schema of a resource nobody has defined properties for. It is not stored, so its ID is
 * derived from the project and the resource: the same on every read, and unlike any other project's.
 */
function emptyStandardSchema(project: ProjectOrigin, resource: string): MetadataSchema {
  const digest = createHash('sha256').update(`${project.id}\n${resource}`).digest('hex');
  return {
    id: `ms_${digest.slice(0, 18)}`,
    related_object: resource,
    properties: {},
    allow_defined_only: false,
    created_at: project.created_at,
    updated_at: null,
    object: 'metadata_schema',
  };
}

/** Every schema of the project: the defined ones, and the empty standard ones; oldest first. */
export async function listV1MetadataSchemas(ctx: DomainContext, project: ProjectOrigin): Promise<MetadataSchema[]> {
  const defined = await listMetadataSchemas(ctx);
  const resources = new Set(defined.map((schema) => schema.related_object));
  const empty = STANDARD_RESOURCES.filter((resource) => !resources.has(resource)).map((resource) => emptyStandardSchema(project, resource));
  // The empty standard schemas date from the project's creation, so they come before every defined one.
  return [...empty, ...defined];
}

export async function getV1MetadataSchema(ctx: DomainContext, project: ProjectOrigin, resource: string): Promise<MetadataSchema> {
  const defined = await ctx.uow.metadata_schemas.getBy('related_object', resource);
  if (defined) return defined;
  if (STANDARD_RESOURCES.includes(resource)) return emptyStandardSchema(project, resource);
  throw notFound('metadata_schema', resource);
}

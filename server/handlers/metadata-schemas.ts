import { findProject } from '../domain/management/project-lookup.js';
import { getV1MetadataSchema, listV1MetadataSchemas, type ProjectOrigin } from '../domain/metadata-schemas.js';
import type { HandlersOf, RequestContext, Services } from './types.js';
import { inOrganization, inProject } from './unit-of-work.js';

/** The caller's project as the registry has it: its standard schemas date from its creation. */
async function projectOrigin(services: Services, context: RequestContext): Promise<ProjectOrigin> {
  const project = await inOrganization(services, (ctx) => findProject(ctx, context.projectId));
  return { id: project.id, created_at: project.created_at };
}

export const metadataSchemaHandlers: HandlersOf<'list-metadata-schemas' | 'get-metadata-schema'> = {
  'list-metadata-schemas': async ({ context, services }) => {
    const project = await projectOrigin(services, context);
    const schemas = await inProject(services, context, (ctx) => listV1MetadataSchemas(ctx, project));
    return { status: 200, body: { object: 'list', data_ref: 'schemas', schemas, total: schemas.length } };
  },
  'get-metadata-schema': async ({ path, context, services }) => {
    const project = await projectOrigin(services, context);
    return { status: 200, body: await inProject(services, context, (ctx) => getV1MetadataSchema(ctx, project, path.resource)) };
  },
};

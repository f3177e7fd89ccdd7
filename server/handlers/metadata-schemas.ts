import { listMetadataSchemas, metadataSchemaOf } from '../domain/management/schemas.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

export const metadataSchemaHandlers: HandlersOf<'list-metadata-schemas' | 'get-metadata-schema'> = {
  'list-metadata-schemas': async ({ context, services }) => {
    const schemas = await inProject(services, context, listMetadataSchemas);
    return { status: 200, body: { object: 'list', data_ref: 'schemas', schemas, total: schemas.length } };
  },
  'get-metadata-schema': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => metadataSchemaOf(ctx, path.resource)),
  }),
};

import { findLocation, listLocations } from '../domain/locations.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

export const locationHandlers: HandlersOf<'list-locations' | 'get-location'> = {
  'list-locations': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listLocations(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total, has_more: page.has_more } };
  },
  'get-location': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => findLocation(ctx, path.locationId)),
  }),
};

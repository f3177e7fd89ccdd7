/** Locations: named circles and polygons. The interface only reads them; fixtures load them. */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { matchesFilter } from './filters.js';
import { newId } from './ids.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from './pagination.js';
import { normalizeFilters } from './vouchers.js';

export type Location = components['schemas']['Location'];

export interface LocationInput {
  id?: string;
  name: string;
  shape: Location['shape'];
  created_at?: string;
}

export async function addLocation(ctx: DomainContext, input: LocationInput): Promise<Location> {
  return ctx.uow.locations.insert({
    id: input.id ?? newId('loc'),
    name: input.name,
    shape: input.shape,
    created_at: input.created_at ?? ctx.clock.now().toISOString(),
    updated_at: null,
    object: 'location',
  });
}

export async function findLocation({ uow }: DomainContext, id: string): Promise<Location> {
  const location = await uow.locations.get(id);
  if (!location) throw notFound('location', id);
  return location;
}

export async function listLocations(
  ctx: DomainContext,
  query: PageRequest & { order?: SortOrder; filters?: Record<string, unknown>; end_date?: string },
) {
  const filter = query.filters && Object.keys(query.filters).some((key) => key !== 'junction') ? normalizeFilters(query.filters) : undefined;
  const until = query.end_date ? Date.parse(query.end_date) : Infinity;
  const window = pageWindow(query);
  const page = await ctx.uow.locations.query({
    where: (location) => Date.parse(location.created_at) <= until && (filter === undefined || matchesFilter(location, filter)),
    orderBy: parseTimestampOrder(query.order),
    ...window,
  });
  return { ...page, has_more: window.offset + page.rows.length < page.total };
}

/** Locations: named circles and polygons. The interface only reads them; fixtures load them. */
import type { components } from '../../generated/openapi.js';
import type { DomainContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { filterCondition } from './filters.js';
import { newId } from './ids.js';
import { pageWindow, parseTimestampOrder, type PageRequest, type SortOrder } from './pagination.js';
import { normalizeFilters } from './list-filters.js';
import { table } from '../store/schema.js';
import { and } from '../store/conditions.js';
import { timeBound } from './time-range.js';
import { FRESH } from '../store/fresh.js';
import { isoNow } from './clock.js';

export type Location = components['schemas']['Location'];

export const LOCATIONS_TABLE = table<Location>({ unique: [], indexed: [], kinds: { created_at: 'text', updated_at: 'text' } });

export interface LocationInput {
  id?: string;
  name: string;
  shape: Location['shape'];
  created_at?: string;
  updated_at?: string | null;
}

type Ring = number[][];

/**
 * GeoJSON rings end where they start; a ring that does not is refused rather than closed silently. The contract
 * also reads a bare position where a ring stands (the public API's reference draws polygons so), but a fixture
 * must give real rings, as the interface describes them.
 */
function checkRings(rings: (Ring | number[])[], where: string): void {
  rings.forEach((entry, index) => {
    if (typeof entry[0] === 'number') {
      throw invalid('invalid_payload', 'Invalid location', `${where}[${index}] is a position; polygon coordinates are rings, each a list of positions`);
    }
    const ring = entry as Ring;
    const [first, last] = [ring[0], ring[ring.length - 1]];
    if (!first || !last || first[0] !== last[0] || first[1] !== last[1]) {
      throw invalid('invalid_payload', 'Invalid location', `${where}[${index}] is not closed: its last point must equal its first`);
    }
  });
}

/** A circle needs both its center and its radius, which the contract leaves optional as the public API does. */
function checkShape(shape: Location['shape']): void {
  if (shape.type === 'circle') {
    if (!shape.distance.center || !shape.distance.radius) {
      throw invalid('invalid_payload', 'Invalid location', 'shape.distance needs both a center and a radius');
    }
    return;
  }
  const geojson = shape.geojson;
  if (geojson.type === 'Polygon') checkRings(geojson.coordinates, 'shape.geojson.coordinates');
  else geojson.coordinates.forEach((polygon, index) => checkRings(polygon, `shape.geojson.coordinates[${index}]`));
}

export async function addLocation(ctx: DomainContext, input: LocationInput): Promise<Location> {
  checkShape(input.shape);
  const createdAt = input.created_at ?? isoNow(ctx.clock);
  if (input.updated_at && Date.parse(input.updated_at) < Date.parse(createdAt)) {
    throw invalid('invalid_payload', 'Invalid location', `updated_at ${input.updated_at} is before created_at ${createdAt}`);
  }
  return ctx.uow.locations.insert({
    id: input.id ?? newId('loc'),
    name: input.name,
    shape: input.shape,
    created_at: createdAt,
    updated_at: input.updated_at ?? null,
    object: 'location',
  });
}

export async function findLocation({ uow }: DomainContext, id: string): Promise<Location> {
  const location = await uow.locations.get(id);
  if (!location) throw notFound('location', id);
  return location;
}

const LOCATION_FILTER_FIELDS: ReadonlySet<string> = new Set(['name', 'created_at', 'updated_at']);

export async function listLocations(
  ctx: DomainContext,
  query: PageRequest & { order?: SortOrder; filters?: Record<string, unknown>; end_date?: string },
) {
  const filter =
    query.filters && Object.keys(query.filters).some((key) => key !== 'junction') ? normalizeFilters(query.filters, LOCATION_FILTER_FIELDS) : undefined;
  const until = query.end_date ? timeBound('lte', 'created_at', Date.parse(query.end_date)) : undefined;
  const window = pageWindow(query);
  const page = await ctx.uow.locations.query({
    ...FRESH,
    ...((until || filter) && { where: and(until, filter && filterCondition(filter)) }),
    orderBy: parseTimestampOrder(query.order),
    ...window,
  });
  return { ...FRESH, ...page, has_more: window.offset + page.rows.length < page.total };
}

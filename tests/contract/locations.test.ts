import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { loadFixtures } from '../../server/fixtures.js';
import { because, clientFor, raw, skip, useTarget } from './target.js';

// The target holds the locations of tests/fixtures/contract.json (start other servers with that file).
const ctx = useTarget();

describe('locations', () => {
  test('are listed in pages with total and has_more, and read one by one', async () => {
    const first = (await ctx.client.GET('/v1/locations')).data!;
    if (!first.data) throw new Error('the list has no data');
    expect(first).toMatchObject({ object: 'list', data_ref: 'data', total: 12, has_more: true });
    expect(first.data).toHaveLength(10);
    expect(first.data[0]).toMatchObject({ id: 'loc_contract_00', name: 'Contract location 00', object: 'location', shape: { type: 'circle', format: 'distance', distance: { center: expect.stringMatching(/^geo:/), radius: '1km' } } });
    expect(first.data[1]?.shape).toMatchObject({ type: 'polygon', format: 'geojson', geojson: { type: 'Polygon' } });
    const second = (await ctx.client.GET('/v1/locations', { params: { query: { page: 2 } } })).data!;
    expect(second.data?.map((location) => location.id)).toEqual(['loc_contract_10', 'loc_contract_11']);
    expect(second.has_more).toBe(false);
    const beyond = (await ctx.client.GET('/v1/locations', { params: { query: { page: 3 } } })).data!;
    expect(beyond).toMatchObject({ data: [], total: 12, has_more: false });
    const newest = (await ctx.client.GET('/v1/locations', { params: { query: { order: '-created_at', limit: 2 } } })).data!;
    expect(newest.data?.map((location) => location.id)).toEqual(['loc_contract_11', 'loc_contract_10']);
    const one = await ctx.client.GET('/v1/locations/{locationId}', { params: { path: { locationId: 'loc_contract_03' } } });
    expect(one.data).toEqual(first.data[3]);
  });

  test('are filtered by name, creation time and end_date', async () => {
    const outposts = await raw(ctx.target, 'GET', '/v1/locations?filters[name][conditions][$starts_with]=Outpost');
    expect((outposts.body as { data: { id: string }[] }).data.map((location) => location.id)).toEqual(['loc_contract_10', 'loc_contract_11']);
    const early = await raw(ctx.target, 'GET', '/v1/locations?filters[created_at][conditions][$before]=2026-01-03T00:00:00.000Z');
    expect((early.body as { total: number }).total).toBe(2);
    const until = await ctx.client.GET('/v1/locations', { params: { query: { end_date: '2026-01-05T10:00:00.000Z', limit: 100 } } });
    expect(until.data?.total).toBe(5);
    const updated = await raw(ctx.target, 'GET', '/v1/locations?filters[updated_at][conditions][$after]=2026-02-15T00:00:00.000Z');
    expect((updated.body as { data: { id: string }[] }).data.map((location) => location.id)).toEqual(['loc_contract_02', 'loc_contract_08']);
  });

  test('are ordered by update time, latest first with -updated_at; never-updated ones (null) come last there', async () => {
    const latest = (await ctx.client.GET('/v1/locations', { params: { query: { order: '-updated_at', limit: 4 } } })).data!;
    expect(latest.data?.map((location) => [location.id, location.updated_at])).toEqual([
      ['loc_contract_08', '2026-04-01T10:00:00.000Z'],
      ['loc_contract_02', '2026-03-01T10:00:00.000Z'],
      ['loc_contract_05', '2026-02-01T10:00:00.000Z'],
      [expect.any(String), null],
    ]);
    const all = (await ctx.client.GET('/v1/locations', { params: { query: { order: 'updated_at', limit: 100 } } })).data!;
    expect(all.data?.slice(-3).map((location) => location.id)).toEqual(['loc_contract_05', 'loc_contract_02', 'loc_contract_08']);
    expect(all.data?.slice(0, -3).every((location) => location.updated_at === null)).toBe(true);
  });

  test('bad input gets a 4xx in the error shape', async () => {
    for (const limit of ['0', '101']) expectError(await raw(ctx.target, 'GET', `/v1/locations?limit=${limit}`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/locations?order=name'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/locations?filters[shape][conditions][$is]=circle'), 400, 'invalid_query_params');
    expectError(failed(await ctx.client.GET('/v1/locations/{locationId}', { params: { path: { locationId: 'loc_missing' } } })), 404, 'not_found');
  });
});

describe('location filters and shapes', () => {
  test('when filtered by name lists, negations, text and update presence, then exactly the matches are listed', async () => {
    const ids = async (query: string) => ((await raw(ctx.target, 'GET', `/v1/locations?limit=100&${query}`)).body as { data: { id: string }[] }).data.map((l) => l.id);
    expect(await ids('filters[name][conditions][$in][]=Outpost%2010&filters[name][conditions][$in][]=Contract%20location%2000')).toEqual(['loc_contract_00', 'loc_contract_10']);
    expect(await ids('filters[name][conditions][$contains]=location%200&filters[name][conditions][$not_contain]=location%2000')).toHaveLength(9);
    expect(await ids('filters[updated_at][conditions][$has_value]=true')).toEqual(['loc_contract_02', 'loc_contract_05', 'loc_contract_08']);
    const created = Date.parse('2026-01-03T00:00:00.000Z');
    expect(await ids(`filters[created_at][conditions][$less_than]=${created}`)).toHaveLength(2);
    expect(await ids(`filters[junction]=or&filters[created_at][conditions][$less_than]=${created}&filters[name][conditions][$starts_with]=Outpost`)).toHaveLength(4);
  });

  test('when a filter uses an operator its field does not take, then 400 invalid_query_params', async () => {
    expectError(await raw(ctx.target, 'GET', '/v1/locations?filters[name][conditions][$near]=x'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/locations?filters[created_at][conditions][$more_than]=soon'), 400, 'invalid_query_params');
  });

  test('when a location is a GeoJSON MultiPolygon, then it is read back as one; an open ring or a circle without radius is refused', async () => {
    const { store, clock, otherProject } = ctx.target;
    if (!store || !clock || !otherProject) return skip(because('inProcess'), ['get-location']);
    const ring = [[21.0, 52.0], [21.1, 52.0], [21.1, 52.1], [21.0, 52.0]];
    const multi = { type: 'polygon', format: 'geojson', geojson: { type: 'MultiPolygon', coordinates: [[ring], [ring.map(([x, y]) => [x! + 1, y!])]] } };
    await loadFixtures(store, clock, 'proj_contract_b', { locations: [{ id: 'loc_multi_polygon', name: 'Two parks', shape: multi }] }, 'test');
    const read = await clientFor(ctx.target, otherProject).GET('/v1/locations/{locationId}', { params: { path: { locationId: 'loc_multi_polygon' } } });
    expect(read.data).toMatchObject({ id: 'loc_multi_polygon', shape: multi, updated_at: null, object: 'location' });
    const open = { ...multi, geojson: { type: 'MultiPolygon', coordinates: [[ring.slice(0, 3).concat([[21.0, 52.05]])]] } };
    await expect(loadFixtures(store, clock, 'proj_contract_b', { locations: [{ name: 'Open', shape: open }] }, 'test')).rejects.toThrow(/not closed/);
    const noRadius = { type: 'circle', format: 'distance', distance: { center: 'geo:52.1,21.0' } };
    await expect(loadFixtures(store, clock, 'proj_contract_b', { locations: [{ name: 'Dot', shape: noRadius }] }, 'test')).rejects.toThrow(/radius/);
  });
});

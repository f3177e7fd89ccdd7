import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, useTarget } from './target.js';

// The target holds the locations of tests/fixtures/contract.json (start other servers with that file).
const ctx = useTarget();

describe('locations', () => {
  test('are listed in pages with total and has_more, and read one by one', async () => {
    const first = (await ctx.client.GET('/v1/locations')).data!;
    expect(first).toMatchObject({ object: 'list', data_ref: 'data', total: 12, has_more: true });
    expect(first.data).toHaveLength(10);
    expect(first.data[0]).toMatchObject({ id: 'loc_contract_00', name: 'Contract location 00', object: 'location', shape: { type: 'circle', format: 'distance', distance: { center: expect.stringMatching(/^geo:/), radius: '1km' } } });
    expect(first.data[1]?.shape).toMatchObject({ type: 'polygon', format: 'geojson', geojson: { type: 'Polygon' } });
    const second = (await ctx.client.GET('/v1/locations', { params: { query: { page: 2 } } })).data!;
    expect(second.data.map((location) => location.id)).toEqual(['loc_contract_10', 'loc_contract_11']);
    expect(second.has_more).toBe(false);
    const beyond = (await ctx.client.GET('/v1/locations', { params: { query: { page: 3 } } })).data!;
    expect(beyond).toMatchObject({ data: [], total: 12, has_more: false });
    const newest = (await ctx.client.GET('/v1/locations', { params: { query: { order: '-created_at', limit: 2 } } })).data!;
    expect(newest.data.map((location) => location.id)).toEqual(['loc_contract_11', 'loc_contract_10']);
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
    expect(latest.data.map((location) => [location.id, location.updated_at])).toEqual([
      ['loc_contract_08', '2026-04-01T10:00:00.000Z'],
      ['loc_contract_02', '2026-03-01T10:00:00.000Z'],
      ['loc_contract_05', '2026-02-01T10:00:00.000Z'],
      [expect.any(String), null],
    ]);
    const all = (await ctx.client.GET('/v1/locations', { params: { query: { order: 'updated_at', limit: 100 } } })).data!;
    expect(all.data.slice(-3).map((location) => location.id)).toEqual(['loc_contract_05', 'loc_contract_02', 'loc_contract_08']);
    expect(all.data.slice(0, -3).every((location) => location.updated_at === null)).toBe(true);
  });

  test('bad input gets a 4xx in the error shape', async () => {
    for (const limit of ['0', '101']) expectError(await raw(ctx.target, 'GET', `/v1/locations?limit=${limit}`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/locations?order=name'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/locations?filters[shape][conditions][$is]=circle'), 400, 'invalid_query_params');
    expectError(failed(await ctx.client.GET('/v1/locations/{locationId}', { params: { path: { locationId: 'loc_missing' } } })), 404, 'not_found');
  });
});

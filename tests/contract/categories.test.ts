import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function category(hierarchy: number, name = unique('Category')) {
  const result = await ctx.client.POST('/v1/categories', { body: { name, hierarchy } });
  expect(result.response.status).toBe(200);
  return result.data!;
}

describe('categories', () => {
  test('when created, then it reads back without updated_at, and the list is by hierarchy then age', async () => {
    const third = await category(30);
    const first = await category(10);
    const second = await category(10);
    // Fields beyond these are the strict twin's business (in-process); a server may add its own.
    expect(first).toMatchObject({ id: expect.stringMatching(/^cat_/), name: expect.any(String), hierarchy: 10, created_at: expect.any(String), object: 'category' });
    expect(first).not.toHaveProperty('updated_at');
    const read = await ctx.client.GET('/v1/categories/{categoryId}', { params: { path: { categoryId: first.id } } });
    expect(read.data).toEqual(first);
    const list = await ctx.client.GET('/v1/categories');
    expect(list.data).toMatchObject({ object: 'list', data_ref: 'data' });
    expect(list.data?.total).toBe(list.data?.data?.length);
    const ours = list.data!.data!.filter((c) => [first.id, second.id, third.id].includes(c.id));
    expect(ours.map((c) => c.id)).toEqual([first.id, second.id, third.id]);
  });

  test('when listed with and without a limit, then has_more says whether the limit left categories out', async () => {
    await category(1);
    await category(2);
    const all = await ctx.client.GET('/v1/categories');
    expect(all.data).toMatchObject({ has_more: false });
    const one = await ctx.client.GET('/v1/categories', { params: { query: { limit: 1 } } });
    expect(one.data).toMatchObject({ has_more: true });
    expect(one.data?.data).toHaveLength(1);
  });

  test('when updated, then only the given field changes and updated_at appears', async () => {
    const made = await category(5);
    const result = await ctx.client.PUT('/v1/categories/{categoryId}', {
      params: { path: { categoryId: made.id } },
      body: { hierarchy: 6 },
    });
    expect(result.data).toEqual({ ...made, hierarchy: 6, updated_at: expect.any(String) });
  });

  test('when a name is taken, then create and update answer 409 duplicate_found', async () => {
    const taken = await category(1);
    expectError(failed(await ctx.client.POST('/v1/categories', { body: { name: taken.name, hierarchy: 2 } })), 409, 'duplicate_found');
    const other = await category(1);
    const rename = await ctx.client.PUT('/v1/categories/{categoryId}', {
      params: { path: { categoryId: other.id } },
      body: { name: taken.name },
    });
    expectError(failed(rename), 409, 'duplicate_found');
  });

  test('when deleted, then it is gone and its name is free', async () => {
    const made = await category(1);
    const path = { categoryId: made.id };
    expect((await ctx.client.DELETE('/v1/categories/{categoryId}', { params: { path } })).response.status).toBe(204);
    expect(expectError(failed(await ctx.client.GET('/v1/categories/{categoryId}', { params: { path } })), 404, 'not_found').resource_type).toBe(
      'category',
    );
    expectError(failed(await ctx.client.DELETE('/v1/categories/{categoryId}', { params: { path } })), 404, 'not_found');
    await category(1, made.name);
  });

  test.each([
    ['no hierarchy', { name: 'x' }],
    ['no name', { hierarchy: 1 }],
    ['an empty name', { name: '', hierarchy: 1 }],
    ['a negative hierarchy', { name: 'x', hierarchy: -1 }],
    ['a fractional hierarchy', { name: 'x', hierarchy: 1.5 }],
  ])('when the body has %s, then 400 invalid_payload', async (_, body) => {
    expectError(await raw(ctx.target, 'POST', '/v1/categories', { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });

  test('when updating with nothing, then only updated_at moves; when the ID is unknown, then 404', async () => {
    const made = await category(1);
    const empty = await raw(ctx.target, 'PUT', `/v1/categories/${made.id}`, { body: '{}' });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ ...made, updated_at: expect.any(String) });
    expectError(await raw(ctx.target, 'PUT', '/v1/categories/cat_missing', { body: '{"hierarchy":1}' }), 404, 'not_found');
  });

  test('when a whole category as GET returns it is sent back, then only updated_at changes', async () => {
    const made = await category(4);
    const path = { categoryId: made.id };
    await ctx.client.PUT('/v1/categories/{categoryId}', { params: { path }, body: { hierarchy: 7 } });
    const before = (await ctx.client.GET('/v1/categories/{categoryId}', { params: { path } })).data!;
    const put = await raw(ctx.target, 'PUT', `/v1/categories/${made.id}`, { body: JSON.stringify(before) });
    expect(put.status).toBe(200);
    const after = (await ctx.client.GET('/v1/categories/{categoryId}', { params: { path } })).data!;
    expect(after).toEqual({ ...before, updated_at: expect.any(String) });
    expect(Date.parse(after.updated_at!)).toBeGreaterThanOrEqual(Date.parse(before.updated_at!));
  });

  test('when listed with a limit, then at most that many come first by hierarchy, and total counts every category', async () => {
    // A rank below every other test's keeps these two first in the list.
    const first = await category(0);
    const second = await category(0);
    const all = (await ctx.client.GET('/v1/categories')).data!;
    const page = await ctx.client.GET('/v1/categories', { params: { query: { limit: 2 } } });
    expect(page.response.status).toBe(200);
    expect(page.data?.data?.length).toBeLessThanOrEqual(2);
    expect(page.data?.total).toBe(all.total);
    expect(all.total).toBeGreaterThanOrEqual(2);
    expect(page.data?.data?.every((each) => each.hierarchy === 0)).toBe(true);
    expect(page.data?.data?.map((each) => each.id)).toEqual(all.data?.slice(0, 2).map((each) => each.id));
    expect(all.data?.map((each) => each.id)).toEqual(expect.arrayContaining([first.id, second.id]));
    expectError(await raw(ctx.target, 'GET', '/v1/categories?limit=0'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/categories?limit=101'), 400, 'invalid_query_params');
  });
});

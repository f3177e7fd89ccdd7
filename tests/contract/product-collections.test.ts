import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function product(body: Record<string, unknown> = {}) {
  return (await ctx.client.POST('/v1/products', { body: { attributes: ['size'], ...body } })).data!;
}

async function sku(productId: string, body: Record<string, unknown> = {}) {
  return (await ctx.client.POST('/v1/products/{productId}/skus', { params: { path: { productId } }, body })).data!;
}

async function members(id: string, query: { limit?: number; page?: number } = { limit: 100 }) {
  const result = await ctx.client.GET('/v1/product-collections/{productCollectionId}/products', {
    params: { path: { productCollectionId: id }, query },
  });
  expect(result.response.status).toBe(200);
  return result.data!;
}

describe('static collections', () => {
  test('when created from products and SKUs, then they are its members, in order, as full objects', async () => {
    const p1 = await product();
    const p2 = await product();
    const s1 = await sku(p2.id, { attributes: { size: 'L' } });
    const created = await ctx.client.POST('/v1/product-collections', {
      body: {
        type: 'STATIC',
        name: unique('Static'),
        products: [
          { id: p1.id, object: 'product' },
          { id: s1.id, object: 'sku' },
          { id: p2.id, object: 'product' },
          { id: p1.id, object: 'product' },
        ],
      },
    });
    expect(created.data).toEqual({
      id: expect.stringMatching(/^pc_/),
      name: expect.any(String),
      type: 'STATIC',
      filter: null,
      products: [
        { id: p1.id, object: 'product' },
        { id: s1.id, product_id: p2.id, object: 'sku' },
        { id: p2.id, object: 'product' },
      ],
      created_at: expect.any(String),
      object: 'products_collection',
    });
    const id = created.data!.id;
    expect(await members(id)).toEqual({ object: 'list', data_ref: 'data', data: [p1, s1, p2], total: 3 });
    const secondPage = await members(id, { limit: 2, page: 2 });
    expect(secondPage).toMatchObject({ data: [p2], total: 3 });
  });

  test('when a member product is deleted, then it and its SKUs leave the collection', async () => {
    const doomed = await product();
    const doomedSku = await sku(doomed.id);
    const survivor = await product();
    const created = await ctx.client.POST('/v1/product-collections', {
      body: {
        type: 'STATIC',
        name: unique('Shrinking'),
        products: [
          { id: doomed.id, object: 'product' },
          { id: doomedSku.id, object: 'sku' },
          { id: survivor.id, object: 'product' },
        ],
      },
    });
    const id = created.data!.id;
    await ctx.client.DELETE('/v1/products/{productId}', { params: { path: { productId: doomed.id } } });
    const read = await ctx.client.GET('/v1/product-collections/{productCollectionId}', {
      params: { path: { productCollectionId: id } },
    });
    expect(read.data?.products).toEqual([{ id: survivor.id, object: 'product' }]);
    expect((await members(id)).data).toEqual([survivor]);
  });

  test('when a member is unknown or a SKU names the wrong product, then 4xx and no collection is made', async () => {
    const name = unique('Broken');
    const missing = await ctx.client.POST('/v1/product-collections', {
      body: { type: 'STATIC', name, products: [{ id: 'prod_missing', object: 'product' }] },
    });
    expect(expectError(failed(missing), 404, 'not_found').resource_type).toBe('product');
    const p = await product();
    const s = await sku(p.id);
    const other = await product();
    const mismatch = await ctx.client.POST('/v1/product-collections', {
      body: { type: 'STATIC', name, products: [{ id: s.id, product_id: other.id, object: 'sku' }] },
    });
    expectError(failed(mismatch), 400, 'invalid_payload');
    // The name is still free, so neither attempt left a collection behind.
    const ok = await ctx.client.POST('/v1/product-collections', { body: { type: 'STATIC', name } });
    expect(ok.response.status).toBe(200);
  });
});

describe('auto-update collections', () => {
  test('when the filter selects by price and metadata, then members follow the catalog as it changes', async () => {
    const tag = unique('tag');
    const cheap = await product({ price: 500, metadata: { tag } });
    const dear = await product({ price: 5000, metadata: { tag } });
    const dearSku = await sku(dear.id, { price: 6000, metadata: { tag } });
    await product({ price: 9000, metadata: { tag: 'other' } });
    const created = await ctx.client.POST('/v1/product-collections', {
      body: {
        type: 'AUTO_UPDATE',
        name: unique('Dear'),
        filter: {
          junction: 'and',
          price: { conditions: { $more_than: [1000] } },
          'metadata.tag': { conditions: { $is: [tag] } },
        },
      },
    });
    expect(created.data).toMatchObject({ type: 'AUTO_UPDATE', filter: { junction: 'and' } });
    expect(created.data).not.toHaveProperty('products');
    const id = created.data!.id;
    expect((await members(id)).data).toEqual([dear, dearSku]);

    const later = await product({ price: 2000, metadata: { tag } });
    await ctx.client.PUT('/v1/products/{productId}', { params: { path: { productId: cheap.id } }, body: { price: 1500 } });
    const now = await members(id);
    expect(now.data.map((m) => m.id)).toEqual([cheap.id, dear.id, dearSku.id, later.id]);
    expect(now.total).toBe(4);
  });

  test("when the junction is 'or', then a member needs to match one condition", async () => {
    const a = await product({ name: unique('OrA') });
    const b = await product({ source_id: unique('or-b') });
    const created = await ctx.client.POST('/v1/product-collections', {
      body: {
        type: 'AUTO_UPDATE',
        name: unique('Either'),
        filter: { junction: 'or', name: { conditions: { $is: [a.name!] } }, source_id: { conditions: { $in: [b.source_id!] } } },
      },
    });
    expect((await members(created.data!.id)).data.map((m) => m.id)).toEqual([a.id, b.id]);
  });

  test.each([
    ['no filter', { type: 'AUTO_UPDATE', name: 'x' }],
    ['a filter without junction', { type: 'AUTO_UPDATE', name: 'x', filter: { price: { conditions: { $is: [1] } } } }],
    ['an unknown filter field', { type: 'AUTO_UPDATE', name: 'x', filter: { junction: 'and', colour: { conditions: { $is: ['red'] } } } }],
    ['an unknown operator', { type: 'AUTO_UPDATE', name: 'x', filter: { junction: 'and', price: { conditions: { $near: [1] } } } }],
    ['an unknown type', { type: 'DYNAMIC', name: 'x' }],
    ['no name', { type: 'STATIC' }],
    ['a member of an unknown kind', { type: 'STATIC', name: 'x', products: [{ id: 'a', object: 'voucher' }] }],
  ])('when the body has %s, then 400 invalid_payload', async (_, body) => {
    expectError(await raw(ctx.target, 'POST', '/v1/product-collections', { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });
});

describe('list, get and delete', () => {
  test('when collections are listed, then pages and total are exact and newest-first works', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push((await ctx.client.POST('/v1/product-collections', { body: { type: 'STATIC', name: unique(`List ${i}`) } })).data!);
    }
    const all = await ctx.client.GET('/v1/product-collections', { params: { query: { limit: 100 } } });
    expect(all.data?.data_ref).toBe('data');
    const ids = all.data!.data.map((c) => c.id);
    expect(ids.slice(-3)).toEqual(made.map((c) => c.id));
    expect(all.data?.total).toBe(ids.length);
    const newest = await ctx.client.GET('/v1/product-collections', { params: { query: { limit: 1, order: '-created_at' } } });
    expect(newest.data?.data).toEqual([made[2]]);
    const past = await ctx.client.GET('/v1/product-collections', { params: { query: { limit: 100, page: 2 } } });
    expect(past.data?.data).toEqual([]);
  });

  test('when deleted, then get and members are 404 and the name is free', async () => {
    const name = unique('Gone');
    const created = (await ctx.client.POST('/v1/product-collections', { body: { type: 'STATIC', name } })).data!;
    const duplicate = await ctx.client.POST('/v1/product-collections', { body: { type: 'STATIC', name } });
    expectError(failed(duplicate), 409, 'duplicate_found');
    const path = { productCollectionId: created.id };
    expect((await ctx.client.DELETE('/v1/product-collections/{productCollectionId}', { params: { path } })).response.status).toBe(204);
    const get = await ctx.client.GET('/v1/product-collections/{productCollectionId}', { params: { path } });
    expect(expectError(failed(get), 404, 'not_found').resource_type).toBe('product_collection');
    expectError(await raw(ctx.target, 'GET', `/v1/product-collections/${created.id}/products`), 404, 'not_found');
    expectError(await raw(ctx.target, 'DELETE', `/v1/product-collections/${created.id}`), 404, 'not_found');
    expect((await ctx.client.POST('/v1/product-collections', { body: { type: 'STATIC', name } })).response.status).toBe(200);
  });

  test('when list queries are out of range, then 400 invalid_query_params', async () => {
    expectError(await raw(ctx.target, 'GET', '/v1/product-collections?limit=0'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/product-collections/pc_x/products?page=0'), 400, 'invalid_query_params');
  });
});

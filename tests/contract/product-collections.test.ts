import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

/** A new product, as collections list their products: without its SKUs. */
async function product(body: Record<string, unknown> = {}) {
  const { skus: _skus, ...created } = (await ctx.client.POST('/v1/products', { body: { attributes: ['size'], ...body } })).data!;
  return created;
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
      products: [
        { id: p1.id, object: 'product' },
        { id: s1.id, product_id: p2.id, object: 'sku' },
        { id: p2.id, object: 'product' },
      ],
      created_at: expect.any(String),
      object: 'products_collection',
    });
    const id = created.data!.id;
    expect(await members(id)).toEqual({ object: 'list', data_ref: 'data', data: [p1, { ...s1, product: p2 }, p2], total: 3 });
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
    expect((await members(id)).data).toEqual([dear, { ...dearSku, product: dear }]);

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

describe('put-product-collection', () => {
  const put = (id: string, body: unknown) => raw(ctx.target, 'PUT', `/v1/product-collections/${id}`, { body: JSON.stringify(body) });

  test('when an auto-update collection gets a new name and filter, then its members follow the new filter', async () => {
    const tag = unique('refilter');
    const cheap = await product({ price: 500, metadata: { tag } });
    const dear = await product({ price: 5000, metadata: { tag } });
    const made = (
      await ctx.client.POST('/v1/product-collections', {
        body: { type: 'AUTO_UPDATE', name: unique('Before'), filter: { junction: 'and', 'metadata.tag': { conditions: { $is: [tag] } }, price: { conditions: { $more_than: [1000] } } } },
      })
    ).data!;
    expect((await members(made.id)).data.map((m) => m.id)).toEqual([dear.id]);
    const name = unique('After');
    const filter = { junction: 'and', 'metadata.tag': { conditions: { $is: [tag] } }, price: { conditions: { $less_than: [1000] } } };
    const result = await ctx.client.PUT('/v1/product-collections/{productCollectionId}', { params: { path: { productCollectionId: made.id } }, body: { name, filter } as never });
    expect(result.data).toEqual({ ...made, name, filter, updated_at: expect.any(String) });
    expect((await members(made.id)).data.map((m) => m.id)).toEqual([cheap.id]);
    const read = await ctx.client.GET('/v1/product-collections/{productCollectionId}', { params: { path: { productCollectionId: made.id } } });
    expect(read.data).toEqual(result.data);
  });

  test('when a collection is sent back whole as GET returns it, then it is accepted and only updated_at changes', async () => {
    const p = await product();
    for (const body of [
      { type: 'STATIC', name: unique('WholeStatic'), products: [{ id: p.id, object: 'product' }] },
      { type: 'AUTO_UPDATE', name: unique('WholeAuto'), filter: { junction: 'or', id: { conditions: { $is: [p.id] } } } },
    ]) {
      const made = (await ctx.client.POST('/v1/product-collections', { body: body as never })).data!;
      const read = (await ctx.client.GET('/v1/product-collections/{productCollectionId}', { params: { path: { productCollectionId: made.id } } })).data!;
      const result = await put(made.id, read);
      expect(result.status).toBe(200);
      expect(result.body).toEqual({ ...read, updated_at: expect.any(String) });
      expect((await members(made.id)).data.map((m) => m.id)).toEqual([p.id]);
    }
  });

  test('when a static collection is renamed with other members or another type in the body, then only the name changes', async () => {
    const p = await product();
    const other = await product();
    const made = (await ctx.client.POST('/v1/product-collections', { body: { type: 'STATIC', name: unique('Renamed'), products: [{ id: p.id, object: 'product' }] } })).data!;
    const name = unique('NewName');
    const result = await put(made.id, { name, type: 'AUTO_UPDATE', products: [{ id: other.id, object: 'product' }], filter: null });
    expect(result).toMatchObject({ status: 200, body: { ...made, name, updated_at: expect.any(String) } });
    expect((await members(made.id)).data.map((m) => m.id)).toEqual([p.id]);
  });

  test('when the filter does not fit the collection, the name is taken or the collection unknown, then 4xx and nothing changes', async () => {
    const staticOne = (await ctx.client.POST('/v1/product-collections', { body: { type: 'STATIC', name: unique('Fixed') } })).data!;
    const auto = (
      await ctx.client.POST('/v1/product-collections', { body: { type: 'AUTO_UPDATE', name: unique('Auto'), filter: { junction: 'and', price: { conditions: { $is: [1] } } } } })
    ).data!;
    expectError(await put(staticOne.id, { filter: { junction: 'and', price: { conditions: { $is: [1] } } } }), 400, 'invalid_payload');
    expectError(await put(auto.id, { filter: null }), 400, 'invalid_payload');
    expectError(await put(auto.id, { filter: { junction: 'and', colour: { conditions: { $is: ['red'] } } } }), 400, 'invalid_payload');
    expectError(await put(auto.id, { filter: { junction: 'and', price: { conditions: { $near: [1] } } } }), 400, 'invalid_payload');
    expectError(await put(auto.id, {}), 400, 'invalid_payload');
    expectError(await put(auto.id, { name: staticOne.name }), 409, 'duplicate_found');
    expectError(await put('pc_missing', { name: 'x' }), 404, 'not_found');
    for (const made of [staticOne, auto]) {
      const read = await ctx.client.GET('/v1/product-collections/{productCollectionId}', { params: { path: { productCollectionId: made.id } } });
      expect(read.data).toEqual(made);
    }
  });
});

describe('collection filters and members', () => {
  async function autoCollection(filter: Record<string, unknown>) {
    const result = await ctx.client.POST('/v1/product-collections', { body: { type: 'AUTO_UPDATE', name: unique('Filter'), filter } as never });
    expect(result.response.status).toBe(200);
    return result.data!;
  }

  test('when a filter counts days, array lengths or uses the public API spellings, then members match them', async () => {
    const tag = unique('ops');
    const none = await product({ metadata: { tag }, attributes: [] });
    const two = await product({ metadata: { tag }, attributes: ['size', 'grind'], price: 1000 });
    const byTag = { junction: 'and', 'metadata.tag': { conditions: { $is: [tag] } } };
    const ids = async (filter: Record<string, unknown>) => (await members((await autoCollection({ ...byTag, ...filter })).id)).data.map((m) => m.id);
    expect(await ids({ created_at: { conditions: { $is_days_ago: [0] } } })).toEqual([none.id, two.id]);
    expect(await ids({ created_at: { conditions: { $less_than_ago: [1] } } })).toEqual([none.id, two.id]);
    expect(await ids({ created_at: { conditions: { $more_than_ago: [1] } } })).toEqual([]);
    expect(await ids({ created_at: { conditions: { $is_days_in_future: [1] } } })).toEqual([]);
    expect(await ids({ created_at: { conditions: { $less_than_future: [1] } } })).toEqual([]);
    expect(await ids({ attributes: { conditions: { $count: [2] } } })).toEqual([two.id]);
    expect(await ids({ attributes: { conditions: { $count_less: [1] } } })).toEqual([none.id]);
    expect(await ids({ attributes: { conditions: { $count_more: [0] } } })).toEqual([two.id]);
    expect(await ids({ price: { conditions: { $more_than_equal: [1000] } } })).toEqual([two.id]);
    expect(await ids({ price: { conditions: { $less_than_equal: [999] } } })).toEqual([]);
  });

  test('when an operand is an object, then it matches a field holding the same object, and only equality takes one', async () => {
    const tag = unique('objects');
    const shaped = await product({ metadata: { tag, dims: { w: 1, h: 2 } } });
    await product({ metadata: { tag, dims: { w: 2, h: 2 } } });
    const made = await autoCollection({ junction: 'and', 'metadata.tag': { conditions: { $is: [tag] } }, 'metadata.dims': { conditions: { $in: [{ w: 1, h: 2 }] } } });
    expect((await members(made.id)).data.map((m) => m.id)).toEqual([shaped.id]);
    const refused = await raw(ctx.target, 'POST', '/v1/product-collections', {
      body: JSON.stringify({ type: 'AUTO_UPDATE', name: unique('Bad'), filter: { junction: 'and', price: { conditions: { $more_than: [{ w: 1 }] } } } }),
    });
    expectError(refused, 400, 'invalid_payload');
    const notDays = await raw(ctx.target, 'POST', '/v1/product-collections', {
      body: JSON.stringify({ type: 'AUTO_UPDATE', name: unique('Bad'), filter: { junction: 'and', created_at: { conditions: { $is_days_ago: ['soon'] } } } }),
    });
    expectError(notDays, 400, 'invalid_payload');
  });

  test('when a filter has no junction, then its conditions must all hold', async () => {
    const tag = unique('nojunction');
    const hit = await product({ price: 300, metadata: { tag } });
    await product({ price: 100, metadata: { tag } });
    const made = await autoCollection({ 'metadata.tag': { conditions: { $is: [tag] } }, price: { conditions: { $more_than: [200] } } });
    expect(made.filter).toMatchObject({ junction: 'and' });
    expect((await members(made.id)).data.map((m) => m.id)).toEqual([hit.id]);
  });

  test('when members are ordered or read after a creation time, then the list follows order and cursor', async () => {
    const tag = unique('ordered');
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await product({ metadata: { tag } }));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const collection = await autoCollection({ junction: 'and', 'metadata.tag': { conditions: { $is: [tag] } } });
    const read = async (query: Record<string, unknown>) =>
      (await ctx.client.GET('/v1/product-collections/{productCollectionId}/products', { params: { path: { productCollectionId: collection.id }, query: query as never } })).data!;
    expect((await read({ order: '-created_at' })).data.map((m) => m.id)).toEqual(made.map((p) => p.id).reverse());
    const after = await read({ starting_after: made[0]!.created_at });
    expect(after.data.map((m) => m.id)).toEqual([made[1]!.id, made[2]!.id]);
    expect(after.total).toBe(2);
    expect((await read({ order: '-created_at', starting_after: made[2]!.created_at })).data.map((m) => m.id)).toEqual([made[1]!.id, made[0]!.id]);
  });

  test('when collections are ordered by type, then auto-update ones come before static ones', async () => {
    await ctx.client.POST('/v1/product-collections', { body: { type: 'STATIC', name: unique('TypeS') } });
    await autoCollection({ junction: 'and', price: { conditions: { $is: [1] } } });
    const listed = (await ctx.client.GET('/v1/product-collections', { params: { query: { order: 'type', limit: 100 } } })).data!.data.map((c) => c.type);
    expect(listed).toEqual([...listed].sort());
    const descending = (await ctx.client.GET('/v1/product-collections', { params: { query: { order: '-type', limit: 100 } } })).data!.data.map((c) => c.type);
    expect(descending).toEqual([...listed].sort().reverse());
  });
});

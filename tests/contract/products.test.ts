import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function createProduct(body: Record<string, unknown> = {}) {
  const result = await ctx.client.POST('/v1/products', { body });
  expect(result.response.status).toBe(200);
  return result.data!;
}

describe('create-product', () => {
  test('when only a name is given, then defaults fill every other field', async () => {
    const name = unique('Plain');
    const product = await createProduct({ name });
    expect(product).toEqual({
      id: expect.stringMatching(/^prod_/),
      source_id: null,
      name,
      price: null,
      attributes: [],
      metadata: {},
      image_url: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated_at: null,
      object: 'product',
      skus: { object: 'list', data_ref: 'data', data: [], total: 0 },
    });
  });

  test('when every field is given, then they are stored and read back', async () => {
    const input = {
      id: unique('prod_custom'),
      source_id: unique('espresso'),
      name: unique('Espresso'),
      price: 2099,
      attributes: ['size', 'grind'],
      metadata: { origin: 'Brazil', roast: 3 },
      image_url: 'https://images.example.com/espresso.JPG',
    };
    const created = await createProduct(input);
    expect(created).toMatchObject(input);
    const read = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: input.id } } });
    expect(read.data).toEqual({ ...created, skus: { object: 'list', data_ref: 'data', data: [], total: 0 } });
  });

  test('when the source_id, name or id is taken, then 409 duplicate_found and nothing is created', async () => {
    const first = await createProduct({ source_id: unique('dup'), name: unique('Dup') });
    for (const body of [{ source_id: first.source_id }, { name: first.name }, { id: first.id }]) {
      const result = await ctx.client.POST('/v1/products', { body });
      const error = expectError(failed(result), 409, 'duplicate_found');
      expect(error.resource_type).toBe('product');
    }
  });

  test.each([
    ['a price that is not an integer', { price: 'ten' }],
    ['a fractional price', { price: 10.5 }],
    ['a negative price', { price: -1 }],
    ['attributes that are not strings', { attributes: [1, 2] }],
    ['repeated attributes', { attributes: ['size', 'size'] }],
    ['metadata that is not an object', { metadata: 'x' }],
    ['an image URL past 2048 characters', { image_url: `https://images.example.com/${'a'.repeat(2048)}.png` }],
    ['an empty id', { id: '' }],
  ])('when the body has %s, then 400 invalid_payload', async (_, body) => {
    const response = await raw(ctx.target, 'POST', '/v1/products', { body: JSON.stringify(body) });
    expectError(response, 400, 'invalid_payload');
  });

  test('when the image URL is plain http, of another type or no URL at all, then it is kept as given', async () => {
    // The public API takes any image URL string.
    for (const imageUrl of ['http://images.example.com/a.png', 'https://images.example.com/a.gif', 'espresso.png', '']) {
      const made = await createProduct({ image_url: imageUrl });
      expect(made.image_url).toBe(imageUrl);
    }
  });

  test('when the body is not JSON, then 400; when it is not JSON at all, then 415', async () => {
    expectError(await raw(ctx.target, 'POST', '/v1/products', { body: '{"name":' }), 400, 'invalid_payload');
    expectError(
      await raw(ctx.target, 'POST', '/v1/products', { body: 'name=x', contentType: 'text/plain' }),
      415,
      'unsupported_media_type',
    );
  });

  test('when the body is over 1 MB, then 413 query_too_large', async () => {
    const body = JSON.stringify({ metadata: { blob: 'x'.repeat(1_100_000) } });
    expectError(await raw(ctx.target, 'POST', '/v1/products', { body }), 413, 'query_too_large');
  });
});

describe('get-product', () => {
  test('when asked by source_id, then the same product is returned as by ID', async () => {
    const product = await createProduct({ source_id: unique('by-source') });
    const bySource = await ctx.client.GET('/v1/products/{productId}', {
      params: { path: { productId: product.source_id! } },
    });
    expect(bySource.data?.id).toBe(product.id);
  });

  test('when the product does not exist, then 404 not_found naming the product', async () => {
    const result = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: 'prod_missing' } } });
    const error = expectError(failed(result), 404, 'not_found');
    expect(error).toMatchObject({ resource_id: 'prod_missing', resource_type: 'product' });
  });
});

describe('update-product', () => {
  test('when some fields are given, then only they change and updated_at is set', async () => {
    const product = await createProduct({ name: unique('Before'), price: 100, metadata: { a: 1, b: 2 } });
    const result = await ctx.client.PUT('/v1/products/{productId}', {
      params: { path: { productId: product.id } },
      body: { price: 250, metadata: { c: 3 } },
    });
    expect(result.data).toEqual({
      ...product,
      price: 250,
      metadata: { c: 3 },
      updated_at: expect.any(String),
    });
    const read = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: product.id } } });
    expect(read.data).toMatchObject({ price: 250, metadata: { c: 3 }, name: product.name });
  });

  test('when a null is given, then the field is cleared', async () => {
    const product = await createProduct({ image_url: 'https://images.example.com/p.png', price: 5 });
    const result = await ctx.client.PUT('/v1/products/{productId}', {
      params: { path: { productId: product.id } },
      body: { image_url: null, price: null },
    });
    expect(result.data).toMatchObject({ image_url: null, price: null });
  });

  test('when the new name is taken, then 409 and the product keeps its name', async () => {
    const taken = await createProduct({ name: unique('Taken') });
    const product = await createProduct({ name: unique('Mine') });
    const result = await ctx.client.PUT('/v1/products/{productId}', {
      params: { path: { productId: product.id } },
      body: { name: taken.name },
    });
    expectError(failed(result), 409, 'duplicate_found');
    const read = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: product.id } } });
    expect(read.data?.name).toBe(product.name);
  });

  test('when the body is empty or the product unknown, then 4xx; a source_id in the body is ignored, never applied', async () => {
    const product = await createProduct();
    expectError(await raw(ctx.target, 'PUT', `/v1/products/${product.id}`, { body: '{}' }), 400, 'invalid_payload');
    const moved = await raw(ctx.target, 'PUT', `/v1/products/${product.id}`, { body: '{"source_id":"other","price":1}' });
    expect(moved).toMatchObject({ status: 200, body: { id: product.id, source_id: product.source_id, price: 1 } });
    expectError(await raw(ctx.target, 'PUT', '/v1/products/prod_missing', { body: '{"price":1}' }), 404, 'not_found');
  });
});

describe('delete-product', () => {
  test('when deleted, then it is gone and its source_id can be used again', async () => {
    const sourceId = unique('to-delete');
    const product = await createProduct({ source_id: sourceId });
    const deleted = await ctx.client.DELETE('/v1/products/{productId}', {
      params: { path: { productId: sourceId }, query: { force: true } },
    });
    expect(deleted.response.status).toBe(204);
    const read = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: product.id } } });
    expectError(failed(read), 404, 'not_found');
    const again = await createProduct({ source_id: sourceId });
    expect(again.id).not.toBe(product.id);
    const twice = await ctx.client.DELETE('/v1/products/{productId}', { params: { path: { productId: product.id } } });
    expectError(failed(twice), 404, 'not_found');
  });
});

describe('list-products', () => {
  test('when paging, then pages partition the products, total counts them all, and a page past the end is empty', async () => {
    const start = new Date().toISOString();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createProduct({ name: unique(`Page ${i}`) }));
    const query = { start_date: start, limit: 2 };
    const pages = [];
    for (const page of [1, 2, 3, 4]) {
      const result = await ctx.client.GET('/v1/products', { params: { query: { ...query, page } } });
      expect(result.data).toMatchObject({ object: 'list', data_ref: 'products', total: 5 });
      pages.push(result.data!.products.map((product) => product.id));
    }
    expect(pages).toEqual([
      [made[0]!.id, made[1]!.id],
      [made[2]!.id, made[3]!.id],
      [made[4]!.id],
      [],
    ]);
    const newestFirst = await ctx.client.GET('/v1/products', {
      params: { query: { start_date: start, order: '-created_at', limit: 100 } },
    });
    expect(newestFirst.data?.products.map((product) => product.id)).toEqual(made.map((product) => product.id).reverse());
  });

  test('when no limit is given, then 10 are returned', async () => {
    for (let i = 0; i < 11; i++) await createProduct();
    const result = await ctx.client.GET('/v1/products');
    expect(result.data?.products).toHaveLength(10);
    expect(result.data?.total).toBeGreaterThanOrEqual(11);
  });

  test('when ordered by updated_at, then the recently updated product comes last', async () => {
    const start = new Date().toISOString();
    const first = await createProduct();
    await createProduct();
    await ctx.client.PUT('/v1/products/{productId}', { params: { path: { productId: first.id } }, body: { price: 1 } });
    const result = await ctx.client.GET('/v1/products', { params: { query: { start_date: start, order: 'updated_at' } } });
    expect(result.data?.products.at(-1)?.id).toBe(first.id);
  });

  test.each([
    ['limit=0'],
    ['limit=101'],
    ['limit=ten'],
    ['page=0'],
    ['order=name'],
    ['start_date=yesterday'],
  ])('when the query has %s, then 400 invalid_query_params', async (query) => {
    expectError(await raw(ctx.target, 'GET', `/v1/products?${query}`), 400, 'invalid_query_params');
  });
});

describe('products with their SKUs, whole and with nulls', () => {
  test('when products are created, updated, read and listed, then each carries the list of its SKUs', async () => {
    const made = await createProduct({ name: unique('WithSkus'), attributes: ['size'] });
    const sku = (await ctx.client.POST('/v1/products/{productId}/skus', { params: { path: { productId: made.id } }, body: { attributes: { size: 'L' } } })).data!;
    const skus = { object: 'list', data_ref: 'data', data: [sku], total: 1 };
    const read = (await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: made.id } } })).data!;
    expect(read.skus).toEqual(skus);
    const updated = await ctx.client.PUT('/v1/products/{productId}', { params: { path: { productId: made.id } }, body: { price: 100 } });
    expect(updated.data?.skus).toEqual(skus);
    const listed = await ctx.client.GET('/v1/products', { params: { query: { limit: 1, order: '-created_at' } } });
    expect(listed.data?.products).toEqual([{ ...read, price: 100, updated_at: updated.data?.updated_at }]);
  });

  test('when a product is sent back whole as GET returns it, then it is accepted and only updated_at changes', async () => {
    const made = await createProduct({ source_id: unique('whole'), name: unique('Whole'), price: 1000, attributes: ['size'], metadata: { a: 1 } });
    await ctx.client.POST('/v1/products/{productId}/skus', { params: { path: { productId: made.id } }, body: { attributes: { size: 'M' } } });
    const read = (await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: made.id } } })).data!;
    const result = await raw(ctx.target, 'PUT', `/v1/products/${made.id}`, { body: JSON.stringify(read) });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ ...read, updated_at: expect.any(String) });
    const after = (await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: made.id } } })).data!;
    expect(after).toEqual(result.body);
  });

  test('when fields are sent as null, then they mean none: empty attributes and metadata, no image or price', async () => {
    const made = await createProduct({ name: unique('Nulls'), attributes: null, metadata: null, image_url: null, price: null });
    expect(made).toMatchObject({ attributes: [], metadata: {}, image_url: null, price: null });
    await ctx.client.PUT('/v1/products/{productId}', {
      params: { path: { productId: made.id } },
      body: { attributes: ['size'], metadata: { a: 1 }, image_url: 'https://images.example.com/a.png', price: 10 },
    });
    const cleared = await ctx.client.PUT('/v1/products/{productId}', {
      params: { path: { productId: made.id } },
      body: { attributes: null, metadata: null, image_url: null, price: null },
    });
    expect(cleared.data).toMatchObject({ attributes: [], metadata: {}, image_url: null, price: null });
  });

  test('when ordered by a field products lack (type, code, campaign, category), then they keep creation order', async () => {
    const start = new Date().toISOString();
    const made = [await createProduct(), await createProduct(), await createProduct()];
    const ids = (list?: { products: { id: string }[] }) => list?.products.map((p) => p.id);
    const byType = await ctx.client.GET('/v1/products', { params: { query: { start_date: start, order: 'type', limit: 100 } } });
    expect(ids(byType.data)).toEqual(made.map((p) => p.id));
    const byCategory = await ctx.client.GET('/v1/products', { params: { query: { start_date: start, order: '-category', limit: 100 } } });
    expect(ids(byCategory.data)).toEqual(made.map((p) => p.id).reverse());
  });
});

import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function productWith(attributes: string[] = ['size', 'grind']) {
  const result = await ctx.client.POST('/v1/products', {
    body: { source_id: unique('sku-parent'), name: unique('Parent'), attributes },
  });
  return result.data!;
}

async function skuOf(productId: string, body: Record<string, unknown> = {}) {
  const result = await ctx.client.POST('/v1/products/{productId}/skus', { params: { path: { productId } }, body });
  expect(result.response.status).toBe(200);
  return result.data!;
}

describe('create-sku', () => {
  test('when created under a product by source_id, then it belongs to that product with defaults filled', async () => {
    const product = await productWith();
    const sku = await skuOf(product.source_id!, { sku: unique('Whole'), attributes: { size: '250g' } });
    expect(sku).toEqual({
      id: expect.stringMatching(/^sku_/),
      source_id: null,
      product_id: product.id,
      sku: expect.any(String),
      price: null,
      currency: null,
      attributes: { size: '250g' },
      image_url: null,
      metadata: {},
      created_at: expect.any(String),
      updated_at: null,
      object: 'sku',
    });
  });

  test('when it sets an attribute the product does not declare, then 400 invalid_sku and no SKU exists', async () => {
    const product = await productWith(['size']);
    const sourceId = unique('bad-attr');
    const result = await ctx.client.POST('/v1/products/{productId}/skus', {
      params: { path: { productId: product.id } },
      body: { source_id: sourceId, attributes: { size: '1kg', colour: 'red' } },
    });
    const error = expectError(failed(result), 400, 'invalid_sku');
    expect(error.details).toContain('colour');
    expectError(failed(await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: sourceId } } })), 404, 'not_found');
  });

  test('when the source_id or sku name is taken, even under another product, then 409 duplicate_found', async () => {
    const first = await skuOf((await productWith()).id, { source_id: unique('sku-dup'), sku: unique('Dup') });
    const other = await productWith();
    for (const body of [{ source_id: first.source_id }, { sku: first.sku }, { id: first.id }]) {
      const result = await ctx.client.POST('/v1/products/{productId}/skus', { params: { path: { productId: other.id } }, body });
      expectError(failed(result), 409, 'duplicate_found');
    }
  });

  test.each([
    ['a lowercase currency', { currency: 'eur' }],
    ['a string price', { price: '12' }],
    ['an attribute string past 255 characters', { attributes: { size: 'x'.repeat(256) } }],
  ])('when the body has %s, then 400 invalid_payload', async (_, body) => {
    const product = await productWith();
    const response = await raw(ctx.target, 'POST', `/v1/products/${product.id}/skus`, { body: JSON.stringify(body) });
    expectError(response, 400, 'invalid_payload');
  });

  test('when attribute values are numbers, booleans or lists and the image URL is any string, then they are kept as given', async () => {
    // The public API documents a SKU with `ranking: 1`, and takes any image URL string (plain http, no extension).
    const product = await productWith(['size', 'ranking', 'organic', 'tags']);
    const attributes = { size: '250g', ranking: 1, organic: true, tags: ['dark', 'roast'] };
    for (const imageUrl of ['http://images.example.com/espresso', 'https://cdn.example.com/i/42?w=200', '']) {
      const sku = await skuOf(product.id, { attributes, image_url: imageUrl });
      expect(sku).toMatchObject({ attributes, image_url: imageUrl });
      const read = await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: sku.id } } });
      expect(read.data).toEqual(sku);
    }
  });

  test('when the product does not exist, then 404 naming the product', async () => {
    const result = await ctx.client.POST('/v1/products/{productId}/skus', {
      params: { path: { productId: 'prod_missing' } },
      body: {},
    });
    expect(expectError(failed(result), 404, 'not_found').resource_type).toBe('product');
  });
});

describe('get-sku and list-SKUs-in-product', () => {
  test('when a product has SKUs, then they are listed under `skus`, paged, with the product total', async () => {
    const product = await productWith();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await skuOf(product.id, { source_id: unique(`s${i}`) }));
    const first = await ctx.client.GET('/v1/products/{productId}/skus', {
      params: { path: { productId: product.id }, query: { limit: 2 } },
    });
    expect(first.data).toEqual({ object: 'list', data_ref: 'skus', skus: [made[0], made[1]], total: 3 });
    const second = await ctx.client.GET('/v1/products/{productId}/skus', {
      params: { path: { productId: product.id }, query: { limit: 2, page: 2, order: '-created_at' } },
    });
    expect(second.data?.skus).toEqual([made[0]]);
    const bySource = await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: made[2]!.source_id! } } });
    expect(bySource.data).toEqual(made[2]);
    const withProduct = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: product.id } } });
    expect(withProduct.data?.skus).toEqual({ object: 'list', data_ref: 'data', data: made, total: 3 });
  });

  test('when the SKU or product is unknown, or limit is out of range, then 4xx', async () => {
    expectError(failed(await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: 'sku_missing' } } })), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/v1/products/prod_missing/skus'), 404, 'not_found');
    const product = await productWith();
    expectError(await raw(ctx.target, 'GET', `/v1/products/${product.id}/skus?limit=101`), 400, 'invalid_query_params');
  });
});

describe('update-sku', () => {
  test('when fields are given, then only they change', async () => {
    const product = await productWith();
    const sku = await skuOf(product.id, { price: 100, attributes: { size: 'S' }, metadata: { a: 1 } });
    const result = await ctx.client.PUT('/v1/products/{productId}/skus/{skuId}', {
      params: { path: { productId: product.id, skuId: sku.id } },
      body: { price: 150, attributes: { size: 'M', grind: 'fine' } },
    });
    expect(result.data).toEqual({ ...sku, price: 150, attributes: { size: 'M', grind: 'fine' }, updated_at: expect.any(String) });
  });

  test('when the SKU belongs to another product, then 404; when an attribute is undeclared, then 400', async () => {
    const product = await productWith(['size']);
    const sku = await skuOf(product.id);
    const other = await productWith();
    const wrongParent = await ctx.client.PUT('/v1/products/{productId}/skus/{skuId}', {
      params: { path: { productId: other.id, skuId: sku.id } },
      body: { price: 1 },
    });
    expectError(failed(wrongParent), 404, 'not_found');
    const undeclared = await ctx.client.PUT('/v1/products/{productId}/skus/{skuId}', {
      params: { path: { productId: product.id, skuId: sku.id } },
      body: { attributes: { grind: 'fine' } },
    });
    expectError(failed(undeclared), 400, 'invalid_sku');
    expectError(await raw(ctx.target, 'PUT', `/v1/products/${product.id}/skus/${sku.id}`, { body: '{}' }), 400, 'invalid_payload');
  });

  test("when a product drops an attribute a SKU still sets, then 400 invalid_product and the product keeps it", async () => {
    const product = await productWith(['size', 'grind']);
    await skuOf(product.id, { attributes: { grind: 'fine' } });
    const result = await ctx.client.PUT('/v1/products/{productId}', {
      params: { path: { productId: product.id } },
      body: { attributes: ['size'] },
    });
    expectError(failed(result), 400, 'invalid_product');
    const read = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: product.id } } });
    expect(read.data?.attributes).toEqual(['size', 'grind']);
  });
});

describe('delete-sku and deleting its product', () => {
  test('when a SKU is deleted, then it is gone and its product keeps the others', async () => {
    const product = await productWith();
    const gone = await skuOf(product.id, { source_id: unique('gone') });
    const kept = await skuOf(product.id);
    const deleted = await ctx.client.DELETE('/v1/products/{productId}/skus/{skuId}', {
      params: { path: { productId: product.id, skuId: gone.source_id! } },
    });
    expect(deleted.response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: gone.id } } })), 404, 'not_found');
    const read = await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: product.id } } });
    expect(read.data?.skus?.data).toEqual([kept]);
    // The freed source_id can be used again.
    await skuOf(product.id, { source_id: gone.source_id });
  });

  test('when a product is deleted, then its SKUs are deleted with it', async () => {
    const product = await productWith();
    const skus = [await skuOf(product.id), await skuOf(product.id)];
    await ctx.client.DELETE('/v1/products/{productId}', { params: { path: { productId: product.id } } });
    for (const sku of skus) {
      expectError(failed(await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: sku.id } } })), 404, 'not_found');
    }
  });
});

describe('SKUs whole, with nulls and with a name', () => {
  test('when a SKU is sent back whole as GET returns it, then it is accepted and only updated_at changes', async () => {
    const product = await productWith();
    const made = await skuOf(product.id, { source_id: unique('whole-sku'), sku: unique('Whole'), price: 100, currency: 'EUR', attributes: { size: 'L' }, metadata: { a: 1 } });
    const read = (await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: made.id } } })).data!;
    const result = await raw(ctx.target, 'PUT', `/v1/products/${product.id}/skus/${made.id}`, { body: JSON.stringify(read) });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ ...read, updated_at: expect.any(String) });
    expect((await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: made.id } } })).data).toEqual(result.body);
  });

  test('when a SKU is created or updated with a name, then it is accepted and ignored: SKUs are named by sku', async () => {
    const product = await productWith();
    const created = await raw(ctx.target, 'POST', `/v1/products/${product.id}/skus`, { body: JSON.stringify({ name: 'Large', sku: unique('Large') }) });
    expect(created.status).toBe(200);
    expect(created.body).not.toHaveProperty('name');
    const id = (created.body as { id: string }).id;
    const updated = await raw(ctx.target, 'PUT', `/v1/products/${product.id}/skus/${id}`, { body: JSON.stringify({ name: 'Huge', price: 5 }) });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ price: 5, sku: (created.body as { sku: string }).sku });
    expect(updated.body).not.toHaveProperty('name');
  });

  test('when fields are sent as null, then they mean none: empty attributes and metadata, no image, price or currency', async () => {
    const product = await productWith();
    const made = await skuOf(product.id, { attributes: null, metadata: null, image_url: null, currency: null });
    expect(made).toMatchObject({ attributes: {}, metadata: {}, image_url: null, currency: null });
    await ctx.client.PUT('/v1/products/{productId}/skus/{skuId}', {
      params: { path: { productId: product.id, skuId: made.id } },
      body: { attributes: { size: 'S' }, metadata: { a: 1 }, price: 10, currency: 'PLN' },
    });
    const cleared = await ctx.client.PUT('/v1/products/{productId}/skus/{skuId}', {
      params: { path: { productId: product.id, skuId: made.id } },
      body: { attributes: null, metadata: null, price: null, currency: null },
    });
    expect(cleared.data).toMatchObject({ attributes: {}, metadata: {}, price: null, currency: null });
  });
});

/**
 * Bulk and metadata jobs for vouchers, customers and products: each runs as an async action, updates every object
 * it names in its own unit of work through the update (or create) operation's domain function, and reports the
 * objects it could not update without stopping.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { finishedAction } from './data-helpers.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function discountVoucher(metadata: Record<string, unknown>) {
  const code = unique('BULK');
  const made = await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, metadata } });
  expect(made.response.status).toBe(200);
  return code;
}

const metadataOf = async (code: string) => (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data!.metadata;

describe('bulk jobs', () => {
  test("when vouchers' metadata is updated in bulk, then each gets its keys over its own, null removes a key, and an unknown code is an error", async () => {
    const a = await discountVoucher({ keep: 1, drop: 'x' });
    const b = await discountVoucher({ keep: 2 });
    const missing = unique('NO-SUCH');
    const sent = await ctx.client.POST('/v1/vouchers/bulk/async', {
      body: [
        { code: a, metadata: { drop: null, store: 'Berlin' } },
        { code: missing, metadata: { store: 'Paris' } },
        { code: b, metadata: { store: 'Rome' } },
      ],
    });
    expect(sent.response.status).toBe(202);
    const action = await finishedAction(ctx.client, sent.data!.async_action_id!);
    expect(action).toMatchObject({ type: 'VOUCHERS.BULK_UPDATE', status: 'DONE', progress: 100 });
    expect(action.result).toEqual({ done_count: 2, failed_count: 1, reports: [], errors: [{ code: missing, key: 'not_found', message: expect.any(String), details: expect.stringContaining(missing) }] });
    expect(await metadataOf(a)).toEqual({ keep: 1, store: 'Berlin' });
    expect(await metadataOf(b)).toEqual({ keep: 2, store: 'Rome' });
    // The update went through the update operation: the voucher says when.
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: a } } })).data!.updated_at).toEqual(expect.any(String));
  });

  test('when the same metadata is set on many vouchers, then each keeps its other keys', async () => {
    const codes = [await discountVoucher({ own: 'a' }), await discountVoucher({ own: 'b' })];
    const sent = await ctx.client.POST('/v1/vouchers/metadata/async', { body: { codes, metadata: { season: 'spring', own: null } } });
    expect(sent.response.status).toBe(202);
    expect(await finishedAction(ctx.client, sent.data!.async_action_id!)).toMatchObject({ type: 'VOUCHERS.METADATA_UPDATE', result: { done_count: 2, failed_count: 0, errors: [] } });
    for (const code of codes) expect(await metadataOf(code)).toEqual({ season: 'spring' });
  });

  test('when customers are sent in bulk, then known ones are updated and new ones made by source_id', async () => {
    const [known, fresh] = [unique('bulk-known'), unique('bulk-new')];
    await ctx.client.POST('/v1/customers', { body: { source_id: known, name: 'Before', phone: '+1 555' } });
    const sent = await ctx.client.POST('/v1/customers/bulk/async', {
      body: [
        { source_id: known, name: 'After', address: { city: 'Lyon' } },
        { source_id: fresh, email: `${fresh}@example.com`, metadata: { tier: 'new' } },
      ],
    });
    expect(sent.response.status).toBe(202);
    expect(await finishedAction(ctx.client, sent.data!.async_action_id!)).toMatchObject({ type: 'CUSTOMERS.BULK_UPDATE', result: { done_count: 2, failed_count: 0 } });
    const read = async (sourceId: string) => (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })).data!;
    expect(await read(known)).toMatchObject({ name: 'After', phone: '+1 555', address: { city: 'Lyon' } });
    expect(await read(fresh)).toMatchObject({ email: `${fresh}@example.com`, metadata: { tier: 'new' } });
  });

  test('when customers are sent in bulk with part of an address, then the unsent address fields are kept or left out, never set to null', async () => {
    const [known, fresh] = [unique('bulk-addr-known'), unique('bulk-addr-new')];
    await ctx.client.POST('/v1/customers', { body: { source_id: known, address: { city: 'Lyon', country: 'France' } } });
    const sent = await ctx.client.POST('/v1/customers/bulk/async', {
      body: [
        { source_id: known, address: { postal_code: '69001' } },
        { source_id: fresh, address: { line_1: 'Rue 1', city: 'Nice' } },
      ],
    });
    expect(await finishedAction(ctx.client, sent.data!.async_action_id!)).toMatchObject({ result: { done_count: 2, failed_count: 0 } });
    const read = async (sourceId: string) => (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })).data!;
    expect((await read(known)).address).toMatchObject({ city: 'Lyon', country: 'France', postal_code: '69001' });
    expect((await read(fresh)).address).toEqual({ line_1: 'Rue 1', city: 'Nice' });
  });

  test("when the same metadata is set on many customers, then it merges, and an unknown source_id is an error", async () => {
    const known = unique('meta-known');
    await ctx.client.POST('/v1/customers', { body: { source_id: known, metadata: { own: true } } });
    const missing = unique('meta-missing');
    const sent = await ctx.client.POST('/v1/customers/metadata/async', { body: { source_ids: [known, missing], metadata: { newsletter: true } } });
    const action = await finishedAction(ctx.client, sent.data!.async_action_id!);
    expect(action).toMatchObject({ type: 'CUSTOMERS.METADATA_UPDATE', result: { done_count: 1, failed_count: 1, errors: [{ source_id: missing, key: 'not_found' }] } });
    expect((await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: known } } })).data!.metadata).toEqual({ own: true, newsletter: true });
  });

  test('when products are sent in bulk, then known ones are updated, new ones made, and one the update refuses is an error that changes nothing of it', async () => {
    const [known, fresh, locked] = [unique('bulk-prod'), unique('bulk-prod-new'), unique('bulk-prod-locked')];
    await ctx.client.POST('/v1/products', { body: { source_id: known, name: unique('Known'), price: 1000, metadata: { origin: 'Peru' } } });
    const lockedProduct = (await ctx.client.POST('/v1/products', { body: { source_id: locked, name: unique('Locked'), attributes: ['size'] } })).data!;
    await ctx.client.POST('/v1/products/{productId}/skus', { params: { path: { productId: lockedProduct.id! } }, body: { sku: unique('Big'), attributes: { size: 'L' } } });
    const sent = await ctx.client.POST('/v1/products/bulk/async', {
      body: [
        { source_id: known, price: 1200, metadata: { roast: 'dark' } },
        { source_id: fresh, name: unique('Fresh'), price: 900, attributes: ['grind'] },
        { source_id: locked, price: 1, attributes: [] },
      ],
    });
    expect(sent.response.status).toBe(202);
    const action = await finishedAction(ctx.client, sent.data!.async_action_id!);
    expect(action).toMatchObject({ type: 'PRODUCTS.BULK_UPDATE', result: { done_count: 2, failed_count: 1, errors: [{ source_id: locked, key: 'invalid_product' }] } });
    const read = async (sourceId: string) => (await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: sourceId } } })).data!;
    expect(await read(known)).toMatchObject({ price: 1200, metadata: { origin: 'Peru', roast: 'dark' } });
    expect(await read(fresh)).toMatchObject({ price: 900, attributes: ['grind'] });
    expect(await read(locked)).toMatchObject({ price: null, attributes: ['size'] });
  });

  test("when the same metadata is set on many products, then it merges, and an unknown source_id is an error", async () => {
    const known = unique('pmeta');
    await ctx.client.POST('/v1/products', { body: { source_id: known, name: unique('Meta'), metadata: { a: 1 } } });
    const missing = unique('pmeta-missing');
    const sent = await ctx.client.POST('/v1/products/metadata/async', { body: { source_ids: [missing, known], metadata: { b: 2 } } });
    expect(await finishedAction(ctx.client, sent.data!.async_action_id!)).toMatchObject({
      type: 'PRODUCTS.METADATA_UPDATE',
      result: { done_count: 1, failed_count: 1, errors: [{ source_id: missing, key: 'not_found' }] },
    });
    expect((await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: known } } })).data!.metadata).toEqual({ a: 1, b: 2 });
  });

  test('when a bulk request breaks the contract, then it is refused with 400 and no job starts', async () => {
    const tooMany = Array.from({ length: 1001 }, (_, index) => ({ code: `C${index}`, metadata: {} }));
    expectError(await raw(ctx.target, 'POST', '/v1/vouchers/bulk/async', { body: JSON.stringify(tooMany) }), 400, 'invalid_payload');
    expectError(failed(await ctx.client.POST('/v1/vouchers/bulk/async', { body: [] })), 400, 'invalid_payload');
    expectError(failed(await ctx.client.POST('/v1/vouchers/bulk/async', { body: [{ code: 'X' }] as never })), 400, 'invalid_payload');
    expectError(failed(await ctx.client.POST('/v1/customers/metadata/async', { body: { source_ids: [], metadata: {} } })), 400, 'invalid_payload');
    expectError(failed(await ctx.client.POST('/v1/products/bulk/async', { body: [{ name: 'No source' }] as never })), 400, 'invalid_payload');
    expectError(failed(await ctx.client.POST('/v1/customers/bulk/async', { body: [{ source_id: unique('c'), email: 'not-an-email' }] })), 400, 'invalid_payload');
  });
});

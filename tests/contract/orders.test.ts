import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

describe('orders', () => {
  test('when created, read by source_id, updated and listed, then each step shows', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('buyer') } })).data!;
    const sourceId = unique('order');
    const created = await ctx.client.POST('/v1/orders', {
      body: { source_id: sourceId, items: [{ quantity: 2, price: 1500 }, { quantity: 1, price: 1000 }], customer: { id: customer.id } },
    });
    expect(created.data).toMatchObject({
      id: expect.stringMatching(/^ord_/),
      source_id: sourceId,
      status: 'CREATED',
      amount: 4000,
      discount_amount: 0,
      total_amount: 4000,
      customer_id: customer.id,
      object: 'order',
    });
    expect(created.data?.items).toHaveLength(2);
    const read = await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: sourceId } } });
    expect(read.data).toEqual(created.data);
    const updated = await ctx.client.PUT('/v1/orders/{orderId}', { params: { path: { orderId: created.data!.id! } }, body: { status: 'PAID' } });
    expect(updated.data).toMatchObject({ status: 'PAID', amount: 4000, updated_at: expect.any(String) });
    const upserted = await ctx.client.POST('/v1/orders', { body: { source_id: sourceId, amount: 5000 } });
    expect(upserted.data).toMatchObject({ id: created.data!.id, amount: 5000, status: 'PAID' });
    const listed = await ctx.client.GET('/v1/orders', { params: { query: { order: '-created_at', limit: 1 } } });
    expect(listed.data).toMatchObject({ object: 'list', data_ref: 'orders' });
    await ctx.client.POST('/v1/orders', { body: { amount: 1000, customer: { source_id: customer.source_id! } } });
    await ctx.client.POST('/v1/orders', { body: { amount: 9999, status: 'CANCELED', customer: { id: customer.id } } });
    const buyer = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } } })).data!;
    expect(buyer.summary?.orders).toEqual({
      total_amount: 6000,
      total_count: 2,
      average_amount: 3000,
      last_order_amount: 1000,
      last_order_date: expect.any(String),
    });
  });

  test('when a redemption names an order, then the order records the discount; a new one is created otherwise', async () => {
    const code = unique('ORDV');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 700 } } });
    const sourceId = unique('redeemed-order');
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { source_id: sourceId, amount: 3000 } } });
    const orderId = redeemed.data!.order!.id!;
    expect(redeemed.data?.order).toMatchObject({ id: expect.stringMatching(/^ord_/), source_id: sourceId });
    const order = (await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId } } })).data!;
    expect(order).toMatchObject({ source_id: sourceId, status: 'PAID', amount: 3000, discount_amount: 700, total_amount: 2300 });
    expect(redeemed.data?.redemptions?.[0]?.order?.id).toBe(orderId);
    const unknown = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { id: 'ord_nope', amount: 10 } } });
    expectError(failed(unknown), 404, 'not_found');
  });

  test('when an order created earlier is named only by reference, then its stored amount is what is discounted and kept', async () => {
    const code = unique('ORDP');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } } });
    const sourceId = unique('stored-order');
    const order = (await ctx.client.POST('/v1/orders', { body: { source_id: sourceId, items: [{ quantity: 2, price: 2500 }], metadata: { channel: 'web' } } })).data!;
    expect(order.amount).toBe(5000);

    const validated = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }], order: { source_id: sourceId } } });
    expect(validated.data).toMatchObject({ valid: true, order: { amount: 5000, discount_amount: 500, total_amount: 4500 } });
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { id: order.id } } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data?.order).toMatchObject({ id: order.id, amount: 5000, discount_amount: 500, total_amount: 4500 });
    const stored = (await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: order.id! } } })).data!;
    expect(stored).toMatchObject({ amount: 5000, discount_amount: 500, total_amount: 4500, metadata: { channel: 'web' } });
    expect(stored.items).toEqual([expect.objectContaining({ quantity: 2, price: 2500, amount: 5000 })]);
    expect(stored.items![0]!.id).toBe(order.items![0]!.id);
  });

  test('when the input is bad or the order unknown, then 4xx', async () => {
    expectError(await raw(ctx.target, 'POST', '/v1/orders', { body: JSON.stringify({ status: 'LOST' }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/orders', { body: JSON.stringify({ customer: { id: 'cust_nope' } }) }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/v1/orders/ord_nope'), 404, 'not_found');
    expectError(await raw(ctx.target, 'PUT', '/v1/orders/ord_nope', { body: '{"status":"PAID"}' }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/v1/orders?limit=101'), 400, 'invalid_query_params');
  });
});

describe('orders: parties, status and round trips', () => {
  test('when an order names its customer and referrer only by details, then both customers are created', async () => {
    const email = `${unique('buyer')}@example.com`;
    const created = await ctx.client.POST('/v1/orders', {
      body: { amount: 2500, customer: { name: 'Grace Hopper', email }, referrer: { name: 'Alan Turing' }, status: 'PAID' },
    });
    expect(created.response.status).toBe(200);
    const order = created.data!;
    expect(order).toMatchObject({ status: 'PAID', customer_id: expect.stringMatching(/^cust_/), referrer_id: expect.stringMatching(/^cust_/) });
    expect(order.customer).toEqual({ id: order.customer_id, object: 'customer' });
    expect(order.referrer).toEqual({ id: order.referrer_id, object: 'customer' });
    const buyer = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: order.customer_id! } } })).data!;
    expect(buyer).toMatchObject({ name: 'Grace Hopper', email, source_id: null });
    expect(buyer.summary?.orders).toMatchObject({ total_count: 1, total_amount: 2500 });
    const referrer = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: order.referrer_id! } } })).data!;
    expect(referrer.name).toBe('Alan Turing');
    // A new source_id creates the customer too, and the next order finds it.
    const sourceId = unique('new-buyer');
    const first = (await ctx.client.POST('/v1/orders', { body: { amount: 100, customer: { source_id: sourceId, name: 'New buyer' } } })).data!;
    const second = (await ctx.client.POST('/v1/orders', { body: { amount: 100, customer: { source_id: sourceId } } })).data!;
    expect(second.customer_id).toBe(first.customer_id);
    // referrer_id names an existing customer by ID or source_id.
    const referred = (await ctx.client.POST('/v1/orders', { body: { amount: 100, referrer_id: sourceId } })).data!;
    expect(referred.referrer_id).toBe(first.customer_id);
    expectError(await raw(ctx.target, 'POST', '/v1/orders', { body: JSON.stringify({ amount: 1, referrer_id: 'cust_nope' }) }), 404, 'not_found');
  });

  test('when an order has a status or a currency, then it is accepted; the status is kept and changes only when asked', async () => {
    for (const status of ['CREATED', 'PAID', 'CANCELED', 'FULFILLED'] as const) {
      const order = await raw(ctx.target, 'POST', '/v1/orders', { body: JSON.stringify({ amount: 1000, status, currency: 'EUR' }) });
      expect(order.status).toBe(200);
      expect(order.body).toMatchObject({ status, amount: 1000 });
      expect(order.body).not.toHaveProperty('currency');
    }
    const sourceId = unique('status-order');
    await ctx.client.POST('/v1/orders', { body: { source_id: sourceId, amount: 1000, status: 'PAID' } });
    const upserted = (await ctx.client.POST('/v1/orders', { body: { source_id: sourceId, metadata: { note: 'gift wrap' } } })).data!;
    expect(upserted).toMatchObject({ status: 'PAID', metadata: { note: 'gift wrap' } });
    const cancelled = (await ctx.client.PUT('/v1/orders/{orderId}', { params: { path: { orderId: sourceId } }, body: { status: 'CANCELED', metadata: null } })).data!;
    expect(cancelled).toMatchObject({ status: 'CANCELED', metadata: {} });
  });

  test('when a whole order as GET returns it is PUT back, then nothing changes but updated_at', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('round-trip') } })).data!;
    const product = (await ctx.client.POST('/v1/products', { body: { source_id: unique('rt-prod'), name: unique('Round trip product'), price: 1200 } })).data!;
    const code = unique('RT');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300, effect: 'APPLY_TO_ITEMS' } } });
    const redeemed = await ctx.client.POST('/v1/redemptions', {
      body: {
        redeemables: [{ object: 'voucher', id: code }],
        order: { source_id: unique('rt-order'), items: [{ product_id: product.id, quantity: 2, metadata: { gift: true } }, { quantity: 1, price: 500 }], metadata: { shop: 'north' } },
        customer: { id: customer.id },
      },
    });
    expect(redeemed.response.status).toBe(200);
    const orderId = redeemed.data!.order!.id!;
    const before = await raw(ctx.target, 'GET', `/v1/orders/${orderId}`);
    const order = before.body as Record<string, unknown>;
    expect(order).toMatchObject({ status: 'PAID', items_discount_amount: 600, total_amount: 2300, customer_id: customer.id, redemptions: expect.any(Object) });
    const after = await raw(ctx.target, 'PUT', `/v1/orders/${orderId}`, { body: JSON.stringify(order) });
    expect(after.status).toBe(200);
    const { updated_at: updatedAt, ...rest } = after.body as Record<string, unknown>;
    const { updated_at: _before, ...expected } = order;
    expect(rest).toEqual(expected);
    expect(updatedAt).toEqual(expect.any(String));
  });

  test('when the customer is explicitly null, then the order has none', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('dropped') } })).data!;
    const order = (await ctx.client.POST('/v1/orders', { body: { amount: 100, customer: { id: customer.id } } })).data!;
    expect(order.customer_id).toBe(customer.id);
    const cleared = (await ctx.client.PUT('/v1/orders/{orderId}', { params: { path: { orderId: order.id! } }, body: { customer: null, referrer: null } })).data!;
    expect(cleared).toMatchObject({ customer_id: null, referrer_id: null });
    expect(cleared).not.toHaveProperty('customer');
    const none = (await ctx.client.POST('/v1/orders', { body: { amount: 100, customer: null, metadata: null } })).data!;
    expect(none).toMatchObject({ customer_id: null, metadata: {} });
  });
});

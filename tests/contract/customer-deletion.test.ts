/** Customers: permanent deletion of a customer's personal data, and the deprecated list of their activities. */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function customer(name: string) {
  const made = await ctx.client.POST('/v1/customers', { body: { source_id: unique(name), name, email: `${name.toLowerCase()}@example.com`, metadata: { vip: true } } });
  expect(made.response.status).toBe(200);
  return made.data!;
}

/** A discount campaign with one code, and the code. */
async function coupon() {
  const campaign = (
    await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Deletion coupons'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } }, vouchers_count: 1 },
    })
  ).data!;
  const code = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaign.id } } })).data!.vouchers![0]!.code!;
  return { campaign, code };
}

async function allActivities(customerId: string) {
  const result = await ctx.client.GET('/v1/customers/{customerId}/activities', { params: { path: { customerId }, query: { limit: 100 } } });
  expect(result.response.status).toBe(200);
  return result.data!;
}

describe('customer-permanently-deletion', () => {
  test('when a customer is deleted permanently, then they, their activity and orders are gone, their redemptions keep only their ID, and the record counts what went', async () => {
    const person = await customer('Forgotten');
    const product = (await ctx.client.POST('/v1/products', { body: { name: unique('Deleted product'), price: 2000 } })).data!;
    const order = await ctx.client.POST('/v1/orders', { body: { status: 'PAID', customer: { id: person.id! }, items: [{ product_id: product.id!, quantity: 2 }] } });
    expect(order.response.status).toBe(200);
    const { code } = await coupon();
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], customer: { id: person.id! }, order: { amount: 3000 } } });
    const redemptionId = redeemed.data!.redemptions![0]!.id!;
    expect((await ctx.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId } } })).data?.customer).toMatchObject({ name: 'Forgotten', email: 'forgotten@example.com' });
    const gift = unique('KEPT');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: gift } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    await ctx.client.POST('/v1/publications', { body: { voucher: gift, customer: { id: person.id! } } });
    const referral = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('Deletion referrals'), campaign_type: 'REFERRAL_PROGRAM', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 1 },
      })
    ).data!;
    const referralCode = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: referral.id } } })).data!.vouchers![0]!.code!;
    await ctx.client.POST('/v1/referrals/members/{memberId}/holders', { params: { path: { memberId: referralCode } }, body: { holders: [{ id: person.id! }] } });
    const listed = (await allActivities(person.id!)).total;

    const deleted = await ctx.client.POST('/v1/customers/{customerId}/permanent-deletion', { params: { path: { customerId: person.source_id! } } });
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toEqual({
      id: expect.stringMatching(/^del_/),
      created_at: expect.any(String),
      related_object_id: person.id,
      related_object: 'customer',
      status: 'DONE',
      data_json: { events: expect.any(Number), customer_events: listed, daily_events: 0, segments: 0, orders: 2, order_events: 2, customer: 1 },
      object: 'pernament_deletion',
    });
    expect(deleted.data!.data_json.events).toBeGreaterThanOrEqual(listed);

    expectError(failed(await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: person.id! } } })), 404, 'not_found');
    expectError(failed(await ctx.client.GET('/v1/customers/{customerId}/activity', { params: { path: { customerId: person.id! } } })), 404, 'not_found');
    expectError(failed(await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: order.data!.id! } } })), 404, 'not_found');
    const redemption = (await ctx.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId } } })).data!;
    expect(redemption.customer).toEqual({ id: person.id, object: 'customer' });
    expect(redemption.customer_id).toBe(person.id);
    const holders = await ctx.client.GET('/v1/referrals/members/{memberId}/holders', { params: { path: { memberId: referralCode } } });
    expect(holders.data).toMatchObject({ data: [], total: 0 });
    // Vouchers stay, as on an ordinary deletion.
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: gift } } })).data).toMatchObject({ code: gift, holder_id: person.id });

    // Deleted for good: a second request is 404, and the source ID makes a new customer with no past.
    expectError(failed(await ctx.client.POST('/v1/customers/{customerId}/permanent-deletion', { params: { path: { customerId: person.id! } } })), 404, 'not_found');
    const again = (await ctx.client.POST('/v1/customers', { body: { source_id: person.source_id! } })).data!;
    expect(again.id).not.toBe(person.id);
    expect(again.name).toBeNull();
    expect((await allActivities(again.id!)).data.map((entry) => entry.type)).toEqual(['customer.created']);
    // The first request to each of the many routes above compiles its validators: generous on a busy machine.
  }, 60_000);

  test('when the customer is unknown, then 404 and nothing changes', async () => {
    expect(expectError(await raw(ctx.target, 'POST', '/v1/customers/cust_nothere/permanent-deletion'), 404, 'not_found').resource_type).toBe('customer');
  });
});

describe('list-customer-activities (deprecated)', () => {
  test('when activities are listed, then they are the same entries as list-customer-activity, with the total, in either order, paged by entry or by time', async () => {
    const person = await customer('Busy');
    for (let i = 1; i <= 6; i++) {
      await pause(3);
      await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: person.id! } }, body: { name: `Busy ${i}` } });
    }
    const current = await ctx.client.GET('/v1/customers/{customerId}/activity', { params: { path: { customerId: person.id! }, query: { limit: 100 } } });
    const legacy = await allActivities(person.source_id!);
    expect(legacy).toEqual({ object: 'list', data_ref: 'data', data: current.data!.data, total: 7 });

    const oldest = await ctx.client.GET('/v1/customers/{customerId}/activities', { params: { path: { customerId: person.id! }, query: { order: 'created_at', limit: 3 } } });
    expect(oldest.data).toMatchObject({ total: 7 });
    expect(oldest.data!.data.map((entry) => entry.id)).toEqual(legacy.data.map((entry) => entry.id).reverse().slice(0, 3));
    const next = await ctx.client.GET('/v1/customers/{customerId}/activities', {
      params: { path: { customerId: person.id! }, query: { order: 'created_at', limit: 3, starting_after_id: oldest.data!.data[2]!.id! } },
    });
    expect(next.data!.data.map((entry) => entry.id)).toEqual(legacy.data.map((entry) => entry.id).reverse().slice(3, 6));
    const cut = legacy.data[3]!.created_at!;
    const before = await ctx.client.GET('/v1/customers/{customerId}/activities', { params: { path: { customerId: person.id! }, query: { starting_after: cut } } });
    expect(before.data!.data.map((entry) => entry.id)).toEqual(legacy.data.slice(4).map((entry) => entry.id));
    const byType = await ctx.client.GET('/v1/customers/{customerId}/activities', { params: { path: { customerId: person.id! }, query: { order: 'type' } } });
    expect(byType.data!.data[0]!.type).toBe('customer.created');
    const byTypeDown = await ctx.client.GET('/v1/customers/{customerId}/activities', { params: { path: { customerId: person.id! }, query: { order: '-type', limit: 100 } } });
    expect(byTypeDown.data!.data.at(-1)!.type).toBe('customer.created');
  });

  test('when the list is narrowed by campaign, product or dates, then only those entries count', async () => {
    const person = await customer('Narrowed');
    const { campaign, code } = await coupon();
    const product = (await ctx.client.POST('/v1/products', { body: { name: unique('Listed product'), price: 1500 } })).data!;
    await pause(3);
    await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], customer: { id: person.id! }, order: { amount: 3000 } } });
    await pause(3);
    await ctx.client.POST('/v1/orders', { body: { status: 'PAID', customer: { id: person.id! }, items: [{ product_id: product.id!, quantity: 1 }] } });
    const query = (extra: Record<string, string>) => ctx.client.GET('/v1/customers/{customerId}/activities', { params: { path: { customerId: person.id! }, query: extra } });
    const inCampaign = await query({ campaign_id: campaign.id! });
    expect(inCampaign.data).toMatchObject({ total: 1, data: [{ type: 'customer.redemption.succeeded' }] });
    const ofType = await query({ campaign_type: 'DISCOUNT_COUPONS' });
    expect(ofType.data?.total).toBe(1);
    const aboutProduct = await query({ product_id: product.id! });
    expect(aboutProduct.data).toMatchObject({ total: 1, data: [{ type: 'customer.order.paid' }] });
    const all = await allActivities(person.id!);
    const created = all.data.at(-1)!.created_at!;
    expect((await query({ end_date: created })).data?.total).toBe(1);
    expect((await query({ start_date: new Date(Date.parse(created) + 1).toISOString() })).data?.total).toBe(all.total - 1);
  });

  test('when the cursor, order, limit or customer is wrong, then 4xx', async () => {
    const person = await customer('Wrong');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${person.id}/activities?starting_after_id=evt_nothere`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${person.id}/activities?order=name`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${person.id}/activities?limit=0`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${person.id}/activities?starting_after=yesterday`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/customers/cust_nothere/activities'), 404, 'not_found');
  });
});

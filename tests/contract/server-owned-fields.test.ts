/**
 * Server-owned fields sent in a request are ignored, never applied: the IDs the server assigns, counters,
 * balances, summaries, timestamps, `object`, and another customer's `holder_id`. Each scenario sends them
 * to a create or update operation, as a careless or hostile client would (or one sending back a whole object
 * it read earlier), and checks that the response and the stored object carry the server's own values.
 */
import { describe, expect, test } from '@jest/globals';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

type Body = Record<string, any>;

async function send(method: string, path: string, body: unknown): Promise<Body> {
  const response = await raw(ctx.target, method, path, { body: JSON.stringify(body) });
  expect({ status: response.status, body: response.status === 200 ? 'ok' : response.body }).toEqual({ status: 200, body: 'ok' });
  return response.body as Body;
}

async function read(path: string): Promise<Body> {
  const response = await raw(ctx.target, 'GET', path);
  expect(response.status).toBe(200);
  return response.body as Body;
}

/** Fields every stored object owns: a forged value for each. */
const FORGED = {
  created_at: '2001-01-01T00:00:00.000Z',
  updated_at: '2001-01-02T00:00:00.000Z',
  object: 'forged',
};

/** A creation time the server set itself: not the forged one, and no later than now. */
function serverTime(value: unknown): void {
  expect(value).not.toBe(FORGED.created_at);
  expect(Date.parse(String(value))).toBeGreaterThan(Date.parse('2020-01-01T00:00:00.000Z'));
}

describe('server-owned fields in requests', () => {
  test('when a customer is created and updated with forged IDs, summaries, loyalty, referrals and timestamps, then none of them is applied', async () => {
    const sourceId = unique('owned');
    const forged = {
      ...FORGED,
      id: 'cust_forged_by_client',
      summary: { redemptions: { total_redeemed: 99 }, orders: { total_amount: 999999, total_count: 9 } },
      loyalty: { points: 5000, referred_customers: 3 },
      referrals: { total: 7, campaigns: [] },
      system_metadata: { vip: true },
    };
    // On create, `id` names an existing customer to update (the public API's upsert), so it is not sent here.
    const { id: _forgedId, ...forgedOnCreate } = forged;
    const created = await send('POST', '/v1/customers', { source_id: sourceId, name: 'Owner', ...forgedOnCreate });
    expect(created.object).toBe('customer');
    serverTime(created.created_at);
    expect(created.summary).toMatchObject({ redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_count: 0 } });
    expect(created.loyalty).toMatchObject({ points: 0, referred_customers: 0 });
    expect(created.referrals).toMatchObject({ total: 0 });
    expect(created.system_metadata).not.toMatchObject({ vip: true });

    const updated = await send('PUT', `/v1/customers/${created.id}`, { ...created, ...forged, name: 'Renamed' });
    expect(updated).toMatchObject({ id: created.id, name: 'Renamed', object: 'customer', created_at: created.created_at });
    expect(updated.summary).toEqual(created.summary);
    expect(updated.loyalty).toEqual(created.loyalty);
    expect(await read(`/v1/customers/${created.id}`)).toMatchObject({ id: created.id, name: 'Renamed', created_at: created.created_at });
    expect((await raw(ctx.target, 'GET', `/v1/customers/${forged.id}`)).status).toBe(404);
  });

  test('when a gift card is created and updated with a forged balance, redemption count, publication count and holder, then the server keeps its own', async () => {
    const code = unique('OWNED');
    const holder = await send('POST', '/v1/customers', { source_id: unique('someone-else') });
    const created = await send('POST', `/v1/vouchers/${code}`, {
      type: 'GIFT_VOUCHER',
      gift: { amount: 5000, balance: 999999 },
      redemption: { quantity: 3, redeemed_quantity: 2 },
      publish: { count: 4 },
      holder_id: holder.id,
      id: 'v_forged',
      ...FORGED,
    });
    expect(created).toMatchObject({ code, gift: { amount: 5000, balance: 5000 }, redemption: { quantity: 3, redeemed_quantity: 0 }, publish: { count: 0 }, object: 'voucher' });
    expect(created.id).not.toBe('v_forged');
    expect(created.holder_id ?? null).toBeNull();
    serverTime(created.created_at);

    const sentBack = { ...created, gift: { ...created.gift, balance: 1 }, redemption: { ...created.redemption, redeemed_quantity: 3 }, holder_id: holder.id, ...FORGED };
    const updated = await send('PUT', `/v1/vouchers/${code}`, sentBack);
    expect(updated).toMatchObject({ id: created.id, gift: { balance: 5000 }, redemption: { redeemed_quantity: 0 }, created_at: created.created_at, object: 'voucher' });
    expect(updated.holder_id ?? null).toBeNull();
    expect(await read(`/v1/vouchers/${code}`)).toMatchObject({ gift: { balance: 5000 }, redemption: { redeemed_quantity: 0 } });
  });

  test('when a campaign is created with forged counters and statuses, then it counts its own vouchers', async () => {
    const created = await send('POST', '/v1/campaigns', {
      name: unique('Owned campaign'),
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      vouchers_count: 2,
      id: 'camp_forged',
      creation_status: 'FAILED',
      vouchers_generation_status: 'FAILED',
      ...FORGED,
    });
    expect(created.id).not.toBe('camp_forged');
    expect(created).toMatchObject({ object: 'campaign', vouchers_count: 2, creation_status: 'DONE', vouchers_generation_status: 'DONE' });
    serverTime(created.created_at);
    const vouchers = await read(`/v1/vouchers?campaign_id=${created.id}&limit=10`);
    expect(vouchers.total).toBe(2);
  });

  test('when a product, a category and a validation rule are created with forged timestamps and object names, then the server sets its own', async () => {
    const product = await send('POST', '/v1/products', { name: unique('Owned product'), skus: { total: 4, data: [] }, ...FORGED });
    expect(product).toMatchObject({ object: 'product' });
    serverTime(product.created_at);
    expect(product.updated_at ?? null).toBeNull();

    const category = await send('POST', '/v1/categories', { name: unique('Owned category'), hierarchy: 1, id: 'cat_forged', ...FORGED });
    expect(category.id).not.toBe('cat_forged');
    expect(category.object).toBe('category');
    serverTime(category.created_at);

    const rule = await send('POST', '/v1/validation-rules', {
      name: unique('Owned rule'),
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [100] } } },
      id: 'val_forged',
      assignments_count: 9,
      ...FORGED,
    });
    expect(rule.id).not.toBe('val_forged');
    expect(rule).toMatchObject({ assignments_count: 0 });
    serverTime(rule.created_at);
  });

  test('when a loyalty member is added with a forged points balance, then the card starts from the program', async () => {
    const program = await send('POST', '/v1/loyalties', {
      name: unique('Owned loyalty'),
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } },
    });
    const member = await send('POST', `/v1/loyalties/${program.id}/members`, {
      customer: { source_id: unique('owned-member') },
      loyalty_card: { points: 100000, balance: 100000 },
      ...FORGED,
    });
    expect(member).toMatchObject({ object: 'voucher', loyalty_card: { points: 0, balance: 0 } });
    serverTime(member.created_at);
  });
});

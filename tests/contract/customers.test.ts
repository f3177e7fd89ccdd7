import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function customer(body: Record<string, unknown> = {}) {
  const result = await ctx.client.POST('/v1/customers', { body });
  expect(result.response.status).toBe(200);
  return result.data!;
}

const ZERO_SUMMARY = {
  redemptions: {
    total_redeemed: 0,
    total_failed: 0,
    total_succeeded: 0,
    total_rolled_back: 0,
    total_rollback_failed: 0,
    total_rollback_succeeded: 0,
    gift: { redeemed_amount: 0, amount_to_go: 0 },
    loyalty_card: { redeemed_points: 0, points_to_go: 0 },
  },
  orders: { total_amount: 0, total_count: 0, average_amount: 0, last_order_amount: 0, last_order_date: null },
};

describe('create-customer', () => {
  test('when created, then every field is present, with zeroed summary, loyalty and referrals', async () => {
    const sourceId = unique('jane');
    const made = await customer({
      source_id: sourceId,
      name: 'Jane Doe',
      email: 'jane@example.com',
      birthdate: '1990-04-01',
      address: { city: 'Warsaw', country: 'Poland' },
      metadata: { tier: 'gold' },
    });
    expect(made).toEqual({
      id: expect.stringMatching(/^cust_/),
      source_id: sourceId,
      name: 'Jane Doe',
      description: null,
      email: 'jane@example.com',
      phone: null,
      birthday: null,
      birthdate: '1990-04-01',
      address: { city: 'Warsaw', state: null, line_1: null, line_2: null, country: 'Poland', postal_code: null },
      summary: ZERO_SUMMARY,
      loyalty: { points: 0, referred_customers: 0, campaigns: {} },
      referrals: { total: 0, campaigns: [] },
      metadata: { tier: 'gold' },
      system_metadata: {},
      created_at: expect.any(String),
      updated_at: null,
      object: 'customer',
    });
  });

  test('when created without metadata, then the customer has no metadata key, as the public API sends it', async () => {
    const made = await customer({ source_id: unique('bare') });
    expect(made).not.toHaveProperty('metadata');
    const read = await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: made.id! } } });
    expect(read.data).not.toHaveProperty('metadata');
  });

  test('when the source_id exists, then that customer is updated, not duplicated', async () => {
    const sourceId = unique('upsert');
    const first = await customer({ source_id: sourceId, name: 'First', email: 'a@example.com' });
    const second = await customer({ source_id: sourceId, name: 'Second' });
    expect(second).toMatchObject({ id: first.id, name: 'Second', email: 'a@example.com', updated_at: expect.any(String) });
    const list = await ctx.client.GET('/v1/customers', { params: { query: { name: 'Second', limit: 100 } } });
    expect(list.data?.customers.filter((c) => c.source_id === sourceId)).toHaveLength(1);
  });

  test.each([
    ['a malformed birthdate', { birthdate: '1990-13-45' }],
    ['a birthdate with a time', { birthdate: '1990-04-01T00:00:00Z' }],
    ['a malformed deprecated birthday', { birthday: '01/04/1990' }],
    ['a malformed email', { email: 'not-an-email' }],
    ['an address that is not an object', { address: 'Warsaw' }],
    ['a numeric name', { name: 5 }],
  ])('when the body has %s, then 400 invalid_payload', async (_, body) => {
    expectError(await raw(ctx.target, 'POST', '/v1/customers', { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });
});

describe('get, update and delete', () => {
  test('when updated by source_id, then only the given fields change and nulls clear', async () => {
    const made = await customer({ source_id: unique('upd'), name: 'Old', phone: '123', metadata: { a: 1 } });
    const result = await ctx.client.PUT('/v1/customers/{customerId}', {
      params: { path: { customerId: made.source_id! } },
      body: { name: 'New', phone: null, birthday: '1980-01-02', address: { city: 'Krakow' } },
    });
    expect(result.data).toEqual({
      ...made,
      name: 'New',
      phone: null,
      birthday: '1980-01-02',
      address: { city: 'Krakow', state: null, line_1: null, line_2: null, country: null, postal_code: null },
      updated_at: expect.any(String),
    });
    const read = await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: made.id! } } });
    expect(read.data).toEqual(result.data);
  });

  test('when the body is empty or bad, or the customer unknown, then 4xx and nothing changes', async () => {
    const made = await customer({ name: 'Stable' });
    expectError(await raw(ctx.target, 'PUT', `/v1/customers/${made.id}`, { body: '{}' }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'PUT', `/v1/customers/${made.id}`, { body: '{"birthdate":"tomorrow"}' }), 400, 'invalid_payload');
    const missing = await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: 'cust_missing' } }, body: { name: 'x' } });
    expect(expectError(failed(missing), 404, 'not_found').resource_type).toBe('customer');
    const read = await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: made.id! } } });
    expect(read.data).toEqual(made);
  });

  test('when an update repeats source_id (as the published SDK sends it) or names another, then it is ignored: the key never changes', async () => {
    const sourceId = unique('keep');
    const made = await customer({ source_id: sourceId, name: 'Before' });
    const updated = await raw(ctx.target, 'PUT', `/v1/customers/${made.id}`, { body: JSON.stringify({ source_id: 'someone-else', name: 'After' }) });
    expect(updated).toMatchObject({ status: 200, body: { id: made.id, source_id: sourceId, name: 'After' } });
    const bySourceId = await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } });
    expect(bySourceId.data).toMatchObject({ id: made.id, name: 'After' });
  });

  test('when deleted, then it is gone and the source_id makes a new customer', async () => {
    const sourceId = unique('del');
    const made = await customer({ source_id: sourceId });
    const path = { customerId: sourceId };
    expect((await ctx.client.DELETE('/v1/customers/{customerId}', { params: { path } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/customers/{customerId}', { params: { path } })), 404, 'not_found');
    expectError(failed(await ctx.client.DELETE('/v1/customers/{customerId}', { params: { path } })), 404, 'not_found');
    expect((await customer({ source_id: sourceId })).id).not.toBe(made.id);
  });
});

describe('list-customers', () => {
  test('when filtered by email, name, city and creation time, then exactly the matches are listed and counted', async () => {
    const start = new Date(Date.now() - 1).toISOString();
    const email = `${unique('list')}@example.com`;
    const city = unique('City');
    const a = await customer({ email, name: 'Alpha', address: { city } });
    const b = await customer({ email, name: 'Beta' });
    const c = await customer({ name: 'Alpha', address: { city } });
    const ids = (list?: { customers: { id?: string }[] }) => list?.customers.map((x) => x.id);

    const byEmail = await ctx.client.GET('/v1/customers', { params: { query: { email, order: 'created_at' } } });
    expect(byEmail.data).toMatchObject({ object: 'list', data_ref: 'customers', total: 2 });
    expect(ids(byEmail.data)).toEqual([a.id, b.id]);
    const byCity = await ctx.client.GET('/v1/customers', { params: { query: { city, order: '-created_at' } } });
    expect(ids(byCity.data)).toEqual([c.id, a.id]);
    const byNameAndCity = await ctx.client.GET('/v1/customers', { params: { query: { city, name: 'Alpha', email } } });
    expect(ids(byNameAndCity.data)).toEqual([a.id]);
    const paged = await ctx.client.GET('/v1/customers', { params: { query: { email, limit: 1, page: 2, order: 'created_at' } } });
    expect(paged.data).toMatchObject({ total: 2 });
    expect(ids(paged.data)).toEqual([b.id]);
    const past = await ctx.client.GET('/v1/customers', { params: { query: { email, limit: 1, page: 3 } } });
    expect(past.data?.customers).toEqual([]);

    const after = await raw(ctx.target, 'GET', `/v1/customers?city=${city}&created_at[after]=${encodeURIComponent(start)}`);
    expect((after.body as { total: number }).total).toBe(2);
    const before = await raw(ctx.target, 'GET', `/v1/customers?city=${city}&created_at[before]=2000-01-01`);
    expect((before.body as { total: number }).total).toBe(0);
  });

  test('when filtered by update time, then only updated customers inside the window are listed', async () => {
    const email = `${unique('upd')}@example.com`;
    const untouched = await customer({ email });
    const touched = await customer({ email });
    await ctx.client.PUT('/v1/customers/{customerId}', { params: { path: { customerId: touched.id! } }, body: { name: 'T' } });
    const result = await raw(ctx.target, 'GET', `/v1/customers?email=${encodeURIComponent(email)}&updated_at[after]=2000-01-01`);
    expect((result.body as { customers: { id: string }[] }).customers.map((x) => x.id)).toEqual([touched.id]);
    expect(untouched.updated_at).toBeNull();
  });

  test.each([['limit=0'], ['limit=101'], ['page=0'], ['created_at[before]=soon'], ['order=email']])(
    'when the query has %s, then 400 invalid_query_params',
    async (query) => {
      expectError(await raw(ctx.target, 'GET', `/v1/customers?${query}`), 400, 'invalid_query_params');
    },
  );
});

describe('whole customers and explicit nulls', () => {
  test('when a customer is sent back whole as GET returns it, then it is accepted and nothing changes, updated_at included', async () => {
    const made = await customer({
      source_id: unique('whole'),
      name: 'Jane Doe',
      email: 'jane@example.com',
      birthdate: '1990-04-01',
      address: { city: 'Warsaw', country: 'Poland' },
      metadata: { tier: 'gold' },
    });
    const read = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: made.id! } } })).data!;
    const result = await raw(ctx.target, 'PUT', `/v1/customers/${made.id}`, { body: JSON.stringify(read) });
    expect(result.status).toBe(200);
    // Nothing in it differs from what is stored, so it is no update: no event, and the update time stays.
    expect(result.body).toEqual(read);
    const after = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: made.id! } } })).data!;
    expect(after).toEqual(read);
  });

  test('when fields are sent as null, then they mean none: metadata is left out or empties, address and text fields clear', async () => {
    const made = await customer({ source_id: unique('nulls'), name: null, email: null, address: null, metadata: null });
    expect(made).toMatchObject({ name: null, email: null, address: null });
    expect(made).not.toHaveProperty('metadata');
    const filled = await ctx.client.PUT('/v1/customers/{customerId}', {
      params: { path: { customerId: made.id! } },
      body: { name: 'Filled', address: { city: 'Gdansk' }, metadata: { a: 1 } },
    });
    expect(filled.data).toMatchObject({ name: 'Filled', address: { city: 'Gdansk' }, metadata: { a: 1 } });
    const cleared = await ctx.client.PUT('/v1/customers/{customerId}', {
      params: { path: { customerId: made.id! } },
      body: { name: null, address: null, metadata: null },
    });
    expect(cleared.data).toMatchObject({ name: null, address: null, metadata: {} });
    const read = await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: made.id! } } });
    expect(read.data).toEqual(cleared.data);
  });
});

describe('create-customer with an id', () => {
  test('when the body names an existing customer by id, then that customer is updated and its source_id kept', async () => {
    const sourceId = unique('byid');
    const made = await customer({ source_id: sourceId, name: 'Before', phone: '1' });
    const updated = await customer({ id: made.id, source_id: unique('ignored'), name: 'After' });
    expect(updated).toEqual({ ...made, name: 'After', updated_at: expect.any(String) });
    const bySource = await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } });
    expect(bySource.data?.id).toBe(made.id);
  });

  test('when the id names no customer, then 404 and nothing is created', async () => {
    const sourceId = unique('ghost');
    const result = await raw(ctx.target, 'POST', '/v1/customers', { body: JSON.stringify({ id: 'cust_missing_one', source_id: sourceId }) });
    expect(expectError(result, 404, 'not_found').resource_type).toBe('customer');
    expectError(failed(await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })), 404, 'not_found');
  });
});

describe('list-customers pages, cursors and order', () => {
  test('when a page has more matches after it, then has_more is true, and false on the last page', async () => {
    const email = `${unique('more')}@example.com`;
    for (let i = 0; i < 3; i++) await customer({ email });
    const first = await ctx.client.GET('/v1/customers', { params: { query: { email, limit: 2 } } });
    expect(first.data).toMatchObject({ total: 3, has_more: true });
    const last = await ctx.client.GET('/v1/customers', { params: { query: { email, limit: 2, page: 2 } } });
    expect(last.data).toMatchObject({ total: 3, has_more: false });
    expect(last.data?.customers).toHaveLength(1);
  });

  test('when starting_after is a creation time, then only customers created after it (before it, newest first) are listed; newest first is the default', async () => {
    const email = `${unique('cursor')}@example.com`;
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await customer({ email, name: `c${i}` }));
      // Distinct creation times, so that each customer is on one side of a cursor.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const after = await ctx.client.GET('/v1/customers', { params: { query: { email, order: 'created_at', starting_after: made[0]!.created_at! } } });
    expect(after.data?.customers.map((c) => c.id)).toEqual([made[1]!.id, made[2]!.id]);
    expect(after.data?.total).toBe(2);
    const before = await ctx.client.GET('/v1/customers', { params: { query: { email, order: '-created_at', starting_after: made[2]!.created_at! } } });
    expect(before.data?.customers.map((c) => c.id)).toEqual([made[1]!.id, made[0]!.id]);
    // Without an order, the list is newest first and the cursor reads back in time (what the SDKs' scroll
    // helpers send: no order, and a cursor in the far future).
    const unordered = await ctx.client.GET('/v1/customers', { params: { query: { email } } });
    expect(unordered.data?.customers.map((c) => c.id)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
    const scrolled = await ctx.client.GET('/v1/customers', { params: { query: { email, limit: 1, starting_after: '2200-01-01T00:00:00Z' } } });
    expect(scrolled.data).toMatchObject({ total: 3, has_more: true, customers: [{ id: made[2]!.id }] });
    const next = await ctx.client.GET('/v1/customers', { params: { query: { email, limit: 1, starting_after: made[2]!.created_at! } } });
    expect(next.data?.customers.map((c) => c.id)).toEqual([made[1]!.id]);
  });

  test('when ordered by source_id, then customers sort by it, those without one first (last descending)', async () => {
    const email = `${unique('bysource')}@example.com`;
    const prefix = unique('src');
    const b = await customer({ email, source_id: `${prefix}-b` });
    const none = await customer({ email });
    const a = await customer({ email, source_id: `${prefix}-a` });
    const ascending = await ctx.client.GET('/v1/customers', { params: { query: { email, order: 'source_id' } } });
    expect(ascending.data?.customers.map((c) => c.id)).toEqual([none.id, a.id, b.id]);
    const descending = await ctx.client.GET('/v1/customers', { params: { query: { email, order: '-source_id' } } });
    expect(descending.data?.customers.map((c) => c.id)).toEqual([b.id, a.id, none.id]);
  });

  test('when filtered by a segment that does not exist, then 404 with resource_type segment', async () => {
    const result = await raw(ctx.target, 'GET', '/v1/customers?segment_id=seg_nowhere');
    expect(expectError(result, 404, 'not_found').resource_type).toBe('segment');
  });
});

describe('customer loyalty by program', () => {
  test('when the customer holds cards, then each program shows its points, and the tier the card is in where the program has tiers', async () => {
    const newProgram = async () =>
      (await ctx.client.POST('/v1/loyalties', { body: { name: unique('Club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } as never })).data!;
    const tiered = await newProgram();
    const plain = await newProgram();
    const tiers = (
      await ctx.client.POST('/v1/loyalties/{campaignId}/tiers', {
        params: { path: { campaignId: tiered.id! } },
        body: [
          { name: 'Silver', points: { from: 0, to: 99 } },
          { name: 'Gold', points: { from: 100, to: null } },
        ],
      })
    ).data!;
    const sourceId = unique('member');
    for (const program of [tiered, plain]) {
      const joined = await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: program.id! } }, body: { customer: { source_id: sourceId } } });
      expect(joined.response.status).toBe(200);
    }
    const read = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })).data!;
    expect(read.loyalty?.campaigns).toEqual({
      [tiered.name!]: { points: 0, referred_customers: 0, loyalty_tier: tiers[0]!.id },
      [plain.name!]: { points: 0, referred_customers: 0 },
    });
  });
});

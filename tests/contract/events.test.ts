/** Custom events through the server-side API: the customer they create or find, and the response. */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { expectError } from './expect-error.js';
import { managementClientFor, raw, runsWith, unique, useTarget } from './target.js';

const ctx = useTarget();
const runs = runsWith(describe, ['management', 'projectId']);

const VISITED = unique('visited');

runs('track-custom-event', () => {
  beforeAll(async () => {
    const created = await managementClientFor(ctx.target).POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      params: { path: { projectId: ctx.target.projectId! } },
      body: { name: VISITED, schema: { properties: {} } },
    });
    expect(created.response.status).toBe(200);
  });

  test('when the source_id is new, then the customer is created with every customer field given, and the response names it', async () => {
    const sourceId = unique('event-new');
    const customer = {
      source_id: sourceId,
      name: 'Eve Visitor',
      description: 'Came from the fair',
      email: 'eve@example.com',
      phone: '+48 600 000 001',
      birthdate: '1992-02-03',
      address: { city: 'Poznan', postal_code: '60-001' },
      metadata: { channel: 'fair' },
    };
    const tracked = await ctx.client.POST('/v1/events', { body: { event: VISITED, customer, metadata: { booth: 7 } } });
    expect(tracked.response.status).toBe(200);
    expect(tracked.data).toEqual({
      object: 'event',
      type: VISITED,
      customer: { id: expect.stringMatching(/^cust_/), source_id: sourceId, name: 'Eve Visitor', email: 'eve@example.com', metadata: { channel: 'fair' }, object: 'customer' },
      referral: null,
      loyalty: null,
      metadata: { booth: 7 },
    });
    const stored = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })).data!;
    expect(stored).toMatchObject({
      id: tracked.data!.customer.id,
      description: 'Came from the fair',
      phone: '+48 600 000 001',
      birthdate: '1992-02-03',
      address: { city: 'Poznan', postal_code: '60-001', line_1: null },
    });
  });

  test('when the customer exists, then the event is theirs and leaves them unchanged', async () => {
    const made = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('event-known'), name: 'Known' } })).data!;
    const byId = await ctx.client.POST('/v1/events', { body: { event: VISITED, customer: { id: made.id, name: 'Other name' } } });
    expect(byId.data?.customer).toMatchObject({ id: made.id, name: 'Known' });
    const bySource = await ctx.client.POST('/v1/events', { body: { event: VISITED, customer: { source_id: made.source_id!, phone: '1' } } });
    expect(bySource.data?.customer.id).toBe(made.id);
    expect((await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: made.id! } } })).data).toEqual(made);
  });

  test('when the customer is unknown, unnamed or the body is malformed, then 4xx and no customer is made', async () => {
    const post = (body: unknown) => raw(ctx.target, 'POST', '/v1/events', { body: JSON.stringify(body) });
    expect(expectError(await post({ event: VISITED, customer: { id: 'cust_missing' } }), 404, 'not_found').resource_type).toBe('customer');
    expectError(await post({ event: VISITED, customer: { name: 'Nobody' } }), 400, 'invalid_customer');
    const sourceId = unique('event-bad');
    expectError(await post({ event: VISITED, customer: { source_id: sourceId, birthdate: 'someday' } }), 400, 'invalid_payload');
    expectError(await post({ event: VISITED, customer: { source_id: sourceId }, referral: {} }), 400, 'invalid_payload');
    expectError(await post({ event: VISITED, customer: { source_id: sourceId }, loyalty: {} }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'GET', `/v1/customers/${sourceId}`), 404, 'not_found');
  });
});

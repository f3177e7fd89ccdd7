import { beforeAll, describe, expect, test } from '@jest/globals';
import { expectError } from './expect-error.js';
import { managementClientFor, raw, recordingFetch, runsWith, unique, useTarget } from './target.js';

const ctx = useTarget();
const runs = runsWith(describe, ['client', 'management', 'projectId']);

/**
 * A call under /client/v1 with the target's client key; `headers` may drop or replace any of them. It goes
 * through the suite's recording fetch, so its response is held to the contract and the kit counts the call.
 */
async function clientCall(method: string, path: string, body?: unknown, headers: Record<string, string | undefined> = {}) {
  const client = ctx.target.client!;
  const all: Record<string, string | undefined> = {
    'X-Client-Application-Id': client.appId,
    'X-Client-Token': client.token,
    origin: client.origin,
    ...(body !== undefined && { 'Content-Type': 'application/json' }),
    ...headers,
  };
  const response = await recordingFetch(`${ctx.target.baseUrl}${path}`, {
    method,
    headers: Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined, headers: response.headers };
}

const SIGNED_UP = unique('signed_up');

runs('client-side API and custom events', () => {
  beforeAll(async () => {
    const management = managementClientFor(ctx.target);
    const created = await management.POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      params: { path: { projectId: ctx.target.projectId! } },
      body: { name: SIGNED_UP, schema: { properties: { plan: { type: 'string', optional: false, eq: ['free', 'pro'] } } } },
    });
    expect(created.response.status).toBe(200);
  });

  test('an event is tracked for a new customer, with the allowed origin echoed for browsers', async () => {
    const sourceId = unique('visitor');
    const tracked = await clientCall('POST', '/client/v1/events', { event: SIGNED_UP, customer: { source_id: sourceId, name: 'Visitor' }, metadata: { plan: 'pro' } });
    expect(tracked.status).toBe(200);
    expect(tracked.body).toEqual({
      object: 'event',
      type: SIGNED_UP,
      customer: { id: expect.stringMatching(/^cust_/), name: 'Visitor', email: null, source_id: sourceId, object: 'customer' },
      referral: null,
      loyalty: null,
      metadata: { plan: 'pro' },
    });
    expect(tracked.headers.get('access-control-allow-origin')).toBe(ctx.target.client!.origin);
    const activity = await ctx.client.GET('/v1/customers/{customerId}/activity', { params: { path: { customerId: sourceId } } });
    expect(activity.data?.data.map((entry) => entry.type)).toContain('customer.custom_event');
    const serverSide = await ctx.client.POST('/v1/events', { body: { event: SIGNED_UP, customer: { source_id: sourceId }, metadata: { plan: 'free' } } });
    expect(serverSide.data).toMatchObject({ object: 'event', type: SIGNED_UP, customer: { source_id: sourceId } });
  });

  test('a custom event earns loyalty points through an earning rule based on it', async () => {
    const club = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('Event club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
    await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', { params: { path: { campaignId: club.id! } }, body: [{ event: SIGNED_UP, loyalty: { type: 'FIXED', points: 40 } }] });
    const sourceId = unique('member');
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: sourceId } } })).data!;
    const tracked = await clientCall('POST', '/client/v1/events', { event: SIGNED_UP, customer: { source_id: sourceId }, loyalty: { code: card.code }, metadata: { plan: 'free' } });
    expect(tracked.status).toBe(200);
    const after = await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: card.code! } } });
    expect(after.data?.loyalty_card).toMatchObject({ points: 40, balance: 40 });
    const activity = await ctx.client.GET('/v1/loyalties/members/{memberId}/activity', { params: { path: { memberId: card.code! } } });
    expect(activity.data?.data[0]).toMatchObject({ type: 'customer.rewarded.loyalty_points', data: { data: { points: 40 } } });
  });

  test('a custom event carrying a referral code counts a conversion of a program that converts on it', async () => {
    const program = await ctx.client.POST('/v1/campaigns', {
      body: {
        name: unique('Refer a friend'),
        campaign_type: 'REFERRAL_PROGRAM',
        referral_program: { conversion_event_type: 'custom_event', custom_event: { name: SIGNED_UP } },
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
        vouchers_count: 1,
      },
    });
    expect(program.data?.referral_program).toEqual({ conversion_event_type: 'custom_event', custom_event: { id: expect.any(String), name: SIGNED_UP } });
    const referrer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('referrer') } })).data!;
    const published = await ctx.client.POST('/v1/publications', { body: { campaign: { name: program.data!.name! }, customer: { id: referrer.id } } });
    const code = published.data!.voucher!.code;
    const refereeSource = unique('referee');
    await clientCall('POST', '/client/v1/events', { event: SIGNED_UP, customer: { source_id: refereeSource }, referral: { code }, metadata: { plan: 'pro' } });
    await clientCall('POST', '/client/v1/events', { event: SIGNED_UP, customer: { source_id: refereeSource }, referral: { code }, metadata: { plan: 'pro' } });
    const referee = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: refereeSource } } })).data!;
    expect(referee.referrals).toEqual({ total: 1, campaigns: [expect.objectContaining({ campaign_id: program.data!.id, referrer_id: referrer.id })] });
    const counted = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: referrer.id! } } })).data!;
    expect(counted.loyalty).toMatchObject({ referred_customers: 1, campaigns: { [program.data!.name!]: { referred_customers: 1 } } });
  });

  test('a referral code nobody holds counts for the referrer_id given; a program converting on another event counts nothing', async () => {
    const referralProgram = async (convertsOn: 'custom_event' | 'redemption') =>
      (
        await ctx.client.POST('/v1/campaigns', {
          body: {
            name: unique('Refer'),
            campaign_type: 'REFERRAL_PROGRAM',
            referral_program: convertsOn === 'custom_event' ? { conversion_event_type: 'custom_event', custom_event: { name: SIGNED_UP } } : { conversion_event_type: 'redemption' },
            voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
            vouchers_count: 1,
          },
        })
      ).data!;
    const codeOf = async (campaignId: string) => (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaignId } } })).data!.vouchers![0]!.code!;
    const referrer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('referrer') } })).data!;

    const unheld = await referralProgram('custom_event');
    const refereeId = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('referee') } })).data!.id;
    // The referee named by service ID this time, and the referrer by source ID.
    const tracked = await clientCall('POST', '/client/v1/events', {
      event: SIGNED_UP,
      customer: { id: refereeId },
      referral: { code: await codeOf(unheld.id!), referrer_id: referrer.source_id },
      metadata: { plan: 'free' },
    });
    expect(tracked.body.customer.id).toBe(refereeId);
    const referee = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: refereeId! } } })).data!;
    expect(referee.referrals).toEqual({ total: 1, campaigns: [expect.objectContaining({ campaign_id: unheld.id, referrer_id: referrer.id })] });

    const onRedemption = await referralProgram('redemption');
    const other = unique('referee');
    await clientCall('POST', '/client/v1/events', { event: SIGNED_UP, customer: { source_id: other }, referral: { code: await codeOf(onRedemption.id!), referrer_id: referrer.id }, metadata: { plan: 'free' } });
    expect((await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: other } } })).data!.referrals).toEqual({ total: 0, campaigns: [] });
    const counted = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: referrer.id! } } })).data!;
    expect(counted.loyalty?.campaigns).toEqual({ [unheld.name!]: expect.objectContaining({ referred_customers: 1 }) });
  });

  test('client-side validations, redemptions, qualifications and tiers share the server engine', async () => {
    const code = unique('CLIENT');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 }, redemption: { quantity: 1 } } });
    const request = { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } };
    const validated = await clientCall('POST', '/client/v1/validations', { ...request, session: { type: 'LOCK' } });
    expect(validated.body).toMatchObject({ valid: true, order: { discount_amount: 300, total_amount: 1700 }, session: { type: 'LOCK' }, stacking_rules: { applicable_redeemables_limit: 5 } });
    expect(validated.body).not.toHaveProperty('inapplicable_redeemables');
    const redeemed = await clientCall('POST', '/client/v1/redemptions', { ...request, session: { key: validated.body.session.key } });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.redemptions[0]).toMatchObject({ voucher: { code }, session: { key: validated.body.session.key }, channel: { channel_type: 'API' } });
    const again = await clientCall('POST', '/client/v1/redemptions', request);
    expectError(again, 400, 'quantity_exceeded');
    const email = `${unique('browser')}@example.com`;
    const qualified = await clientCall('POST', '/client/v1/qualifications', { scenario: 'ALL', order: { amount: 2000 }, customer: { email }, options: { limit: 100 } });
    expect(qualified.status).toBe(200);
    expect(qualified.body.order).toMatchObject({ customer_id: expect.stringMatching(/^cust_/) });
    const tiers = await clientCall('GET', '/client/v1/promotions/tiers?limit=5');
    expect(tiers.body).toMatchObject({ object: 'list' });
  });

  test('credentials, origins and events are checked', async () => {
    expectError(await clientCall('POST', '/client/v1/events', { event: 'x'.repeat(301), customer: { source_id: 'a' } }), 400, 'invalid_payload');
    expectError(await clientCall('POST', '/client/v1/events', { event: '', customer: { source_id: 'a' } }), 400, 'invalid_payload');
    expectError(await clientCall('POST', '/client/v1/events', { event: SIGNED_UP }), 400, 'invalid_payload');
    expectError(await clientCall('POST', '/client/v1/events', { event: unique('never_defined'), customer: { source_id: 'a' } }), 404, 'not_found');
    expectError(await clientCall('POST', '/client/v1/events', { event: SIGNED_UP, customer: { source_id: 'a' }, metadata: { plan: 'gold' } }), 400, 'invalid_metadata');
    expectError(await clientCall('POST', '/client/v1/events', { event: SIGNED_UP, customer: { source_id: 'a' } }), 400, 'invalid_metadata');
    const event = { event: SIGNED_UP, customer: { source_id: 'a' }, metadata: { plan: 'free' } };
    expectError(await clientCall('POST', '/client/v1/events', event, { origin: undefined }), 400, 'missing_origin');
    expectError(await clientCall('POST', '/client/v1/events', event, { origin: 'https://evil.example' }), 403, 'origin_not_allowed');
    expectError(await clientCall('POST', '/client/v1/events', event, { 'X-Client-Token': 'wrong' }), 401, 'unauthorized');
    const serverKeyOnClient = await clientCall('POST', '/client/v1/events', event, {
      'X-Client-Application-Id': undefined,
      'X-Client-Token': undefined,
      'X-App-Id': ctx.target.credentials.appId,
      'X-App-Token': ctx.target.credentials.appToken,
    });
    expectError(serverKeyOnClient, 401, 'unauthorized');
    const client = ctx.target.client!;
    const preflight = await fetch(`${ctx.target.baseUrl}/client/v1/events`, { method: 'OPTIONS', headers: { origin: client.origin, 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('X-Client-Token');
    const stranger = await fetch(`${ctx.target.baseUrl}/client/v1/events`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const clientKeyOnServer = await fetch(`${ctx.target.baseUrl}/v1/customers`, { headers: { 'X-Client-Application-Id': client.appId, 'X-Client-Token': client.token, origin: client.origin } });
    expectError({ status: clientKeyOnServer.status, body: await clientKeyOnServer.json() }, 401, 'unauthorized');
    expectError(await raw(ctx.target, 'POST', '/v1/events', { body: JSON.stringify({ event: SIGNED_UP, customer: { source_id: 'a' }, loyalty: { code: 'NO-SUCH-CARD' }, metadata: { plan: 'free' } }) }), 404, 'not_found');
  });
});

import { describe, expect, test } from '@jest/globals';
import { expectError } from './expect-error.js';
import { because, raw, recordingFetch, runsWith, skip, skipPart, unique, useTarget } from './target.js';

const ctx = useTarget();

const form = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' });

async function token(scope: string, extra: Record<string, string> = {}) {
  const issued = await raw(ctx.target, 'POST', '/v1/oauth/token', form({ grant_type: 'client_credentials', scope, ...extra }));
  expect(issued.status).toBe(200);
  return issued.body as { access_token: string; expires_in: number; expires_at: number; scope: string; client_id: string; token_type: string };
}

async function withBearer(method: string, path: string, value: string, body?: unknown, origin?: string) {
  const response = await recordingFetch(`${ctx.target.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${value}`, ...(body !== undefined && { 'Content-Type': 'application/json' }), ...(origin && { Origin: origin }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** A form-encoded POST with a bearer token instead of the API key. */
async function formWithBearer(path: string, value: string, fields: Record<string, string>) {
  const response = await recordingFetch(`${ctx.target.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${value}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

describe('OAuth tokens', () => {
  test('a token is issued, introspected, used within its scopes, and revoked', async () => {
    const issued = await token('vouchers customers');
    expect(issued).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
      expires_at: expect.any(Number),
      scope: 'vouchers customers',
      client_id: ctx.target.credentials.appId,
    });
    const seen = await raw(ctx.target, 'POST', '/v1/oauth/introspect', form({ access_token: issued.access_token }));
    expect(seen).toEqual({
      status: 200,
      body: { access_token: issued.access_token, client_id: ctx.target.credentials.appId, expires_at: issued.expires_at, expires_in: expect.any(Number), scope: 'vouchers customers', token_type: 'Bearer', active: true },
    });
    const code = unique('OAUTH');
    const created = await withBearer('POST', `/v1/vouchers/${code}`, issued.access_token, { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    expect(created.status).toBe(200);
    const read = await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } });
    expect(read.data?.code).toBe(code);
    expect((await withBearer('GET', '/v1/customers?limit=1', issued.access_token)).status).toBe(200);
    expectError(await withBearer('GET', '/v1/campaigns', issued.access_token), 403, 'forbidden');
    expectError(await withBearer('GET', '/v1/skus/sku_x', issued.access_token), 403, 'forbidden');

    expect((await raw(ctx.target, 'POST', '/v1/oauth/token/revoke', form({ access_token: issued.access_token }))).status).toBe(204);
    expectError(await withBearer('GET', `/v1/vouchers/${code}`, issued.access_token), 401, 'unauthorized');
    const after = await raw(ctx.target, 'POST', '/v1/oauth/introspect', form({ access_token: issued.access_token }));
    expect(after).toEqual({ status: 200, body: { active: false } });
    expect((await raw(ctx.target, 'POST', '/v1/oauth/token/revoke', form({ access_token: issued.access_token }))).status).toBe(204);
  });

  test('the api scope reaches the whole server-side API; unknown and expired tokens are inactive', async () => {
    const all = await token('api', { expires_in: '60' });
    expect(all.expires_in).toBe(60);
    expect((await withBearer('GET', '/v1/campaigns', all.access_token)).status).toBe(200);
    expect((await withBearer('GET', '/v1/loyalties', all.access_token)).status).toBe(200);
    const unknown = await raw(ctx.target, 'POST', '/v1/oauth/introspect', form({ access_token: 'no-such-token' }));
    // RFC 7662: a token that cannot be used is answered with `active: false` alone.
    expect(unknown).toEqual({ status: 200, body: { active: false } });
    expectError(await withBearer('GET', '/v1/campaigns', 'no-such-token'), 401, 'unauthorized');
    if (ctx.target.clock) {
      ctx.target.clock.travelTo(new Date(Date.now() + 61_000));
      try {
        const expired = await raw(ctx.target, 'POST', '/v1/oauth/introspect', form({ access_token: all.access_token }));
        expect(expired).toEqual({ status: 200, body: { active: false } });
        expectError(await withBearer('GET', '/v1/campaigns', all.access_token), 401, 'unauthorized');
      } finally {
        ctx.target.clock.reset();
      }
    } else skipPart(because('inProcess'));
  });

  // A remote target needs a client-side origin of its first project for this one.
  const clientTest = runsWith(test, ['client']);
  clientTest('client-side scopes reach only /client/v1, each its own resource, from an allowed origin', async () => {
    const origin = ctx.target.client!.origin;
    const tiers = '/client/v1/promotions/tiers?limit=1';
    const promotions = await token('client_promotions');
    const listed = await withBearer('GET', tiers, promotions.access_token, undefined, origin);
    expect(listed).toMatchObject({ status: 200, body: { object: 'list' } });
    expectError(await withBearer('GET', tiers, promotions.access_token), 400, 'missing_origin');
    expectError(await withBearer('GET', tiers, promotions.access_token, undefined, 'https://elsewhere.example.test'), 403, 'origin_not_allowed');
    expectError(await withBearer('GET', '/v1/promotions/tiers', promotions.access_token), 403, 'forbidden');

    const events = await token('client_events');
    expectError(await withBearer('GET', tiers, events.access_token, undefined, origin), 403, 'forbidden');
    const whole = await token('client_api');
    expect((await withBearer('GET', tiers, whole.access_token, undefined, origin)).status).toBe(200);
    expectError(await withBearer('GET', '/v1/campaigns', whole.access_token), 403, 'forbidden');
    const server = await token('api');
    expectError(await withBearer('GET', tiers, server.access_token, undefined, origin), 403, 'forbidden');

    await raw(ctx.target, 'POST', '/v1/oauth/token/revoke', form({ access_token: whole.access_token }));
    expectError(await withBearer('GET', tiers, whole.access_token, undefined, origin), 401, 'unauthorized');
  });

  test('when a bearer token asks for a token, then 403 forbidden, whatever its scope and lifetime', async () => {
    const parent = await token('api', { expires_in: '900' });
    for (const fields of [
      { grant_type: 'client_credentials', scope: 'api', expires_in: '86400' } as Record<string, string>,
      { grant_type: 'client_credentials', scope: 'vouchers' },
    ]) {
      expectError(await formWithBearer('/v1/oauth/token', parent.access_token, fields), 403, 'forbidden');
    }
    // With the key it is issued, as it was: only the key obtains tokens.
    expect((await token('api', { expires_in: '86400' })).expires_in).toBe(86400);
    // Revoking the token ends all it could do: there is no token made from it to outlive it.
    expect((await raw(ctx.target, 'POST', '/v1/oauth/token/revoke', form({ access_token: parent.access_token }))).status).toBe(204);
    expectError(await withBearer('GET', '/v1/campaigns', parent.access_token), 401, 'unauthorized');
    expectError(await formWithBearer('/v1/oauth/token', parent.access_token, { grant_type: 'client_credentials', scope: 'api' }), 401, 'unauthorized');
  });

  test('when a lifetime is asked for, then the token lives exactly that long and never beyond a day', async () => {
    for (const asked of ['60', '3600', '86400']) {
      const issued = await token('vouchers', { expires_in: asked });
      expect(issued.expires_in).toBe(Number(asked));
      const seen = await raw(ctx.target, 'POST', '/v1/oauth/introspect', form({ access_token: issued.access_token }));
      expect((seen.body as { expires_in: number }).expires_in).toBeLessThanOrEqual(Number(asked));
      expect((seen.body as { expires_at: number }).expires_at).toBe(issued.expires_at);
    }
    for (const asked of ['86401', '999999', '59']) {
      expectError(await raw(ctx.target, 'POST', '/v1/oauth/token', form({ grant_type: 'client_credentials', scope: 'api', expires_in: asked })), 400, 'invalid_payload');
    }
  });

  test('when the API key a token was obtained with is deleted, then the token ends with it', async () => {
    if (!ctx.target.management) return skip(because('management'), ['delete-project']);
    const made = await raw(ctx.target, 'POST', '/management/v1/projects', { body: JSON.stringify({ name: unique('Token owner') }) });
    expect(made.status).toBe(200);
    const project = made.body as { id: string; server_side_key: { app_id: string; app_token: string } };
    const key = { appId: project.server_side_key.app_id, appToken: project.server_side_key.app_token };
    const issued = await raw(ctx.target, 'POST', '/v1/oauth/token', { ...form({ grant_type: 'client_credentials', scope: 'api' }), credentials: key });
    expect(issued.status).toBe(200);
    const value = (issued.body as { access_token: string }).access_token;
    expect((await withBearer('GET', '/v1/campaigns', value)).status).toBe(200);
    expect((await raw(ctx.target, 'DELETE', `/management/v1/projects/${project.id}`)).status).toBe(204);
    expectError(await withBearer('GET', '/v1/campaigns', value), 401, 'unauthorized');
  });

  test('a token of one project is not seen from another, and bad requests get a 4xx', async () => {
    const mine = await token('api');
    if (ctx.target.otherProject) {
      const foreign = await raw(ctx.target, 'POST', '/v1/oauth/introspect', { ...form({ access_token: mine.access_token }), credentials: ctx.target.otherProject });
      expect(foreign.body).toEqual({ active: false });
      await raw(ctx.target, 'POST', '/v1/oauth/token/revoke', { ...form({ access_token: mine.access_token }), credentials: ctx.target.otherProject });
      expect((await withBearer('GET', '/v1/campaigns', mine.access_token)).status).toBe(200);
    } else skipPart(because('otherProject'));
    expectError(await raw(ctx.target, 'POST', '/v1/oauth/token', form({ grant_type: 'client_credentials', scope: 'vouchers galaxies' })), 400, 'invalid_scope');
    expectError(await raw(ctx.target, 'POST', '/v1/oauth/token', form({ grant_type: 'password', scope: 'api' })), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/oauth/token', form({ grant_type: 'client_credentials', scope: 'api', expires_in: '5' })), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/oauth/token', form({ grant_type: 'client_credentials' })), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/oauth/introspect', form({})), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/oauth/token', { ...form({ grant_type: 'client_credentials', scope: 'api' }), credentials: null }), 401, 'unauthorized');
  });
});

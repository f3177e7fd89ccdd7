import { describe, expect, test } from '@jest/globals';
import type { Clock } from '../../server/domain/clock.js';
import { oauthHandlers } from '../../server/handlers/oauth.js';
import { ORGANIZATION } from '../../server/domain/management/projects.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { TokenRegistry } from '../../server/oauth.js';
import { MemoryStore } from '../../server/store/memory.js';

/** Tokens kept in a fresh memory store's organization partition. */
async function registry(clock: Clock) {
  const store = new MemoryStore(SCHEMA);
  await store.createProject(ORGANIZATION);
  return new TokenRegistry(store, clock);
}

/** A clock that moves one millisecond every time it is read, as real time does between two readings. */
class TickingClock implements Clock {
  private current = Date.UTC(2026, 10, 23, 12, 0, 0, 999);
  now(): Date {
    return new Date(this.current++);
  }
}

describe('issuing an OAuth token', () => {
  test('when time moves while the token is issued, then expires_in is still the whole lifetime granted', async () => {
    const clock = new TickingClock();
    const context = { requestId: 'v-test', baseUrl: 'http://localhost', projectId: 'proj_a', apiKey: { name: 'key', appId: 'app_a' } };
    const services = { tokens: await registry(clock), clock };
    const issue = (expires_in?: number) =>
      oauthHandlers['generate-oauth-token']({ body: { grant_type: 'client_credentials', scope: 'api', ...(expires_in !== undefined && { expires_in }) }, context, services } as never);
    for (const [asked, granted] of [[undefined, 900], [60, 60]] as const) {
      const { body } = (await issue(asked)) as { body: { expires_in: number; expires_at: number } };
      expect(body.expires_in).toBe(granted);
    }
  });
});

/** A clock the test sets. */
class SetClock implements Clock {
  constructor(public at = Date.UTC(2026, 10, 23, 12, 0, 0)) {}
  now(): Date {
    return new Date(this.at);
  }
}

const owner = { projectId: 'proj_a', apiKey: { name: 'key', appId: 'app_a' } };

describe('keeping OAuth tokens', () => {
  test('when tokens expire or are revoked, then they are kept for an hour, then forgotten', async () => {
    const clock = new SetClock();
    const tokens = await registry(clock);
    const expiring = [];
    for (let i = 0; i < 100; i++) expiring.push(await tokens.issue(owner, 'api', 60));
    const revoked = await tokens.issue(owner, 'vouchers', 86_400);
    const kept = await tokens.issue(owner, 'customers', 86_400);
    await tokens.revoke(revoked.token, 'proj_a');
    clock.at += 61_000;
    expect(await tokens.active(expiring[0]!.token)).toBeUndefined();
    // Ended less than an hour ago: still kept, but introspection says only that it cannot be used (RFC 7662).
    expect(await tokens.introspect(expiring[0]!.token, 'proj_a')).toEqual({ active: false });
    expect(await tokens.introspect(revoked.token, 'proj_a')).toEqual({ active: false });
    expect(await tokens.count()).toBe(102);
    clock.at += 3_600_000;
    await tokens.sweep();
    expect(await tokens.count()).toBe(1);
    expect(await tokens.introspect(expiring[0]!.token, 'proj_a')).toEqual({ active: false });
    expect(await tokens.active(kept.token)).toEqual(kept);
  });

  test('when tokens are issued and used, then ended ones are swept on the way, at most once a minute', async () => {
    const clock = new SetClock();
    const tokens = await registry(clock);
    for (let i = 0; i < 50; i++) await tokens.issue(owner, 'api', 60);
    clock.at += 2 * 3_600_000;
    const fresh = await tokens.issue(owner, 'api', 60);
    expect(await tokens.count()).toBe(1);
    expect(await tokens.active(fresh.token)).toEqual(fresh);
  });

  test("when an API key is gone, then every token it obtained ends; other keys' tokens do not", async () => {
    const tokens = await registry(new SetClock());
    const mine = await tokens.issue(owner, 'api');
    const theirs = await tokens.issue({ projectId: 'proj_b', apiKey: { name: 'other', appId: 'app_b' } }, 'api');
    await tokens.revokeAllOf('app_a');
    expect(await tokens.active(mine.token)).toBeUndefined();
    expect(await tokens.active(theirs.token)).toEqual(theirs);
  });

  test('when a lifetime is asked for, then the token lives exactly that, and more than a day is refused', async () => {
    const clock = new SetClock();
    const tokens = await registry(clock);
    for (const seconds of [60, 900, 86_400]) expect((await tokens.issue(owner, 'api', seconds)).expiresAt - clock.at).toBe(seconds * 1000);
    for (const seconds of [59, 86_401, 1.5]) await expect(tokens.issue(owner, 'api', seconds)).rejects.toThrow(expect.objectContaining({ details: expect.stringMatching(/expires_in/) }));
  });

  test('when a token is kept, then the store holds its hash, never the token', async () => {
    const store = new MemoryStore(SCHEMA);
    await store.createProject(ORGANIZATION);
    const tokens = new TokenRegistry(store, new SetClock());
    const { token } = await tokens.issue(owner, 'api');
    const rows = await store.transaction(ORGANIZATION, async (uow) => (await uow.oauth_tokens.query({})).rows);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    // Another registry on the same store (another server instance) knows the token.
    expect(await new TokenRegistry(store, new SetClock()).active(token)).toMatchObject({ token, projectId: 'proj_a' });
  });

  test('when a request acting with a bearer token asks for a token, then the handler refuses it with 403', async () => {
    const clock = new SetClock();
    const services = { tokens: await registry(clock), clock };
    const context = services.tokens.markBearer({ requestId: 'v-test', baseUrl: 'http://localhost', ...owner });
    await expect(
      oauthHandlers['generate-oauth-token']({ body: { grant_type: 'client_credentials', scope: 'api' }, context, services } as never),
    ).rejects.toMatchObject({ status: 403, key: 'forbidden' });
    expect(await services.tokens.count()).toBe(0);
  });
});

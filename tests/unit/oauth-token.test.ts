import { describe, expect, test } from '@jest/globals';
import type { Clock } from '../../server/domain/clock.js';
import { oauthHandlers } from '../../server/handlers/oauth.js';
import { TokenRegistry } from '../../server/oauth.js';

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
    const services = { tokens: new TokenRegistry(clock), clock };
    const issue = (expires_in?: number) =>
      oauthHandlers['generate-oauth-token']({ body: { grant_type: 'client_credentials', scope: 'api', ...(expires_in !== undefined && { expires_in }) }, context, services } as never);
    for (const [asked, granted] of [[undefined, 900], [60, 60]] as const) {
      const { body } = (await issue(asked)) as { body: { expires_in: number; expires_at: number } };
      expect(body.expires_in).toBe(granted);
    }
  });
});

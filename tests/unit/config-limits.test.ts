/** The limits operators set through the environment, and their defaults. */
import { describe, expect, test } from '@jest/globals';
import { configFromEnv } from '../../server/config.js';

describe('limits from the environment', () => {
  test("when nothing is set, then failed authentication, tokens, the event log and each project's share of the server are bounded by default", () => {
    expect(configFromEnv({})).toMatchObject({ rateLimitPerMinute: 0, authFailuresPerMinute: 50, tokensPerHour: 1000, eventRetention: 100_000, projectSliceMs: 5 });
  });

  test('when they are set, then they are taken; 0 turns a rate limit off, and the event log keeps at least one event', () => {
    const env = { AUTH_FAILURES_PER_MINUTE: '0', TOKENS_PER_HOUR: '10', EVENT_RETENTION: '500', RATE_LIMIT_PER_MINUTE: '600', PROJECT_SLICE_MS: '0' };
    expect(configFromEnv(env)).toMatchObject({ authFailuresPerMinute: 0, tokensPerHour: 10, eventRetention: 500, rateLimitPerMinute: 600, projectSliceMs: 0 });
    expect(() => configFromEnv({ EVENT_RETENTION: '0' })).toThrow(/EVENT_RETENTION/);
    expect(() => configFromEnv({ AUTH_FAILURES_PER_MINUTE: 'many' })).toThrow(/AUTH_FAILURES_PER_MINUTE/);
  });

  test("when only PORT is set, then the client-side key's allowed origin follows it; CLIENT_ORIGINS, when set, is taken as given", () => {
    expect(configFromEnv({ PORT: '3100' }).clientKeys[0]?.origins).toEqual(['http://localhost:3100']);
    expect(configFromEnv({}).clientKeys[0]?.origins).toEqual(['http://localhost:3000']);
    expect(configFromEnv({ PORT: '3100', CLIENT_ORIGINS: 'https://a.example, https://b.example' }).clientKeys[0]?.origins).toEqual(['https://a.example', 'https://b.example']);
  });
});

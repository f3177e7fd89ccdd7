/** The webhook settings a server reads from its environment (README, "Configuration of the reference server"). */
import { describe, expect, test } from '@jest/globals';
import { configFromEnv } from '../../server/config.js';
import { DEFAULT_DELIVERY_POLICY } from '../../server/webhooks/delivery.js';

describe('webhook settings from the environment', () => {
  test('when nothing is set, then webhooks keep to https and public addresses, within the default bounds', () => {
    // Whether pending deliveries are kept at shutdown follows from the store, not from a setting (server/app.ts).
    const { keepPendingOnStop: _fromTheStore, ...defaults } = DEFAULT_DELIVERY_POLICY;
    expect(configFromEnv({}).webhooks).toEqual({ ...defaults, allowPlainHttp: false, allowPrivateTargets: false });
  });

  test('when every variable is set, then each setting takes its value; the two local-testing switches are separate', () => {
    const env = {
      WEBHOOKS_ALLOW_PRIVATE: '1',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_BACKOFF_MS: '50',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_CONNECT_TIMEOUT_MS: '700',
      WEBHOOK_CONNECTIONS_PER_TARGET: '2',
      WEBHOOK_CONNECTIONS: '16',
      WEBHOOK_QUEUE_PER_PROJECT: '100',
      WEBHOOK_QUEUE: '500',
      WEBHOOK_SHUTDOWN_DEADLINE_MS: '3000',
      WEBHOOK_POLL_MS: '250',
      WEBHOOK_LEASE_MS: '12000',
      WEBHOOK_LOG_KEEP_MS: '3600000',
      WEBHOOK_LOG_KEEP_PER_PROJECT: '2500',
    };
    expect(configFromEnv(env).webhooks).toEqual({
      allowPlainHttp: false,
      allowPrivateTargets: true,
      maxAttempts: 3,
      backoffMs: 50,
      timeoutMs: 2000,
      connectTimeoutMs: 700,
      connectionsPerTarget: 2,
      connections: 16,
      queuePerProject: 100,
      queue: 500,
      shutdownDeadlineMs: 3000,
      pollMs: 250,
      leaseMs: 12000,
      keepSettledMs: 3600000,
      keepSettledPerProject: 2500,
      pruneEveryMs: DEFAULT_DELIVERY_POLICY.pruneEveryMs,
    });
    // The lease is at most 30 s unless set: a dead instance's deliveries pass to another within it.
    expect(DEFAULT_DELIVERY_POLICY.leaseMs).toBeLessThanOrEqual(30_000);
    expect(configFromEnv({ WEBHOOKS_ALLOW_HTTP: 'true' }).webhooks).toMatchObject({ allowPlainHttp: true, allowPrivateTargets: false });
  });

  test.each(['WEBHOOK_CONNECTIONS', 'WEBHOOK_CONNECTIONS_PER_TARGET', 'WEBHOOK_QUEUE', 'WEBHOOK_QUEUE_PER_PROJECT', 'WEBHOOK_CONNECT_TIMEOUT_MS', 'WEBHOOK_LEASE_MS', 'WEBHOOK_LOG_KEEP_PER_PROJECT'])(
    'when %s is 0 or not a number, then the server refuses to start, naming it',
    (name) => {
      expect(() => configFromEnv({ [name]: '0' })).toThrow(name);
      expect(() => configFromEnv({ [name]: 'lots' })).toThrow(name);
    },
  );
});

import { describe, expect, test } from '@jest/globals';
import { defaultMaxConnections, descriptorLimit, serverOptions } from '../../server/http/connections.js';

describe('connection limits', () => {
  test("the descriptor limit is read from the process's limits, and the default cap keeps a quarter of it (at most 1024) for the server's own work", () => {
    const limits = 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            20000                20000                files\n';
    expect(descriptorLimit(() => limits)).toBe(20_000);
    expect(descriptorLimit(() => limits.replace('20000   ', 'unlimited'))).toBeUndefined();
    expect(descriptorLimit(() => { throw new Error('no /proc'); })).toBeUndefined();
    expect(defaultMaxConnections(20_000)).toBe(18_976);
    expect(defaultMaxConnections(1024)).toBe(768);
    expect(defaultMaxConnections(20)).toBe(16);
    expect(defaultMaxConnections(undefined)).toBe(4096);
  });

  test('the timeouts are checked at least every second', () => {
    expect(serverOptions({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5000, maxConnections: 10, evictAfterMs: 0 })).toEqual({
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5000,
      connectionsCheckingInterval: 1000,
    });
  });
});

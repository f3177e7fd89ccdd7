import { describe, expect, test } from '@jest/globals';
import { KeyCache } from '../../server/http/key-cache.js';

describe('API key cache', () => {
  const setup = (ttlMs: number) => {
    const stored = new Map<string, string>([['app-1', 'key-1']]);
    let lookups = 0;
    let now = 1_000;
    const cache = new KeyCache<string>(
      async (appId) => {
        lookups++;
        return stored.get(appId);
      },
      ttlMs,
      () => now,
    );
    return { cache, stored, lookups: () => lookups, advance: (ms: number) => (now += ms) };
  };

  test('when a key is found, then it is looked up again only once its time is up', async () => {
    const { cache, stored, lookups, advance } = setup(5000);
    expect(await cache.lookup('app-1')).toBe('key-1');
    stored.delete('app-1');
    advance(4999);
    expect(await cache.lookup('app-1')).toBe('key-1');
    expect(lookups()).toBe(1);
    advance(1);
    expect(await cache.lookup('app-1')).toBeUndefined();
    expect(lookups()).toBe(2);
  });

  test('when a key is not found, then the miss is not kept: a key made meanwhile works at once', async () => {
    const { cache, stored } = setup(5000);
    expect(await cache.lookup('app-2')).toBeUndefined();
    stored.set('app-2', 'key-2');
    expect(await cache.lookup('app-2')).toBe('key-2');
  });

  test('when keys change through this server, then nothing kept is used again', async () => {
    const { cache, stored, lookups } = setup(5000);
    await cache.lookup('app-1');
    stored.delete('app-1');
    cache.clear();
    expect(await cache.lookup('app-1')).toBeUndefined();
    expect(lookups()).toBe(2);
  });

  test('when the time to keep is 0, then every request looks the key up', async () => {
    const { cache, lookups } = setup(0);
    await cache.lookup('app-1');
    await cache.lookup('app-1');
    expect(lookups()).toBe(2);
  });
});

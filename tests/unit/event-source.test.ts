/**
 * The event source of API calls: one frozen source per key, which the events its calls record share as it is,
 * and a new one when the key is renamed.
 */
import { describe, expect, test } from '@jest/globals';
import { systemClock } from '../../server/domain/clock.js';
import { recordEvent } from '../../server/domain/events.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { apiSource } from '../../server/handlers/unit-of-work.js';
import { MemoryStore } from '../../server/store/memory.js';

describe('the event source of API calls', () => {
  test('when a key calls again, then its source is the same frozen one; when it is renamed, then a new one names it', () => {
    const first = apiSource({ name: 'shop', appId: 'app_source_1' });
    expect(first).toEqual({ channel: 'API', api_key: { name: 'shop', app_id: 'app_source_1' } });
    expect(Object.isFrozen(first) && Object.isFrozen(first.api_key)).toBe(true);
    expect(apiSource({ name: 'shop', appId: 'app_source_1' })).toBe(first);
    const renamed = apiSource({ name: 'shop (eu)', appId: 'app_source_1' });
    expect(renamed).toEqual({ channel: 'API', api_key: { name: 'shop (eu)', app_id: 'app_source_1' } });
    expect(apiSource({ name: 'other', appId: 'app_source_2' }).api_key).toEqual({ name: 'other', app_id: 'app_source_2' });
  });

  test('when a call records events, then they carry its key as their source', async () => {
    const store = new MemoryStore(SCHEMA);
    await store.createProject('p');
    const source = apiSource({ name: 'shop', appId: 'app_source_3' });
    const events = await store.transaction('p', async (uow) => {
      const ctx = { uow, clock: systemClock, source, groupId: 'grp_1' };
      return [await recordEvent(ctx, 'customer.updated', { customer_id: 'cust_1' }, {}), await recordEvent(ctx, 'customer.deleted', { customer_id: 'cust_1' }, {})];
    });
    for (const event of events) expect(event.event_source).toEqual({ channel: 'API', api_key: { name: 'shop', app_id: 'app_source_3' } });
    expect(events[0]!.event_source).toBe(events[1]!.event_source);
  });
});

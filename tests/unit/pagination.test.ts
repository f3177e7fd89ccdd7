import { describe, expect, test } from '@jest/globals';
import { createdBetween, pageWindow, parseTimestampOrder } from '../../server/domain/pagination.js';
import { meets } from '../../server/store/evaluate.js';

describe('pagination', () => {
  test('page windows start at page 1 with a default limit of 10', () => {
    expect(pageWindow({})).toEqual({ offset: 0, limit: 10 });
    expect(pageWindow({ limit: 25, page: 3 })).toEqual({ offset: 50, limit: 25 });
  });

  test('a leading dash sorts descending', () => {
    expect(parseTimestampOrder('-updated_at')).toEqual({ field: 'updated_at', direction: 'desc' });
    expect(parseTimestampOrder()).toEqual({ field: 'created_at', direction: 'asc' });
  });

  test('creation windows include both bounds', () => {
    const inWindow = createdBetween('2026-01-01T00:00:00Z', '2026-01-31T23:59:59.999Z')!;
    expect(meets({ created_at: '2026-01-01T00:00:00.000Z' }, inWindow)).toBe(true);
    expect(meets({ created_at: '2026-01-31T23:59:59.999Z' }, inWindow)).toBe(true);
    expect(meets({ created_at: '2026-02-01T00:00:00.000Z' }, inWindow)).toBe(false);
    expect(createdBetween()).toBeUndefined();
  });
});

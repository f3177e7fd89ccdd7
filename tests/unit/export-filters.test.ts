/**
 * Export filters: what is refused before an export starts, and what each operator keeps, days counted in UTC
 * from the moment the export reads its rows.
 */
import { describe, expect, test } from '@jest/globals';
import { checkExportFilter, exportCondition } from '../../server/domain/exports/conditions.js';
import { rowField } from '../../server/domain/filters.js';
import { meets } from '../../server/store/evaluate.js';
import { DomainError } from '../../server/domain/errors.js';

const FIELDS = new Set(['created_at', 'code', 'days']);
const LISTS = new Set(['days']);
const NOW = Date.parse('2026-06-15T12:00:00Z');

function keeps(filter: Record<string, unknown>, row: Record<string, unknown>): boolean {
  return meets(row, exportCondition(checkExportFilter(filter, FIELDS, LISTS, true)!, rowField, NOW));
}

function refused(filter: Record<string, unknown>): string {
  try {
    checkExportFilter(filter, FIELDS, LISTS, true);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).key).toBe('invalid_export');
    return (error as DomainError).details;
  }
  throw new Error('the filter was taken');
}

describe('export filters', () => {
  test('when a filter names what the export cannot evaluate, then it is refused, saying what', () => {
    expect(refused({ planet: { conditions: { $is: 'Mars' } } })).toContain("cannot filter on 'planet'");
    expect(refused({ code: { conditions: { $sounds_like: 'x' } } })).toContain('$sounds_like is not an operator');
    expect(refused({ code: { conditions: { $in: [{ nested: 1 }] } } })).toContain('an object');
    expect(refused({ code: { conditions: { $count: [1] } } })).toContain('code is not a list');
    expect(refused({ created_at: { conditions: { $more_than_ago: ['a week'] } } })).toContain('whole number');
    expect(refused({ junction: 'xor', code: { conditions: { $is: 'A' } } })).toContain('junction');
    expect(refused({ code: 'A' })).toContain('conditions');
  });

  test('when days are compared, then they are whole UTC days before or after now', () => {
    const row = (at: string) => ({ created_at: at });
    expect(keeps({ created_at: { conditions: { $is_days_ago: [1] } } }, row('2026-06-14T00:00:00Z'))).toBe(true);
    expect(keeps({ created_at: { conditions: { $is_days_ago: [1] } } }, row('2026-06-15T00:00:00Z'))).toBe(false);
    expect(keeps({ created_at: { conditions: { $is_days_in_future: [2] } } }, row('2026-06-17T23:59:59Z'))).toBe(true);
    expect(keeps({ created_at: { conditions: { $more_than_ago: [7] } } }, row('2026-06-01T00:00:00Z'))).toBe(true);
    expect(keeps({ created_at: { conditions: { $more_than_ago: [7] } } }, row('2026-06-10T00:00:00Z'))).toBe(false);
    expect(keeps({ created_at: { conditions: { $less_than_ago: [7] } } }, row('2026-06-10T00:00:00Z'))).toBe(true);
    expect(keeps({ created_at: { conditions: { $less_than_ago: [7] } } }, row('2026-06-16T00:00:00Z'))).toBe(false);
    expect(keeps({ created_at: { conditions: { $more_than_future: [1] } } }, row('2026-06-20T00:00:00Z'))).toBe(true);
    expect(keeps({ created_at: { conditions: { $less_than_future: [1] } } }, row('2026-06-16T00:00:00Z'))).toBe(true);
    expect(keeps({ created_at: { conditions: { $less_than_future: [1] } } }, row('2026-06-14T00:00:00Z'))).toBe(false);
  });

  test('when lists are counted and values compared, then each operator keeps what it says, joined by the junction', () => {
    const row = { code: 'SPRING-7', days: [1, 2, 3], created_at: '2026-06-01T00:00:00Z', metadata: { batch: 'a' } };
    expect(keeps({ days: { conditions: { $count: [3] } } }, row)).toBe(true);
    expect(keeps({ days: { conditions: { $count_less: [3] } } }, row)).toBe(false);
    expect(keeps({ days: { conditions: { $count_more: [2] } } }, row)).toBe(true);
    expect(keeps({ code: { conditions: { $starts_with: 'SPRING' } } }, row)).toBe(true);
    expect(keeps({ created_at: { conditions: { $after: '2026-05-31T00:00:00Z', $before: ['2026-06-02'] } } }, row)).toBe(true);
    expect(keeps({ created_at: { conditions: { $more_than_equal: ['2026-06-01T00:00:00Z'] } } }, row)).toBe(true);
    expect(keeps({ created_at: { conditions: { $less_than_equal: ['2026-05-01T00:00:00Z'] } } }, row)).toBe(false);
    expect(keeps({ [`metadata.batch`]: { conditions: { $in: ['a', 'b'] } } }, row)).toBe(true);
    expect(keeps({ junction: 'AND', code: { conditions: { $is: 'X' } }, days: { conditions: { $in: [2] } } }, row)).toBe(false);
    expect(keeps({ junction: 'OR', code: { conditions: { $is: 'X' } }, days: { conditions: { $in: [2] } } }, row)).toBe(true);
  });
});

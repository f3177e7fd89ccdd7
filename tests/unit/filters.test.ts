import { describe, expect, test } from '@jest/globals';
import { checkOperatorValues, matchesConditions, matchesFilter } from '../../server/domain/filters.js';
import { DomainError } from '../../server/domain/errors.js';

const record = {
  name: 'Espresso beans',
  price: 2000,
  source_id: null,
  created_at: '2026-11-21T10:00:00.000Z',
  metadata: { origin: 'Brazil', tags: ['dark', 'strong'], score: '7' },
};

describe('filter conditions', () => {
  test.each([
    [{ $is: ['Espresso beans'] }, 'name', true],
    [{ $is_not: ['Espresso beans'] }, 'name', false],
    [{ $in: [1, 2000] }, 'price', true],
    [{ $not_in: [2000] }, 'price', false],
    [{ $more_than: [1999] }, 'price', true],
    [{ $more_than: [2000] }, 'price', false],
    [{ $more_than_or_equal: [2000] }, 'price', true],
    [{ $less_than: [2000] }, 'price', false],
    [{ $less_than_or_equal: [2000] }, 'price', true],
    [{ $contains: ['beans'] }, 'name', true],
    [{ $not_contain: ['tea'] }, 'name', true],
    [{ $starts_with: ['Esp'] }, 'name', true],
    [{ $ends_with: ['Esp'] }, 'name', false],
    [{ $is_unknown: [] }, 'source_id', true],
    [{ $has_value: [] }, 'source_id', false],
    [{ $more_than: ['2026-11-20'] }, 'created_at', true],
    [{ $less_than: ['2026-11-20T00:00:00Z'] }, 'created_at', false],
    [{ $more_than: [1000] }, 'name', false],
    [{ $more_than: [1000], $less_than: [3000] }, 'price', true],
  ])('%j on %s is %s', (conditions, field, expected) => {
    expect(matchesConditions((record as Record<string, unknown>)[field], conditions)).toBe(expected);
  });

  test('one value standing alone is read as a list of that value', () => {
    expect(matchesConditions('Brazil', { $in: 'Brazil' })).toBe(true);
    expect(matchesConditions('Kenya', { $in: 'Brazil' })).toBe(false);
    expect(matchesConditions(2000, { $not_in: 2000 })).toBe(false);
    expect(matchesConditions(['dark', 'strong'], { $in: 'strong' })).toBe(true);
  });

  test('an operator value that is neither a list nor one text or number is refused as the caller says', () => {
    const problem = { key: 'invalid_validation_rules', message: 'Invalid validation rules', name: 'rules.1' };
    expect(() => checkOperatorValues({ $in: ['a'], $not_in: 'b', $is: [1] }, 'rules.1', problem)).not.toThrow();
    for (const value of [{ store: true }, null, true]) {
      let thrown: unknown;
      try {
        checkOperatorValues({ $in: value }, 'rules.1', problem);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DomainError);
      expect(thrown).toMatchObject({ key: 'invalid_validation_rules' });
    }
  });

  test('metadata fields, arrays and numeric strings are matched by value', () => {
    expect(matchesFilter(record, { junction: 'and', 'metadata.origin': { conditions: { $is: ['Brazil'] } } })).toBe(true);
    expect(matchesFilter(record, { junction: 'and', 'metadata.tags': { conditions: { $in: ['strong'] } } })).toBe(true);
    expect(matchesFilter(record, { junction: 'and', 'metadata.score': { conditions: { $more_than: [5] } } })).toBe(true);
    expect(matchesFilter(record, { junction: 'and', 'metadata.missing': { conditions: { $is_unknown: [] } } })).toBe(true);
  });

  test('junction and needs every clause, or needs one', () => {
    const clauses = {
      price: { conditions: { $more_than: [1000] } },
      name: { conditions: { $is: ['Tea'] } },
    };
    expect(matchesFilter(record, { junction: 'and', ...clauses })).toBe(false);
    expect(matchesFilter(record, { junction: 'or', ...clauses })).toBe(true);
  });
});

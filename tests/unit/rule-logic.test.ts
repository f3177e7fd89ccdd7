import { describe, expect, test } from '@jest/globals';
import { effectiveLogic, evaluateLogic, parseLogic, ruleNumbers } from '../../server/domain/rule-logic.js';

describe('rule logic', () => {
  test('and binds tighter than or; parentheses override', () => {
    const truth = (set: string[]) => (rule: string) => set.includes(rule);
    const plain = parseLogic('1 or 2 and 3');
    expect(evaluateLogic(plain, truth(['1']))).toBe(true);
    expect(evaluateLogic(plain, truth(['2']))).toBe(false);
    const grouped = parseLogic('(1 OR 2) and 3');
    expect(evaluateLogic(grouped, truth(['1']))).toBe(false);
    expect(evaluateLogic(grouped, truth(['2', '3']))).toBe(true);
    expect(ruleNumbers(grouped)).toEqual(['1', '2', '3']);
  });

  test('malformed logic is refused with a reason', () => {
    expect(() => parseLogic('(1 and 2')).toThrow(/not closed/);
    expect(() => parseLogic('1 and')).toThrow(/ends too early/);
    expect(() => parseLogic('1 2')).toThrow(/unexpected '2'/);
    expect(() => parseLogic('')).toThrow(/ends too early/);
  });

  test('without logic, every numbered rule must hold', () => {
    expect(effectiveLogic({ '2': {}, '1': {}, '10': {} })).toBe('1 and 2 and 10');
    expect(effectiveLogic({ '1': {}, logic: '1' })).toBe('1');
  });
});

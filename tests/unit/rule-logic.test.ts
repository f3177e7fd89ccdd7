import { describe, expect, test } from '@jest/globals';
import { effectiveLogic, evaluateLogic, evaluateRuleSet, parseLogic, ruleNumbers, type NestedRule } from '../../server/domain/rule-logic.js';

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
    expect(() => parseLogic('()')).toThrow(/unexpected '\)'/);
  });

  test('blank logic over no numbered rules always holds and names no rule', () => {
    for (const blank of ['', '   ']) {
      const tree = parseLogic(blank);
      expect(evaluateLogic(tree, () => false)).toBe(true);
      expect(ruleNumbers(tree)).toEqual([]);
    }
    expect(effectiveLogic({})).toBe('');
    expect(effectiveLogic({ logic: '' })).toBe('');
  });

  test('without logic, every numbered rule must hold', () => {
    expect(effectiveLogic({ '2': {}, '1': {}, '10': {} })).toBe('1 and 2 and 10');
    expect(effectiveLogic({ '1': {}, logic: '1' })).toBe('1');
    expect(effectiveLogic({ '2': {}, '1': {}, logic: ' ' })).toBe('1 and 2');
  });
});

describe('rule sets with nested rules', () => {
  type Rule = NestedRule & { name: string };
  /** Facts that hold, by rule name; any other name (an unknown fact) does not. */
  const facts = (...holding: string[]) => (rule: Rule) => holding.includes(rule.name);

  const set = {
    '1': {
      name: 'order.amount',
      rules: { '1': { name: 'order.items.count', error: { message: 'Buy two' } }, '2': { name: 'order.metadata' }, logic: '1 or 2' },
    },
    '2': { name: 'customer.metadata' },
    logic: '1 and 2',
  };

  test('when a rule and its nested set hold, then the rule holds', () => {
    expect(evaluateRuleSet(set, facts('order.amount', 'order.metadata', 'customer.metadata'))).toEqual({ holds: true });
  });

  test('when the nested set fails, then the outer rule fails and the failing nested rule is reported', () => {
    const outcome = evaluateRuleSet<Rule>(set, facts('order.amount', 'customer.metadata'));
    expect(outcome.holds).toBe(false);
    expect(outcome.failed?.name).toBe('order.items.count');
    expect(outcome.failed?.error?.message).toBe('Buy two');
  });

  test('when the outer conditions fail, then the nested set is not what is reported', () => {
    const outcome = evaluateRuleSet<Rule>(set, facts('order.items.count', 'customer.metadata'));
    expect(outcome).toEqual({ holds: false, failed: set['1'] });
  });

  test('when a fact cannot be evaluated, then its rule fails, unless logic routes around it', () => {
    const unknown = { '1': { name: 'customer.segment' }, '2': { name: 'order.amount' } };
    expect((evaluateRuleSet<Rule>(unknown, facts('order.amount'))).holds).toBe(false);
    expect((evaluateRuleSet<Rule>({ ...unknown, logic: '1 or 2' }, facts('order.amount'))).holds).toBe(true);
  });

  test('when a set has no numbered rules, then it holds', () => {
    expect(evaluateRuleSet({}, facts())).toEqual({ holds: true });
    expect(evaluateRuleSet({ logic: '' }, facts())).toEqual({ holds: true });
  });
});

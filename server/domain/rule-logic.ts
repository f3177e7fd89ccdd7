/**
 * The `logic` of a validation rule: numbered rules joined by `and`, `or` and parentheses, such as
 * `(1 and 2) or 3`. `and` binds tighter than `or`. A blank logic over no numbered rules always holds.
 */
export type LogicNode = { rule: string } | { op: 'and' | 'or'; left: LogicNode; right: LogicNode } | { always: true };

function tokenize(logic: string): string[] {
  return logic.match(/\d+|\(|\)|[A-Za-z]+|\S/g) ?? [];
}

/**
 * Parses `logic`; throws an Error whose message says what is wrong. A blank logic parses to a node that
 * always holds: it is what a rule set without numbered rules (`{}`, or `{"logic": ""}`) evaluates.
 */
export function parseLogic(logic: string): LogicNode {
  const tokens = tokenize(logic);
  if (tokens.length === 0) return { always: true };
  let at = 0;
  const peek = () => tokens[at]?.toLowerCase();
  const primary = (): LogicNode => {
    const token = tokens[at++];
    if (token === undefined) throw new Error('logic ends too early');
    if (token === '(') {
      const inner = expression();
      if (tokens[at++] !== ')') throw new Error('a parenthesis is not closed');
      return inner;
    }
    if (/^\d+$/.test(token)) return { rule: token };
    throw new Error(`unexpected '${token}'`);
  };
  const conjunction = (): LogicNode => {
    let node = primary();
    while (peek() === 'and') {
      at++;
      node = { op: 'and', left: node, right: primary() };
    }
    return node;
  };
  const expression = (): LogicNode => {
    let node = conjunction();
    while (peek() === 'or') {
      at++;
      node = { op: 'or', left: node, right: conjunction() };
    }
    return node;
  };
  const tree = expression();
  if (at < tokens.length) throw new Error(`unexpected '${tokens[at]}'`);
  return tree;
}

export function ruleNumbers(node: LogicNode): string[] {
  if ('always' in node) return [];
  return 'rule' in node ? [node.rule] : [...ruleNumbers(node.left), ...ruleNumbers(node.right)];
}

export function evaluateLogic(node: LogicNode, holds: (rule: string) => boolean): boolean {
  if ('always' in node) return true;
  if ('rule' in node) return holds(node.rule);
  return node.op === 'and'
    ? evaluateLogic(node.left, holds) && evaluateLogic(node.right, holds)
    : evaluateLogic(node.left, holds) || evaluateLogic(node.right, holds);
}

/** The numbered keys of a rule set (every key but `logic`), in number order. */
export function numberedRules(rules: Record<string, unknown>): string[] {
  return Object.keys(rules)
    .filter((key) => key !== 'logic')
    .sort((a, b) => Number(a) - Number(b));
}

/** The logic a rule set uses: its own, or every numbered rule joined with `and` (blank when it has none). */
export function effectiveLogic(rules: Record<string, unknown>): string {
  if (typeof rules.logic === 'string' && rules.logic.trim() !== '') return rules.logic;
  return numberedRules(rules).join(' and ');
}

/** One numbered rule as the rule-set evaluation sees it: its own fact and conditions, and maybe a nested set. */
export interface NestedRule {
  name?: string;
  rules?: Record<string, unknown> | null;
  error?: { message?: string } | null;
}

export interface RuleSetOutcome<R> {
  holds: boolean;
  /** The first numbered rule (in number order, depth first) that did not hold, when the set failed. */
  failed?: R;
}

/**
 * Evaluates a rule set, nested sets included. A numbered rule holds when `leaf` says its own conditions
 * hold and, if it has a nested `rules` set, that set holds too; each set combines its numbered rules by its
 * own `logic` (all of them without one; a set with none always holds). `leaf` decides unknown facts, and
 * should answer false for a fact it cannot evaluate, so that such a rule never passes silently.
 */
export function evaluateRuleSet<R extends NestedRule>(rules: Record<string, unknown>, leaf: (rule: R) => boolean): RuleSetOutcome<R> {
  const outcome = new Map<string, RuleSetOutcome<R>>();
  for (const number of numberedRules(rules)) {
    const rule = rules[number] as R;
    if (!leaf(rule)) {
      outcome.set(number, { holds: false, failed: rule });
      continue;
    }
    const nested = rule.rules ? evaluateRuleSet<R>(rule.rules, leaf) : { holds: true };
    outcome.set(number, nested.holds ? { holds: true } : { holds: false, failed: nested.failed ?? rule });
  }
  if (evaluateLogic(parseLogic(effectiveLogic(rules)), (number) => outcome.get(number)?.holds ?? false)) return { holds: true };
  const failed = [...outcome.values()].find((each) => !each.holds)?.failed;
  return { holds: false, ...(failed && { failed }) };
}

/**
 * The `logic` of a validation rule: numbered rules joined by `and`, `or` and parentheses, such as
 * `(1 and 2) or 3`. `and` binds tighter than `or`.
 */
export type LogicNode = { rule: string } | { op: 'and' | 'or'; left: LogicNode; right: LogicNode };

function tokenize(logic: string): string[] {
  return logic.match(/\d+|\(|\)|[A-Za-z]+|\S/g) ?? [];
}

/** Parses `logic`; throws an Error whose message says what is wrong. */
export function parseLogic(logic: string): LogicNode {
  const tokens = tokenize(logic);
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
  return 'rule' in node ? [node.rule] : [...ruleNumbers(node.left), ...ruleNumbers(node.right)];
}

export function evaluateLogic(node: LogicNode, holds: (rule: string) => boolean): boolean {
  if ('rule' in node) return holds(node.rule);
  return node.op === 'and'
    ? evaluateLogic(node.left, holds) && evaluateLogic(node.right, holds)
    : evaluateLogic(node.left, holds) || evaluateLogic(node.right, holds);
}

/** The logic a rule set uses: its own, or every numbered rule joined with `and`. */
export function effectiveLogic(rules: Record<string, unknown>): string {
  if (typeof rules.logic === 'string' && rules.logic.trim() !== '') return rules.logic;
  return Object.keys(rules)
    .filter((key) => key !== 'logic')
    .sort((a, b) => Number(a) - Number(b))
    .join(' and ');
}

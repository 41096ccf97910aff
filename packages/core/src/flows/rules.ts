/**
 * Rules on a flow's variables, as an edge's condition: comparisons joined by `and`, `or`, `not` and
 * parentheses.
 *
 *   age >= 18 and answer == "yes"
 *   not (city == "Haifa" or city == "Eilat")
 *   available            (set, and not "no", "false" or "0")
 *   phone is set / phone is not set
 *
 * Values are compared as numbers when both sides are numbers, else as text (case-insensitive for `==`
 * and `!=`; ISO dates order correctly as text). `true` and `false` stand for a yes/no variable's "yes"
 * and "no". A comparison with a variable that has no value is false.
 */

export type Rule =
  | { op: 'and' | 'or'; left: Rule; right: Rule }
  | { op: 'not'; rule: Rule }
  | { op: 'truthy' | 'set' | 'unset'; variable: string }
  | { op: Comparison; variable: string; value: string };

type Comparison = '==' | '!=' | '>=' | '<=' | '>' | '<' | 'contains';

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'string'; text: string; at: number }
  | { kind: 'number'; text: string; at: number }
  | { kind: 'op'; text: string; at: number };

export class RuleError extends Error {}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const pattern =
    /\s*(?:(?<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?<number>-?\d+(?:\.\d+)?(?![A-Za-z_]))|(?<word>[A-Za-z_][A-Za-z0-9_]*)|(?<op>==|!=|>=|<=|>|<|\(|\)))/y;
  let at = 0;
  while (at < source.length) {
    if (/^\s*$/.test(source.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(source);
    if (!match?.groups) {
      const rest = source.slice(at);
      const where = at + rest.length - rest.trimStart().length;
      throw new RuleError(`unexpected ${JSON.stringify(source[where])} at ${where + 1}`);
    }
    const { string, number, word, op } = match.groups;
    const start = match.index + match[0].length - (string ?? number ?? word ?? op ?? '').length;
    if (string !== undefined)
      tokens.push({ kind: 'string', text: string.slice(1, -1).replace(/\\(.)/g, '$1'), at: start });
    else if (number !== undefined) tokens.push({ kind: 'number', text: number, at: start });
    else if (word !== undefined) tokens.push({ kind: 'word', text: word, at: start });
    else tokens.push({ kind: 'op', text: op!, at: start });
    at = pattern.lastIndex;
  }
  return tokens;
}

const COMPARISONS = new Set(['==', '!=', '>=', '<=', '>', '<']);
const KEYWORDS = new Set(['and', 'or', 'not', 'is', 'set', 'contains', 'true', 'false']);

/** Parses a rule; throws `RuleError` with what is wrong and where. */
export function parseRule(source: string): Rule {
  const tokens = tokenize(source);
  let index = 0;
  const peek = () => tokens[index];
  const word = (text: string) => {
    const token = peek();
    if (token?.kind === 'word' && token.text.toLowerCase() === text) {
      index += 1;
      return true;
    }
    return false;
  };
  const expected = (what: string): never => {
    const token = peek();
    throw new RuleError(
      token
        ? `expected ${what} at ${token.at + 1}, found ${JSON.stringify(token.text)}`
        : `expected ${what} at the end`,
    );
  };

  const or = (): Rule => {
    let left = and();
    while (word('or')) left = { op: 'or', left, right: and() };
    return left;
  };
  const and = (): Rule => {
    let left = unary();
    while (word('and')) left = { op: 'and', left, right: unary() };
    return left;
  };
  const unary = (): Rule => {
    if (word('not')) return { op: 'not', rule: unary() };
    const token = peek();
    if (token?.kind === 'op' && token.text === '(') {
      index += 1;
      const inner = or();
      const close = peek();
      if (close?.kind !== 'op' || close.text !== ')') expected('")"');
      index += 1;
      return inner;
    }
    return comparison();
  };
  const comparison = (): Rule => {
    const token = peek();
    if (token?.kind !== 'word' || KEYWORDS.has(token.text.toLowerCase())) return expected('a variable');
    index += 1;
    const variable = token.text;
    if (word('is')) {
      if (word('set')) return { op: 'set', variable };
      if (word('not') && word('set')) return { op: 'unset', variable };
      return expected('"set" or "not set"');
    }
    const next = peek();
    let op: Comparison | null = null;
    if (next?.kind === 'op' && COMPARISONS.has(next.text)) op = next.text as Comparison;
    else if (next?.kind === 'word' && next.text.toLowerCase() === 'contains') op = 'contains';
    if (!op) return { op: 'truthy', variable };
    index += 1;
    const value = peek();
    if (value?.kind === 'string' || value?.kind === 'number') {
      index += 1;
      return { op, variable, value: value.text };
    }
    if (value?.kind === 'word' && ['true', 'false'].includes(value.text.toLowerCase())) {
      index += 1;
      return { op, variable, value: value.text.toLowerCase() === 'true' ? 'yes' : 'no' };
    }
    return expected('a number, a "quoted text", true or false');
  };

  if (tokens.length === 0) throw new RuleError('is empty');
  const rule = or();
  if (index < tokens.length) expected('"and", "or" or the end');
  return rule;
}

/** The variables a rule reads. */
export function ruleVariables(rule: Rule): string[] {
  if ('left' in rule) return [...new Set([...ruleVariables(rule.left), ...ruleVariables(rule.right)])];
  if ('rule' in rule) return ruleVariables(rule.rule);
  return [rule.variable];
}

const NUMBER = /^-?\d+(\.\d+)?$/;

function compare(op: Comparison, actual: string, expected: string): boolean {
  if (op === 'contains') return actual.toLowerCase().includes(expected.toLowerCase());
  const numeric = NUMBER.test(actual.trim()) && NUMBER.test(expected.trim());
  const order = numeric
    ? Math.sign(Number(actual) - Number(expected))
    : op === '==' || op === '!='
      ? actual.trim().toLowerCase() === expected.trim().toLowerCase()
        ? 0
        : 1
      : actual < expected
        ? -1
        : actual > expected
          ? 1
          : 0;
  switch (op) {
    case '==':
      return order === 0;
    case '!=':
      return order !== 0;
    case '>=':
      return order >= 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
  }
}

export function evaluateRule(rule: Rule, vars: Readonly<Record<string, string>>): boolean {
  switch (rule.op) {
    case 'and':
      return evaluateRule(rule.left, vars) && evaluateRule(rule.right, vars);
    case 'or':
      return evaluateRule(rule.left, vars) || evaluateRule(rule.right, vars);
    case 'not':
      return !evaluateRule(rule.rule, vars);
    case 'set':
      return (vars[rule.variable] ?? '') !== '';
    case 'unset':
      return (vars[rule.variable] ?? '') === '';
    case 'truthy': {
      const value = (vars[rule.variable] ?? '').trim().toLowerCase();
      return value !== '' && !['no', 'false', '0'].includes(value);
    }
    default: {
      const value = vars[rule.variable];
      return value !== undefined && value !== '' && compare(rule.op, value, rule.value);
    }
  }
}

import { describe, expect, it } from 'vitest';
import { evaluateRule, parseRule, RuleError, ruleVariables } from './rules';
import { FlowDefinition, type FlowDefinitionInput } from './schema';
import { APPOINTMENT_FLOW, BLANK_FLOW } from './templates';
import { validateFlow } from './validate-flow';

const text = (content: string) => ({ kind: 'text' as const, content });
const parse = (input: FlowDefinitionInput) => FlowDefinition.parse(input);

describe('rules on variables', () => {
  const holds = (rule: string, vars: Record<string, string>) => evaluateRule(parseRule(rule), vars);

  it('compares numbers as numbers, text without case, and dates in order', () => {
    expect(holds('age >= 18', { age: '18' })).toBe(true);
    expect(holds('age >= 18', { age: '9' })).toBe(false);
    expect(holds('age > 9', { age: '10' })).toBe(true);
    expect(holds('answer == "yes"', { answer: 'Yes' })).toBe(true);
    expect(holds("city != 'Haifa'", { city: 'Eilat' })).toBe(true);
    expect(holds('date < "2026-12-10"', { date: '2026-12-03' })).toBe(true);
    expect(holds('notes contains "urgent"', { notes: 'This is URGENT' })).toBe(true);
    expect(holds('available == true', { available: 'yes' })).toBe(true);
    expect(holds('available == false', { available: 'yes' })).toBe(false);
  });

  it('joins with and, or, not and parentheses, and and binds tighter than or', () => {
    expect(holds('a == 1 or b == 1 and c == 1', { a: '1', b: '0', c: '0' })).toBe(true);
    expect(holds('(a == 1 or b == 1) and c == 1', { a: '1', b: '0', c: '0' })).toBe(false);
    expect(holds('not (a == 1)', { a: '2' })).toBe(true);
    expect(holds('available', { available: 'no' })).toBe(false);
    expect(holds('available', { available: 'yes' })).toBe(true);
    expect(holds('phone is set', { phone: '+14155550123' })).toBe(true);
    expect(holds('phone is not set', {})).toBe(true);
  });

  it('is false for a comparison with a variable that has no value', () => {
    expect(holds('age >= 18', {})).toBe(false);
    expect(holds('age != 18', {})).toBe(false);
  });

  it('says what is wrong with a rule that does not parse, and where', () => {
    const error = (rule: string) => {
      try {
        parseRule(rule);
      } catch (caught) {
        expect(caught).toBeInstanceOf(RuleError);
        return (caught as Error).message;
      }
      throw new Error(`${rule} parsed`);
    };
    expect(error('age >=')).toBe('expected a number, a "quoted text", true or false at the end');
    expect(error('age >= 18 and')).toBe('expected a variable at the end');
    expect(error('(age >= 18')).toBe('expected ")" at the end');
    expect(error('age = 18')).toBe('unexpected "=" at 5');
    expect(error('')).toBe('is empty');
    expect(error('age >= 18 18')).toBe('expected "and", "or" or the end at 11, found "18"');
    expect(ruleVariables(parseRule('a == 1 and (b or not c is set)'))).toEqual(['a', 'b', 'c']);
  });
});

describe('flow validation', () => {
  it('passes the templates', () => {
    expect(validateFlow(BLANK_FLOW)).toEqual([]);
    expect(validateFlow(APPOINTMENT_FLOW)).toEqual([]);
  });

  it('flags the start, unreachable nodes, dead ends and edges a node cannot leave by, on their nodes', () => {
    const flow = parse({
      start: 'missing',
      nodes: [
        { id: 'hello', name: 'Hello', type: 'say', speech: text('Hi') },
        { id: 'orphan', type: 'say', speech: text('Nobody comes here') },
        { id: 'bye', type: 'end', speech: text('Bye') },
      ],
      edges: [
        { id: 'e1', from: 'hello', to: 'bye', condition: { type: 'success' } },
        { id: 'e2', from: 'bye', to: 'hello', condition: { type: 'always' } },
      ],
    });
    expect(validateFlow(flow)).toEqual([
      { message: 'the start node missing does not exist' },
      { node: 'hello', message: 'Hello cannot be reached from the start' },
      { node: 'hello', edge: 'e1', message: 'a say node cannot leave by a success edge' },
      { node: 'orphan', message: 'orphan cannot be reached from the start' },
      { node: 'orphan', message: 'orphan is a dead end: connect it, or make it an end node' },
      { node: 'bye', message: 'bye cannot be reached from the start' },
      { node: 'bye', message: 'a end node ends the call: it has no outgoing edges' },
    ]);
  });

  it('flags variables nothing defines, rules that do not parse and incomplete function nodes', () => {
    const flow = parse({
      start: 'ask',
      nodes: [
        {
          id: 'ask',
          type: 'ask',
          speech: text('Your name, {{title}}?'),
          variables: [{ name: 'name', type: 'string' }],
        },
        {
          id: 'fn',
          name: 'Lookup',
          type: 'function',
          function: { url: 'http://example.com/x', body_variables: ['name', 'account'] },
        },
        { id: 'bye', type: 'end' },
      ],
      edges: [
        { id: 'a', from: 'ask', to: 'fn', condition: { type: 'rule', rule: 'name is set and vip == true' } },
        { id: 'b', from: 'ask', to: 'bye', condition: { type: 'rule', rule: 'name ==' } },
        { id: 'c', from: 'fn', to: 'bye', condition: { type: 'success' } },
      ],
    });
    expect(validateFlow(flow, { provided: ['title'] })).toEqual([
      { node: 'ask', edge: 'a', message: 'the rule uses variables nothing defines: vip' },
      {
        node: 'ask',
        edge: 'b',
        message: 'the rule expected a number, a "quoted text", true or false at the end',
      },
      { node: 'fn', message: 'Lookup needs a failure edge' },
      { node: 'fn', message: 'Lookup: the URL must use https' },
      { node: 'fn', message: 'Lookup sends variables nothing defines: account' },
    ]);
    expect(validateFlow(flow).map((problem) => problem.message)).toContain(
      'ask uses variables nothing defines: title',
    );
  });

  it('reaches the handoff node through the global edge', () => {
    const flow = parse({ ...APPOINTMENT_FLOW, human_handoff: null });
    expect(validateFlow(flow)).toEqual([
      { node: 'to_human', message: 'To a person cannot be reached from the start' },
    ]);
  });

  it('refuses the shape of a broken flow before validation: repeated ids and edges to no node', () => {
    const result = FlowDefinition.safeParse({
      start: 'a',
      nodes: [
        { id: 'a', type: 'end' },
        { id: 'a', type: 'end' },
      ],
      edges: [{ id: 'x', from: 'a', to: 'b', condition: { type: 'always' } }],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      'nodes.1.id: repeats node id a',
      'edges.0.to: names no node (b)',
    ]);
  });
});

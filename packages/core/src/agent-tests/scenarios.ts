import { parse, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { AppError } from '../errors';
import { assertSafeInput } from '../validation';

/**
 * A scenario of the agent test bench: a caller the language model plays (its persona and goal), the
 * turns it may take at most, and the criteria its conversation with the agent is graded on.
 */
export const AgentTestScenarioSchema = z
  .object({
    name: z.string().trim().min(1).max(120),
    /** Who the simulated caller is, as the model is to play them. */
    persona: z.string().trim().min(1).max(2_000),
    /** What the caller wants from the call. */
    goal: z.string().trim().min(1).max(1_000),
    /** What the conversation must show, each graded pass or fail. */
    criteria: z.array(z.string().trim().min(1).max(500)).min(1).max(10),
    /** The caller's turns at most; the call ends there if neither side ended it. */
    max_turns: z.number().int().min(1).max(20).default(8),
  })
  .strict();

export type AgentTestScenario = z.infer<typeof AgentTestScenarioSchema>;

export const AgentTestScenariosSchema = z.array(AgentTestScenarioSchema).min(1).max(20);

/**
 * Scenarios from a YAML document (docs/voice.md, "Test bench"): a list of scenarios, or a mapping with
 * a `scenarios` list. VALIDATION_FAILED, naming where, for YAML that does not parse or a scenario that
 * does not hold.
 */
export function parseAgentTestScenarios(text: string): AgentTestScenario[] {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    // The loader refuses what it cannot read (YAMLParseError) and also aliases it cannot resolve or
    // that would expand too far (the library's alias limit): the document's fault either way.
    const reason = error instanceof YAMLParseError ? error.message : `${(error as Error).message}`;
    throw new AppError('VALIDATION_FAILED', `The scenarios are not valid YAML: ${reason}`);
  }
  // What its escapes decode to (a "\0") must be storable as well as what was sent.
  assertSafeInput(document, 'scenarios');
  const list =
    document && typeof document === 'object' && !Array.isArray(document) && 'scenarios' in document
      ? (document as { scenarios: unknown }).scenarios
      : document;
  const parsed = AgentTestScenariosSchema.safeParse(list);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `scenarios.${issue.path.join('.')}: ` : '';
    throw new AppError('VALIDATION_FAILED', `${where}${issue.message}`);
  }
  return parsed.data;
}

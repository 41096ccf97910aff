import { transcriptText } from '../calls/conversation';
import type { CoreDeps } from '../deps';
import type { StructuredModel } from '../ports';
import { agentTestScenario, setResult } from './runs';

/** The test bench's grading: the language model's verdict on each criterion of a scenario. */

const GRADING_NOTE =
  'You grade a phone agent. A simulated caller with the goal below has just talked with it; the ' +
  'transcript follows. For each numbered criterion, decide whether the conversation meets it, strictly ' +
  'and from the transcript alone, and give a one-sentence reason.';

const GRADING_SCHEMA = {
  name: 'agent_test_grading',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['verdicts'],
    properties: {
      verdicts: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['criterion', 'passed', 'reason'],
          properties: {
            criterion: { type: 'integer', description: 'The criterion’s number' },
            passed: { type: 'boolean' },
            reason: { type: 'string' },
          },
        },
      },
    },
  },
};

/**
 * Grades a scenario's conversation with the language model: a verdict per criterion (one the model left
 * out fails, as not graded). Throws when the model fails or answers outside the schema: the step retries.
 */
export async function gradeAgentTestScenario(
  deps: CoreDeps & { analyst?: StructuredModel },
  { runId, index }: { runId: string; index: number },
): Promise<void> {
  if (!deps.analyst) throw new Error('No language model to grade with (LLM settings)');
  const { scenario, held } = await agentTestScenario(deps, runId, index);
  if (!held || held.passed !== null || held.error) return;
  const criteria = scenario.criteria.map((criterion, at) => `${at + 1}. ${criterion}`).join('\n');
  const answer = (await deps.analyst.structured(
    [
      { role: 'system', content: GRADING_NOTE },
      {
        role: 'user',
        content: `Caller's goal: ${scenario.goal}\n\nCriteria:\n${criteria}\n\nTranscript:\n${transcriptText(held.transcript, { system: true })}`,
      },
    ],
    GRADING_SCHEMA,
  )) as { verdicts?: { criterion?: unknown; passed?: unknown; reason?: unknown }[] };
  if (!Array.isArray(answer?.verdicts)) throw new Error('The grader answered without verdicts');
  const verdicts = scenario.criteria.map((criterion, at) => {
    const given = answer.verdicts!.find((verdict) => verdict.criterion === at + 1);
    return given && typeof given.passed === 'boolean'
      ? { criterion, passed: given.passed, reason: typeof given.reason === 'string' ? given.reason : '' }
      : { criterion, passed: false, reason: 'not graded' };
  });
  await setResult(deps, runId, index, {
    ...held,
    verdicts,
    passed: verdicts.every((verdict) => verdict.passed),
  });
}

import { createFlowAgent, type CoreDeps } from '@voice/core';
/**
 * A flow agent for a test, in the account: it asks `question` for `variables`, then says `goodbye` and
 * ends the call.
 */
export async function askingFlowAgent(
  deps: CoreDeps,
  accountId: string,
  {
    name,
    question,
    variables,
    goodbye,
  }: {
    name: string;
    question: string;
    variables: { name: string; type: 'string' | 'number' }[];
    goodbye: string;
  },
) {
  return createFlowAgent(deps, {
    accountId,
    name,
    language: 'en',
    voice: 'en-steve',
    welcome_message: '',
    variables_provided: [],
    variables_extracted: [],
    flow: {
      start: 'ask',
      nodes: [
        { id: 'ask', name: 'Ask', type: 'ask', speech: { kind: 'text', content: question }, variables },
        { id: 'bye', name: 'Goodbye', type: 'end', speech: { kind: 'text', content: goodbye } },
      ],
      edges: [{ id: 'done', from: 'ask', to: 'bye', condition: { type: 'always' } }],
    },
  });
}

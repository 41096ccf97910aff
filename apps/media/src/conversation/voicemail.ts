import { streamReply } from './model-reply';
import type { ConversationOptions, SessionVoicemail } from './options';

/** How long the model may take to write a voicemail message before the agent hangs up without one. */
const WRITING_TIMEOUT_MS = 15_000;

/** What the model is told when it writes the message by the agent's instruction. */
const WRITING_NOTE =
  'The call has reached an answering machine, and its beep has just sounded. Write the voicemail ' +
  'message to leave, as the instruction that follows says. Reply with the message alone, as it is to ' +
  'be spoken: no greeting to a machine, no notes.';

/**
 * The message an agent leaves on an answering machine: as written (its variables filled already), or
 * written by the language model by the agent's instruction, with the agent's prompt. Null when the model
 * fails or writes nothing (the failure noted): the agent then hangs up without a message.
 */
export async function voicemailText(
  voicemail: SessionVoicemail,
  options: ConversationOptions,
  failures: string[],
): Promise<string | null> {
  if (voicemail.kind === 'text') return voicemail.message.trim() || null;
  try {
    const reply = await streamReply(
      options.providers.llm,
      {
        history: [
          { role: 'system', content: `${options.agent.prompt}\n\n${WRITING_NOTE}` },
          { role: 'user', content: voicemail.message },
        ],
        tools: [],
        signal: AbortSignal.timeout(WRITING_TIMEOUT_MS),
        model: options.agent.model,
      },
      () => {},
    );
    return reply.text || null;
  } catch (error) {
    failures.push(`language model (voicemail message): ${(error as Error).message}`);
    return null;
  }
}

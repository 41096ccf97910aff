import type { LanguageModel, LlmMessage, LlmTool } from '@voice/providers';
import type { ToolCall } from './agent-tools';
import { firstClause, splitSentences } from './sentences';

/**
 * The model's reply, streamed: each sentence handed to `sentence` as soon as it is complete (so the
 * agent starts speaking before the model has finished writing), the first sentence's first clause on
 * its own once written, then the whole text and the tools it called. Throws as the model does.
 */
export async function streamReply(
  llm: LanguageModel,
  request: { history: LlmMessage[]; tools: LlmTool[]; signal: AbortSignal; model: string | null },
  sentence: (text: string) => void,
  /** The model's first words came. */
  firstText: () => void = () => {},
): Promise<{ text: string; calls: ToolCall[] }> {
  const calls: ToolCall[] = [];
  let pending = '';
  let text = '';
  let spoken = false;
  for await (const event of llm.reply(
    request.history,
    request.tools,
    request.signal,
    request.model ?? undefined,
  )) {
    if (event.type === 'tool') {
      calls.push(event);
      continue;
    }
    // Counted by the session's meter (usage.ts), which sees the events first.
    if (event.type === 'usage') continue;
    if (event.text) firstText();
    text += event.text;
    const split = splitSentences(pending + event.text);
    pending = split.rest;
    // Nothing spoken yet: the first clause goes to synthesis as soon as it is written.
    const clause = !spoken && split.sentences.length === 0 ? firstClause(pending) : null;
    if (clause) pending = clause.rest;
    for (const said of clause ? [clause.clause] : split.sentences) {
      spoken = true;
      sentence(said);
    }
  }
  if (pending.trim()) sentence(pending.trim());
  return { text: text.trim(), calls };
}

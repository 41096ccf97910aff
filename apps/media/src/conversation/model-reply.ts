import type { LanguageModel, LlmMessage, LlmTool } from '@voice/providers';
import type { ToolCall } from './agent-tools';
import { splitSentences } from './sentences';

/**
 * The model's reply, streamed: each sentence handed to `sentence` as soon as it is complete (so the
 * agent starts speaking before the model has finished writing), then the whole text and the tools it
 * called. Throws as the model does.
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
    split.sentences.forEach(sentence);
  }
  if (pending.trim()) sentence(pending.trim());
  return { text: text.trim(), calls };
}

import type { TranscriptEntry } from '@voice/core';
import type { LlmMessage } from '@voice/providers';
import type { Line } from '../transport/line';

/**
 * The caller's turn went on past an answer begun for its start (end-of-turn.ts, the answer thrown away
 * unheard): its transcript entry, the model's message and a page that shows the call hold all its words,
 * one turn as the caller said it.
 */
export function callerWentOn(
  whole: string,
  { transcript, history }: { transcript: TranscriptEntry[]; history: LlmMessage[] },
  line: Pick<Line, 'said'>,
): void {
  const entry = transcript.findLast((said) => said.role === 'caller');
  const message = history.findLast((said) => said.role === 'user');
  if (entry) entry.content = whole;
  if (message) message.content = whole;
  line.said({ role: 'caller', content: whole, replace: true });
}

import type { LlmMessage } from '@voice/providers';

/**
 * For a prompt agent with knowledge bases: what they hold on the caller's words, as a note for the
 * model's answer (the passages, or that there are none, so the model says it does not know). Null for
 * an agent without knowledge bases.
 */
export async function knowledgeNote(
  knowledge: ((query: string) => Promise<string[]>) | undefined,
  text: string,
  failures: string[],
): Promise<LlmMessage | null> {
  if (!knowledge) return null;
  const passages = await knowledge(text).catch((error: unknown) => {
    failures.push(`knowledge base: ${(error as Error).message}`);
    return [];
  });
  return {
    role: 'system',
    content: passages.length
      ? `Passages from the knowledge base on what the caller said; answer from them, and say you do not know what they do not say:\n${passages.map((passage, index) => `[${index + 1}] ${passage}`).join('\n\n')}`
      : 'The knowledge base has nothing on what the caller said: if they ask for facts from it, say you do not know.',
  };
}

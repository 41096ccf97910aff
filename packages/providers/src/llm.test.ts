import { startLlmEmulator } from '@voice/provider-emulators';
import { describe, expect, it } from 'vitest';
import { openAiLanguageModel } from './llm';

/** The OpenAI adapter against OpenAI's protocol (emulated). */

describe('the language model adapter', () => {
  it('gives a structured answer parsed, and tells the tokens it took', async () => {
    const emulator = await startLlmEmulator({ reply: () => ({ say: '{"intent":"book"}' }) });
    try {
      const model = openAiLanguageModel({
        apiKey: 'sk-test',
        baseUrl: emulator.baseUrl,
        model: 'm',
        timeoutMs: 5_000,
      });
      const used: unknown[] = [];
      const answer = await model.structured(
        [{ role: 'user', content: 'The caller said: I would like to book.' }],
        { name: 'caller_turn', schema: { type: 'object' } },
        (usage) => void used.push(usage),
      );
      expect(answer).toEqual({ intent: 'book' });
      // The emulator's count: a token per four characters read and written.
      expect(used).toEqual([
        {
          type: 'usage',
          inputTokens: Math.ceil('The caller said: I would like to book.'.length / 4),
          outputTokens: Math.ceil('{"intent":"book"}'.length / 4),
        },
      ]);
    } finally {
      await emulator.stop();
    }
  });
});

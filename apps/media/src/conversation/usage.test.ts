import type { LanguageModel } from '@voice/providers';
import { describe, expect, it } from 'vitest';
import type { SessionProviders } from './options';
import { UsageMeter } from './usage';

describe("a call's usage of its providers", () => {
  it("counts a flow's structured reading of the caller with the model's replies", async () => {
    const llm: LanguageModel = {
      async *reply() {
        yield { type: 'text', text: 'Hi.' };
        yield { type: 'usage', inputTokens: 30, outputTokens: 2 };
      },
      async structured(_messages, _schema, used) {
        used?.({ type: 'usage', inputTokens: 50, outputTokens: 7 });
        return { intent: null };
      },
    };
    const meter = new UsageMeter();
    const metered = meter.meter({ llm } as SessionProviders);
    for await (const event of metered.llm.reply([], [], new AbortController().signal)) void event;
    expect(await metered.llm.structured([], { name: 'caller_turn', schema: {} })).toEqual({ intent: null });
    expect(meter.total()).toMatchObject({
      llm_input_tokens: 80,
      llm_output_tokens: 9,
      llm_requests: [
        expect.objectContaining({ input_tokens: 30, output_tokens: 2 }),
        expect.objectContaining({ input_tokens: 50, output_tokens: 7 }),
      ],
    });
  });
});

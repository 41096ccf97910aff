import type { CallUsage } from '@voice/core';
import type { LanguageModel, LlmEvent } from '@voice/providers';
import type { SessionProviders } from './options';

/** The line's audio, 8 kHz μ-law: a byte a sample. */
const BYTES_PER_SECOND = 8000;
/** Requests listed one by one at most; the totals count them all. */
const MAX_LISTED_REQUESTS = 1000;

/**
 * What a conversation uses of its providers, for the call's cost (core `call_cost`): the caller's audio
 * sent to speech-to-text, the characters synthesized, and each language model request's tokens as the
 * provider reports them. It counts through the providers it hands the session, so nothing else changes.
 */
export class UsageMeter {
  private audioBytes = 0;
  private characters = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private readonly requests: CallUsage['llm_requests'] = [];

  constructor(private readonly startedAt = Date.now()) {}

  /** The providers, each counting into this meter what the conversation uses it for. */
  meter(providers: SessionProviders): SessionProviders {
    return {
      ...providers,
      stt: {
        open: async (options, events) => {
          const stream = await providers.stt.open(options, events);
          return {
            send: (audio) => {
              this.audioBytes += audio.length;
              stream.send(audio);
            },
            finalize: () => stream.finalize?.(),
            close: () => stream.close(),
          };
        },
      },
      tts: {
        synthesize: (text, options) => {
          this.characters += text.length;
          return providers.tts.synthesize(text, options);
        },
      },
      llm: {
        reply: (...request) => this.meteredReply(providers.llm, request),
        // A flow's reading of each caller turn is a request too (flow-director.ts).
        structured: (messages, schema) => {
          const at = Date.now() - this.startedAt;
          return providers.llm.structured(messages, schema, (usage) => this.used(at, usage));
        },
      },
    };
  }

  private async *meteredReply(
    llm: LanguageModel,
    request: Parameters<LanguageModel['reply']>,
  ): AsyncIterable<LlmEvent> {
    const at = Date.now() - this.startedAt;
    for await (const event of llm.reply(...request)) {
      if (event.type === 'usage') this.used(at, event);
      yield event;
    }
  }

  private used(atMs: number, { inputTokens, outputTokens }: Extract<LlmEvent, { type: 'usage' }>) {
    this.inputTokens += inputTokens;
    this.outputTokens += outputTokens;
    if (this.requests.length < MAX_LISTED_REQUESTS)
      this.requests.push({ at_ms: atMs, input_tokens: inputTokens, output_tokens: outputTokens });
  }

  total(): CallUsage {
    return {
      stt_seconds: Math.round((this.audioBytes / BYTES_PER_SECOND) * 100) / 100,
      tts_characters: this.characters,
      llm_input_tokens: this.inputTokens,
      llm_output_tokens: this.outputTokens,
      llm_requests: [...this.requests],
    };
  }
}

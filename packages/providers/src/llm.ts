import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

/**
 * What the model says, as it streams: words to speak, or a tool it calls (once its arguments are
 * whole); last, the tokens the request used, where the provider reports them.
 */
export type LlmEvent =
  | { type: 'text'; text: string }
  | { type: 'tool'; name: string; arguments: Record<string, unknown> }
  | { type: 'usage'; inputTokens: number; outputTokens: number };

export type LlmMessage = ChatCompletionMessageParam;
export type LlmTool = ChatCompletionTool;

export interface LanguageModel {
  /** The model's next turn, streamed; aborting the signal stops it. `model` overrides the default. */
  reply(
    messages: LlmMessage[],
    tools: LlmTool[],
    signal: AbortSignal,
    model?: string,
  ): AsyncIterable<LlmEvent>;
  /**
   * One answer in JSON that follows the schema (structured output): post-call analysis, a flow's reading
   * of the caller. `used` is told the tokens it took, where the provider reports them.
   */
  structured(
    messages: LlmMessage[],
    schema: { name: string; schema: Record<string, unknown> },
    used?: (usage: Extract<LlmEvent, { type: 'usage' }>) => void,
  ): Promise<unknown>;
}

export interface OpenAiSettings {
  apiKey: string;
  /** Any OpenAI-compatible endpoint; OpenAI's own when omitted. */
  baseUrl?: string;
  model: string;
  /** How long a request may take before it counts as failed. */
  timeoutMs: number;
}

/** The official client for an OpenAI-compatible endpoint, as a live call needs it. */
export function openAiClient(settings: Omit<OpenAiSettings, 'model'>): OpenAI {
  return new OpenAI({
    apiKey: settings.apiKey,
    ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
    timeout: settings.timeoutMs,
    // A caller is waiting: one quick retry at most, then the session's own fallback.
    maxRetries: 1,
  });
}

/** An OpenAI-compatible chat-completions endpoint through the official `openai` package. */
export function openAiLanguageModel(settings: OpenAiSettings): LanguageModel {
  const client = openAiClient(settings);
  return {
    async *reply(messages, tools, signal, model) {
      const stream = await client.chat.completions.create(
        {
          model: model ?? settings.model,
          messages,
          stream: true,
          // The last chunk then carries the request's token counts (the call's cost).
          stream_options: { include_usage: true },
          ...(tools.length > 0 ? { tools } : {}),
        },
        { signal },
      );
      const calls: { name: string; arguments: string }[] = [];
      let usage: LlmEvent | null = null;
      for await (const chunk of stream) {
        if (chunk.usage)
          usage = {
            type: 'usage',
            inputTokens: chunk.usage.prompt_tokens,
            outputTokens: chunk.usage.completion_tokens,
          };
        const delta = chunk.choices[0]?.delta;
        if (!delta) continue;
        if (delta.content) yield { type: 'text', text: delta.content };
        for (const call of delta.tool_calls ?? []) {
          const entry = (calls[call.index] ??= { name: '', arguments: '' });
          entry.name += call.function?.name ?? '';
          entry.arguments += call.function?.arguments ?? '';
        }
      }
      for (const call of calls) {
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
        } catch {
          // A model that wrote broken arguments called the tool with none.
        }
        yield { type: 'tool', name: call.name, arguments: args };
      }
      if (usage) yield usage;
    },
    async structured(messages, { name, schema }, used) {
      const completion = await client.chat.completions.create({
        model: settings.model,
        messages,
        response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } },
      });
      if (completion.usage)
        used?.({
          type: 'usage',
          inputTokens: completion.usage.prompt_tokens,
          outputTokens: completion.usage.completion_tokens,
        });
      return JSON.parse(completion.choices[0]?.message.content ?? 'null') as unknown;
    },
  };
}

/** The model's whole answer to these messages as text (no tools), within `timeoutMs`. */
export async function completeText(
  llm: LanguageModel,
  messages: LlmMessage[],
  timeoutMs: number,
): Promise<string> {
  let text = '';
  for await (const event of llm.reply(messages, [], AbortSignal.timeout(timeoutMs)))
    if (event.type === 'text') text += event.text;
  return text.trim();
}

/** An OpenAI-compatible embeddings endpoint: one vector per text, in order. */
export function openAiEmbedder(settings: OpenAiSettings): {
  model: string;
  embed(texts: string[]): Promise<number[][]>;
} {
  const client = openAiClient(settings);
  return {
    model: settings.model,
    async embed(texts) {
      const answer = await client.embeddings.create({ model: settings.model, input: texts });
      return [...answer.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
    },
  };
}

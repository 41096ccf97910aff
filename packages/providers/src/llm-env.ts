import { z } from 'zod';
import type { OpenAiSettings } from './llm';

/** The language model's settings, shared by the services that talk to it (media, worker). */
export const LlmEnv = {
  /** Key of the OpenAI-compatible endpoint. */
  OPENAI_API_KEY: z.string().min(1).optional(),
  /** Any OpenAI-compatible chat-completions endpoint; OpenAI's own when unset. */
  OPENAI_BASE_URL: z.url().optional(),
  LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
  /** How long one answer may take before it counts as failed. */
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).default(8_000),
  /** The embeddings model of knowledge bases' hybrid search (the same endpoint); full-text search only when unset. */
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
};

type LlmEnvValues = z.infer<z.ZodObject<typeof LlmEnv>>;

/** The model's settings from the parsed environment; null without a key. */
export function llmSettingsFromEnv(env: LlmEnvValues): OpenAiSettings | null {
  if (!env.OPENAI_API_KEY) return null;
  return {
    apiKey: env.OPENAI_API_KEY,
    ...(env.OPENAI_BASE_URL ? { baseUrl: env.OPENAI_BASE_URL } : {}),
    model: env.LLM_MODEL,
    timeoutMs: env.LLM_TIMEOUT_MS,
  };
}

/** The knowledge bases' embeddings model, when one is set beside a key. */
export function embeddingsSettingsFromEnv(env: LlmEnvValues): (OpenAiSettings & { model: string }) | null {
  const llm = llmSettingsFromEnv(env);
  return llm && env.EMBEDDINGS_MODEL ? { ...llm, model: env.EMBEDDINGS_MODEL } : null;
}

import { z } from 'zod';
import type { CostRatesConfig } from '../deps';

/**
 * What calls cost, per unit of what they use, in one currency (docs/operations.md, "Call cost"). The
 * deployment sets them (CALL_COST_RATES, over these defaults); an account may have its own.
 */
export const CostRates = z.object({
  /** ISO 4217, e.g. USD. */
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter currency code, e.g. USD'),
  /** The carrier, per started minute of a connected phone call. */
  carrier_per_minute: z.number().min(0),
  /** Speech-to-text, per second of the caller's audio. */
  stt_per_second: z.number().min(0),
  /** The language model, per token it reads and per token it writes. */
  llm_per_input_token: z.number().min(0),
  llm_per_output_token: z.number().min(0),
  /** Speech synthesis, per character. */
  tts_per_character: z.number().min(0),
});
export type CostRates = z.infer<typeof CostRates> & CostRatesConfig;

/** List prices of the default providers (Twilio outbound US, Deepgram Nova, gpt-4o-mini, ElevenLabs). */
export const DEFAULT_COST_RATES: CostRates = {
  currency: 'USD',
  carrier_per_minute: 0.014,
  stt_per_second: 0.0000717,
  llm_per_input_token: 0.00000015,
  llm_per_output_token: 0.0000006,
  tts_per_character: 0.00018,
};

/**
 * Rates over others (the deployment's over the defaults, an account's over the deployment's): any of
 * them; a different currency names every rate, as none of the others is in it.
 */
export const CostRatesOverride = CostRates.partial()
  .strict()
  .refine(
    (rates) =>
      rates.currency === undefined || Object.keys(rates).length === Object.keys(CostRates.shape).length,
    'a currency comes with every rate in it',
  );
export type CostRatesOverride = z.infer<typeof CostRatesOverride>;

/** What a live conversation used, as the media server counts it. */
export interface CallUsage {
  /** Seconds of the caller's audio sent to speech-to-text. */
  stt_seconds: number;
  /** Characters sent to speech synthesis. */
  tts_characters: number;
  llm_input_tokens: number;
  llm_output_tokens: number;
  /** Each request to the language model (a turn, a tool's follow-up), as its provider reported it. */
  llm_requests: { at_ms: number; input_tokens: number; output_tokens: number }[];
}

/** A call's cost, as stored when it ended: in its rates' currency, each part and what it counted. */
export const CallCost = z.object({
  currency: z.string(),
  combined_cost: z.number(),
  carrier: z.number(),
  stt: z.number(),
  llm: z.number(),
  tts: z.number(),
  carrier_minutes: z.number(),
  stt_seconds: z.number(),
  llm_input_tokens: z.number(),
  llm_output_tokens: z.number(),
  tts_characters: z.number(),
});
export type CallCost = z.infer<typeof CallCost>;

/** The spec's older `call_cost`: the combined cost and its currency, or null for a call without one. */
export function olderCallCost(cost: unknown): { combined_cost: number; currency: string } | null {
  const parsed = CallCost.safeParse(cost);
  return parsed.success ? { combined_cost: parsed.data.combined_cost, currency: parsed.data.currency } : null;
}

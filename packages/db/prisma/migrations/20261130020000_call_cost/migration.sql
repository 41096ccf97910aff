-- Call cost (docs/operations.md, "Call cost"): what a live conversation used, the account's own rates
-- (null: the deployment's), and each call's cost, computed once when the call ends.
ALTER TABLE "accounts" ADD COLUMN "cost_rates" JSONB;
ALTER TABLE "calls" ADD COLUMN "usage" JSONB;
ALTER TABLE "calls" ADD COLUMN "cost" JSONB;

-- A call's cost at these rates: the carrier by started minute of a connected phone call (web calls have
-- no carrier), speech-to-text by second of audio, the language model by input and output token, speech
-- synthesis by character. Each part is rounded to six decimals and the combined cost is their sum, so
-- the parts always add up. Immutable: the same usage and rates always cost the same.
CREATE FUNCTION call_cost(
  usage jsonb, call_type text, connected_at timestamptz, ended_at timestamptz, rates jsonb
) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'currency', rates->>'currency',
    'combined_cost', carrier + stt + llm + tts,
    'carrier', carrier, 'stt', stt, 'llm', llm, 'tts', tts,
    'carrier_minutes', minutes, 'stt_seconds', seconds, 'llm_input_tokens', input_tokens,
    'llm_output_tokens', output_tokens, 'tts_characters', characters)
  FROM (
    SELECT minutes, seconds, input_tokens, output_tokens, characters,
      round(minutes * (rates->>'carrier_per_minute')::numeric, 6) AS carrier,
      round(seconds * (rates->>'stt_per_second')::numeric, 6) AS stt,
      round(input_tokens * (rates->>'llm_per_input_token')::numeric
        + output_tokens * (rates->>'llm_per_output_token')::numeric, 6) AS llm,
      round(characters * (rates->>'tts_per_character')::numeric, 6) AS tts
    FROM (
      SELECT
        CASE WHEN call_type = 'phone_call' AND connected_at IS NOT NULL AND ended_at > connected_at
          THEN ceil(extract(epoch FROM ended_at - connected_at) / 60) ELSE 0 END AS minutes,
        coalesce((usage->>'stt_seconds')::numeric, 0) AS seconds,
        coalesce((usage->>'llm_input_tokens')::numeric, 0) AS input_tokens,
        coalesce((usage->>'llm_output_tokens')::numeric, 0) AS output_tokens,
        coalesce((usage->>'tts_characters')::numeric, 0) AS characters
    ) used
  ) priced
$$;

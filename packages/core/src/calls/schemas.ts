import { z } from 'zod';
import { LAST_DATE_MS } from '../bounds';

export const CALL_STATUSES = [
  'initiated',
  'ringing',
  'ongoing',
  'ended',
  'busy',
  'no_answer',
  'error',
  'user_hangup',
  'agent_hangup',
] as const;
export const TERMINAL_STATUSES = [
  'ended',
  'busy',
  'no_answer',
  'error',
  'user_hangup',
  'agent_hangup',
] as const;
export type CallStatusName = (typeof CALL_STATUSES)[number];
export const DISCONNECTION_REASONS = [
  'no_answer',
  'busy',
  'declined',
  'not_in_service',
  'carrier_rejected',
  'failed',
  // Extension: an incoming call to a number with no active agent, refused (docs/telephony.md).
  'no_agent_assigned',
] as const;

const VariableValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const Variables = z.record(z.string(), VariableValue);

export const DialCallInput = z.object({
  from_number: z.string(),
  to_number: z.string(),
  override_agent_id: z.string().optional(),
  vars_provided: Variables.optional(),
});
export type DialCallInput = z.input<typeof DialCallInput>;
export type DialCallData = z.output<typeof DialCallInput>;

/** The older create-phone-call: the same request with `dynamic_variables`. */
export const CreatePhoneCallInput = DialCallInput.omit({ vars_provided: true }).extend({
  dynamic_variables: Variables.optional(),
});

export const DialCallOutput = z.object({
  call_id: z.uuid(),
  call_status: z.literal('initiated'),
  call_type: z.literal('phone_call'),
  agent_id: z.uuid(),
  from_number: z.string(),
  to_number: z.string(),
  direction: z.literal('outgoing'),
});
export type DialCallOutput = z.infer<typeof DialCallOutput>;

export const CallIdParams = z.object({ call_id: z.string() });

const Metadata = z
  .record(z.string(), z.unknown(), 'metadata must be an object')
  .refine(
    (value) => new TextEncoder().encode(JSON.stringify(value)).length <= 50 * 1024,
    'must be at most 50 KB',
  );

/** Extension: a call from a browser to an agent (docs/voice.md, "Web calls"). */
export const CreateWebCallInput = z.object({
  agent_id: z.string(),
  vars_provided: Variables.optional(),
  metadata: Metadata.optional(),
});
export type CreateWebCallInput = z.input<typeof CreateWebCallInput>;
export type CreateWebCallData = z.output<typeof CreateWebCallInput>;

export const CreateWebCallOutput = z.object({
  call_id: z.uuid(),
  call_type: z.literal('web_call'),
  call_status: z.literal('initiated'),
  agent_id: z.uuid(),
  /** What the browser connects with: single-use, for this call only, valid for a minute. */
  access_token: z.string(),
});
export type CreateWebCallOutput = z.infer<typeof CreateWebCallOutput>;

const ThresholdMs = z
  .number()
  .int('must be an integer (Unix ms)')
  .min(-LAST_DATE_MS, 'must be a Unix time in ms within the Date range')
  .max(LAST_DATE_MS, 'must be a Unix time in ms within the Date range');
const Threshold = z.object({
  lower_threshold: ThresholdMs.optional(),
  upper_threshold: ThresholdMs.optional(),
});

/** A number filter: the whole E.164 number, or (`prefix`) its first digits, e.g. `+1415`. */
const NumberMatch = z.object({
  value: z
    .string()
    .trim()
    .regex(/^\+\d{1,15}$/, 'must be a plus sign and 1 to 15 digits, e.g. +1415'),
  match: z.enum(['exact', 'prefix']).default('exact'),
});

export const ListCallsInput = z.object({
  filter_criteria: z
    .object({
      agent_id: z.array(z.uuid('must be a UUID')).optional(),
      call_status: z.array(z.enum(CALL_STATUSES)).optional(),
      direction: z.array(z.enum(['incoming', 'outgoing'])).optional(),
      /** Extension: phone calls, web calls or both (both when omitted). */
      call_type: z.array(z.enum(['phone_call', 'web_call'])).optional(),
      /** Extension: the calls of these campaigns. */
      campaign_id: z.array(z.uuid('must be a UUID')).optional(),
      /** Extension: the calls that ended for one of these reasons. */
      disconnection_reason: z.array(z.enum(DISCONNECTION_REASONS)).optional(),
      /** Extension: the number called, whole or its beginning. */
      to_number: NumberMatch.optional(),
      /** Extension: the number called from, whole or its beginning. */
      from_number: NumberMatch.optional(),
      start_timestamp: Threshold.optional(),
      include_test_calls: z.boolean().default(false),
      include_summary: z.boolean().default(false),
    })
    .default({ include_test_calls: false, include_summary: false }),
  sort_order: z.enum(['ascending', 'descending']).default('descending'),
  limit: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(1000, 'must be at most 1000')
    .default(50),
  pagination_key: z.string().optional(),
});
export type ListCallsInput = z.input<typeof ListCallsInput>;
export type ListCallsData = z.output<typeof ListCallsInput>;

export const UpdateCallInput = z.object({ metadata: Metadata });

const TranscriptEntry = z.object({
  role: z.enum(['agent', 'caller', 'system']),
  content: z.string(),
  timestamp_ms: z.number().int(),
});

export const LightweightCall = z.object({
  call_id: z.uuid(),
  call_type: z.enum(['phone_call', 'web_call']),
  call_status: z.enum(CALL_STATUSES),
  disconnection_reason: z.enum(DISCONNECTION_REASONS).nullable(),
  /** Null only for an incoming call refused because its number has no agent (docs/telephony.md). */
  agent: z.object({ name: z.string(), version: z.number().int() }).nullable(),
  from_number: z.string(),
  to_number: z.string(),
  direction: z.enum(['incoming', 'outgoing']),
  start_timestamp: z.number().int(),
  duration_ms: z.number().int(),
  is_test_call: z.boolean(),
  summary: z.string().nullable().optional(),
});
export type LightweightCall = z.infer<typeof LightweightCall>;

export const FullCall = LightweightCall.omit({ summary: true }).extend({
  transcript: z.array(TranscriptEntry),
  detected_gender: z.enum(['male', 'female']).nullable(),
  recording_url: z.string().nullable(),
  summary: z.string().nullable(),
  vars_provided: z.record(z.string(), z.string()),
  vars_extracted: z.record(z.string(), z.string()),
  vars_collected: z.record(z.string(), z.union([z.string(), z.array(z.record(z.string(), z.string()))])),
  /**
   * Extension (docs/telephony.md, "Voicemail"): who answered, where the carrier's answering machine
   * detection says (agents with a voicemail action); null when it was not asked or nobody answered.
   */
  answered_by: z.enum(['human', 'machine', 'unknown']).nullable(),
  /**
   * Extension (docs/telephony.md, "Voicemail"): the agent left an answering machine its message, spoken
   * whole after the beep (agents with `voicemail_action` leave_message).
   */
  voicemail_left: z.boolean(),
});
export type FullCall = z.infer<typeof FullCall>;

export const CallListOutput = z.object({ calls: z.array(LightweightCall), total_count: z.number().int() });
export type CallListOutput = z.infer<typeof CallListOutput>;

const OlderExtras = {
  agent: z.object({ id: z.uuid(), name: z.string(), version: z.number().int() }).nullable(),
  account: z.object({ id: z.uuid(), name: z.string() }),
  call_cost: z.object({ combined_cost: z.number(), currency: z.string() }).nullable(),
};
export const OlderLightweightCall = LightweightCall.extend(OlderExtras);
/** The older full call also carries what update-call writes (`metadata`) and when the call ended. */
export const OlderFullCall = FullCall.extend({
  ...OlderExtras,
  metadata: z.record(z.string(), z.unknown()).nullable(),
  end_timestamp: z.number().int().nullable(),
});

/** A test contact: calls to it are test calls (`is_test_call`), left out of lists by default. */
export const AddTestContactInput = z.object({
  phone_number: z.string(),
  name: z.string().trim().max(100, 'must be at most 100 characters').optional(),
});
export type AddTestContactInput = z.infer<typeof AddTestContactInput>;

import { z } from 'zod';
import { RingTimeoutSeconds } from '../agents/schemas';
import { INT4_MAX } from '../bounds';
import { isValidTimezone, secondsOfDay, WEEKDAYS } from './windows';

export const CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'running',
  'paused',
  'completed',
  'canceled',
] as const;
export const CONTACT_STATES = ['queued', 'calling', 'completed', 'skipped_dnc', 'canceled'] as const;
/**
 * Outcomes a retry policy may retry: a call nobody answered, or one an answering machine took (with
 * an agent that detects machines: `voicemail`, or `voicemail_left` once the agent left its message); a
 * call a person answered is never redialed.
 */
export const RETRYABLE_OUTCOMES = ['busy', 'no_answer', 'error', 'voicemail', 'voicemail_left'] as const;
export const MAX_CONTACTS_PER_REQUEST = 10_000;

const Timezone = z.string().refine(isValidTimezone, 'must be an IANA timezone, e.g. America/New_York');
const LocalTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, 'must be a local time HH:MM or HH:MM:SS (24-hour)');

export const CallingWindowInput = z
  .object({
    days: z
      .array(z.enum(WEEKDAYS))
      .min(1, 'must name at least one day')
      .refine((days) => new Set(days).size === days.length, 'must not repeat a day'),
    start: LocalTime,
    end: LocalTime.or(z.literal('24:00')),
  })
  .strict()
  .refine((w) => secondsOfDay(w.end) > secondsOfDay(w.start), {
    message: 'end must be after start',
    path: ['end'],
  });

const VariableValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

export const ContactInput = z
  .object({
    to_number: z.string(),
    variables: z.record(z.string().min(1), VariableValue).optional(),
    timezone: Timezone.optional(),
  })
  .strict();
export type ContactInput = z.input<typeof ContactInput>;

export const RetryPolicy = z
  .object({
    retry_on: z.array(z.enum(RETRYABLE_OUTCOMES)).default(['busy', 'no_answer']),
    max_attempts: z.number().int().min(1).max(10).default(3),
    delay_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .default(3600),
  })
  .strict();

export const CreateCampaignInput = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(100),
    agent_id: z.string(),
    from_numbers: z.array(z.string()).min(1, 'must list at least one number').max(100),
    timezone: Timezone.default('UTC'),
    schedule: z
      .object({ start_at: z.iso.datetime().optional(), end_at: z.iso.datetime().optional() })
      .strict()
      .refine((s) => !s.start_at || !s.end_at || Date.parse(s.end_at) > Date.parse(s.start_at), {
        message: 'end_at must be after start_at',
        path: ['end_at'],
      })
      .default({}),
    calling_windows: z.array(CallingWindowInput).max(21).default([]),
    max_concurrent_calls: z.number().int().min(1, 'must be at least 1').max(1000).default(10),
    dials_per_minute: z.number().int().min(1, 'must be at least 1').max(100_000).nullable().default(null),
    /** Null: the agent's ring time, or the deployment's. */
    ring_timeout_seconds: RingTimeoutSeconds.default(null),
    retry_policy: RetryPolicy.default({
      retry_on: ['busy', 'no_answer'],
      max_attempts: 3,
      delay_seconds: 3600,
    }),
    contacts: z.array(z.unknown()).max(MAX_CONTACTS_PER_REQUEST).default([]),
    /** A draft is stored but not started; campaign-resume launches it. */
    draft: z.boolean().default(false),
  })
  .strict();
export type CreateCampaignInput = z.input<typeof CreateCampaignInput>;

export const AddContactsInput = z
  .object({ contacts: z.array(z.unknown()).min(1).max(MAX_CONTACTS_PER_REQUEST) })
  .strict();

export const CheckContactsInput = z
  .object({
    contacts: z.array(z.unknown()).max(MAX_CONTACTS_PER_REQUEST),
    /** The campaign's timezone: a contact's own when it names none. */
    timezone: Timezone.default('UTC'),
  })
  .strict();

export const CampaignCounts = z.object({
  total: z.number().int(),
  // An object with every state (not a record keyed by an enum), so the document names each property.
  by_state: z.object(
    Object.fromEntries(CONTACT_STATES.map((state) => [state, z.number().int()])) as Record<
      (typeof CONTACT_STATES)[number],
      z.ZodNumber
    >,
  ),
  by_outcome: z.record(z.string(), z.number().int()),
});
export type CampaignCounts = z.infer<typeof CampaignCounts>;

export const Campaign = z.object({
  campaign_id: z.uuid(),
  name: z.string(),
  agent_id: z.uuid(),
  from_numbers: z.array(z.string()),
  status: z.enum(CAMPAIGN_STATUSES),
  /** Why the service paused the campaign itself (its carrier refused the account); null otherwise. */
  paused_reason: z.string().nullable(),
  timezone: z.string(),
  schedule: z.object({ start_at: z.string().nullable(), end_at: z.string().nullable() }),
  calling_windows: z.array(z.object({ days: z.array(z.enum(WEEKDAYS)), start: z.string(), end: z.string() })),
  max_concurrent_calls: z.number().int(),
  dials_per_minute: z.number().int().nullable(),
  ring_timeout_seconds: z.number().int().nullable(),
  retry_policy: z.object({
    retry_on: z.array(z.enum(RETRYABLE_OUTCOMES)),
    max_attempts: z.number().int(),
    delay_seconds: z.number().int(),
  }),
  counts: CampaignCounts,
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type Campaign = z.infer<typeof Campaign>;

export const RejectedRow = z.object({ row: z.number().int(), reason: z.string() });
export const AddContactsOutput = z.object({
  accepted: z.number().int(),
  skipped_dnc: z.number().int(),
  rejected: z.array(RejectedRow),
});
export type AddContactsOutput = z.infer<typeof AddContactsOutput>;

export const CampaignIdParams = z.object({ campaign_id: z.string() });

export const ListCampaignsInput = z
  .object({
    status: z.enum(CAMPAIGN_STATUSES).optional(),
    limit: z.number().int().min(1).max(1000).default(50),
  })
  .strict();

export const ListContactsInput = z
  .object({
    state: z.enum(CONTACT_STATES).optional(),
    limit: z.number().int().min(1).max(1000).default(100),
    /** The last `position` of the previous page (an int4 column). */
    after: z.number().int().min(0).max(INT4_MAX).optional(),
  })
  .strict();

export const CampaignContact = z.object({
  contact_id: z.uuid(),
  position: z.number().int(),
  to_number: z.string(),
  variables: z.record(z.string(), z.string()),
  timezone: z.string(),
  state: z.enum(CONTACT_STATES),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_call_id: z.uuid().nullable(),
  last_outcome: z.string().nullable(),
});
export const ContactListOutput = z.object({
  contacts: z.array(CampaignContact),
  next_after: z.number().int().nullable(),
});

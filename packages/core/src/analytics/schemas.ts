import { z } from 'zod';
import { LAST_DATE_MS } from '../bounds';
import { isValidTimezone } from '../time-zones';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const QUARTER_HOUR_MS = HOUR_MS / 4;

/** The longest window of each interval: a series of at most about 750 points. */
export const ANALYTICS_MAX_WINDOW = { hour: 31 * DAY_MS, day: 732 * DAY_MS, month: 3660 * DAY_MS } as const;

const Timestamp = z
  .number()
  .int('must be an integer (Unix ms)')
  .min(0, 'must be a Unix time in ms')
  .max(LAST_DATE_MS - DAY_MS, 'must be a Unix time in ms before the year 275760');

/** An IANA time zone the server knows, e.g. Europe/Paris. */
export const TimeZone = z
  .string()
  .refine(isValidTimezone, 'must be an IANA time zone, e.g. America/New_York');

/**
 * Extension (the spec lists an analytics API as planned): an account's calls over a window, from the
 * analytics rollups. The window is whole quarter hours: `start_timestamp` is rounded down to the
 * quarter hour, `end_timestamp` (exclusive) up. Test calls are never counted.
 */
export const CallAnalyticsInput = z
  .object({
    start_timestamp: Timestamp,
    end_timestamp: Timestamp,
    /** The series' step; by default hours up to two days, days up to 92 days, months beyond. */
    interval: z.enum(['hour', 'day', 'month']).optional(),
    /** Where the series' hours, days and months and `calls_by_hour` are counted; the account's by default. */
    timezone: TimeZone.optional(),
    filter_criteria: z
      .object({
        agent_id: z.array(z.uuid('must be a UUID')).optional(),
        campaign_id: z.array(z.uuid('must be a UUID')).optional(),
        direction: z.array(z.enum(['incoming', 'outgoing'])).optional(),
      })
      .default({}),
  })
  .superRefine((input, ctx) => {
    if (input.end_timestamp <= input.start_timestamp) {
      ctx.addIssue({ code: 'custom', path: ['end_timestamp'], message: 'must be after start_timestamp' });
      return;
    }
    const window = alignedWindow(input.start_timestamp, input.end_timestamp);
    const interval = input.interval ?? defaultInterval(window.end - window.start);
    if (window.end - window.start > ANALYTICS_MAX_WINDOW[interval])
      ctx.addIssue({
        code: 'custom',
        path: ['end_timestamp'],
        message: `a window by ${interval} covers at most ${ANALYTICS_MAX_WINDOW[interval] / DAY_MS} days`,
      });
  });
export type CallAnalyticsInput = z.input<typeof CallAnalyticsInput>;
export type CallAnalyticsData = z.output<typeof CallAnalyticsInput>;

/** The whole quarter hours around [start, end). */
export function alignedWindow(start: number, end: number) {
  return {
    start: Math.floor(start / QUARTER_HOUR_MS) * QUARTER_HOUR_MS,
    end: Math.ceil(end / QUARTER_HOUR_MS) * QUARTER_HOUR_MS,
  };
}

export function defaultInterval(windowMs: number): 'hour' | 'day' | 'month' {
  return windowMs <= 2 * DAY_MS ? 'hour' : windowMs <= 92 * DAY_MS ? 'day' : 'month';
}

const Cost = z.object({
  currency: z.string(),
  /** The summed cost of the calls that have one, in this currency. */
  combined_cost: z.number(),
  /** How many calls it is the cost of, and their average. */
  calls: z.number().int(),
  average_cost: z.number(),
});

const Outcome = z.object({
  /** The call's status, or `voicemail` (`voicemail_left`) when an answering machine took it. */
  outcome: z.string(),
  disconnection_reason: z.string().nullable(),
  calls: z.number().int(),
});

export const CallAnalyticsOutput = z.object({
  /** The window counted, in whole quarter hours. */
  start_timestamp: z.number().int(),
  end_timestamp: z.number().int(),
  interval: z.enum(['hour', 'day', 'month']),
  /** The time zone the series and `calls_by_hour` are counted in. */
  timezone: z.string(),
  totals: z.object({
    /** Every call started in the window. */
    calls: z.number().int(),
    /** Those that ended (any terminal status), and of these the ones answered. */
    finished_calls: z.number().int(),
    connected_calls: z.number().int(),
    /** connected_calls / finished_calls; null without finished calls. */
    connect_rate: z.number().nullable(),
    /** Answered calls an answering machine took, and their share of the answered calls. */
    voicemail_calls: z.number().int(),
    voicemail_rate: z.number().nullable(),
    /** Talk time of the answered calls that ended: sum, average and 90th percentile (see docs). */
    talk_time_ms: z.number().int(),
    average_duration_ms: z.number().int().nullable(),
    p90_duration_ms: z.number().int().nullable(),
    /** One entry per currency the calls' cost is in (usually one). */
    cost: z.array(Cost),
  }),
  /** The calls by outcome and disconnection reason, most first. */
  outcomes: z.array(Outcome),
  /**
   * One point per hour, day or month of `timezone` the window touches (its start as a Unix time), oldest
   * first, with no gaps; the first and last count only their part inside the window.
   */
  series: z.array(
    z.object({
      timestamp: z.number().int(),
      calls: z.number().int(),
      connected_calls: z.number().int(),
      /** Calls by outcome. */
      outcomes: z.record(z.string(), z.number().int()),
      average_duration_ms: z.number().int().nullable(),
      /** Cost by currency. */
      cost: z.record(z.string(), z.number()),
    }),
  ),
  /** The calls by the hour of the day they started, 0 to 23, in `timezone`. */
  calls_by_hour: z.array(z.number().int()).length(24),
});
export type CallAnalyticsOutput = z.infer<typeof CallAnalyticsOutput>;

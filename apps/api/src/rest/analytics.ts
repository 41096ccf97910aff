import { CallAnalyticsInput, CallAnalyticsOutput, callAnalytics } from '@voice/core';
import { defineRoute } from './route';

export const analyticsRoutes = [
  defineRoute({
    operationId: 'callAnalytics',
    method: 'POST',
    path: '/functions/v1/analytics-calls',
    summary:
      'Extension: calls over a window of whole hours: outcomes over time, connect and voicemail rates, talk time (average, p90), calls by hour of day and cost, by agent, campaign and direction',
    tag: 'Analytics',
    body: CallAnalyticsInput,
    response: CallAnalyticsOutput,
    errors: [400],
    handler: ({ deps, auth }, { body }) => callAnalytics(deps, { accountId: auth.accountId, ...body }),
  }),
];

import { FlowDefinition } from './schema';

/** The builder's starting points. */

/** A greeting and a goodbye: the smallest flow that can be published. */
export const BLANK_FLOW = FlowDefinition.parse({
  start: 'greeting',
  nodes: [
    {
      id: 'greeting',
      name: 'Greeting',
      type: 'say',
      speech: { kind: 'text', content: 'Hello! Thank you for calling.' },
      position: { x: 0, y: 0 },
    },
    {
      id: 'goodbye',
      name: 'Goodbye',
      type: 'end',
      speech: { kind: 'text', content: 'Goodbye!' },
      position: { x: 0, y: 160 },
    },
  ],
  edges: [{ id: 'greeting-goodbye', from: 'greeting', to: 'goodbye', condition: { type: 'always' } }],
});

/** Where the appointment template's function node asks; the customer points it at their calendar. */
export const APPOINTMENT_CALENDAR_URL = 'https://calendar.example.com/availability';

/**
 * Appointment booking: ask the caller's name and date, ask the customer's calendar whether the date is
 * free, confirm it, or offer the calendar's other date (taken or declined), and end; a caller who asks
 * for a person is transferred from anywhere.
 */
export const APPOINTMENT_FLOW = FlowDefinition.parse({
  start: 'ask_details',
  global_prompt:
    'You are the friendly receptionist of a clinic, booking appointments. Keep every answer short.',
  human_handoff: { to: 'to_human' },
  nodes: [
    {
      id: 'ask_details',
      name: 'Ask name and date',
      type: 'ask',
      speech: {
        kind: 'text',
        content: 'I can book your appointment. May I have your name and the date you would like?',
      },
      variables: [
        { name: 'name', type: 'string', description: "the caller's name" },
        { name: 'date', type: 'date', description: 'the date the caller would like' },
      ],
      position: { x: 0, y: 0 },
    },
    {
      id: 'check_calendar',
      name: 'Check the calendar',
      type: 'function',
      function: {
        url: APPOINTMENT_CALENDAR_URL,
        body_variables: ['name', 'date'],
        response: [
          { variable: 'available', path: '$.available' },
          { variable: 'alternative_date', path: '$.alternative_date' },
        ],
      },
      position: { x: 0, y: 160 },
    },
    {
      id: 'confirm',
      name: 'Confirm',
      type: 'end',
      speech: { kind: 'text', content: 'Thank you {{name}}, you are booked for {{date}}. Goodbye!' },
      position: { x: -320, y: 340 },
    },
    {
      id: 'offer_other',
      name: 'Offer another date',
      type: 'say',
      speech: {
        kind: 'text',
        content: 'I am sorry, {{date}} is not available. Would {{alternative_date}} work for you instead?',
      },
      position: { x: 0, y: 340 },
    },
    {
      id: 'confirm_other',
      name: 'Confirm the other date',
      type: 'end',
      speech: {
        kind: 'text',
        content: 'Thank you {{name}}, you are booked for {{alternative_date}}. Goodbye!',
      },
      position: { x: -160, y: 520 },
    },
    {
      id: 'ask_date',
      name: 'Ask another date',
      type: 'ask',
      speech: { kind: 'text', content: 'Which other date would suit you?' },
      variables: [{ name: 'date', type: 'date', description: 'the date the caller would like' }],
      position: { x: 200, y: 520 },
    },
    {
      id: 'sorry',
      name: 'Calendar unavailable',
      type: 'end',
      speech: {
        kind: 'text',
        content: 'I am sorry, I cannot reach our calendar right now. We will call you back. Goodbye!',
      },
      position: { x: 320, y: 340 },
    },
    {
      id: 'to_human',
      name: 'To a person',
      type: 'transfer',
      speech: { kind: 'text', content: 'Let me connect you with a colleague.' },
      position: { x: 400, y: 0 },
    },
  ],
  edges: [
    { id: 'details-check', from: 'ask_details', to: 'check_calendar', condition: { type: 'always' } },
    {
      id: 'check-confirm',
      from: 'check_calendar',
      to: 'confirm',
      condition: { type: 'rule', rule: 'available == true' },
    },
    { id: 'check-offer', from: 'check_calendar', to: 'offer_other', condition: { type: 'success' } },
    { id: 'check-sorry', from: 'check_calendar', to: 'sorry', condition: { type: 'failure' } },
    {
      id: 'offer-accepted',
      from: 'offer_other',
      to: 'confirm_other',
      condition: { type: 'intent', description: 'The caller accepts the date offered' },
    },
    {
      id: 'offer-declined',
      from: 'offer_other',
      to: 'ask_date',
      condition: { type: 'intent', description: 'The caller declines the date offered or wants another one' },
    },
    { id: 'date-check', from: 'ask_date', to: 'check_calendar', condition: { type: 'always' } },
  ],
});

export const FLOW_TEMPLATES = { blank: BLANK_FLOW, appointment: APPOINTMENT_FLOW } as const;
export type FlowTemplate = keyof typeof FLOW_TEMPLATES;

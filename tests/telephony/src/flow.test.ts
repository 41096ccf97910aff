import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APPOINTMENT_FLOW, createFlowAgent, type FunctionInvocation } from '@voice/core';
import { startHttpsEndpoint, type HttpsEndpoint } from '@voice/core/testing';
import type { ChatRequest, LlmReply } from '@voice/provider-emulators';
import type { CalleeTurn } from '@voice/twilio-emulator';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FROM, TelephonyStack } from './support/stack';

/**
 * A flow agent on a live call through Twilio: the appointment template, the caller's words heard by
 * speech-to-text, the model asked only what the caller meant (structured output), the customer's
 * calendar asked over HTTPS (signed), and every step of the flow in the transcript.
 */

const HELD = '+14155550008';
const SECRET = 'whsec_ZmxvdyBhZ2VudHMgb24gbGl2ZSBjYWxscw==';
const SAID = ['My name is Dana and I would like the first of December.', 'Yes, that works for me.'];
const QUESTION = 'I can book your appointment. May I have your name and the date you would like?';
const OFFER = 'I am sorry, 2026-12-01 is not available. Would 2026-12-03 work for you instead?';
const BOOKED = 'Thank you Dana, you are booked for 2026-12-03. Goodbye!';

let stack: TelephonyStack;
let calendar: HttpsEndpoint;
let caDir: string;
let agentId: string;
let callee: CalleeTurn[] = [];

/** The model understands the caller: the name and date at the ask node, the acceptance at the offer. */
function model(request: ChatRequest): LlmReply {
  const format = request.response_format?.json_schema;
  if (format?.name === 'call_analysis')
    return {
      say: JSON.stringify({
        summary: 'Dana booked December 3.',
        detected_gender: 'female',
        vars_extracted: {},
      }),
    };
  if (format?.name !== 'caller_turn') return { status: 400, message: 'this flow has no instructions' };
  const schema = format.schema as { properties: { variables: { properties: Record<string, unknown> } } };
  const asked = Object.keys(schema.properties.variables.properties);
  if (asked.includes('name'))
    return { say: JSON.stringify({ intent: null, variables: { name: 'Dana', date: '2026-12-01' } }) };
  return { say: JSON.stringify({ intent: 'offer-accepted', variables: {} }) };
}

beforeAll(async () => {
  calendar = await startHttpsEndpoint(() => ({
    status: 200,
    body: JSON.stringify({ available: false, alternative_date: '2026-12-03' }),
  }));
  // The media server trusts the calendar's certificate as it would a public one.
  caDir = mkdtempSync(join(tmpdir(), 'calendar-ca-'));
  writeFileSync(join(caDir, 'ca.pem'), calendar.ca);
  // The callee answers once the agent has finished each question, however long it took to begin.
  callee = [{ untilAgentQuietMs: 800 }, { text: SAID[0]! }, { untilAgentQuietMs: 800 }, { text: SAID[1]! }];
  stack = await TelephonyStack.start('Flow', inject('temporalAddress'), {
    emulator: { talkMs: 60_000, callee: () => callee },
    webhookAllowedHosts: calendar.host,
    voice: {
      llm: model,
      stt: (index) => SAID[index] ?? 'Sorry?',
      media: { CALL_SILENCE_TIMEOUT_MS: '60000', NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem') },
    },
  });
  const flow = {
    ...APPOINTMENT_FLOW,
    nodes: APPOINTMENT_FLOW.nodes.map((node) =>
      node.type === 'function'
        ? { ...node, function: { ...node.function, url: `${calendar.url}/availability`, secret: SECRET } }
        : node,
    ),
  };
  // The calendar is on this machine: a host the deployment allows, as the media server's calls to it are.
  const allowing = { ...stack.deps, config: { ...stack.deps.config, webhookAllowedHosts: [calendar.host] } };
  const agent = await createFlowAgent(allowing, {
    accountId: stack.seeded.account.id,
    name: 'Booking flow',
    language: 'en',
    voice: 'en-steve',
    welcome_message: '',
    variables_provided: [],
    variables_extracted: [],
    flow,
  });
  agentId = agent.agent_id;
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await calendar?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

describe('a flow agent on a live call', () => {
  it('books through the customer’s calendar: asks, calls the function, offers another date, ends', async () => {
    const dialed = await stack.request('/functions/v1/call-dial', {
      method: 'POST',
      body: { from_number: FROM, to_number: HELD, override_agent_id: agentId },
    });
    expect(dialed.status).toBe(201);
    const callId = (dialed.json as { call_id: string }).call_id;
    const row = await stack.ended(callId, 90_000);
    expect(row.status).toBe('ended');
    expect(row.agentVersion).toBe(1);

    // The calendar got one signed request, which it verifies as any Standard Webhooks receiver does.
    expect(calendar.received).toHaveLength(1);
    const request = calendar.received[0]!;
    expect(request.path).toBe('/availability');
    expect(JSON.parse(request.body)).toEqual({
      name: 'Check the calendar',
      call_id: callId,
      args: { name: 'Dana', date: '2026-12-01' },
    });
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const signed = `${request.headers['webhook-id'] as string}.${request.headers['webhook-timestamp'] as string}.${request.body}`;
    expect(request.headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', key).update(signed).digest('base64')}`,
    );

    // Each step of the flow in the transcript, between what was said.
    const transcript = (row.transcript as { role: string; content: string }[]).map(({ role, content }) => [
      role,
      content,
    ]);
    expect(transcript).toEqual([
      ['system', 'node: Ask name and date'],
      ['agent', QUESTION],
      ['caller', SAID[0]],
      ['system', 'node: Check the calendar'],
      ['system', 'function Check the calendar: called'],
      ['system', 'function Check the calendar: ok'],
      ['system', 'node: Offer another date'],
      ['agent', OFFER],
      ['caller', SAID[1]],
      ['system', 'node: Confirm the other date'],
      ['agent', BOOKED],
    ]);
    expect(row.varsCollected).toEqual({ name: 'Dana', date: '2026-12-01' });
    // The caller heard the goodbye before the line was closed: the carrier was asked to end the call.
    expect((await stack.carrierCall(callId)).updates).toEqual([{ Status: 'completed' }]);

    // The function's payloads are kept with the call for the dashboard ...
    const [invocation] = row.functionInvocations as unknown as FunctionInvocation[];
    expect(invocation).toMatchObject({
      node: 'check_calendar',
      ok: true,
      status: 200,
      request: { args: { name: 'Dana', date: '2026-12-01' } },
      response: JSON.stringify({ available: false, alternative_date: '2026-12-03' }),
      error: null,
    });
    // ... and in no API response.
    const responses = await Promise.all([
      stack.request(`/functions/v1/call-get/${callId}`),
      stack.request('/functions/v1/call-list', { method: 'POST', body: {} }),
      stack.request(`/functions/v1/agent-get/${agentId}`),
    ]);
    for (const response of responses) {
      expect(response.status).toBe(200);
      for (const internal of ['alternative_date', 'availability', 'check_calendar', calendar.host])
        expect(response.text).not.toContain(internal);
    }
    const got = responses[0]!.json as { transcript: unknown[]; vars_collected: unknown };
    expect(got.transcript).toHaveLength(transcript.length);
    expect(got.vars_collected).toEqual({ name: 'Dana', date: '2026-12-01' });
  });
});

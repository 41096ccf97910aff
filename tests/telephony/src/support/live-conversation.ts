import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { speak } from '@voice/audio';
import { createVoiceClient } from '@voice/client';
import { startWebhookReceiver, type WebhookReceiver } from '@voice/core/testing';
import { startOtlpReceiver, waitFor, type OtlpReceiver } from '@voice/dev';
import type { ChatRequest, LlmReply } from '@voice/provider-emulators';
import type { CalleeTurn } from '@voice/twilio-emulator';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { TelephonyStack } from './stack';

/**
 * A stack for live conversations through Twilio: a real api, worker and media server with Temporal;
 * Twilio, the language model and speech-to-text emulated at their protocols; real audio both ways (the
 * callee speaks eSpeak audio on the media stream, the agent speaks eSpeak NG through the media server).
 * Each test file of conversations has its own, so that the files run side by side.
 */

// Answers and stays on the line until the service hangs up.
export const HELD = '+14155550008';
// Answers, talks for the emulator's talk time, then hangs up.
export const HANGS_UP = '+14155550009';
// An answering machine: its greeting ends with a beep, then it records until the service hangs up.
export const MACHINE = '+14155550010';

// A warm transfer's colleagues: one answers and stays on the line, one never answers.
export const COLLEAGUE = '+14155560008';
export const NO_COLLEAGUE = '+14155560003';

export const WELCOME = 'Hello, this is the dental clinic.';
export const SAID = ['Hi, this is Dana.', 'Tuesday morning works for me.'];

/** A callee who says both lines, each once the agent has finished speaking, however long that took. */
export const bothLines = (): CalleeTurn[] => [
  { untilAgentQuietMs: 1_000 },
  { text: SAID[0]! },
  { untilAgentQuietMs: 1_000 },
  { text: SAID[1]! },
];

/** The model's analysis of a call that ended before a day was agreed. */
export const analysed = (summary: string): LlmReply => ({
  say: JSON.stringify({ summary, detected_gender: null, vars_extracted: { appointment_day: '' } }),
});

/** A workflow history as text, every payload decoded (payloads are stored as bytes). */
function historyText(history: Parameters<typeof historyToJSON>[0]): string {
  const json = historyToJSON(history);
  const decoded = [...json.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map(([, data]) =>
    Buffer.from(data!, 'base64').toString('utf8'),
  );
  return [json.replace(/"data":\s*"[A-Za-z0-9+/=]+"/g, '"data": ""'), ...decoded].join('\n');
}

export interface LiveConversation {
  stack: TelephonyStack;
  client: ReturnType<typeof createVoiceClient>;
  receiver: WebhookReceiver;
  /** Where the three services export their spans, when the suite runs traced. */
  collector: OtlpReceiver | null;
  /** How long the welcome lasts. */
  welcomeMs: number;
  /** What each callee says (set per test). */
  callee: CalleeTurn[];
  /** The model's streamed answers in order, and its analysis. */
  answers: LlmReply[];
  analysis: LlmReply;
  /** Every call the suite placed, for the secret scan at the end. */
  placed: string[];
  /** Dials a number, the call kept for the secret scan. */
  dial(to: string): Promise<string>;
  /** The call_ended webhook of a call, once it came. */
  callEnded(callId: string): Promise<Record<string, unknown>>;
}

/**
 * Starts the file's stack before its tests (and closes it after them), its agent a dental clinic's
 * with a webhook to the file's receiver. `traced`: every service exports its spans to a collector.
 */
export function liveConversation(name: string, { traced = false }: { traced?: boolean } = {}) {
  const live = {
    collector: null,
    welcomeMs: 0,
    callee: [],
    answers: [],
    analysis: { status: 500 },
    placed: [],
    async dial(to: string) {
      const callId = await live.stack.dial(to);
      live.placed.push(callId);
      return callId;
    },
    async callEnded(callId: string) {
      let found: Record<string, unknown> | undefined;
      await waitFor(`the call_ended webhook of ${callId}`, 30_000, async () => {
        found = live.receiver.received
          .map((request) => JSON.parse(request.body) as { event: string; call: Record<string, unknown> })
          .find((body) => body.event === 'call_ended' && body.call.call_id === callId)?.call;
        return found !== undefined;
      });
      return found!;
    },
  } as unknown as LiveConversation;
  const reply = (request: ChatRequest): LlmReply =>
    request.response_format ? live.analysis : (live.answers.shift() ?? { say: 'Goodbye.' });

  beforeAll(async () => {
    live.receiver = await startWebhookReceiver();
    live.collector = traced ? await startOtlpReceiver() : null;
    live.welcomeMs = (await speak(WELCOME)).length / 8;
    live.stack = await TelephonyStack.start(name, inject('temporalAddress'), {
      // A colleague a warm transfer dials says nothing while the agent briefs them.
      emulator: {
        talkMs: 9_000,
        transferTalkMs: 1_000,
        callee: (call) => (call.to === COLLEAGUE ? [] : live.callee),
      },
      webhookAllowedHosts: live.receiver.host,
      // Every service exports its spans, batched for half a second.
      ...(live.collector
        ? { env: { OTEL_EXPORTER_OTLP_ENDPOINT: live.collector.url, OTEL_BSP_SCHEDULE_DELAY: '500' } }
        : {}),
      voice: {
        llm: reply,
        stt: (index) => SAID[index] ?? 'Sorry?',
        // The model's requests time out after 2.5 s, not 8: the emulator answers at once, and the test of
        // a model that never answers waits out two of them.
        media: { CALL_SILENCE_TIMEOUT_MS: '60000', LLM_TIMEOUT_MS: '2500' },
      },
    });
    live.client = createVoiceClient({ baseUrl: live.stack.api.url, token: live.stack.seeded.key });
    await live.client.agents.modify.mutate({
      agent_id: live.stack.seeded.agent.id,
      language: 'en',
      prompt: 'You book dental appointments.',
      welcome_message: WELCOME,
      variables_extracted: [{ name: 'appointment_day', description: 'The day booked', required: true }],
      webhooks: [
        {
          name: 'receiver',
          url: `http://${live.receiver.host}/hook`,
          secret: 'whsec_Y29udmVyc2F0aW9ucy10ZXN0',
        },
      ],
    });
  }, 180_000);
  afterAll(async () => {
    await live.stack?.close();
    live.receiver?.close();
    await live.collector?.close();
  });
  return live;
}

/** The file's last test: no provider key or audio in the logs, the calls' responses or their histories. */
export function itKeepsSecrets(live: LiveConversation) {
  it('never lets a provider key or audio into logs, responses or workflow histories', async () => {
    const keys = ['sk-telephony', 'dg-telephony'];
    const logs = live.stack.output();
    for (const key of keys) expect(logs).not.toContain(key);
    expect(live.placed.length).toBeGreaterThan(0);
    for (const callId of live.placed) {
      const response = JSON.stringify(await live.stack.getCall(callId));
      const history = historyText(
        await live.stack.client.workflow.getHandle(`call-${callId}`).fetchHistory(),
      );
      for (const key of keys) {
        expect(response).not.toContain(key);
        expect(history).not.toContain(key);
      }
      // No audio: a history holds ids, statuses and times, never media (long runs of base64 or bytes).
      expect(history).not.toMatch(/[A-Za-z0-9+/]{400,}/);
      expect(history.length).toBeLessThan(200_000);
    }
  });
}

import { randomUUID } from 'node:crypto';
import type { TestDatabase } from '@voice/db/testing';
import { startLlmEmulator, type LlmEmulator, type LlmReply } from '@voice/provider-emulators';
import { openAiLanguageModel } from '@voice/providers/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../deps';
import { createTestDeps, manualClock, seedAccount } from '../testing/deps';
import { analyzeCall } from '../after-call/analyze-call';
import { createSimulatedCarrier } from '../telephony/simulated-carrier';
import { applyCarrierEvents, checkCall, CONVERSATION_GRACE_MS } from './carrier-progress';
import { deterministicConversationEngine } from './simulated/conversation';
import { storeConversation } from '../after-call/store-conversation';
import { callCutEntries } from './cut-entries';
import { getCall, getOlderCall } from './get-call';
import { getCallTimeline } from './call-timeline';
import { listCalls } from './list-calls';
import { ListCallsInput } from './schemas';
import { callTurnEvents } from './turn-events';

/**
 * A call with a live conversation on the media server: its end waits for the conversation to be stored
 * (or takes it as lost after the grace time), and its post-call analysis asks the language model (the
 * OpenAI-compatible emulator, through the official package) for output in the agent's schema.
 */

const clock = manualClock(new Date('2026-11-24T10:00:00.000Z'));
let deps: CoreDeps;
let database: TestDatabase;
let agentId: string;
let accountId: string;
let llm: LlmEmulator;
let replies: LlmReply[] = [];

const runtime = () => ({
  ...deps,
  carrier: createSimulatedCarrier({ dialMs: 0, ringMs: 0, talkMs: 0 }),
  conversation: deterministicConversationEngine,
  analyst: openAiLanguageModel({
    apiKey: 'sk-test',
    baseUrl: llm.baseUrl,
    model: 'gpt-test',
    timeoutMs: 2_000,
  }),
});

beforeAll(async () => {
  ({ deps, database } = await createTestDeps(clock));
  const seeded = await seedAccount(deps, 'Live', ['+14155550100']);
  accountId = seeded.account.id;
  agentId = seeded.agent.id;
  await deps.db.agent.update({
    where: { id: agentId },
    data: {
      prompt: 'Book a dental appointment.',
      variablesExtracted: [
        { name: 'appointment_day', description: 'The day booked', required: true },
        { name: 'insurer', description: "The caller's insurer", required: false },
      ],
    },
  });
  llm = await startLlmEmulator({ apiKey: 'sk-test', reply: () => replies.shift() ?? { status: 500 } });
});
afterAll(async () => {
  await llm?.stop();
  await database?.drop();
});

/** An answered call whose stream the media server took. */
async function liveCall() {
  const id = randomUUID();
  await deps.db.call.create({
    data: {
      id,
      accountId,
      agentId,
      fromNumber: '+14155550100',
      toNumber: '+14155550008',
      status: 'ongoing',
      carrierCallId: `CA${id.replace(/-/g, '')}`,
      connectedAt: clock.now(),
      mediaStartedAt: clock.now(),
    },
  });
  return { id, carrierCallId: `CA${id.replace(/-/g, '')}` };
}

/** A live call whose conversation the media server has stored (it ended as `ended`). */
async function endedLiveCall() {
  const call = await liveCall();
  await storeConversation(deps, call.id, {
    end: 'ended',
    transcript,
    varsCollected: {},
    recordingKey: null,
    endedAt: clock.now(),
  });
  return call;
}

const ended = (carrierCallId: string) => ({
  carrierCallId,
  kind: 'ended' as const,
  outcome: 'completed' as const,
  at: clock.now().toISOString(),
  durationMs: 5_000,
  sequence: 3,
});

const transcript = [
  { role: 'agent' as const, content: 'Hello, this is the clinic.', timestamp_ms: 0 },
  { role: 'caller' as const, content: 'Hi, Tuesday suits me.', timestamp_ms: 2_000 },
];

describe('a call with a live conversation', () => {
  it('waits for the conversation after the carrier reports the end, then ends as the conversation did', async () => {
    const call = await liveCall();
    const waiting = await applyCarrierEvents(runtime(), call.id, [ended(call.carrierCallId)]);
    expect(waiting.terminal).toBe(false);
    expect(waiting.nextCheckInMs).toBeLessThanOrEqual(1_000);
    expect((await deps.db.call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe('ongoing');

    await storeConversation(deps, call.id, {
      end: 'user_hangup',
      transcript,
      varsCollected: { day: 'Tuesday', _scratch: 'call-local' },
      recordingKey: `${call.id}.wav`,
      endedAt: clock.now(),
    });
    clock.advance(300);
    const finished = await checkCall(runtime(), call.id);
    expect(finished).toMatchObject({ terminal: true, status: 'user_hangup', analyze: true });
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: call.id } });
    // The media server's conversation stands: the deterministic engine wrote nothing over it.
    expect(row.transcript).toEqual(transcript);
    expect(row.varsCollected).toEqual({ day: 'Tuesday' });
    expect(row.summary).toBeNull();
  });

  it('keeps the mark of an agent entry the caller cut short apart from the transcript API keys read', async () => {
    const call = await liveCall();
    const heard = { ...transcript[0]!, content: 'Hello, this is' };
    await storeConversation(deps, call.id, {
      end: 'user_hangup',
      transcript: [{ ...heard, cut: true }, transcript[1]!],
      varsCollected: {},
      recordingKey: null,
      endedAt: clock.now(),
    });
    const ids = { accountId, callId: call.id };
    expect((await getCall(deps, ids)).transcript).toEqual([heard, transcript[1]]);
    expect(await callCutEntries(deps, ids)).toEqual([0]);
  });

  it('keeps its interruptions and backchannels, bounded, for the timeline, and out of what API keys read', async () => {
    const call = await liveCall();
    const started = clock.now().getTime();
    // 199 letters then an emoji: cut at 200 characters by code points, not through the emoji's pair.
    const long = `  ${'a'.repeat(199)}😀 and more  `;
    const backchannels = Array.from({ length: 600 }, (_, index) => ({
      kind: 'backchannel' as const,
      at_ms: 5_000 + index,
      text: 'mm-hmm',
    }));
    await storeConversation(deps, call.id, {
      end: 'ended',
      transcript,
      varsCollected: {},
      turnEvents: [
        { kind: 'interruption', at_ms: 1_200.4, text: ' Wait, Tuesday. ' },
        { kind: 'backchannel', at_ms: 2_500, text: long },
        { kind: 'interruption', at_ms: Number.NaN, text: '' },
        ...backchannels,
      ],
      recordingKey: null,
      endedAt: clock.now(),
    });
    const ids = { accountId, callId: call.id };
    const events = await callTurnEvents(deps, ids);
    expect(events).toHaveLength(500);
    expect(events.slice(0, 3)).toEqual([
      {
        kind: 'interruption',
        at_ms: 1_200,
        at: new Date(started + 1_200).toISOString(),
        text: 'Wait, Tuesday.',
      },
      {
        kind: 'backchannel',
        at_ms: 2_500,
        at: new Date(started + 2_500).toISOString(),
        text: `${'a'.repeat(199)}😀`,
      },
      { kind: 'backchannel', at_ms: 5_000, at: new Date(started + 5_000).toISOString(), text: 'mm-hmm' },
    ]);

    const read = JSON.stringify([
      await getCall(deps, ids),
      await getOlderCall(deps, ids),
      await listCalls(deps, { accountId, ...ListCallsInput.parse({ limit: 1000 }) }),
      await getCallTimeline(deps, ids),
    ]);
    expect(read).not.toMatch(/turn_?events|interruption|backchannel|Wait, Tuesday|mm-hmm/i);
  });

  it('takes the conversation as lost when it is not stored within the grace time', async () => {
    const call = await liveCall();
    expect((await applyCarrierEvents(runtime(), call.id, [ended(call.carrierCallId)])).terminal).toBe(false);
    clock.advance(CONVERSATION_GRACE_MS - 1);
    expect((await checkCall(runtime(), call.id)).terminal).toBe(false);
    clock.advance(1);
    expect(await checkCall(runtime(), call.id)).toMatchObject({ terminal: true, status: 'agent_hangup' });
    const events = await deps.db.callEvent.findMany({ where: { callId: call.id } });
    expect(events.find((event) => event.status === 'agent_hangup')?.reason).toBe('conversation_lost');
  });

  it('is analysed in the schema of its agent: the summary, the extracted variables and the gender', async () => {
    const call = await endedLiveCall();
    replies = [
      {
        say: JSON.stringify({
          summary: 'The caller booked Tuesday.',
          detected_gender: null,
          vars_extracted: { appointment_day: 'Tuesday', insurer: null },
        }),
      },
    ];
    expect(await analyzeCall(runtime(), call.id)).toEqual({ analyzed: true });
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: call.id } });
    expect([row.summary, row.varsExtracted, row.detectedGender]).toEqual([
      'The caller booked Tuesday.',
      { appointment_day: 'Tuesday' },
      null,
    ]);
    const request = llm.requests.at(-1)!;
    expect(request.response_format?.type).toBe('json_schema');
    const schema = request.response_format!.json_schema!.schema as {
      properties: { vars_extracted: { required: string[]; properties: Record<string, { type: unknown }> } };
    };
    expect(schema.properties.vars_extracted.required).toEqual(['appointment_day', 'insurer']);
    expect(schema.properties.vars_extracted.properties.appointment_day!.type).toBe('string');
    expect(request.messages.at(-1)!.content).toBe(
      'Agent: Hello, this is the clinic.\nCaller: Hi, Tuesday suits me.',
    );
    // Analysed once: a second run leaves it.
    expect(await analyzeCall(runtime(), call.id)).toEqual({ analyzed: false });
  });

  it('refuses an answer that leaves out a required variable, and changes nothing', async () => {
    const call = await endedLiveCall();
    replies = [
      { say: JSON.stringify({ summary: 'Booked.', detected_gender: 'female', vars_extracted: {} }) },
    ];
    await expect(analyzeCall(runtime(), call.id)).rejects.toThrow(/schema/);
    replies = [{ status: 500 }];
    await expect(analyzeCall(runtime(), call.id)).rejects.toMatchObject({ status: 500 });
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: call.id } });
    expect([row.summary, row.detectedGender]).toEqual([null, null]);
  });
});

import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { parseWav, rms, speak } from '@voice/audio';
import { createVoiceClient } from '@voice/client';
import { startWebhookReceiver, type WebhookReceiver } from '@voice/core/testing';
import { startOtlpReceiver, waitFor, type OtlpReceiver, type ReceivedSpan } from '@voice/dev';
import type { ChatRequest, LlmReply } from '@voice/provider-emulators';
import type { CalleeTurn, MediaStream } from '@voice/twilio-emulator';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TelephonyStack } from './support/stack';

/**
 * Live conversations end to end: a real api, worker and media server with Temporal; Twilio, the
 * language model and speech-to-text emulated at their protocols; real audio both ways (the callee
 * speaks eSpeak audio on the media stream, the agent speaks eSpeak NG through the media server).
 */

// Answers and stays on the line until the service hangs up.
const HELD = '+14155550008';
// Answers, talks for the emulator's talk time, then hangs up.
const HANGS_UP = '+14155550009';
// An answering machine: its greeting ends with a beep, then it records until the service hangs up.
const MACHINE = '+14155550010';

// A warm transfer's colleagues: one answers and stays on the line, one never answers.
const COLLEAGUE = '+14155560008';
const NO_COLLEAGUE = '+14155560003';

const WELCOME = 'Hello, this is the dental clinic.';
const SAID = ['Hi, this is Dana.', 'Tuesday morning works for me.'];

/** What each callee says, by the number called (set per test). */
let callee: CalleeTurn[] = [];
/** The model's streamed answers in order, and its analysis. */
let answers: LlmReply[] = [];
let analysis: LlmReply = { status: 500 };
let stack: TelephonyStack;
let client: ReturnType<typeof createVoiceClient>;
let receiver: WebhookReceiver;
/** Where the three services export their spans (the suite runs traced). */
let collector: OtlpReceiver;
/** The first test's call, whose trace the second reads. */
let booked: string | undefined;
let welcomeMs = 0;
/** Every call the suite placed, for the secret scan at the end. */
const placed: string[] = [];

/** The model's analysis of a call that ended before a day was agreed. */
const analysed = (summary: string): LlmReply => ({
  say: JSON.stringify({ summary, detected_gender: null, vars_extracted: { appointment_day: '' } }),
});

const reply = (request: ChatRequest): LlmReply =>
  request.response_format ? analysis : (answers.shift() ?? { say: 'Goodbye.' });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  collector = await startOtlpReceiver();
  welcomeMs = (await speak(WELCOME)).length / 8;
  stack = await TelephonyStack.start('Conversation', inject('temporalAddress'), {
    // A colleague a warm transfer dials says nothing while the agent briefs them.
    emulator: {
      talkMs: 9_000,
      transferTalkMs: 1_000,
      callee: (call) => (call.to === COLLEAGUE ? [] : callee),
    },
    webhookAllowedHosts: receiver.host,
    // Every service exports its spans, batched for half a second.
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '500' },
    voice: {
      llm: reply,
      stt: (index) => SAID[index] ?? 'Sorry?',
      // The model's requests time out after 2.5 s, not 8: the emulator answers at once, and the test of
      // a model that never answers waits out two of them.
      media: { CALL_SILENCE_TIMEOUT_MS: '60000', LLM_TIMEOUT_MS: '2500' },
    },
  });
  client = createVoiceClient({ baseUrl: stack.api.url, token: stack.seeded.key });
  await client.agents.modify.mutate({
    agent_id: stack.seeded.agent.id,
    language: 'en',
    prompt: 'You book dental appointments.',
    welcome_message: WELCOME,
    variables_extracted: [{ name: 'appointment_day', description: 'The day booked', required: true }],
    webhooks: [
      { name: 'receiver', url: `http://${receiver.host}/hook`, secret: 'whsec_Y29udmVyc2F0aW9ucy10ZXN0' },
    ],
  });
}, 180_000);
afterAll(async () => {
  await stack?.close();
  receiver?.close();
  await collector?.close();
});

/** The call_ended webhook of a call, once it came. */
async function callEnded(callId: string) {
  let found: Record<string, unknown> | undefined;
  await waitFor(`the call_ended webhook of ${callId}`, 30_000, async () => {
    found = receiver.received
      .map((request) => JSON.parse(request.body) as { event: string; call: Record<string, unknown> })
      .find((body) => body.event === 'call_ended' && body.call.call_id === callId)?.call;
    return found !== undefined;
  });
  return found!;
}

/** A workflow history as text, every payload decoded (payloads are stored as bytes). */
function historyText(history: Parameters<typeof historyToJSON>[0]): string {
  const json = historyToJSON(history);
  const decoded = [...json.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map(([, data]) =>
    Buffer.from(data!, 'base64').toString('utf8'),
  );
  return [json.replace(/"data":\s*"[A-Za-z0-9+/=]+"/g, '"data": ""'), ...decoded].join('\n');
}

async function dial(to: string) {
  const callId = await stack.dial(to);
  placed.push(callId);
  return callId;
}

const loudMs = (samples: Int16Array) => {
  let loud = 0;
  for (let at = 0; at + 160 <= samples.length; at += 160)
    if (rms(samples.subarray(at, at + 160)) > 400) loud += 20;
  return loud;
};

describe('a live conversation through Twilio', () => {
  it('speaks, listens, collects, ends with end_call, and is analysed, transcribed and recorded', async () => {
    // Each line once the agent has finished speaking, however long it took to begin.
    callee = [
      { untilAgentQuietMs: 1_000 },
      { text: SAID[0]! },
      { untilAgentQuietMs: 1_000 },
      { text: SAID[1]! },
    ];
    answers = [
      {
        say: 'Nice to meet you, Dana. Which day suits you?',
        toolCalls: [{ name: 'collect_variable', arguments: { name: 'first_name', value: 'Dana' } }],
      },
      {
        say: 'Tuesday morning it is. Goodbye!',
        toolCalls: [{ name: 'end_call', arguments: { goal_reached: true, reason: 'booked' } }],
      },
    ];
    analysis = {
      say: JSON.stringify({
        summary: 'Dana booked a dental appointment for Tuesday morning.',
        detected_gender: 'female',
        vars_extracted: { appointment_day: 'Tuesday' },
      }),
    };
    const callId = await dial(HELD);
    booked = callId;
    const row = await stack.ended(callId, 60_000);
    expect(row.status).toBe('ended');
    // The analysis runs after the call's end and before its webhook: the webhook says it is done.
    const webhook = await callEnded(callId);

    const call = await stack.getCall(callId);
    expect(
      (call.transcript as { role: string; content: string }[]).map(({ role, content }) => [role, content]),
    ).toEqual([
      ['agent', WELCOME],
      ['caller', SAID[0]],
      ['agent', 'Nice to meet you, Dana. Which day suits you?'],
      ['caller', SAID[1]],
      ['agent', 'Tuesday morning it is. Goodbye!'],
    ]);
    expect(call.vars_collected).toEqual({ first_name: 'Dana' });
    expect(call.vars_extracted).toEqual({ appointment_day: 'Tuesday' });
    expect(call.summary).toBe('Dana booked a dental appointment for Tuesday morning.');
    expect(call.detected_gender).toBe('female');

    // The callee heard the agent: Twilio was asked to complete the call after the goodbye.
    const carrierCall = await stack.carrierCall(callId);
    expect(carrierCall.updates).toEqual([{ Status: 'completed' }]);
    const heard = carrierCall.stream!.record;
    expect(heard.errors).toEqual([]);
    expect(heard.audio().length / 8).toBeGreaterThan(welcomeMs);

    // The recording: both sides, the agent on the right from the start, the caller on the left.
    const recording = await fetch(call.recording_url as string);
    expect(recording.status).toBe(200);
    expect(recording.headers.get('content-type')).toBe('audio/wav');
    const file = Buffer.from(await recording.arrayBuffer());
    expect(file.readUInt16LE(22)).toBe(2);
    const { samples: left } = parseWav(file);
    const right = new Int16Array((file.length - 44) / 4);
    for (let i = 0; i < right.length; i++) right[i] = file.readInt16LE(46 + i * 4);
    // From the start: the welcome is synthesised once the stream is up (eSpeak NG on a busy shared
    // core can take a second before its first words), and is heard before the caller speaks.
    expect(loudMs(right.subarray(0, (welcomeMs + 1_500) * 8))).toBeGreaterThan(welcomeMs / 2);
    expect(loudMs(left)).toBeGreaterThan(1_000);

    // The webhook carries what the analysis found.
    expect(webhook).toMatchObject({
      call_status: 'ended',
      summary: call.summary,
      vars_extracted: call.vars_extracted,
    });

    // What it used and cost: the callee's audio streamed to speech-to-text for the whole conversation,
    // every sentence the agent said synthesized once, each model request's tokens as the provider
    // reported them; priced at the default rates when the call ended.
    const { usage, cost, connectedAt, endedAt } = await stack.row(callId);
    const used = usage as {
      stt_seconds: number;
      tts_characters: number;
      llm_input_tokens: number;
      llm_output_tokens: number;
      llm_requests: { input_tokens: number; output_tokens: number }[];
    };
    const talkSeconds = (endedAt!.getTime() - connectedAt!.getTime()) / 1000;
    expect(used.stt_seconds).toBeGreaterThan(2);
    expect(used.stt_seconds).toBeLessThanOrEqual(talkSeconds + 1);
    const agentText = [
      WELCOME,
      'Nice to meet you, Dana. Which day suits you?',
      'Tuesday morning it is. Goodbye!',
    ];
    expect(used.tts_characters).toBeGreaterThanOrEqual(agentText.join('').replace(/\s/g, '').length);
    expect(used.tts_characters).toBeLessThanOrEqual(agentText.join(' ').length);
    expect(used.llm_requests.length).toBeGreaterThanOrEqual(2);
    expect(used.llm_input_tokens).toBe(used.llm_requests.reduce((sum, r) => sum + r.input_tokens, 0));
    expect(used.llm_output_tokens).toBe(used.llm_requests.reduce((sum, r) => sum + r.output_tokens, 0));
    expect(used.llm_input_tokens).toBeGreaterThan(used.llm_output_tokens);
    const minutes = Math.ceil(talkSeconds / 60);
    const parts = cost as Record<string, number | string>;
    expect(parts).toMatchObject({
      currency: 'USD',
      carrier_minutes: minutes,
      stt_seconds: used.stt_seconds,
      llm_input_tokens: used.llm_input_tokens,
      llm_output_tokens: used.llm_output_tokens,
      tts_characters: used.tts_characters,
    });
    // Rounded to six decimals in the database: equal to within that.
    const expected = {
      carrier: minutes * 0.014,
      stt: used.stt_seconds * 0.0000717,
      llm: used.llm_input_tokens * 0.00000015 + used.llm_output_tokens * 0.0000006,
      tts: used.tts_characters * 0.00018,
    };
    for (const [part, value] of Object.entries(expected)) expect(parts[part], part).toBeCloseTo(value, 6);
    const sum = ['carrier', 'stt', 'llm', 'tts'].reduce((total, part) => total + (parts[part] as number), 0);
    expect(parts.combined_cost).toBeCloseTo(sum, 6);
    const older = await stack.request(`/v1/get-call/${callId}`);
    expect((older.json as { call_cost: unknown }).call_cost).toEqual({
      combined_cost: parts.combined_cost,
      currency: 'USD',
    });
  });

  it('is one connected trace: the dial request, the workflow, its activities, the turns and the webhook attempts', async () => {
    expect(booked, 'the call of the test before').toBeDefined();
    const callId = booked!;
    // The dial's request is the trace's root; each service sends what it has every 500 ms.
    let trace: ReceivedSpan[] = [];
    const names = () => new Set(trace.map((span) => span.name));
    await waitFor('the call’s trace with its turns and webhook attempts', 20_000, async () => {
      const spans = collector.spans();
      const conversation = spans.find(
        (span) => span.name === 'conversation' && span.attributes['voice.call_id'] === callId,
      );
      trace = conversation ? spans.filter((span) => span.traceId === conversation.traceId) : [];
      return names().has('webhook.attempt') && names().has('RunActivity:analyzeCall') && names().has('tts');
    });
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const roots = trace.filter((span) => !byId.has(span.parentSpanId));
    expect(roots.map((span) => [span.service, span.name])).toEqual([
      ['voice-api', 'POST /functions/v1/call-dial'],
    ]);
    expect(roots[0]!.parentSpanId).toBe('');
    expect(new Set(trace.map((span) => span.service))).toEqual(
      new Set(['voice-api', 'voice-worker', 'voice-media']),
    );

    /** A span's names up to the root. */
    const path = (span: ReceivedSpan): string[] => {
      const parent = byId.get(span.parentSpanId);
      return parent ? [...path(parent), span.name] : [span.name];
    };
    const one = (name: string) => {
      const found = trace.filter((span) => span.name === name);
      expect(found.length, name).toBeGreaterThan(0);
      return found[0]!;
    };
    // The api started the workflow inside the request; the worker ran its activities under that start.
    expect(path(one('StartWorkflow:callWorkflow'))).toEqual([
      'POST /functions/v1/call-dial',
      'StartWorkflow:callWorkflow',
    ]);
    const activities = trace.filter((span) => span.name.startsWith('RunActivity:'));
    expect(activities.length).toBeGreaterThan(3);
    for (const activity of activities)
      expect(path(activity).slice(0, 2), activity.name).toEqual([
        'POST /functions/v1/call-dial',
        'StartWorkflow:callWorkflow',
      ]);
    // The media server's conversation continues the trace of the activity that dialed, one turn per answer.
    const conversation = one('conversation');
    expect(conversation.service).toBe('voice-media');
    expect(byId.get(conversation.parentSpanId)!.name).toMatch(/^RunActivity:/);
    const turns = trace.filter((span) => span.name === 'turn');
    expect(turns).toHaveLength(2);
    for (const turn of turns) {
      expect(turn.parentSpanId).toBe(conversation.spanId);
      const steps = trace.filter((span) => span.parentSpanId === turn.spanId);
      expect(steps.map((span) => span.name).sort()).toEqual(['llm', 'stt', 'tts']);
      for (const step of steps) {
        expect(step.startMs).toBeGreaterThanOrEqual(turn.startMs - 1);
        expect(step.endMs).toBeLessThanOrEqual(turn.endMs + 1);
      }
      expect(turn.attributes['voice.latency_ms']).toBeGreaterThan(0);
      expect(turn.attributes['voice.llm_first_token_ms']).toBeGreaterThanOrEqual(0);
    }
    // The call_ended webhook: its delivery, a child workflow of the call's, attempted under the call's
    // trace (the child's activities carry it as the call's do), each attempt a span.
    const attempt = trace.find(
      (span) => span.name === 'webhook.attempt' && span.attributes['voice.event'] === 'call_ended',
    )!;
    expect(attempt.attributes['http.response.status_code']).toBe(200);
    expect(path(attempt)).toEqual([
      'POST /functions/v1/call-dial',
      'StartWorkflow:callWorkflow',
      'RunActivity:attemptDelivery',
      'webhook.attempt',
    ]);
    expect(byId.get(attempt.parentSpanId)!.attributes.temporalWorkflowId).toMatch(/^webhook-/);
    // Its request carried the attempt's traceparent, which the receiver could continue.
    const delivered = receiver.received.find((request) =>
      request.headers['traceparent']?.includes(attempt.spanId),
    );
    expect(delivered?.headers['traceparent']).toBe(`00-${attempt.traceId}-${attempt.spanId}-01`);
    expect(collector.rejected).toEqual([]);
  });

  it('barge-in: the callee speaking over a long answer clears the line, and the turn keeps what was played', async () => {
    const long =
      'We are open on Monday from eight. On Tuesday from nine. On Wednesday from ten. On Thursday from eleven. On Friday from noon.';
    callee = [{ untilAgentQuietMs: 1_000 }, { text: SAID[0]! }, { pauseMs: 3_000 }, { text: SAID[1]! }];
    answers = [
      { say: long },
      { say: 'Of course. Goodbye!', toolCalls: [{ name: 'end_call', arguments: { goal_reached: false } }] },
    ];
    analysis = { status: 500 };
    const callId = await dial(HELD);
    const row = await stack.ended(callId, 60_000);
    const clears = (await stack.carrierCall(callId)).stream!.record.clears;
    expect(clears.length).toBeGreaterThanOrEqual(1);
    expect(clears[0]!.droppedBytes).toBeGreaterThanOrEqual(0);
    const turns = (row.transcript as { role: string; content: string }[]).map(({ role, content }) => [
      role,
      content,
    ]);
    expect(turns[0]).toEqual(['agent', WELCOME]);
    expect(turns[1]).toEqual(['caller', SAID[0]]);
    const [role, cut] = turns[2]!;
    expect(role).toBe('agent');
    expect(long.startsWith(cut!)).toBe(true);
    expect(cut!.length).toBeLessThan(long.length / 2);
    expect(turns[3]).toEqual(['caller', SAID[1]]);
  });

  it('keypad: digits the callee types are collected, the entry in the transcript', async () => {
    callee = [{ untilAgentQuietMs: 1_000 }, ...[...'1234#'].map((dtmf) => ({ dtmf }))];
    answers = [
      {
        say: 'Thank you, goodbye!',
        toolCalls: [
          { name: 'collect_variable', arguments: { name: 'account_number', value: '1234' } },
          { name: 'end_call', arguments: { goal_reached: true, reason: 'identified' } },
        ],
      },
    ];
    analysis = analysed('The caller typed their account number.');
    const callId = await dial(HELD);
    const row = await stack.ended(callId, 60_000);
    expect(row.status).toBe('ended');
    const call = await stack.getCall(callId);
    expect(call.vars_collected).toEqual({ account_number: '1234' });
    expect(
      (call.transcript as { role: string; content: string }[]).map(({ role, content }) => [role, content]),
    ).toEqual([
      ['agent', WELCOME],
      ['system', 'keypad: 1234#'],
      ['agent', 'Thank you, goodbye!'],
    ]);
  });

  it('a silent callee is reminded, then said goodbye to, and the call ends as the agent’s', async () => {
    const agent = { where: { id: stack.seeded.agent.id } };
    await stack.deps.db.agent.update({
      ...agent,
      data: { conversationSettings: { reminder_after_ms: 2_000, reminder_max_count: 1 } },
    });
    callee = [{ pauseMs: 60_000 }];
    analysis = analysed('The callee never spoke.');
    try {
      const callId = await dial(HELD);
      const row = await stack.ended(callId, 60_000);
      expect(row.status).toBe('agent_hangup');
      expect(
        (row.transcript as { role: string; content: string }[]).map(({ role, content }) => [role, content]),
      ).toEqual([
        ['agent', WELCOME],
        ['agent', 'Are you still there?'],
        ['agent', 'I have not heard from you, so I will end the call now. Goodbye.'],
      ]);
      const times = (row.transcript as { timestamp_ms: number }[]).map((entry) => entry.timestamp_ms);
      expect(times[1]! - times[0]!).toBeGreaterThan(welcomeMs);
      // The reminder came 2 s after the caller had heard the welcome in full: on Twilio's side, its first
      // frame arrived at least 2 s after the welcome's last mark was echoed (the end of its playing).
      const record = (await stack.carrierCall(callId)).stream!.record;
      const frames = record.received.filter(({ message }) => message.event === 'media').map(({ at }) => at);
      const reminderAt = frames.find((at, index) => index > 0 && at - frames[index - 1]! > 1_000)!;
      const welcomeHeardAt = Math.max(
        ...record.marks.map((mark) => mark.echoedAt ?? Infinity).filter((at) => at < reminderAt),
      );
      expect(welcomeHeardAt).toBeGreaterThan(frames[0]!);
      expect(reminderAt - welcomeHeardAt).toBeGreaterThanOrEqual(2_000);
      expect(await callEnded(callId)).toMatchObject({ call_status: 'agent_hangup' });
    } finally {
      await stack.deps.db.agent.update({ ...agent, data: { conversationSettings: {} } });
    }
  });

  it('voicemail: the agent’s message in its own voice after the beep, the call voicemail_left', async () => {
    const message = 'Hello Dana, this is the dental clinic. Please call us back.';
    await client.agents.modify.mutate({
      agent_id: stack.seeded.agent.id,
      voicemail_action: 'leave_message',
      voicemail_message: 'Hello {{name}}, this is the dental clinic. Please call us back.',
    });
    // The answering machine's greeting and beep are the emulator's; the machine says nothing else.
    callee = [];
    answers = [{ say: 'Sorry, who is this?' }];
    analysis = analysed('An answering machine took the call; a message was left.');
    try {
      const campaign = await client.campaigns.create.mutate({
        name: 'Voicemail message',
        agent_id: stack.seeded.agent.id,
        from_numbers: ['+14155550180'],
        retry_policy: { retry_on: ['voicemail'], max_attempts: 2, delay_seconds: 0 },
        contacts: [{ to_number: MACHINE, variables: { name: 'Dana' } }],
      });
      let callId = '';
      await waitFor('the campaign to complete', 60_000, async () => {
        const contact = await stack.deps.db.campaignContact.findFirst({
          where: { campaignId: campaign.campaign_id },
        });
        callId = contact?.lastCallId ?? '';
        return contact?.state === 'completed';
      });
      placed.push(callId);
      const contact = await stack.deps.db.campaignContact.findFirstOrThrow({
        where: { campaignId: campaign.campaign_id },
      });
      // A message left is its own outcome, which this policy does not retry.
      expect(contact).toMatchObject({ attempts: 1, lastOutcome: 'voicemail_left' });
      // Its call ended before the campaign could complete.
      const row = await stack.ended(callId);
      expect(row).toMatchObject({
        status: 'agent_hangup',
        answeredBy: 'machine',
        conversationEndReason: 'voicemail_left',
      });

      const carrierCall = await stack.carrierCall(callId);
      expect(carrierCall.created).toMatchObject({ MachineDetection: 'DetectMessageEnd', AsyncAmd: 'true' });
      // Spoken through the media stream, then hung up: no <Say>.
      expect(carrierCall.updates).toEqual([{ Status: 'completed' }]);
      expect(carrierCall.said).toEqual([]);
      const beepEndedAt = carrierCall.beepEndedAt!;
      expect(beepEndedAt).toBeGreaterThan(2_000);

      const transcript = row.transcript as { role: string; content: string; timestamp_ms: number }[];
      const leaving = transcript.findIndex((entry) => entry.role === 'system');
      expect(transcript.slice(leaving).map(({ role, content }) => [role, content])).toEqual([
        ['system', 'voicemail: leaving a message'],
        ['agent', message],
      ]);
      // The transcript's clock starts as the line opens, after the stream's: later on the stream's.
      expect(transcript[leaving]!.timestamp_ms).toBeGreaterThanOrEqual(beepEndedAt);
      // The machine heard the whole message after its beep, in the agent's voice on the stream.
      const after = carrierCall.stream!.record.received.filter(
        ({ at, message: sent }) => at >= beepEndedAt && sent.event === 'media',
      );
      const messageMs = (await speak(message)).length / 8;
      expect(after.length * 20).toBeGreaterThanOrEqual(messageMs * 0.9);

      const webhook = await callEnded(callId);
      expect(webhook).toMatchObject({ answered_by: 'machine', voicemail_left: true });
    } finally {
      await client.agents.modify.mutate({ agent_id: stack.seeded.agent.id, voicemail_action: 'continue' });
    }
  });

  describe('a warm transfer', () => {
    const SUMMARY = 'Dana is calling to move her Tuesday appointment.';
    const transferTo = async (destination: string) => {
      await client.agents.modify.mutate({
        agent_id: stack.seeded.agent.id,
        transfer_call_enabled: true,
        transfer_call_destination: destination,
      });
      await stack.deps.db.agent.update({
        where: { id: stack.seeded.agent.id },
        data: { conversationSettings: { transfer_mode: 'warm' } },
      });
    };
    afterAll(async () => {
      await client.agents.modify.mutate({ agent_id: stack.seeded.agent.id, transfer_call_enabled: false });
      await stack.deps.db.agent.update({
        where: { id: stack.seeded.agent.id },
        data: { conversationSettings: {} },
      });
    });

    it('holds the caller, briefs the colleague with the summary, then joins the caller to them', async () => {
      await transferTo(COLLEAGUE);
      callee = [{ untilAgentQuietMs: 1_000 }, { text: SAID[0]! }];
      answers = [
        {
          say: 'Let me put you through to a colleague.',
          toolCalls: [{ name: 'transfer_call', arguments: {} }],
        },
        // The summary the model writes for the colleague.
        { say: SUMMARY },
      ];
      analysis = analysed('Dana was put through to a colleague.');
      const callId = await dial(HELD);
      // The caller's stream, kept: the redirect into the conference stops it.
      let held: MediaStream | null = null;
      await waitFor('the caller’s stream', 20_000, async () => {
        held = await stack.carrierCall(callId).then(
          (call) => call.stream,
          () => null,
        );
        return held !== null;
      });
      const onHold = held!.record;
      const row = await stack.ended(callId, 60_000);
      expect(row).toMatchObject({ status: 'ended', conversationEndReason: 'transferred' });
      expect(row.events.find((event) => event.status === 'ended')).toMatchObject({ reason: 'transferred' });
      const transfer = await stack.deps.db.callTransfer.findFirstOrThrow({ where: { callId } });
      expect(transfer).toMatchObject({ status: 'briefed', destination: COLLEAGUE, summary: SUMMARY });

      // The colleague's call: briefed over its own media stream, which the service ended, then the conference.
      const colleague = stack.emulator.call(transfer.carrierCallId!)!;
      expect(colleague).toMatchObject({ to: COLLEAGUE, from: row.fromNumber });
      expect(colleague.created.Twiml).toMatch(/<Connect><Stream[^>]*>[\s\S]*<\/Connect><Dial><Conference/);
      const briefing = colleague.stream!.record;
      expect(briefing.closed?.by).toBe('service');
      const summaryMs = (await speak(SUMMARY)).length / 8;
      const briefingFrames = briefing.received.filter(({ message }) => message.event === 'media');
      expect(briefingFrames.length * 20).toBeGreaterThanOrEqual(summaryMs * 0.9);
      const briefedAt = briefing.openedAt + briefingFrames.at(-1)!.at;

      // The caller: on hold (music on its stream) meanwhile, then redirected into the same conference.
      const caller = await stack.carrierCall(callId);
      const conference = stack.emulator
        .conferences()
        .find((room) => room.friendlyName === `transfer-${transfer.id}`)!;
      expect(caller.updates.map((update) => update.Twiml ?? update)).toEqual([
        expect.stringContaining(`<Conference`),
      ]);
      const [first, second] = conference.participants;
      expect([first!.callSid, second!.callSid]).toEqual([colleague.sid, caller.sid]);
      // The colleague heard the summary to its end before the caller joined them.
      expect(first!.joinedAt).toBeGreaterThanOrEqual(briefedAt);
      expect(second!.joinedAt).toBeGreaterThanOrEqual(first!.joinedAt);

      const transcript = row.transcript as { role: string; content: string }[];
      expect(transcript.map(({ role, content }) => [role, content])).toEqual([
        ['agent', WELCOME],
        ['caller', SAID[0]],
        ['agent', 'Let me put you through to a colleague.'],
        ['system', 'transfer (warm): the caller on hold'],
        ['system', `transfer: calling the colleague, with the summary: ${SUMMARY}`],
        ['system', 'transfer: the colleague answered; briefing them'],
        ['system', 'transfer: the colleague was briefed; joining the caller to them'],
      ]);
      // The colleague's callbacks are signed like any: a forged one is refused, and a late one (the
      // colleague leaving the conference) leaves the briefed transfer as it is.
      const url = `${stack.env.PUBLIC_URL}/carrier/twilio/transfer-status/${transfer.id}`;
      const late = {
        AccountSid: stack.emulator.accountSid,
        CallSid: colleague.sid,
        CallStatus: 'completed',
        CallDuration: '3',
        SequenceNumber: '9',
        Timestamp: new Date().toUTCString(),
      };
      const post = (authToken: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, url, late),
          },
          body: new URLSearchParams(late),
        });
      expect((await post('not-the-auth-token')).status).toBe(403);
      expect((await post(stack.emulator.authToken)).status).toBe(204);
      expect(
        await stack.deps.db.callTransfer.findUniqueOrThrow({ where: { id: transfer.id } }),
      ).toMatchObject({
        status: 'briefed',
        outcome: null,
      });
      // What the caller heard on hold: music from before the colleague's line opened until the bridge.
      const music = onHold.received.filter(
        ({ at, message }) => message.event === 'media' && onHold.openedAt + at > briefing.openedAt,
      );
      expect(music.length * 20).toBeGreaterThanOrEqual(summaryMs * 0.9);
    });

    it('comes back to the caller and says so when the colleague does not answer', async () => {
      await transferTo(NO_COLLEAGUE);
      callee = [
        { untilAgentQuietMs: 1_000 },
        { text: SAID[0]! },
        { untilAgentQuietMs: 1_000 },
        { text: SAID[1]! },
      ];
      answers = [
        { say: 'One moment, please.', toolCalls: [{ name: 'transfer_call', arguments: {} }] },
        { say: SUMMARY },
        {
          say: 'Tuesday morning it is. Goodbye!',
          toolCalls: [{ name: 'end_call', arguments: { goal_reached: true } }],
        },
      ];
      analysis = analysed('Nobody took the transfer; Dana booked Tuesday.');
      const callId = await dial(HELD);
      const row = await stack.ended(callId, 60_000);
      expect(row).toMatchObject({ status: 'ended', conversationEndReason: 'ended' });
      const transfer = await stack.deps.db.callTransfer.findFirstOrThrow({ where: { callId } });
      expect(transfer).toMatchObject({ status: 'unanswered', outcome: 'no_answer' });
      expect(stack.emulator.call(transfer.carrierCallId!)).toMatchObject({ status: 'no-answer' });
      // The caller never left the agent: no redirect but the hang-up.
      expect((await stack.carrierCall(callId)).updates).toEqual([{ Status: 'completed' }]);
      const transcript = row.transcript as { role: string; content: string }[];
      expect(transcript.map(({ role, content }) => [role, content])).toEqual([
        ['agent', WELCOME],
        ['caller', SAID[0]],
        ['agent', 'One moment, please.'],
        ['system', 'transfer (warm): the caller on hold'],
        ['system', `transfer: calling the colleague, with the summary: ${SUMMARY}`],
        ['system', 'transfer: no colleague took the call (no_answer); back with the caller'],
        [
          'agent',
          'I am sorry, none of my colleagues could take your call just now. Is there anything else I can help with?',
        ],
        ['caller', SAID[1]],
        ['agent', 'Tuesday morning it is. Goodbye!'],
      ]);
    });
  });

  it('a callee who hangs up ends the call as user_hangup, with what was said kept', async () => {
    callee = [{ untilAgentQuietMs: 1_000 }, { text: SAID[0]! }];
    answers = [{ say: 'Nice to meet you. How can I help?' }];
    analysis = analysed('The caller hung up early.');
    const callId = await dial(HANGS_UP);
    const row = await stack.ended(callId, 60_000);
    expect(row.status).toBe('user_hangup');
    expect(row.conversationEndReason).toBe('user_hangup');
    await callEnded(callId);
    const call = await stack.getCall(callId);
    expect((call.transcript as { role: string }[]).slice(0, 2).map((entry) => entry.role)).toEqual([
      'agent',
      'caller',
    ]);
    expect(call.summary).toBe('The caller hung up early.');
  });

  it('the model failing: the caller hears an apology, then a goodbye, and the call ends cleanly', async () => {
    // The callee speaks again once the agent's apology is over (by its audio, not after a fixed pause).
    callee = [
      { untilAgentQuietMs: 1_000 },
      { text: SAID[0]! },
      { untilAgentQuietMs: 1_000 },
      { text: SAID[1]! },
    ];
    // A 500, then a request never answered (timed out): twice in a row.
    answers = [{ status: 500 }, { status: 500 }, { hang: true }, { hang: true }];
    analysis = { status: 500 };
    const callId = await dial(HELD);
    const row = await stack.ended(callId, 90_000);
    expect(row.status).toBe('agent_hangup');
    // The analysis fails for good (four tries): the call ended without it, and its webhook still goes out.
    expect(await callEnded(callId)).toMatchObject({ call_status: 'agent_hangup', summary: null });
    const call = await stack.getCall(callId);
    const agentSaid = (call.transcript as { role: string; content: string }[])
      .filter((entry) => entry.role === 'agent')
      .map((entry) => entry.content);
    expect(agentSaid).toHaveLength(3);
    expect(agentSaid[1]).toMatch(/trouble/);
    expect(agentSaid[2]).toMatch(/technical difficulties/);
    expect(call.summary ?? null).toBeNull();
  });

  it('speech-to-text dropping mid-call: an apology, and the call ends with a reason', async () => {
    stack.voice!.stt.faults.disconnectAfterMs = welcomeMs + 500;
    callee = [{ pauseMs: 60_000 }];
    // What is under test is the live call: its analysis succeeds (the previous test spent 14 s on failing ones).
    analysis = analysed('The call ended early.');
    try {
      const callId = await dial(HELD);
      const row = await stack.ended(callId, 60_000);
      expect(row.status).toBe('agent_hangup');
      const agentSaid = (row.transcript as { role: string; content: string }[]).map((entry) => entry.content);
      expect(agentSaid.at(-1), stack.output()).toMatch(/technical difficulties/);
      expect(await callEnded(callId)).toMatchObject({ call_status: 'agent_hangup' });
    } finally {
      delete stack.voice!.stt.faults.disconnectAfterMs;
    }
  });

  it('the media server killed mid-call: the call ends as the agent’s, marked conversation_lost, and its webhook fires', async () => {
    callee = [{ pauseMs: 60_000 }];
    const callId = await dial(HELD);
    await waitFor(
      'the welcome to start playing',
      30_000,
      async () => {
        const { carrierCallId } = await stack.row(callId);
        const stream = carrierCallId ? stack.emulator.call(carrierCallId)?.stream : null;
        return (stream?.record.audio().length ?? 0) > 0;
      },
      { detail: () => stack.output() },
    );
    await stack.voice!.media.kill();
    try {
      const row = await stack.ended(callId, 40_000);
      expect(row.status).toBe('agent_hangup');
      expect(row.events.find((event) => event.status === 'agent_hangup')?.reason).toBe('conversation_lost');
      expect(await callEnded(callId)).toMatchObject({ call_status: 'agent_hangup' });
    } finally {
      await stack.restartMedia();
    }
  });

  it('never lets a provider key or audio into logs, responses or workflow histories', async () => {
    const keys = ['sk-telephony', 'dg-telephony'];
    const logs = stack.output();
    for (const key of keys) expect(logs).not.toContain(key);
    for (const callId of placed) {
      const response = JSON.stringify(await stack.getCall(callId));
      const history = historyText(await stack.client.workflow.getHandle(`call-${callId}`).fetchHistory());
      for (const key of keys) {
        expect(response).not.toContain(key);
        expect(history).not.toContain(key);
      }
      // No audio: a history holds ids, statuses and times, never media (long runs of base64 or bytes).
      expect(history).not.toMatch(/[A-Za-z0-9+/]{400,}/);
      expect(history.length).toBeLessThan(200_000);
    }
  });
});

import { firstLoudMs, loudMs, parseWav } from '@voice/audio';
import { waitFor, type ReceivedSpan } from '@voice/dev';
import { describe, expect, it } from 'vitest';
import {
  itKeepsSecrets,
  liveConversation,
  bothLines,
  analysed,
  HELD,
  SAID,
  WELCOME,
} from './support/live-conversation';

/**
 * Live conversations end to end (support/live-conversation.ts: a real api, worker and media server,
 * Twilio and the voice providers at their emulators, real audio both ways): speaking, listening,
 * collecting, the call's trace, barge-in, the keypad and a silent callee.
 */

const live = liveConversation('Conversation', { traced: true });
/** The first test's call, whose trace the second reads. */
let booked: string | undefined;

describe('a live conversation through Twilio', () => {
  it('speaks, listens, collects, ends with end_call, and is analysed, transcribed and recorded', async () => {
    // Each line once the agent has finished speaking, however long it took to begin.
    live.callee = bothLines();
    live.answers = [
      {
        say: 'Nice to meet you, Dana. Which day suits you?',
        toolCalls: [{ name: 'collect_variable', arguments: { name: 'first_name', value: 'Dana' } }],
      },
      {
        say: 'Tuesday morning it is. Goodbye!',
        toolCalls: [{ name: 'end_call', arguments: { goal_reached: true, reason: 'booked' } }],
      },
    ];
    live.analysis = {
      say: JSON.stringify({
        summary: 'Dana booked a dental appointment for Tuesday morning.',
        detected_gender: 'female',
        vars_extracted: { appointment_day: 'Tuesday' },
      }),
    };
    const callId = await live.dial(HELD);
    booked = callId;
    const row = await live.stack.ended(callId, 60_000);
    expect(row.status).toBe('ended');
    // The analysis runs after the call's end and before its webhook: the webhook says it is done.
    const webhook = await live.callEnded(callId);

    const call = await live.stack.getCall(callId);
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
    const carrierCall = await live.stack.carrierCall(callId);
    expect(carrierCall.updates).toEqual([{ Status: 'completed' }]);
    const heard = carrierCall.stream!.record;
    expect(heard.errors).toEqual([]);
    expect(heard.audio().length / 8).toBeGreaterThan(live.welcomeMs);

    // The recording: both sides, the agent on the right from the start, the caller on the left.
    const recording = await fetch(call.recording_url as string);
    expect(recording.status).toBe(200);
    expect(recording.headers.get('content-type')).toBe('audio/wav');
    const file = Buffer.from(await recording.arrayBuffer());
    expect(file.readUInt16LE(22)).toBe(2);
    const { samples: left } = parseWav(file);
    const right = new Int16Array((file.length - 44) / 4);
    for (let i = 0; i < right.length; i++) right[i] = file.readInt16LE(46 + i * 4);
    // The welcome is on the recording before the caller speaks (when it starts depends on how soon eSpeak
    // NG synthesises it on a busy shared core; where audio lands on the recording is the media tests').
    expect(loudMs(right.subarray(0, firstLoudMs(left) * 8))).toBeGreaterThan(live.welcomeMs / 2);
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
    const { usage, cost, connectedAt, endedAt } = await live.stack.row(callId);
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
    const older = await live.stack.request(`/v1/get-call/${callId}`);
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
    const roots = () => {
      const byId = new Map(trace.map((span) => [span.spanId, span]));
      return trace.filter((span) => !byId.has(span.parentSpanId));
    };
    // A span is sent when it ends, and a webhook attempt ends before the activity around it: until
    // that activity's batch arrives, the attempt looks like a root of its own.
    await waitFor(
      'the call’s trace with its turns and webhook attempts, connected',
      20_000,
      async () => {
        const spans = live.collector!.spans();
        const conversation = spans.find(
          (span) => span.name === 'conversation' && span.attributes['voice.call_id'] === callId,
        );
        trace = conversation ? spans.filter((span) => span.traceId === conversation.traceId) : [];
        const complete = ['webhook.attempt', 'RunActivity:analyzeCall', 'tts'].every((name) =>
          names().has(name),
        );
        return complete && roots().length === 1;
      },
      { detail: () => JSON.stringify(roots().map((span) => [span.service, span.name])) },
    );
    expect(roots().map((span) => [span.service, span.name])).toEqual([
      ['voice-api', 'POST /functions/v1/call-dial'],
    ]);
    expect(roots()[0]!.parentSpanId).toBe('');
    const byId = new Map(trace.map((span) => [span.spanId, span]));
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
        expect(step.startMs).toBeGreaterThanOrEqual(turn.startMs);
        expect(step.endMs).toBeLessThanOrEqual(turn.endMs);
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
    const delivered = live.receiver.received.find((request) =>
      request.headers['traceparent']?.includes(attempt.spanId),
    );
    expect(delivered?.headers['traceparent']).toBe(`00-${attempt.traceId}-${attempt.spanId}-01`);
    expect(live.collector!.rejected).toEqual([]);
  });

  it('barge-in: the callee speaking over a long answer clears the line, and the turn keeps what was played', async () => {
    const long =
      'We are open on Monday from eight. On Tuesday from nine. On Wednesday from ten. On Thursday from eleven. On Friday from noon.';
    // The callee speaks over the long answer a second and a half into it, however long it took to begin.
    live.callee = [
      { untilAgentQuietMs: 1_000 },
      { text: SAID[0]! },
      { untilAgentSpokeMs: 1_500 },
      { text: SAID[1]! },
    ];
    live.answers = [
      { say: long },
      { say: 'Of course. Goodbye!', toolCalls: [{ name: 'end_call', arguments: { goal_reached: false } }] },
    ];
    live.analysis = { status: 500 };
    const callId = await live.dial(HELD);
    const row = await live.stack.ended(callId, 60_000);
    const clears = (await live.stack.carrierCall(callId)).stream!.record.clears;
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
    live.callee = [{ untilAgentQuietMs: 1_000 }, ...[...'1234#'].map((dtmf) => ({ dtmf }))];
    live.answers = [
      {
        say: 'Thank you, goodbye!',
        toolCalls: [
          { name: 'collect_variable', arguments: { name: 'account_number', value: '1234' } },
          { name: 'end_call', arguments: { goal_reached: true, reason: 'identified' } },
        ],
      },
    ];
    live.analysis = analysed('The caller typed their account number.');
    const callId = await live.dial(HELD);
    const row = await live.stack.ended(callId, 60_000);
    expect(row.status).toBe('ended');
    const call = await live.stack.getCall(callId);
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
    const agent = { where: { id: live.stack.seeded.agent.id } };
    await live.stack.deps.db.agent.update({
      ...agent,
      data: { conversationSettings: { reminder_after_ms: 2_000, reminder_max_count: 1 } },
    });
    live.callee = [{ pauseMs: 60_000 }];
    live.analysis = analysed('The callee never spoke.');
    try {
      const callId = await live.dial(HELD);
      const row = await live.stack.ended(callId, 60_000);
      expect(row.status).toBe('agent_hangup');
      expect(
        (row.transcript as { role: string; content: string }[]).map(({ role, content }) => [role, content]),
      ).toEqual([
        ['agent', WELCOME],
        ['agent', 'Are you still there?'],
        ['agent', 'I have not heard from you, so I will end the call now. Goodbye.'],
      ]);
      const times = (row.transcript as { timestamp_ms: number }[]).map((entry) => entry.timestamp_ms);
      expect(times[1]! - times[0]!).toBeGreaterThan(live.welcomeMs);
      // The reminder came 2 s after the caller had heard the welcome in full: on Twilio's side, its first
      // frame arrived at least 2 s after the welcome's last mark was echoed (the end of its playing).
      const record = (await live.stack.carrierCall(callId)).stream!.record;
      const frames = record.received.filter(({ message }) => message.event === 'media').map(({ at }) => at);
      const reminderAt = frames.find((at, index) => index > 0 && at - frames[index - 1]! > 1_000)!;
      const welcomeHeardAt = Math.max(
        ...record.marks.map((mark) => mark.echoedAt ?? Infinity).filter((at) => at < reminderAt),
      );
      expect(welcomeHeardAt).toBeGreaterThan(frames[0]!);
      expect(reminderAt - welcomeHeardAt).toBeGreaterThanOrEqual(2_000);
      expect(await live.callEnded(callId)).toMatchObject({ call_status: 'agent_hangup' });
    } finally {
      await live.stack.deps.db.agent.update({ ...agent, data: { conversationSettings: {} } });
    }
  });

  itKeepsSecrets(live);
});

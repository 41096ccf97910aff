import { loudMs, resample, rms, speakPcm } from '@voice/audio';
import { createMediaStreamToken, createWebCall, webCallTokens, type TurnLatency } from '@voice/core';
import { waitFor } from '@voice/dev';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { askingFlowAgent } from './asking-flow-agent';
import { mediaTestHarness } from './media-test-harness';
import { openWebCall } from '@voice/twilio-emulator';

const media = mediaTestHarness();

const WELCOME = 'Hello, this is the clinic.';
const QUESTION = 'What time do you open tomorrow?';
const ANSWER = 'We open at nine in the morning.';

/** What the browser's microphone hears: the caller's words as 16 kHz PCM. */
async function callerSpeech(text: string, voice?: string): Promise<Int16Array> {
  const { sampleRate, samples } = await speakPcm(text, voice);
  return resample(samples, sampleRate, 16_000);
}

/** A web call to the suite's agent (the first: a test may add others), as web-call-create makes it. */
async function webCall() {
  const agent = await media.deps.db.agent.findFirstOrThrow({ orderBy: { createdAt: 'asc' } });
  return createWebCall(media.deps, { accountId: agent.accountId, agent_id: agent.id });
}

const webUrl = () => media.harness.server.url.replace('/media/twilio', '/media/web');

describe('web calls', () => {
  it('holds a conversation with a browser: 16 kHz both ways, the transcript shown as it is said, recorded as a phone call is', async () => {
    await media.answeredCall({ welcomeMessage: WELCOME });
    await media.start({ reply: () => ({ say: ANSWER }), heard: [QUESTION] });
    const created = await webCall();
    const browser = openWebCall({
      url: webUrl(),
      accessToken: created.access_token,
      script: [{ untilAgentSaid: 1 }, { audio: await callerSpeech(QUESTION) }, { untilAgentSaid: 2 }],
    });
    await browser.opened;
    await browser.spoken();
    // While the call is up, its media server says its line is (a web call has no carrier to say it ended).
    const seen = await media.deps.db.call.findUniqueOrThrow({ where: { id: created.call_id } });
    expect(seen.mediaSeenAt!.getTime()).toBeGreaterThan(seen.mediaStartedAt!.getTime());
    browser.hangUp();
    const call = await media.storedCall(created.call_id);

    expect(browser.record.callId).toBe(created.call_id);
    // The agent's audio reached the browser at 16 kHz: seconds of it, not silence.
    const agentAudio = Int16Array.from(browser.record.agentAudio.flatMap((frame) => [...frame]));
    expect(agentAudio.length / 16_000).toBeGreaterThan(2);
    expect(rms(agentAudio)).toBeGreaterThan(500);
    expect(browser.record.transcript).toEqual([
      { role: 'agent', content: WELCOME },
      { role: 'caller', content: QUESTION },
      { role: 'agent', content: ANSWER },
    ]);
    expect(call.transcript.map(({ role, content }) => ({ role, content }))).toEqual(
      browser.record.transcript,
    );
    expect(call).toMatchObject({
      callType: 'web_call',
      status: 'ongoing',
      conversationEndReason: 'user_hangup',
    });
    expect(call.connectedAt).not.toBeNull();
    expect(
      await media.deps.db.callEvent.findMany({ where: { callId: call.id }, select: { status: true } }),
    ).toEqual(expect.arrayContaining([{ status: 'initiated' }, { status: 'ongoing' }]));
    // The recording: the caller's speech (filtered down to 8 kHz) left, the agent's right.
    const { left, right } = await media.recording(call.recordingKey!);
    expect(loudMs(left)).toBeGreaterThan(800);
    expect(loudMs(right)).toBeGreaterThan(2_000);
    // The answer's latency, step by step, in order on the call's clock (never in the public transcript).
    const [turn, ...more] = call.turnLatencies as unknown as TurnLatency[];
    expect(more).toEqual([]);
    const steps = [
      turn!.caller_stopped_ms,
      turn!.stt_final_ms,
      turn!.llm_first_token_ms,
      turn!.first_sentence_synthesized_ms,
      turn!.first_frame_ms,
    ];
    expect(steps.every((step) => typeof step === 'number')).toBe(true);
    expect([...(steps as number[])].sort((a, b) => a - b)).toEqual(steps);
    // The caller stopped about where their words end in the call's audio, before the final transcript,
    // which came once voice activity detection had heard them pause for 64 ms (Finalize).
    const callerTurn = call.transcript.find((entry) => entry.role === 'caller')!;
    expect(turn!.caller_stopped_ms! - callerTurn.timestamp_ms).toBeGreaterThan(1_000);
    expect(turn!.stt_final_ms - turn!.caller_stopped_ms!).toBeGreaterThanOrEqual(50);
    // Speech-to-text heard the caller as it hears a phone caller: 8 kHz μ-law.
    expect(media.harness.stt.streams[0]?.query).toMatchObject({ encoding: 'mulaw', sample_rate: '8000' });
  });

  it('refuses a token used twice, expired, or not a web call token for that call, and writes nothing', async () => {
    const phoneCall = await media.answeredCall({ welcomeMessage: WELCOME });
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    await media.start({ reply: () => ({ say: ANSWER }), heard: [], logger });
    const created = await webCall();
    const secret = media.deps.config.jwtSecret;
    const refusedWith = async (accessToken: string) =>
      (await openWebCall({ url: webUrl(), accessToken }).closed)!;

    const expired = webCallTokens.create(secret, created.call_id, {
      now: new Date(Date.now() - 120_000),
      validForMs: 60_000,
    });
    expect(await refusedWith(expired)).toEqual({ code: 1008, reason: 'invalid or expired access token' });
    const streamToken = createMediaStreamToken(secret, created.call_id, {
      now: new Date(),
      validForMs: 60_000,
    });
    expect(await refusedWith(streamToken)).toEqual({ code: 1008, reason: 'invalid or expired access token' });
    const forPhoneCall = webCallTokens.create(secret, phoneCall, { now: new Date(), validForMs: 60_000 });
    expect((await refusedWith(forPhoneCall)).code).toBe(1008);
    expect(await media.deps.db.call.findUniqueOrThrow({ where: { id: phoneCall } })).toMatchObject({
      mediaStartedAt: null,
      status: 'ongoing',
    });
    expect(await media.deps.db.call.findUniqueOrThrow({ where: { id: created.call_id } })).toMatchObject({
      mediaStartedAt: null,
      status: 'initiated',
    });

    const first = openWebCall({ url: webUrl(), accessToken: created.access_token });
    await waitFor('the first browser to be taken', 10_000, async () => first.record.callId !== null);
    expect(await refusedWith(created.access_token)).toEqual({
      code: 1008,
      reason: 'the call has a line already, has ended, or is not of this kind',
    });
    expect(first.record.closed).toBeNull();
    await first.stop();
    await media.storedCall(created.call_id);
    // Each refusal is in the log with its reason.
    const refusals = lines.map((line) => JSON.parse(line) as { msg: string; reason?: string });
    expect(refusals.filter((line) => line.msg === 'web call refused').map((line) => line.reason)).toEqual([
      'invalid or expired access token',
      'invalid or expired access token',
      'the call has a line already, has ended, or is not of this kind',
      'the call has a line already, has ended, or is not of this kind',
    ]);
  });

  it('holds a conversation in Hebrew: the agent speaks it, speech-to-text is asked for it, the variables fill it', async () => {
    const welcome = 'שלום {{name}}, כאן המרפאה.';
    const question = 'מתי אתם פותחים מחר?';
    const answer = 'אנחנו פותחים בתשע בבוקר.';
    await media.answeredCall({
      welcomeMessage: welcome,
      prompt: 'את עוזרת למטופלים של {{name}}.',
      language: 'he',
    });
    await media.start({ reply: () => ({ say: answer }), heard: [question] });
    const agent = await media.deps.db.agent.findFirstOrThrow();
    const created = await createWebCall(media.deps, {
      accountId: agent.accountId,
      agent_id: agent.id,
      vars_provided: { name: 'דנה' },
    });
    const browser = openWebCall({
      url: webUrl(),
      accessToken: created.access_token,
      script: [{ untilAgentSaid: 1 }, { audio: await callerSpeech(question, 'he') }, { untilAgentSaid: 2 }],
    });
    await browser.spoken();
    browser.hangUp();
    const call = await media.storedCall(created.call_id);
    expect(call.transcript.map(({ role, content }) => ({ role, content }))).toEqual([
      { role: 'agent', content: 'שלום דנה, כאן המרפאה.' },
      { role: 'caller', content: question },
      { role: 'agent', content: answer },
    ]);
    expect(media.harness.stt.streams[0]?.query.language).toBe('he');
    // The model was given the prompt in Hebrew, its variable filled.
    expect(JSON.stringify(media.harness.llm.requests[0]?.messages)).toContain('את עוזרת למטופלים של דנה.');
    // eSpeak NG's Hebrew voice spoke: seconds of the agent in the recording.
    const { left, right } = await media.recording(call.recordingKey!);
    expect(loudMs(right)).toBeGreaterThan(2_000);
    expect(loudMs(left)).toBeGreaterThan(800);
  });

  it('runs a flow agent on a web call: its nodes in the transcript, what the caller gave collected', async () => {
    await media.answeredCall({ welcomeMessage: WELCOME });
    const NAME_QUESTION = 'May I have your name?';
    const SAID = 'My name is Dana.';
    // The model only reads the caller: the flow's words are its own.
    await media.start({
      reply: (request) =>
        request.response_format?.json_schema?.name === 'caller_turn'
          ? { say: JSON.stringify({ intent: null, variables: { name: 'Dana' } }) }
          : { status: 400, message: 'this flow asks the model nothing else' },
      heard: [SAID],
    });
    const { accountId } = await media.deps.db.agent.findFirstOrThrow();
    const agent = await askingFlowAgent(media.deps, accountId, {
      name: 'Web flow',
      question: NAME_QUESTION,
      variables: [{ name: 'name', type: 'string' }],
      goodbye: 'Thank you {{name}}, goodbye!',
    });
    const created = await createWebCall(media.deps, { accountId, agent_id: agent.agent_id });
    const browser = openWebCall({
      url: webUrl(),
      accessToken: created.access_token,
      script: [{ untilAgentSaid: 1 }, { audio: await callerSpeech(SAID) }, { untilAgentSaid: 2 }],
    });
    await browser.opened;
    // The flow ends the call: the media server closes the browser's line.
    expect((await browser.closed)?.code).toBe(1000);
    const call = await media.storedCall(created.call_id);
    expect(call.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['system', 'node: Ask'],
      ['agent', NAME_QUESTION],
      ['caller', SAID],
      ['system', 'node: Goodbye'],
      ['agent', 'Thank you Dana, goodbye!'],
    ]);
    expect(call).toMatchObject({
      conversationEndReason: 'ended',
      varsCollected: { name: 'Dana' },
      agentVersion: 1,
    });
    // The browser was shown what was said, not the flow's steps.
    expect(browser.record.transcript.map((entry) => entry.role)).toEqual(['agent', 'caller', 'agent']);
    // The model's reading of the caller is in the call's usage, as its provider counted it.
    const [reading] = media.harness.llm.requests;
    expect(reading!.response_format?.json_schema?.name).toBe('caller_turn');
    const read = reading!.messages.reduce((sum, message) => sum + String(message.content ?? '').length, 0);
    expect(call.usage).toMatchObject({
      llm_input_tokens: Math.ceil(read / 4),
      llm_output_tokens: Math.ceil(JSON.stringify({ intent: null, variables: { name: 'Dana' } }).length / 4),
    });
  });
});

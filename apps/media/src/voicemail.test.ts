import { connect, createServer, type Socket } from 'node:net';
import { speak } from '@voice/audio';
import { requestVoicemailMessage } from '@voice/core';
import { waitFor } from '@voice/dev';
import { describe, expect, it } from 'vitest';
import { mediaTestHarness, spokenMs } from './media-test-harness';

/**
 * A message left on an answering machine: the call workflow records the request as the machine's beep
 * ends its greeting, and the media server holding the call (told by Postgres, or finding it on the row)
 * has the agent speak its message on the stream, then hang up.
 */

const media = mediaTestHarness();
const WELCOME = 'Hello, this is the clinic.';
const GREETING = "Hi, you've reached Dana. Please leave a message after the tone.";
const MESSAGE = 'Hello Dana, this is the clinic. Please call us back.';
const VOICEMAIL = { message: 'Hello {{name}}, this is the clinic. Please call us back.' };
const LEAVING = ['system', 'voicemail: leaving a message'];

/** A TCP proxy to Postgres that can be cut (its connections dropped, new ones refused) and mended. */
async function cuttableProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', drop).on('close', drop);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    mend() {
      open = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a voicemail message', () => {
  it('is spoken in the agent’s voice once the beep’s request comes; the machine is not answered; the call ends voicemail_left', async () => {
    await media.start({ heard: [GREETING], reply: () => ({ say: 'Sorry, who is this?' }) });
    const callId = await media.answeredCall({ welcomeMessage: WELCOME, voicemail: VOICEMAIL });
    let requestedAt = 0;
    const stream = media.connect(callId, [
      { untilAgentQuietMs: 300 },
      { text: GREETING },
      {
        reached: () => {
          requestedAt = Date.now() - stream.record.openedAt;
          void requestVoicemailMessage(media.deps, callId);
        },
      },
      { pauseMs: 30_000 },
    ]);
    const row = await media.storedCall(callId);
    expect(row.conversationEndReason).toBe('voicemail_left');
    expect(media.harness.ends).toEqual([{ callId, request: { action: 'hang_up', reason: 'agent_hangup' } }]);
    const entries = row.transcript.map(({ role, content }) => [role, content]);
    expect(entries[0]).toEqual(['agent', WELCOME]);
    expect(entries.slice(-2)).toEqual([LEAVING, ['agent', MESSAGE]]);
    // Nothing the machine said after the request was answered: the model was asked only about its
    // greeting, as far as it had gone (answers begun at the greeting's pauses are thrown away unheard as
    // it goes on), and one answer to it at most was heard before the request came.
    for (const request of media.harness.llm.requests) {
      const heard = request.messages.filter((message) => message.role === 'user');
      expect(GREETING.startsWith(heard.map((message) => message.content).join(' '))).toBe(true);
    }
    expect(entries.filter(([role]) => role === 'agent').length).toBeLessThanOrEqual(3);
    // The whole message went out after the request, and was heard before the hang-up.
    const after = stream.record.received.filter(
      ({ at, message }) => at >= requestedAt && message.event === 'media',
    );
    expect(after.length * 20).toBeGreaterThanOrEqual(spokenMs(await speak(MESSAGE)) * 0.9);
    const marks = media.harness.marksAtEnd.get(callId)!;
    expect(marks.every((mark) => mark.echoedAt !== null)).toBe(true);
  });

  it('asked before the stream opened (a crash window), is left as soon as the call is taken', async () => {
    await media.start({ heard: [], reply: () => ({ say: 'Hi.' }) });
    const callId = await media.answeredCall({ welcomeMessage: WELCOME, voicemail: VOICEMAIL });
    expect(await requestVoicemailMessage(media.deps, callId)).toBe(true);
    media.connect(callId, [{ pauseMs: 30_000 }]);
    const row = await media.storedCall(callId);
    expect(row.conversationEndReason).toBe('voicemail_left');
    expect(row.transcript.map(({ role, content }) => [role, content]).slice(-2)).toEqual([
      LEAVING,
      ['agent', MESSAGE],
    ]);
  });

  it('announced while the server was not listening (its connection lost), is found once it listens again', async () => {
    const proxy = await cuttableProxy(media.databaseUrl);
    try {
      await media.start({ heard: [], reply: () => ({ say: 'Hi.' }), databaseUrl: proxy.url });
      const callId = await media.answeredCall({ welcomeMessage: WELCOME, voicemail: VOICEMAIL });
      const stream = media.connect(callId, [{ pauseMs: 30_000 }]);
      // Held: the call's own look-up (listening first) runs as its conversation starts, well before the
      // welcome's first frame (synthesised meanwhile), so it finds nothing. Were it ever later than the
      // request below, it would find the request itself: this test would pass by that path, never fail
      // for it (without the look-up on listening again, it times out: checked by removing it).
      await waitFor('the welcome', 10_000, async () =>
        stream.record.received.some(({ message }) => message.event === 'media'),
      );
      // The listening connection dropped, and none let through until the request has been announced:
      // the notice reaches nobody.
      proxy.cut();
      expect(await requestVoicemailMessage(media.deps, callId)).toBe(true);
      proxy.mend();
      const row = await media.storedCall(callId);
      expect(row.conversationEndReason).toBe('voicemail_left');
      expect(row.transcript.map(({ role, content }) => [role, content]).slice(-2)).toEqual([
        LEAVING,
        ['agent', MESSAGE],
      ]);
    } finally {
      proxy.cut();
      await proxy.close();
    }
  });

  it('found while speech-to-text opens (a race window), is left without greeting the machine', async () => {
    // The model writes the message, taking a second and a half; speech-to-text takes the stream only once
    // the model has been asked. The conversation's opening resumes while the message is being written,
    // and must not speak the welcome to the machine meanwhile.
    const written = 'Hi Dana, this is the clinic. Please call us back.';
    let asked = () => {};
    const messageAsked = new Promise<void>((resolve) => (asked = resolve));
    await media.start({
      heard: [],
      reply: (request) => {
        if (request.messages.at(-1)?.content !== 'Ask Dana to call the clinic back.') return { status: 500 };
        asked();
        return { say: written, latencyMs: 1_500 };
      },
    });
    media.harness.stt.faults.accepting = messageAsked;
    const callId = await media.answeredCall({
      welcomeMessage: WELCOME,
      voicemail: { message: 'Ask {{name}} to call the clinic back.' },
      settings: { voicemail_message_kind: 'instruction' },
    });
    expect(await requestVoicemailMessage(media.deps, callId)).toBe(true);
    media.connect(callId, [{ pauseMs: 30_000 }]);
    const row = await media.storedCall(callId);
    expect(row.conversationEndReason).toBe('voicemail_left');
    expect(row.transcript.map(({ role, content }) => [role, content])).toEqual([LEAVING, ['agent', written]]);
    expect(media.harness.stt.streams).toHaveLength(1);
  });

  it('by an instruction, is written by the model with the agent’s prompt', async () => {
    const instruction = 'Ask {{name}} to call the clinic back about the appointment.';
    const written = 'Hi Dana, this is the clinic. Please call us back about your appointment.';
    await media.start({
      heard: [],
      reply: (request) =>
        request.messages.at(-1)?.content === 'Ask Dana to call the clinic back about the appointment.'
          ? { say: written }
          : { status: 500 },
    });
    const callId = await media.answeredCall({
      welcomeMessage: WELCOME,
      prompt: 'You are the clinic’s receptionist.',
      voicemail: { message: instruction },
      settings: { voicemail_message_kind: 'instruction' },
    });
    expect(await requestVoicemailMessage(media.deps, callId)).toBe(true);
    media.connect(callId, [{ pauseMs: 30_000 }]);
    const row = await media.storedCall(callId);
    expect(row.conversationEndReason).toBe('voicemail_left');
    expect(row.transcript.at(-1)).toMatchObject({ role: 'agent', content: written });
    const asked = media.harness.llm.requests.at(-1)!.messages;
    expect(asked[0]!.content).toMatch(
      /^You are the clinic’s receptionist\.\n\nThe call has reached an answering machine/,
    );
  });

  it('by an instruction the model fails to follow, is not left: the agent hangs up', async () => {
    await media.start({ heard: [], reply: () => ({ status: 500 }) });
    const callId = await media.answeredCall({
      welcomeMessage: WELCOME,
      voicemail: { message: 'Ask them to call back.' },
      settings: { voicemail_message_kind: 'instruction' },
    });
    expect(await requestVoicemailMessage(media.deps, callId)).toBe(true);
    media.connect(callId, [{ pauseMs: 30_000 }]);
    const row = await media.storedCall(callId);
    expect(row.conversationEndReason).toBe('agent_hangup');
    expect(row.transcript.at(-1)).toMatchObject({ role: 'system', content: LEAVING[1] });
    expect(media.harness.ends).toEqual([{ callId, request: { action: 'hang_up', reason: 'agent_hangup' } }]);
  });
});

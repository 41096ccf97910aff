import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { openMediaStream, type MediaStream } from './media-streams';

/** Twilio's side of a media stream against a real WebSocket server playing the media server. */

interface Session {
  socket: WebSocket;
  messages: { at: number; message: Record<string, unknown> }[];
}

let server: WebSocketServer;
let url: string;
const sessions: Session[] = [];

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/media/twilio`;
  server.on('connection', (socket) => {
    const session: Session = { socket, messages: [] };
    sessions.push(session);
    socket.on('message', (data) =>
      session.messages.push({ at: Date.now(), message: JSON.parse(String(data)) as Record<string, unknown> }),
    );
  });
});
afterAll(async () => {
  for (const session of sessions) session.socket.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function until<T>(check: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function open(script?: Parameters<typeof openMediaStream>[0]['script']) {
  const before = sessions.length;
  const stream = openMediaStream({
    url,
    parameters: { callId: 'call-1', token: 't0k' },
    accountSid: `AC${'a'.repeat(32)}`,
    callSid: `CA${'b'.repeat(32)}`,
    script,
  });
  await stream.opened;
  const session = await until(() => sessions[before]);
  return { stream, session };
}

const events = (session: Session, event: string) =>
  session.messages.filter(({ message }) => message.event === event);
const payloadOf = ({ message }: Session['messages'][number]) =>
  Buffer.from((message.media as { payload: string }).payload, 'base64');
const toService = (stream: MediaStream, session: Session, message: Record<string, unknown>) =>
  session.socket.send(JSON.stringify({ ...message, streamSid: stream.record.streamSid }));

describe('a media stream', () => {
  it('starts with connected and start, then sends the callee audio as 20 ms frames in real time', async () => {
    const spoken = Buffer.alloc(800, 0x10); // 100 ms of a loud constant
    const { stream, session } = await open([{ audio: spoken }]);
    await until(() => events(session, 'media').length >= 25);
    const [connected, start, ...rest] = session.messages.map(({ message }) => message);
    expect(connected).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    expect(start).toEqual({
      event: 'start',
      sequenceNumber: '1',
      streamSid: stream.record.streamSid,
      start: {
        accountSid: `AC${'a'.repeat(32)}`,
        callSid: `CA${'b'.repeat(32)}`,
        streamSid: stream.record.streamSid,
        tracks: ['inbound'],
        customParameters: { callId: 'call-1', token: 't0k' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    expect(rest.map((message) => Number(message.sequenceNumber))).toEqual(rest.map((_, i) => i + 2));
    const media = events(session, 'media');
    expect(media.every((frame) => payloadOf(frame).length === 160)).toBe(true);
    expect(
      media
        .slice(0, 3)
        .map(({ message }) => (message.media as { chunk: string; timestamp: string }).timestamp),
    ).toEqual(['0', '20', '40']);
    // The callee's words first, then silence.
    expect(Buffer.concat(media.slice(0, 5).map(payloadOf))).toEqual(spoken);
    expect(payloadOf(media[6]!)).toEqual(Buffer.alloc(160, 0xff));
    // Real time: 25 frames take about half a second.
    expect(media[24]!.at - media[0]!.at).toBeGreaterThanOrEqual(400);
    await stream.stop();
  });

  it("plays the service's audio in real time and echoes a mark once the audio before it has played", async () => {
    const { stream, session } = await open();
    const audio = Buffer.alloc(3200, 0x20); // 400 ms
    const sentAt = Date.now();
    toService(stream, session, { event: 'media', media: { payload: audio.toString('base64') } });
    toService(stream, session, { event: 'mark', mark: { name: 'greeting' } });
    const [echo] = await until(() => events(session, 'mark').length > 0 && events(session, 'mark'));
    expect(echo!.message).toMatchObject({
      event: 'mark',
      streamSid: stream.record.streamSid,
      mark: { name: 'greeting' },
    });
    expect(echo!.at - sentAt).toBeGreaterThanOrEqual(360);
    expect(stream.record.audio()).toEqual(audio);
    expect(stream.record.played()).toEqual(audio);
    expect(stream.record.marks).toEqual([
      { name: 'greeting', receivedAt: expect.any(Number), echoedAt: expect.any(Number) },
    ]);
    await stream.stop();
  });

  it('drops the unplayed audio on clear and echoes the pending marks at once', async () => {
    const { stream, session } = await open();
    toService(stream, session, {
      event: 'media',
      media: { payload: Buffer.alloc(16_000, 0x20).toString('base64') },
    });
    toService(stream, session, { event: 'mark', mark: { name: 'long-answer' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const clearedAt = Date.now();
    toService(stream, session, { event: 'clear' });
    const [echo] = await until(() => events(session, 'mark').length > 0 && events(session, 'mark'));
    expect(echo!.at - clearedAt).toBeLessThan(100);
    const [clear] = stream.record.clears;
    expect(clear!.droppedBytes).toBeGreaterThan(12_000);
    expect(stream.record.played().length + clear!.droppedBytes).toBe(16_000);
    await stream.stop();
  });

  it('presses keys, and ends with stop before the WebSocket closes', async () => {
    const { stream, session } = await open([{ pauseMs: 40 }, { dtmf: '5' }]);
    const [dtmf] = await until(() => events(session, 'dtmf').length > 0 && events(session, 'dtmf'));
    expect(dtmf!.message).toMatchObject({
      event: 'dtmf',
      streamSid: stream.record.streamSid,
      dtmf: { track: 'inbound_track', digit: '5' },
    });
    const closed = new Promise<number>((resolve) => session.socket.once('close', (code) => resolve(code)));
    await stream.stop();
    expect(session.messages.at(-1)!.message).toMatchObject({
      event: 'stop',
      stop: { accountSid: `AC${'a'.repeat(32)}`, callSid: `CA${'b'.repeat(32)}` },
    });
    expect(await closed).toBe(1000);
    expect(stream.record.closed).toEqual({ code: 1000, reason: 'call ended', by: 'twilio' });
  });

  it("records messages that break the protocol: another stream's, unknown events, not JSON", async () => {
    const { stream, session } = await open();
    session.socket.send(JSON.stringify({ event: 'media', streamSid: 'MZother', media: { payload: 'AAAA' } }));
    toService(stream, session, { event: 'dance' });
    session.socket.send('{not json');
    await until(() => stream.record.errors.length === 3);
    expect(stream.record.errors).toEqual([
      expect.stringContaining('MZother'),
      'unknown event dance',
      expect.stringContaining('not JSON'),
    ]);
    expect(stream.record.audio().length).toBe(0);
    await stream.stop();
  });

  it('waits for the agent to finish although this process was held up mid-sentence', async () => {
    // The agent says two sentences of half a second, each 20 ms of audio sent every 20 ms; 200 ms into
    // the second, this process is held up for a second (a busy machine holds the test process, which is
    // the callee and the service both). The callee waits for the agent to be quiet for 300 ms.
    const SENTENCE_FRAMES = 25;
    let playedWhenQuiet = -1;
    const { stream, session } = await open([
      { untilAgentQuietMs: 300 },
      { reached: () => (playedWhenQuiet = stream.record.played().length) },
    ]);
    let sent = 0;
    await new Promise<void>((resolve) => {
      const pace = setInterval(() => {
        if (sent === 2 * SENTENCE_FRAMES) {
          clearInterval(pace);
          return resolve();
        }
        toService(stream, session, {
          event: 'media',
          media: { payload: Buffer.alloc(160, 0x20).toString('base64') },
        });
        sent += 1;
        if (sent === SENTENCE_FRAMES + 10) {
          const until = performance.now() + 1_000;
          while (performance.now() < until);
        }
      }, 20);
    });
    await until(() => playedWhenQuiet >= 0);
    // Every frame of both sentences had played: the hold's quiet was not the agent's.
    expect(playedWhenQuiet).toBe(2 * SENTENCE_FRAMES * 160);
    await stream.stop();
  });

  it('speaks over the agent a set time into its answer, however long the answer took to begin', async () => {
    // The agent begins 700 ms after the callee's words (a slow answer), then talks on; the callee speaks
    // again once 400 ms of it has played.
    let playedWhenSpeaking = -1;
    const { stream, session } = await open([
      { pauseMs: 100 },
      { untilAgentSpokeMs: 400 },
      { reached: () => (playedWhenSpeaking = stream.record.played().length) },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(playedWhenSpeaking).toBe(-1);
    const pace = setInterval(
      () =>
        toService(stream, session, {
          event: 'media',
          media: { payload: Buffer.alloc(160, 0x20).toString('base64') },
        }),
      20,
    );
    try {
      await until(() => playedWhenSpeaking >= 0);
    } finally {
      clearInterval(pace);
    }
    // 400 ms of the answer had played (20 frames of 160 bytes), no less.
    expect(playedWhenSpeaking).toBeGreaterThanOrEqual(20 * 160);
    expect(playedWhenSpeaking).toBeLessThanOrEqual(22 * 160);
    await stream.stop();
  });

  it('reports a stream that cannot connect', async () => {
    const stream = openMediaStream({
      url: 'ws://127.0.0.1:1/media/twilio',
      parameters: {},
      accountSid: 'AC0',
      callSid: 'CA0',
    });
    await expect(stream.opened).rejects.toThrow();
    expect(stream.record.errors[0]).toMatch(/^WebSocket: /);
  });
});

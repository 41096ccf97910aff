import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { openWebCall } from './web-caller';

/** A browser's side of a web call against a real WebSocket server playing the media server. */

let server: WebSocketServer;
let url: string;

/** 20 ms of the agent's 16 kHz PCM. */
const FRAME_BYTES = 640;
const SENTENCE_FRAMES = 25;

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/media/web`;
  // The agent says two sentences, each shown and then sent as 20 ms of audio every 20 ms; half a second
  // into the second, this process is held up for a second (a busy machine holds the test process, which
  // is the caller and the server both).
  server.on('connection', (socket) => {
    socket.once('message', () => {
      socket.send(JSON.stringify({ event: 'started', call_id: 'call-1' }));
      let sentence = 0;
      let frame = SENTENCE_FRAMES;
      const pace = setInterval(() => {
        if (frame === SENTENCE_FRAMES) {
          if (sentence === 2) return clearInterval(pace);
          sentence += 1;
          frame = 0;
          socket.send(
            JSON.stringify({ event: 'transcript', role: 'agent', content: `Sentence ${sentence}.` }),
          );
          if (sentence === 2) {
            setTimeout(() => {
              const until = performance.now() + 1_000;
              while (performance.now() < until);
            }, 200);
          }
        }
        socket.send(Buffer.alloc(FRAME_BYTES, 1));
        frame += 1;
      }, 20);
      socket.on('close', () => clearInterval(pace));
    });
  });
});
afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a web caller', () => {
  it('waits for the agent to finish although this process was held up mid-sentence', async () => {
    const caller = openWebCall({ url, accessToken: 'token', script: [{ untilAgentSaid: 2 }] });
    await caller.spoken();
    // Every frame of both sentences had come: the hold's quiet was not the agent's.
    const frames =
      caller.record.agentAudio.reduce((sum, samples) => sum + samples.length * 2, 0) / FRAME_BYTES;
    expect(frames).toBe(2 * SENTENCE_FRAMES);
    await caller.stop();
  });
});

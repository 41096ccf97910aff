import { pcmBytes, pcmSamples } from '@voice/audio';
import WebSocket from 'ws';

/**
 * A browser's side of a web call (the media server's `/media/web`), for tests and benchmarks: it says its access token, speaks 16 kHz
 * PCM in real time (20 ms messages), plays the agent's audio as a browser would (in order, in real
 * time from its arrival) and echoes each mark once the audio before it has played, and keeps what the
 * page would show.
 */

export type WebCallerTurn =
  | { pauseMs: number }
  | { audio: Int16Array }
  /** A key of the page's keypad. */
  | { key: string }
  /** Silence until the agent has said this many sentences and been quiet for half a second since. */
  | { untilAgentSaid: number };

export interface WebCallRecord {
  callId: string | null;
  /** The agent's audio as it arrived (16 kHz PCM samples). */
  agentAudio: Int16Array[];
  transcript: { role: string; content: string }[];
  ended: string | null;
  closed: { code: number; reason: string } | null;
}

export function openWebCall({
  url,
  accessToken,
  script = [],
}: {
  url: string;
  accessToken: string;
  script?: WebCallerTurn[];
}) {
  const socket = new WebSocket(url);
  const record: WebCallRecord = { callId: null, agentAudio: [], transcript: [], ended: null, closed: null };
  /** When what has arrived so far will have played (ms, performance.now()). */
  let playedUntil = 0;
  /** Whether the agent's audio has come since its last sentence was shown (a sentence is shown first). */
  let audioSinceSaid = true;
  /** The caller's own frames sent since the agent's audio last came. */
  let framesSinceAudio = 0;
  let spoken: () => void = () => {};
  const speaking = new Promise<void>((resolve) => (spoken = resolve));
  const closed = new Promise<WebCallRecord['closed']>((resolve) =>
    socket.on('close', (code, reason) => {
      record.closed = { code, reason: reason.toString() };
      resolve(record.closed);
    }),
  );
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', () => {
      socket.send(JSON.stringify({ event: 'start', access_token: accessToken }));
      resolve();
    });
    socket.on('error', reject);
  });
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      const samples = pcmSamples(data as Buffer);
      record.agentAudio.push(samples);
      audioSinceSaid = true;
      framesSinceAudio = 0;
      playedUntil = Math.max(playedUntil, performance.now()) + samples.length / 16;
      return;
    }
    const message = JSON.parse(String(data)) as Record<string, string>;
    if (message.event === 'started') {
      record.callId = message.call_id!;
      void speak(script).then(spoken);
    } else if (message.event === 'mark') {
      const name = message.name!;
      setTimeout(
        () => {
          if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ event: 'mark', name }));
        },
        Math.max(0, playedUntil - performance.now()),
      );
    } else if (message.event === 'clear') playedUntil = performance.now();
    else if (message.event === 'transcript') {
      record.transcript.push({ role: message.role!, content: message.content! });
      if (message.role === 'agent') audioSinceSaid = false;
    } else if (message.event === 'ended') record.ended = message.reason!;
  });

  const silence = new Int16Array(320);
  const sendFrame = (frame: Int16Array) => {
    framesSinceAudio += 1;
    socket.send(pcmBytes(frame));
  };
  /**
   * Whether the agent is done: its sentences shown, their audio played, and half a second of quiet, both
   * by the clock and by the caller's own frames. After a hold of this process (the machine busy) the clock
   * says half a second went by while nothing ran, so no audio could come; the frames (sent one per turn of
   * the event loop as they catch up) count only time in which the agent's audio could have been read.
   */
  const agentQuiet = (sentences: number) =>
    record.transcript.filter((entry) => entry.role === 'agent').length >= sentences &&
    audioSinceSaid &&
    performance.now() - playedUntil >= 500 &&
    framesSinceAudio >= 25;

  // A microphone sends all the time (a pause is silence), 20 ms a message on a fixed grid: a late timer
  // is caught up, never let drift, so the caller's audio keeps pace with the clock as a browser's does.
  let due = 0;
  async function nextFrame() {
    due += 20;
    await sleep(Math.max(0, due - performance.now()));
  }
  async function speak(turns: WebCallerTurn[]) {
    due = performance.now();
    for (const turn of turns) {
      if ('untilAgentSaid' in turn) {
        while (socket.readyState === socket.OPEN && !agentQuiet(turn.untilAgentSaid)) {
          sendFrame(silence);
          await nextFrame();
        }
        continue;
      }
      if ('key' in turn) {
        if (socket.readyState === socket.OPEN)
          socket.send(JSON.stringify({ event: 'dtmf', digit: turn.key }));
        continue;
      }
      const audio = 'audio' in turn ? turn.audio : new Int16Array(turn.pauseMs * 16);
      for (let at = 0; at < audio.length && socket.readyState === socket.OPEN; at += 320) {
        sendFrame(audio.subarray(at, at + 320));
        await nextFrame();
      }
    }
  }

  return {
    record,
    opened,
    closed,
    /** Resolves once the call has started and the script has been spoken. */
    spoken: () => speaking,
    hangUp() {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ event: 'hangup' }));
    },
    stop() {
      socket.close();
      return closed;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

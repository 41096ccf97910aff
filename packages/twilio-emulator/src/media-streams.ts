import { randomBytes } from 'node:crypto';
import { MULAW_SILENCE, speak, wavToMulaw } from '@voice/audio';
import WebSocket from 'ws';

/**
 * Twilio's side of a Media Stream (`<Connect><Stream>`), as Twilio documents it: a WebSocket client
 * that sends `connected`, `start` (with the stream's `customParameters`), the callee's audio as 20 ms
 * `media` frames of 8 kHz μ-law (base64) in real time (silence when the callee says nothing), `dtmf`
 * and `stop`. What the service sends back is played out at the same rate: a `mark` is echoed once the
 * audio queued before it has played, and `clear` drops the audio not yet played and echoes every
 * pending mark at once. Everything the service sent is recorded for tests to assert on.
 */

/** One step of what the callee does on the line. */
export type CalleeTurn =
  /** Audio already in the stream's format: 8 kHz μ-law. */
  | { audio: Buffer }
  /** A 16-bit PCM WAV file (any rate, mono or the first channel), converted to 8 kHz μ-law. */
  | { wav: Buffer }
  /** Words spoken by an offline synthesizer (eSpeak NG); `voice` is an eSpeak voice, `en-us` by default. */
  | { text: string; voice?: string }
  | { pauseMs: number }
  /** A key pressed on the phone's keypad. */
  | { dtmf: string }
  /**
   * Silence until the agent has spoken since the callee's last words and then been quiet this long:
   * the callee waits for the agent to finish, however long the agent took to begin.
   */
  | { untilAgentQuietMs: number }
  /**
   * Silence until this much of the agent's audio has played since the callee's last words: the callee
   * speaks over an answer a set time into it, however long the agent took to begin.
   */
  | { untilAgentSpokeMs: number }
  /** Called once everything queued before it has been sent (an answering machine's beep ended). */
  | { reached: () => void };

export interface MediaStreamRecord {
  streamSid: string;
  /** When the stream opened (`Date.now()`): the zero of the `at`s below. */
  openedAt: number;
  /** Every message the service sent, parsed, with when it arrived (ms since the stream opened). */
  received: { at: number; message: Record<string, unknown> }[];
  /** All audio the service sent (8 kHz μ-law), in order. */
  audio(): Buffer;
  /** The part of it the callee heard: what played before a `clear` dropped the rest. */
  played(): Buffer;
  /** Each mark the service sent, and when it was echoed (null: not yet). */
  marks: { name: string; receivedAt: number; echoedAt: number | null }[];
  /** Each `clear`, and how much queued audio it dropped (bytes of μ-law, 8 per millisecond). */
  clears: { at: number; droppedBytes: number }[];
  /** Messages that broke the protocol (not JSON, an unknown event, another stream's streamSid). */
  errors: string[];
  /** Media frames sent to the service. */
  framesSent: number;
  /** When each of the callee's `audio`, `wav` and `text` turns began to be sent (ms since the stream opened). */
  spoken: number[];
  /** How the WebSocket closed, once it has. */
  closed: { code: number; reason: string; by: 'service' | 'twilio' } | null;
}

export interface MediaStream {
  record: MediaStreamRecord;
  /** Resolves once `connected` and `start` are sent; rejects when the WebSocket cannot connect. */
  opened: Promise<void>;
  /** Resolves when the WebSocket has closed, whoever closed it. */
  closed: Promise<void>;
  /** Queues what the callee says or does next, after what is already queued. */
  say(...turns: CalleeTurn[]): Promise<void>;
  /** Ends the stream as Twilio does when the call ends: `stop`, then the WebSocket closes. */
  stop(): Promise<void>;
}

export interface MediaStreamOptions {
  /** The `<Stream url>`. */
  url: string;
  /** The `<Parameter>`s, sent as the start message's customParameters. */
  parameters: Record<string, string>;
  accountSid: string;
  callSid: string;
  /** What the callee says, from the moment the stream opens. */
  script?: CalleeTurn[];
  /**
   * How long the service's audio waits in the carrier's jitter buffer before it plays (ms; 0 by default):
   * the service's frames are heard that much after they arrive, and their marks echoed that much later.
   */
  playoutDelayMs?: number;
}

const FRAME_MS = 20;
const BYTES_PER_MS = 8;
const FRAME_BYTES = FRAME_MS * BYTES_PER_MS;

type Inbound =
  | Buffer
  | { dtmf: string }
  | { untilAgentQuietMs: number }
  | { untilAgentSpokeMs: number }
  | { reached: () => void };

async function render(turn: CalleeTurn): Promise<Inbound> {
  if ('audio' in turn) return turn.audio;
  if ('wav' in turn) return wavToMulaw(turn.wav);
  if ('text' in turn) return speak(turn.text, turn.voice);
  if ('pauseMs' in turn) return Buffer.alloc(Math.round(turn.pauseMs * BYTES_PER_MS), MULAW_SILENCE);
  if ('untilAgentQuietMs' in turn || 'untilAgentSpokeMs' in turn || 'reached' in turn) return turn;
  return { dtmf: turn.dtmf };
}

/** The service's audio (with when it arrived, `performance.now()`) and the marks between it. */
type Outbound = { audio: Buffer; at: number } | { mark: string };

export function openMediaStream(options: MediaStreamOptions): MediaStream {
  const streamSid = `MZ${randomBytes(16).toString('hex')}`;
  const sentAudio: Buffer[] = [];
  const playedAudio: Buffer[] = [];
  const record: MediaStreamRecord = {
    streamSid,
    openedAt: 0,
    received: [],
    audio: () => Buffer.concat(sentAudio),
    played: () => Buffer.concat(playedAudio),
    marks: [],
    clears: [],
    errors: [],
    framesSent: 0,
    spoken: [],
    closed: null,
  };
  /** The callee's side, in order: audio to send and keys to press. */
  const inbound: Inbound[] = [];
  /** The service's side, not yet played: audio and the marks between it. */
  const outbound: Outbound[] = [];
  /** The callee's words (audio turns) not yet begun: the first frame of each is recorded in `spoken`. */
  const words = new WeakSet<Buffer>();
  let sequence = 0;
  let startedAt = 0;
  let timer: NodeJS.Timeout | null = null;
  let ticks = 0;
  let clockStart = 0;
  let queued = Promise.resolve();
  /** When the callee last sent audio (words or a pause) and last heard the service's. */
  let calleeSpokeAt = 0;
  let agentHeardAt = 0;
  /** How much of the agent's audio has played since the callee's last words (ms). */
  let agentPlayedMs = 0;
  /** The clock's runs (each a timer firing), and the one in which the agent was first found quiet. */
  let runs = 0;
  let quietRun: number | null = null;
  const since = () => Date.now() - startedAt;

  const socket = new WebSocket(options.url);
  const send = (message: Record<string, unknown>) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const next = () => String(++sequence);

  function echo(name: string) {
    const mark = record.marks.find((m) => m.name === name && m.echoedAt === null);
    if (mark) mark.echoedAt = since();
    send({ event: 'mark', sequenceNumber: next(), streamSid, mark: { name } });
  }

  /** One 20 ms step: a frame of the callee's audio goes out, a frame of the service's plays. */
  function tick() {
    while (inbound[0] && !Buffer.isBuffer(inbound[0])) {
      const head = inbound[0];
      if ('untilAgentQuietMs' in head) {
        const now = performance.now();
        const quiet =
          agentHeardAt > calleeSpokeAt &&
          now - agentHeardAt >= head.untilAgentQuietMs &&
          !outbound.some((item) => 'audio' in item);
        if (!quiet) {
          quietRun = null;
          break;
        }
        // Judged again in a later run, once what the socket holds has been read: after a hold of this
        // process (the machine busy), its timer fires before the messages that came meanwhile are read,
        // so the quiet would be the hold's.
        quietRun ??= runs;
        if (quietRun === runs) break;
        quietRun = null;
        inbound.shift();
        continue;
      }
      if ('untilAgentSpokeMs' in head) {
        if (agentPlayedMs < head.untilAgentSpokeMs) break;
        inbound.shift();
        continue;
      }
      if ('reached' in head) {
        inbound.shift();
        head.reached();
        continue;
      }
      const { dtmf } = inbound.shift() as { dtmf: string };
      // A key pressed is the callee's turn as words are.
      calleeSpokeAt = performance.now();
      agentPlayedMs = 0;
      send({
        event: 'dtmf',
        streamSid,
        sequenceNumber: next(),
        dtmf: { track: 'inbound_track', digit: dtmf },
      });
    }
    const frame = Buffer.alloc(FRAME_BYTES, MULAW_SILENCE);
    let filled = 0;
    while (filled < FRAME_BYTES && Buffer.isBuffer(inbound[0])) {
      const head: Buffer = inbound[0];
      if (words.delete(head)) record.spoken.push(since());
      const taken = head.copy(frame, filled, 0, Math.min(head.length, FRAME_BYTES - filled));
      filled += taken;
      calleeSpokeAt = performance.now();
      agentPlayedMs = 0;
      if (taken === head.length) inbound.shift();
      else inbound[0] = head.subarray(taken);
    }
    record.framesSent += 1;
    send({
      event: 'media',
      sequenceNumber: next(),
      media: {
        track: 'inbound',
        chunk: String(record.framesSent),
        timestamp: String((record.framesSent - 1) * FRAME_MS),
        payload: frame.toString('base64'),
      },
      streamSid,
    });

    let playing = FRAME_BYTES;
    const playable = performance.now() - (options.playoutDelayMs ?? 0);
    while (outbound[0]) {
      const head: Outbound = outbound[0];
      if ('mark' in head) {
        outbound.shift();
        echo(head.mark);
        continue;
      }
      if (playing === 0 || head.at > playable) break;
      const played = head.audio.subarray(0, playing);
      playedAudio.push(played);
      agentHeardAt = performance.now();
      agentPlayedMs += played.length / BYTES_PER_MS;
      playing -= played.length;
      if (played.length === head.audio.length) outbound.shift();
      else outbound[0] = { audio: head.audio.subarray(played.length), at: head.at };
    }
  }

  function receive(data: WebSocket.RawData) {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(String(data)) as Record<string, unknown>;
    } catch {
      record.errors.push(`not JSON: ${String(data).slice(0, 80)}`);
      return;
    }
    record.received.push({ at: since(), message });
    if (message.streamSid !== streamSid) {
      record.errors.push(
        `${String(message.event)} for stream ${String(message.streamSid)}, not ${streamSid}`,
      );
      return;
    }
    if (message.event === 'media') {
      const payload = (message.media as { payload?: unknown } | undefined)?.payload;
      if (typeof payload !== 'string') return void record.errors.push('media without a payload');
      const audio = Buffer.from(payload, 'base64');
      sentAudio.push(audio);
      outbound.push({ audio, at: performance.now() });
    } else if (message.event === 'mark') {
      const name = (message.mark as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string') return void record.errors.push('mark without a name');
      record.marks.push({ name, receivedAt: since(), echoedAt: null });
      outbound.push({ mark: name });
    } else if (message.event === 'clear') {
      let droppedBytes = 0;
      const pending: string[] = [];
      for (const item of outbound.splice(0)) {
        if ('audio' in item) droppedBytes += item.audio.length;
        else pending.push(item.mark);
      }
      record.clears.push({ at: since(), droppedBytes });
      for (const name of pending) echo(name);
    } else {
      record.errors.push(`unknown event ${String(message.event)}`);
    }
  }

  let closedAlready = false;
  /**
   * Frames leave on a fixed 20 ms grid, as Twilio sends them in real time: a late timer is caught up with
   * the frames it owes, never skipped, so the callee's audio keeps pace with the clock however busy the
   * machine is.
   */
  function schedule() {
    if (closedAlready) return;
    const due = clockStart + (ticks + 1) * FRAME_MS;
    timer = setTimeout(run, Math.max(0, due - performance.now()));
  }
  function run() {
    runs += 1;
    const now = performance.now();
    while (!closedAlready && clockStart + (ticks + 1) * FRAME_MS <= now + 1) {
      ticks += 1;
      tick();
    }
    schedule();
  }

  const closed = new Promise<void>((resolve) => {
    socket.on('close', (code, reason) => {
      if (timer) clearTimeout(timer);
      timer = null;
      closedAlready = true;
      record.closed ??= { code, reason: reason.toString(), by: 'service' };
      resolve();
    });
  });

  const opened = new Promise<void>((resolve, reject) => {
    socket.once('error', (error) => {
      record.errors.push(`WebSocket: ${error.message}`);
      reject(error);
    });
    socket.once('open', () => {
      startedAt = Date.now();
      record.openedAt = startedAt;
      send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
      send({
        event: 'start',
        sequenceNumber: next(),
        start: {
          accountSid: options.accountSid,
          streamSid,
          callSid: options.callSid,
          tracks: ['inbound'],
          customParameters: options.parameters,
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
        streamSid,
      });
      socket.on('message', receive);
      clockStart = performance.now();
      schedule();
      resolve();
    });
  });
  // A failed connection is reported through `opened`; nothing else may throw for it.
  opened.catch(() => {});

  async function say(...turns: CalleeTurn[]) {
    // Rendering (speech synthesis) may take a while: turns join the line in order, each as soon as it
    // and those before it are ready (a pause is not held back by the words after it).
    for (const turn of turns) {
      const rendered = render(turn);
      queued = queued.then(async () => {
        const inboundTurn = await rendered;
        if ('audio' in turn || 'wav' in turn || 'text' in turn)
          if (Buffer.isBuffer(inboundTurn)) words.add(inboundTurn);
        inbound.push(inboundTurn);
      });
    }
    await queued;
  }
  if (options.script) void say(...options.script);

  return {
    record,
    opened,
    closed,
    say,
    async stop() {
      if (socket.readyState === WebSocket.OPEN) {
        send({
          event: 'stop',
          sequenceNumber: next(),
          streamSid,
          stop: { accountSid: options.accountSid, callSid: options.callSid },
        });
        record.closed = { code: 1000, reason: 'call ended', by: 'twilio' };
        socket.close(1000, 'call ended');
      } else if (socket.readyState === WebSocket.CONNECTING) {
        socket.terminate();
      }
      if (socket.readyState !== WebSocket.CLOSED) await closed;
    },
  };
}

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulawDecode, rms } from '@voice/audio';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

/**
 * A speech-to-text server speaking Deepgram's live streaming protocol, as Deepgram documents it:
 * a WebSocket to `/v1/listen` with the options in its query (`encoding`, `sample_rate`,
 * `interim_results`, `endpointing`, `utterance_end_ms`, `vad_events`) and `Authorization: Token <key>`;
 * binary audio in; `SpeechStarted`, interim and final `Results` (`is_final`, `speech_final` at the
 * endpoint), `UtteranceEnd` and, on `CloseStream`, `Metadata` out; `KeepAlive` and `Finalize` honoured;
 * a stream without audio for ten seconds is closed with 1011 (NET-0001).
 *
 * It does not recognise speech: it finds the utterances in the audio by their level and answers each
 * with what the test's script says was spoken in it. A `Finalize` ends the utterance at once with the
 * words said so far: as many as its speech lasted (a word every 300 ms from its start, as its interim
 * results have them), and no further than the pause the speaker is in (each after a comma: the first, or
 * after as many as they made and went on from, a silence of 100 ms or more, whether or not a `Finalize`
 * came in it). Speech that goes on within the endpointing silence is the rest of that utterance and
 * brings the next words; none going on, the rest come as their own final result at the endpoint. For
 * tests and the offline demo only.
 */

export interface SttStreamInfo {
  /** The query the stream was opened with. */
  query: Record<string, string>;
}

export interface SttEmulatorOptions {
  /** The key callers must present; any key when omitted. */
  apiKey?: string;
  /** The words of each utterance a stream hears (counted from 0 per stream). */
  transcript: (utterance: number, stream: SttStreamInfo) => string;
  /** Extra time before each final result, as a provider takes. */
  finalLatencyMs?: number;
  /** A fault: streams are dropped (close 1011) after this much audio, in milliseconds. */
  disconnectAfterMs?: number;
  port?: number;
}

export interface SttStreamRecord extends SttStreamInfo {
  /** Milliseconds of audio received. */
  audioMs: number;
  /** Every message sent, with the stream's audio time when it was sent. */
  sent: { audioMs: number; message: Record<string, unknown> }[];
  /** Control messages received (KeepAlive, Finalize, CloseStream). */
  controls: string[];
  closed: { code: number; reason: string } | null;
}

export interface SttEmulator {
  /** The WebSocket base URL (`ws://…`), where `/v1/listen` is. */
  url: string;
  streams: SttStreamRecord[];
  /**
   * Faults for the streams opened from now on (a test may change them between calls): streams dropped
   * after so much audio; streams accepted only once `accepting` settles (a provider slow to take them).
   */
  faults: { disconnectAfterMs?: number; accepting?: Promise<unknown> };
  stop(): Promise<void>;
}

const FRAME_MS = 20;
/** A frame at least this loud (RMS of 16-bit samples) is speech. */
export const SPEECH_LEVEL = 400;
/** Speech starts after this many loud frames in a row, so a click is not an utterance. */
export const SPEECH_START_FRAMES = 3;
const INTERIM_EVERY_MS = 300;
/** How long the emulator takes a word to last: the words said so far of an utterance in progress. */
const WORD_MS = 300;
/** Deepgram's default endpointing: 10 ms of silence ends an utterance. */
const DEFAULT_ENDPOINTING_MS = 10;
const IDLE_CLOSE_MS = 10_000;

const MODEL_INFO = { name: '2-general-nova', version: '2024-01-18.26916', arch: 'nova-2' };

interface Utterance {
  index: number;
  startMs: number;
  /** Where the words not yet in a final result began: the start, or the end of the last `Finalize`'s. */
  segmentStartMs: number;
  lastSpeechMs: number;
  lastInterimMs: number;
  words: string[];
  /** How many of its words final results have given (`Finalize`s before its end). */
  given: number;
  /** Pauses the speaker made in it and went on from: silences of `PAUSE_FRAMES` or more. */
  pauses: number;
}

/** This many quiet frames in a row inside an utterance, speech following, are a pause the speaker made. */
const PAUSE_FRAMES = 5;

/**
 * How many of an utterance's words come before the speaker's pause after `pauses` pauses they went on
 * from (a pause falls after a word ending in a comma), or all.
 */
function toPause(words: string[], pauses: number): number {
  let seen = 0;
  for (let i = 0; i < words.length - 1; i++) {
    if (!/[,;:–—]$/.test(words[i]!)) continue;
    if (seen === pauses) return i + 1;
    seen += 1;
  }
  return words.length;
}

function decoderFor(query: Record<string, string>): ((data: Buffer) => Int16Array) | null {
  if (query.encoding === 'mulaw') return (data) => mulawDecode(data);
  if (query.encoding === 'linear16' || query.encoding === undefined)
    return (data) => new Int16Array(data.buffer, data.byteOffset, Math.floor(data.length / 2)).slice();
  return null;
}

export async function startSttEmulator(options: SttEmulatorOptions): Promise<SttEmulator> {
  const streams: SttStreamRecord[] = [];
  const faults: SttEmulator['faults'] =
    options.disconnectAfterMs !== undefined ? { disconnectAfterMs: options.disconnectAfterMs } : {};
  const server = createServer((_, response) => {
    response.writeHead(404).end();
  });
  const wss = new WebSocketServer({ noServer: true });

  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const reject = (status: number, message: string) => {
      socket.end(
        `HTTP/1.1 ${status} ${message}\r\ncontent-type: application/json\r\n\r\n` +
          JSON.stringify({ err_code: status === 401 ? 'INVALID_AUTH' : 'Bad Request', err_msg: message }),
      );
    };
    if (url.pathname !== '/v1/listen') return reject(404, 'Not Found');
    const protocols = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const key =
      /^(?:Token|Bearer) (.+)$/.exec(request.headers.authorization ?? '')?.[1] ??
      (protocols[0] === 'token' ? protocols[1] : undefined);
    if (!key || (options.apiKey !== undefined && key !== options.apiKey))
      return reject(401, 'Invalid credentials.');
    const query = Object.fromEntries(url.searchParams);
    const decode = decoderFor(query);
    if (!decode) return reject(400, `Unsupported encoding ${query.encoding}`);
    const sampleRate = Number(query.sample_rate ?? '16000');
    if (!Number.isInteger(sampleRate) || sampleRate < 8000) return reject(400, 'Bad sample_rate');
    const accept = () =>
      wss.handleUpgrade(request, socket, head, (ws) => serve(ws, query, decode, sampleRate));
    if (faults.accepting) void faults.accepting.then(accept, accept);
    else accept();
  });

  function serve(
    ws: WebSocket,
    query: Record<string, string>,
    decode: (data: Buffer) => Int16Array,
    sampleRate: number,
  ) {
    const record: SttStreamRecord = { query, audioMs: 0, sent: [], controls: [], closed: null };
    streams.push(record);
    const requestId = randomUUID();
    const interim = query.interim_results === 'true';
    const vadEvents = query.vad_events === 'true';
    const endpointing =
      query.endpointing === 'false' ? null : Number(query.endpointing ?? DEFAULT_ENDPOINTING_MS);
    const utteranceEndMs = query.utterance_end_ms ? Number(query.utterance_end_ms) : null;
    const { disconnectAfterMs } = faults;
    const frameSamples = (sampleRate * FRAME_MS) / 1000;
    let pending = new Int16Array(0);
    let loudFrames = 0;
    let utterances = 0;
    let current: Utterance | null = null;
    /** The utterance a `Finalize` ended, maybe with words not yet given: speech again soon after goes on with it. */
    let finalized: Utterance | null = null;
    const silenceEnds = Math.max(endpointing ?? DEFAULT_ENDPOINTING_MS, FRAME_MS);
    /** The last word's end awaiting its UtteranceEnd. */
    let awaitingEnd: number | null = null;
    let finals = Promise.resolve();
    let idle = setTimeout(() => close(1011, 'NET-0001'), IDLE_CLOSE_MS);

    const send = (message: Record<string, unknown>) => {
      record.sent.push({ audioMs: record.audioMs, message });
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    function close(code: number, reason: string) {
      clearTimeout(idle);
      record.closed ??= { code, reason };
      if (ws.readyState === ws.OPEN) ws.close(code, reason);
    }

    function results(utterance: Utterance, words: string[], final: boolean, fromFinalize = false) {
      const start = utterance.segmentStartMs / 1000;
      const duration = (utterance.lastSpeechMs - utterance.segmentStartMs) / 1000;
      const step = words.length > 0 ? duration / words.length : 0;
      send({
        type: 'Results',
        channel_index: [0, 1],
        duration,
        start,
        is_final: final,
        speech_final: final && !fromFinalize,
        from_finalize: fromFinalize,
        channel: {
          alternatives: [
            {
              transcript: words.join(' '),
              confidence: 0.98,
              words: words.map((word, i) => ({
                word: word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
                start: start + i * step,
                end: start + (i + 1) * step,
                confidence: 0.98,
                punctuated_word: word,
              })),
            },
          ],
        },
        metadata: { request_id: requestId, model_info: MODEL_INFO, model_uuid: randomUUID() },
      });
    }

    /** The utterance is over, or finalized so far: its final result (after the provider's latency), in order. */
    function finish(fromFinalize = false) {
      const utterance = current;
      if (!utterance) return;
      current = null;
      const said = Math.ceil((utterance.lastSpeechMs - utterance.startMs) / WORD_MS);
      const upTo = fromFinalize
        ? Math.max(utterance.given + 1, Math.min(said, toPause(utterance.words, utterance.pauses)))
        : utterance.words.length;
      const given = utterance.words.slice(utterance.given, upTo);
      const segment = { ...utterance };
      utterance.given += given.length;
      utterance.segmentStartMs = utterance.lastSpeechMs;
      finalized = fromFinalize ? utterance : null;
      awaitingEnd = utterance.lastSpeechMs;
      finals = finals.then(async () => {
        if (options.finalLatencyMs) await new Promise((r) => setTimeout(r, options.finalLatencyMs));
        results(segment, given, true, fromFinalize);
      });
    }

    function frame(samples: Int16Array) {
      record.audioMs += FRAME_MS;
      const now = record.audioMs;
      const loud = rms(samples) >= SPEECH_LEVEL;
      loudFrames = loud ? loudFrames + 1 : 0;
      if (!current && loudFrames >= SPEECH_START_FRAMES) {
        const startMs = now - SPEECH_START_FRAMES * FRAME_MS;
        if (finalized && startMs - finalized.lastSpeechMs < silenceEnds) {
          // The finalized utterance goes on: a pause the speaker made if it was long enough.
          if (startMs - finalized.lastSpeechMs > PAUSE_FRAMES * FRAME_MS) finalized.pauses += 1;
          current = { ...finalized, segmentStartMs: startMs, lastSpeechMs: now, lastInterimMs: now };
        } else {
          const index = utterances++;
          const words = options.transcript(index, { query }).split(/\s+/).filter(Boolean);
          current = {
            index,
            startMs,
            segmentStartMs: startMs,
            lastSpeechMs: now,
            lastInterimMs: now,
            words,
            given: 0,
            pauses: 0,
          };
        }
        finalized = null;
        awaitingEnd = null;
        if (vadEvents) send({ type: 'SpeechStarted', channel: [0], timestamp: startMs / 1000 });
      }
      if (!current && finalized && now - finalized.lastSpeechMs >= silenceEnds) {
        // Finalized at a pause the speaker did not go on from: the rest of their words, at the endpoint.
        current = finalized;
        finalized = null;
        if (current.given < current.words.length) finish();
        else current = null;
      }
      if (current) {
        if (loud && now - current.lastSpeechMs > PAUSE_FRAMES * FRAME_MS) current.pauses += 1;
        if (loud) current.lastSpeechMs = now;
        if (interim && now - current.lastInterimMs >= INTERIM_EVERY_MS && loud) {
          current.lastInterimMs = now;
          // The words heard so far: about one every 300 ms, never the whole utterance before its end.
          const heard = Math.min(current.words.length - 1, Math.ceil((now - current.startMs) / WORD_MS));
          const utterance = { ...current };
          const words = utterance.words.slice(utterance.given, heard);
          if (words.length > 0) finals = finals.then(() => results(utterance, words, false));
        }
        if (endpointing !== null && now - current.lastSpeechMs >= Math.max(endpointing, FRAME_MS)) finish();
      }
      if (awaitingEnd !== null && utteranceEndMs !== null && now - awaitingEnd >= utteranceEndMs) {
        const lastWordEnd = awaitingEnd / 1000;
        awaitingEnd = null;
        finals = finals.then(() =>
          send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastWordEnd }),
        );
      }
      if (disconnectAfterMs !== undefined && now >= disconnectAfterMs) close(1011, 'emulated disconnect');
    }

    ws.on('message', (data: RawData, isBinary: boolean) => {
      clearTimeout(idle);
      idle = setTimeout(() => close(1011, 'NET-0001'), IDLE_CLOSE_MS);
      if (!isBinary) {
        let control: { type?: unknown };
        try {
          control = JSON.parse(String(data)) as { type?: unknown };
        } catch {
          return close(1008, 'DATA-0000');
        }
        const type = String(control.type);
        record.controls.push(type);
        if (type === 'Finalize') finish(true);
        if (type === 'CloseStream') {
          finish();
          void finals.then(() => {
            send({
              type: 'Metadata',
              transaction_key: 'deprecated',
              request_id: requestId,
              sha256: '',
              created: new Date().toISOString(),
              duration: record.audioMs / 1000,
              channels: 1,
              models: [MODEL_INFO.name],
              model_info: { [randomUUID()]: MODEL_INFO },
            });
            close(1000, '');
          });
        }
        return;
      }
      const chunk = decode(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer));
      const joined = new Int16Array(pending.length + chunk.length);
      joined.set(pending);
      joined.set(chunk, pending.length);
      let at = 0;
      for (; at + frameSamples <= joined.length; at += frameSamples)
        frame(joined.subarray(at, at + frameSamples));
      pending = joined.slice(at);
    });
    ws.on('close', (code, reason) => {
      clearTimeout(idle);
      record.closed ??= { code, reason: reason.toString() };
    });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    streams,
    faults,
    async stop() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

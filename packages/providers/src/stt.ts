import { DeepgramClient } from '@deepgram/sdk';
import WebSocket from 'ws';

/** What a speech-to-text stream reports about the caller. */
export interface SttEvents {
  /**
   * The caller started speaking (voice activity), or words are already being recognised. `audioMs`: where
   * the speech began in the stream's audio (ms from the first audio sent), when the provider says.
   */
  speech(audioMs?: number): void;
  /**
   * The caller finished an utterance (the provider's endpoint): its words, and where the speech ended in
   * the stream's audio (ms from the first audio sent), when the provider says.
   */
  utterance(text: string, endMs?: number): void;
  /** The words recognised so far of the utterance in progress (an interim result), when the provider gives them. */
  interim?(text: string): void;
  /** What was taken for speech ended with no words (a noise): no utterance comes of it. */
  wordless?(): void;
  /** The stream closed without being asked to: the provider failed. */
  failed(reason: string): void;
}

export interface SttStream {
  /** 20 ms of the caller's audio, 8 kHz μ-law. */
  send(audio: Buffer): void;
  /**
   * The caller has stopped speaking (by the service's own voice activity detection): the provider ends
   * the utterance now, with what it has heard, rather than at its endpoint. Where it cannot, nothing.
   */
  finalize?(): void;
  close(): Promise<void>;
}

export interface SpeechToText {
  open(options: { language: string }, events: SttEvents): Promise<SttStream>;
}

export interface DeepgramSettings {
  apiKey: string;
  /** The live API's address (`wss://api.deepgram.com` unless set). */
  baseUrl?: string;
  model: string;
  /** Silence that ends an utterance, in milliseconds. */
  endpointingMs: number;
}

interface DeepgramResults {
  type: 'Results';
  /** Seconds from the stream's first audio. */
  start?: number;
  duration?: number;
  is_final?: boolean;
  speech_final?: boolean;
  /** The result a `Finalize` asked for: the utterance ends with it. */
  from_finalize?: boolean;
  channel?: { alternatives?: { transcript?: string; words?: { end?: number }[] }[] };
}

/** The WebSocket `readyState` of an open connection. */
const WEBSOCKET_OPEN = 1;

function secondsToMs(seconds: unknown): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

/** Deepgram's live streaming API through the official @deepgram/sdk: μ-law 8 kHz in, no resampling. */
export function deepgramSpeechToText(settings: DeepgramSettings): SpeechToText {
  const client = new DeepgramClient({
    apiKey: settings.apiKey,
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
  });
  return {
    async open({ language }, events) {
      const socket = await client.listen.v1.connect({
        model: settings.model,
        language,
        encoding: 'mulaw',
        sample_rate: 8000,
        interim_results: 'true',
        punctuate: 'true',
        endpointing: settings.endpointingMs,
        utterance_end_ms: 1000,
        vad_events: 'true',
        // A dropped stream is the session's to handle: the caller hears a fallback, not a gap.
        reconnectAttempts: 0,
      });
      let closing = false;
      /** Final segments of the utterance in progress, until its endpoint, and where its last word ended. */
      let heard: string[] = [];
      let endMs: number | undefined;
      const flush = () => {
        const text = heard.join(' ').trim();
        heard = [];
        if (text) events.utterance(text, endMs);
        endMs = undefined;
      };
      socket.on('message', (message) => {
        if (message.type === 'SpeechStarted') return events.speech(secondsToMs(message.timestamp));
        if (message.type === 'UtteranceEnd') return flush();
        if (message.type !== 'Results') return;
        const results = message as unknown as DeepgramResults;
        const text = results.channel?.alternatives?.[0]?.transcript?.trim() ?? '';
        if (text) events.speech(secondsToMs(results.start));
        if (!results.is_final) {
          if (text) events.interim?.([...heard, text].join(' '));
          return;
        }
        if (text) {
          heard.push(text);
          // The last word's end, else the segment's.
          const words = results.channel?.alternatives?.[0]?.words ?? [];
          endMs =
            secondsToMs(words.at(-1)?.end) ??
            secondsToMs((results.start ?? NaN) + (results.duration ?? NaN)) ??
            endMs;
        }
        if (!results.speech_final && !results.from_finalize) return;
        if (heard.length === 0) events.wordless?.();
        flush();
      });
      const closed = new Promise<void>((resolve) => {
        socket.on('close', (event) => {
          if (!closing) events.failed(`speech-to-text stream closed (${event.code})`);
          resolve();
        });
      });
      socket.on('error', () => {
        // Followed by close, which reports it.
      });
      socket.connect();
      await socket.waitForOpen();
      return {
        send: (audio) => {
          // Between the provider closing the stream and its close event the socket is no longer open, and
          // the SDK's send throws there (synchronously, out of the carrier's message handler: the whole
          // process would go). That audio is dropped; the close event reports the failure.
          if (!closing && socket.readyState === WEBSOCKET_OPEN) socket.sendMedia(audio);
        },
        finalize: () => {
          if (!closing && socket.readyState === WEBSOCKET_OPEN) socket.sendFinalize({ type: 'Finalize' });
        },
        async close() {
          if (closing) return;
          closing = true;
          socket.close();
          await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1_000))]);
        },
      };
    },
  };
}

export interface OpenAiTranscriptionSettings {
  apiKey: string;
  /** OpenAI's API base (`https://api.openai.com/v1` unless set); the session is its `/realtime`. */
  baseUrl?: string;
  /** The transcription model (`gpt-4o-transcribe`, `gpt-4o-mini-transcribe`, ...). */
  model: string;
  /** Silence that ends an utterance (the server VAD's `silence_duration_ms`). */
  endpointingMs: number;
}

/**
 * OpenAI's streaming transcription: a Realtime transcription session (`/realtime?intent=transcription`)
 * fed the call's μ-law audio as it is (`audio/pcmu`), the server's voice activity detection ending each
 * utterance. Spoken over a WebSocket (`ws`) to the configured base URL as it is, `wss:` or `ws:`.
 */
export function openAiSpeechToText(settings: OpenAiTranscriptionSettings): SpeechToText {
  const url = new URL(`${(settings.baseUrl ?? 'https://api.openai.com/v1').replace(/\/$/, '')}/realtime`);
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  url.searchParams.set('intent', 'transcription');
  return {
    async open({ language }, events) {
      const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${settings.apiKey}` } });
      await new Promise<void>((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
        socket.once('unexpected-response', (_, response) =>
          reject(new Error(`the transcription session was refused (${response.statusCode})`)),
        );
      });
      let closing = false;
      /** Where the server's voice activity detection last heard speech stop (the utterance's end). */
      let speechEndedMs: number | undefined;
      /** The words of the utterance in progress, as its transcription's deltas come. */
      let partial = '';
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('close', (code) => {
        if (!closing) events.failed(`speech-to-text session closed (${code})`);
      });
      socket.on('error', () => {
        // Followed by close, which reports it.
      });
      socket.on('message', (data) => {
        let event: {
          type?: string;
          transcript?: string;
          delta?: string;
          audio_start_ms?: number;
          audio_end_ms?: number;
          error?: { message?: string };
        };
        try {
          event = JSON.parse(String(data)) as typeof event;
        } catch {
          return;
        }
        if (event.type === 'input_audio_buffer.speech_started')
          events.speech(typeof event.audio_start_ms === 'number' ? event.audio_start_ms : undefined);
        else if (event.type === 'input_audio_buffer.speech_stopped' && typeof event.audio_end_ms === 'number')
          speechEndedMs = event.audio_end_ms;
        else if (event.type === 'conversation.item.input_audio_transcription.delta' && event.delta?.trim()) {
          events.speech();
          partial += event.delta;
          events.interim?.(partial.trim());
        } else if (event.type === 'conversation.item.input_audio_transcription.completed') {
          partial = '';
          const text = event.transcript?.trim();
          if (text) events.utterance(text, speechEndedMs);
        }
      });
      socket.send(
        JSON.stringify({
          type: 'session.update',
          session: {
            type: 'transcription',
            audio: {
              input: {
                format: { type: 'audio/pcmu' },
                transcription: { model: settings.model, language: language.slice(0, 2).toLowerCase() },
                turn_detection: {
                  type: 'server_vad',
                  threshold: 0.5,
                  prefix_padding_ms: 300,
                  silence_duration_ms: settings.endpointingMs,
                },
              },
            },
          },
        }),
      );
      return {
        send(audio) {
          if (!closing && socket.readyState === WebSocket.OPEN)
            socket.send(
              JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.toString('base64') }),
            );
        },
        async close() {
          if (closing) return;
          closing = true;
          socket.close(1000);
          await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1_000))]);
        },
      };
    },
  };
}

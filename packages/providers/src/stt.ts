import { DeepgramClient } from '@deepgram/sdk';

/** What a speech-to-text stream reports about the caller. */
export interface SttEvents {
  /** The caller started speaking (voice activity), or words are already being recognised. */
  speech(): void;
  /** The caller finished an utterance (the provider's endpoint): its words. */
  utterance(text: string): void;
  /** The stream closed without being asked to: the provider failed. */
  failed(reason: string): void;
}

export interface SttStream {
  /** 20 ms of the caller's audio, 8 kHz μ-law. */
  send(audio: Buffer): void;
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
  is_final?: boolean;
  speech_final?: boolean;
  channel?: { alternatives?: { transcript?: string }[] };
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
      /** Final segments of the utterance in progress, until its endpoint. */
      let heard: string[] = [];
      const flush = () => {
        const text = heard.join(' ').trim();
        heard = [];
        if (text) events.utterance(text);
      };
      socket.on('message', (message) => {
        if (message.type === 'SpeechStarted') return events.speech();
        if (message.type === 'UtteranceEnd') return flush();
        if (message.type !== 'Results') return;
        const results = message as unknown as DeepgramResults;
        const text = results.channel?.alternatives?.[0]?.transcript?.trim() ?? '';
        if (text) events.speech();
        if (!results.is_final) return;
        if (text) heard.push(text);
        if (results.speech_final) flush();
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
          if (!closing) socket.sendMedia(audio);
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

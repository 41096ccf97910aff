import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { mulawDecode, rms } from '@voice/audio';
import { WebSocketServer, type WebSocket } from 'ws';
import { SPEECH_LEVEL, SPEECH_START_FRAMES } from './stt-emulator';

/**
 * OpenAI's Realtime transcription sessions, as OpenAI documents them: a WebSocket to
 * `/v1/realtime?intent=transcription` with a bearer key; `session.update` (type `transcription`: the
 * input format, the transcription model and language, server VAD); `input_audio_buffer.append` with
 * base64 audio; back `session.created`/`session.updated`, `input_audio_buffer.speech_started`,
 * `speech_stopped`, `committed`, then `conversation.item.input_audio_transcription.delta` and
 * `.completed`. Like the Deepgram emulator it finds utterances by level and answers each with the
 * words the test's script declares. For tests and the offline demo only.
 */

export interface TranscriptionSessionRecord {
  /** Every `session.update`'s session, in order. */
  updates: Record<string, unknown>[];
  /** Milliseconds of audio appended. */
  audioMs: number;
  closed: { code: number } | null;
}

interface Format {
  type: 'audio/pcmu' | 'audio/pcm';
}

export function attachRealtimeTranscription(
  server: Server,
  options: { apiKey?: string; transcript: (utterance: number) => string },
): { sessions: TranscriptionSessionRecord[]; close(): void } {
  const sessions: TranscriptionSessionRecord[] = [];
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://emulator');
    if (url.pathname !== '/v1/realtime' || url.searchParams.get('intent') !== 'transcription') {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!key || (options.apiKey !== undefined && key !== options.apiKey)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => serve(ws));
  });

  function serve(ws: WebSocket) {
    const record: TranscriptionSessionRecord = { updates: [], audioMs: 0, closed: null };
    sessions.push(record);
    const session = {
      id: `sess_${randomUUID().replace(/-/g, '')}`,
      object: 'realtime.session',
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24_000 } as Format & { rate?: number },
          transcription: null as Record<string, unknown> | null,
          turn_detection: {
            type: 'server_vad',
            threshold: 0.5,
            prefix_padding_ms: 300,
            silence_duration_ms: 500,
          },
        },
      },
    };
    const send = (event: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event_id: `event_${randomUUID()}`, ...event }));
    };
    let loud = 0;
    let utterances = 0;
    let speech: { itemId: string; startMs: number; quietSince: number | null } | null = null;
    let previousItem: string | null = null;

    function onFrame(samples: Int16Array, frameMs: number) {
      record.audioMs += frameMs;
      const now = record.audioMs;
      const isLoud = rms(samples) >= SPEECH_LEVEL;
      loud = isLoud ? loud + 1 : 0;
      if (!speech) {
        if (loud < SPEECH_START_FRAMES) return;
        speech = {
          itemId: `item_${randomUUID().replace(/-/g, '')}`,
          startMs: now - loud * frameMs,
          quietSince: null,
        };
        send({
          type: 'input_audio_buffer.speech_started',
          audio_start_ms: speech.startMs,
          item_id: speech.itemId,
        });
        return;
      }
      if (isLoud) speech.quietSince = null;
      else speech.quietSince ??= now;
      const silence = session.audio.input.turn_detection.silence_duration_ms;
      if (speech.quietSince === null || now - speech.quietSince < silence) return;
      const { itemId } = speech;
      speech = null;
      send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: now, item_id: itemId });
      send({ type: 'input_audio_buffer.committed', previous_item_id: previousItem, item_id: itemId });
      previousItem = itemId;
      const transcript = options.transcript(utterances++);
      for (const delta of transcript.match(/\S+\s*/g) ?? [])
        send({
          type: 'conversation.item.input_audio_transcription.delta',
          item_id: itemId,
          content_index: 0,
          delta,
        });
      send({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: itemId,
        content_index: 0,
        transcript,
      });
    }

    send({ type: 'session.created', session });
    ws.on('message', (data) => {
      let event: { type?: string; session?: Record<string, unknown>; audio?: string };
      try {
        event = JSON.parse(String(data)) as typeof event;
      } catch {
        return send({ type: 'error', error: { type: 'invalid_request_error', message: 'Invalid JSON' } });
      }
      if (event.type === 'session.update' && event.session?.type === 'transcription') {
        record.updates.push(event.session);
        const input = (event.session.audio as { input?: Record<string, unknown> } | undefined)?.input ?? {};
        Object.assign(session.audio.input, input);
        return send({ type: 'session.updated', session });
      }
      if (event.type === 'input_audio_buffer.append' && typeof event.audio === 'string') {
        const bytes = Buffer.from(event.audio, 'base64');
        if (session.audio.input.format.type === 'audio/pcmu') {
          for (let at = 0; at + 160 <= bytes.length; at += 160)
            onFrame(mulawDecode(bytes.subarray(at, at + 160)), 20);
        } else {
          const samples = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
          for (let at = 0; at + 480 <= samples.length; at += 480) onFrame(samples.slice(at, at + 480), 20);
        }
        return;
      }
      send({
        type: 'error',
        error: { type: 'invalid_request_error', message: `Unsupported event ${String(event.type)}` },
      });
    });
    ws.on('close', (code) => {
      record.closed = { code };
    });
  }

  return {
    sessions,
    close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}

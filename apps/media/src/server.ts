import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulawDecode, writeWav } from '@voice/audio';
import {
  loadCallAgent,
  placeholdersIn,
  recordingKeyFor,
  startConversation,
  storeConversation,
  verifyMediaStreamToken,
  type ConversationResult,
  type CoreDeps,
  type RecordingStore,
  type ServiceEnd,
} from '@voice/core';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { WebSocketServer, type WebSocket } from 'ws';
import { ConversationSession, type SessionLimits, type SessionProviders } from './session';
import type { AudioTrack } from './audio-track';
import { FrameClock, parseInbound, TwilioLine } from './twilio-line';

/**
 * The media server: Twilio's media streams arrive on `/media/twilio`; a stream whose token names its
 * call (and has not expired) gets that call's conversation, one session per answered call. At the end
 * the conversation and its two-channel recording are stored, then the call's workflow is asked to end
 * the call at the carrier as the conversation decided.
 */

export const MEDIA_STREAM_PATH = '/media/twilio';
/** A stream must say which call it is within this time of connecting. */
const START_TIMEOUT_MS = 10_000;

export interface MediaServerDeps {
  core: CoreDeps;
  providers: SessionProviders;
  limits: SessionLimits;
  recordings: RecordingStore;
  logger: Logger;
}

/** Bucket bounds in ms: fine below 50 ms, where the pipeline's own overhead and frame lateness live. */
const MS_BUCKETS = [
  1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000, 2000,
];

/** The media server's figures, in Prometheus' text format at /metrics. */
function mediaMetrics(conversations: () => number) {
  const registry = new Registry();
  const metrics = {
    registry,
    replyLatency: new Histogram({
      name: 'media_reply_latency_ms',
      help: "From the end of the caller's utterance (final transcript) to the first frame of the agent's answer",
      buckets: MS_BUCKETS,
      registers: [registry],
    }),
    replyOverhead: new Histogram({
      name: 'media_reply_overhead_ms',
      help: "The reply latency less the providers' time (the model's first sentence, its synthesis)",
      buckets: MS_BUCKETS,
      registers: [registry],
    }),
    tickLateness: new Histogram({
      name: 'media_frame_tick_lateness_ms',
      help: 'How late each 20 ms tick of the frame clock ran (every line sends its frame on the tick)',
      buckets: MS_BUCKETS,
      registers: [registry],
    }),
    framesLate: new Counter({
      name: 'media_frames_late_total',
      help: 'Agent audio frames sent more than 40 ms after their slot',
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'media_conversations',
    help: 'Conversations in progress',
    registers: [registry],
    collect() {
      this.set(conversations());
    },
  });
  return metrics;
}

/** Runs `task` up to five times, waiting 200 ms, 400 ms, ... between tries. */
async function withRetries<T>(task: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await task();
    } catch (error) {
      if (attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** (attempt - 1)));
    }
  }
}

/** A frame this late or later is heard as a gap. */
const LATE_FRAME_MS = 40;

export interface MediaServer {
  url: string;
  stop(): Promise<void>;
}

/** Both sides of the call, time-aligned frame by frame: the caller left, the agent right. */
function recordingOf(caller: AudioTrack, agent: AudioTrack): Buffer {
  return writeWav(8000, [mulawDecode(caller.toBuffer()), mulawDecode(agent.toBuffer())]);
}

export async function startMediaServer(
  deps: MediaServerDeps,
  { host, port }: { host: string; port: number },
): Promise<MediaServer> {
  const clock = new FrameClock();
  const sessions = new Set<ConversationSession>();
  const metrics = mediaMetrics(() => sessions.size);
  clock.onTick = (lateMs, lines) => {
    metrics.tickLateness.observe(lateMs);
    if (lateMs > LATE_FRAME_MS) metrics.framesLate.inc(lines);
  };
  const server: Server = createServer((request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', conversations: sessions.size }));
      return;
    }
    if (request.url === '/metrics') {
      void metrics.registry.metrics().then((text) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType });
        response.end(text);
      });
      return;
    }
    response.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server, path: MEDIA_STREAM_PATH });

  wss.on('connection', (socket: WebSocket) => {
    let session: ConversationSession | null = null;
    let starting = false;
    const refuse = (reason: string) => {
      deps.logger.warn({ reason }, 'media stream refused');
      socket.close(1008, reason);
    };
    const startTimer = setTimeout(() => refuse('no start message'), START_TIMEOUT_MS);

    socket.on('message', (data) => {
      const message = parseInbound(String(data));
      if (!message) return;
      if (message.event === 'start' && !starting) {
        starting = true;
        clearTimeout(startTimer);
        void begin(message.start.streamSid, message.start.customParameters).catch((error: unknown) => {
          deps.logger.error({ err: error }, 'media stream failed to start');
          socket.close(1011, 'could not start the conversation');
        });
      } else if (message.event === 'media') session?.hear(message.audio);
      else if (message.event === 'stop') void session?.hungUp();
    });
    socket.on('close', () => {
      clearTimeout(startTimer);
      void session?.hungUp();
    });

    async function begin(streamSid: string, parameters: Record<string, string>) {
      const token = verifyMediaStreamToken(
        deps.core.config.jwtSecret,
        parameters.token ?? '',
        deps.core.clock.now(),
      );
      if (!token || token.callId !== parameters.callId) return refuse('invalid or expired stream token');
      const { callId } = token;
      const loaded = await loadCallAgent(deps.core, callId);
      if (!loaded) return refuse('the call has no agent');
      if (!(await startConversation(deps.core, callId)))
        return refuse('the call has a stream already or has ended');
      if (socket.readyState !== socket.OPEN) return;
      const line = new TwilioLine(socket, streamSid);
      clock.add(line);
      const log = deps.logger.child({ callId });
      // A placeholder the call gave no value for (and that has no default) stays visible, never blank.
      const unfilled = placeholdersIn(`${loaded.agent.prompt}\n${loaded.agent.welcomeMessage}`);
      if (unfilled.length > 0)
        log.warn({ placeholders: unfilled }, 'placeholders without a value are left as written');
      const ended = async (result: ConversationResult) => {
        clock.remove(line);
        try {
          let recordingKey: string | null = recordingKeyFor(callId);
          try {
            await deps.recordings.put(recordingKey, recordingOf(current.callerTrack, line.agentTrack));
          } catch (error) {
            recordingKey = null;
            result.failures.push(`recording: ${(error as Error).message}`);
          }
          const record = { ...result, recordingKey, endedAt: deps.core.clock.now() };
          // A database that blinks gets a few tries; the call is ended at the carrier either way.
          await withRetries(() => storeConversation(deps.core, callId, record)).catch((error: unknown) =>
            log.error({ err: error }, 'the conversation could not be stored'),
          );
          // The call's workflow may be waiting for it (the carrier reported the end already).
          await deps.core.workflows
            .conversationEnded(callId)
            .catch((error: unknown) => log.warn({ err: error }, 'the call workflow was not told'));
          log.info(
            { end: result.end, turns: result.transcript.length, failures: result.failures },
            'conversation ended',
          );
          if (result.end === 'user_hangup') return;
          const request: ServiceEnd =
            result.end === 'transferred'
              ? { action: 'transfer', destination: loaded.transferTo! }
              : { action: 'hang_up', reason: result.end };
          await deps.core.workflows
            .endCall(callId, request)
            .catch((error: unknown) =>
              log.error({ err: error }, 'the call could not be ended at the carrier'),
            );
        } finally {
          // Until here the server's stop waits for it.
          sessions.delete(current);
        }
      };
      const current: ConversationSession = new ConversationSession(
        line,
        loaded.agent,
        deps.providers,
        ended,
        deps.limits,
        ({ latencyMs, overheadMs }) => {
          metrics.replyLatency.observe(latencyMs);
          metrics.replyOverhead.observe(overheadMs);
        },
      );
      session = current;
      sessions.add(current);
      log.info('conversation started');
      await current.start();
    }
  });

  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `ws://${host}:${address.port}${MEDIA_STREAM_PATH}`,
    async stop() {
      // Conversations still up are ended as the agent hanging up, so no call is left without one.
      await Promise.all([...sessions].map((session) => session.finish('agent_hangup')));
      for (const client of wss.clients) client.close(1001, 'media server stopping');
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

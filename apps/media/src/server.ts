import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSpeechThreads } from '@voice/audio';
import { markLinesAlive, WEB_CALL_HEARTBEAT_MS } from '@voice/core';
import { WebSocketServer } from 'ws';
import { Admission, DEFAULT_ADMISSION_LIMITS, type AdmissionLimits } from './admission';
import { startCallConversation, type CallConversationDeps } from './call-conversation';
import type { ConversationSession } from './conversation/session';
import { NoiseSuppression } from './listening/noise-suppression';
import { SileroVad } from './listening/silero-vad';
import { mediaMetrics } from './metrics';
import { FrameClock } from './transport/frame-clock';
import { acceptTwilioStream } from './transport/twilio-stream';
import { acceptWebCall } from './transport/web-stream';
import { briefColleague } from './transfer-briefing';
import { CallRequests } from './call-requests';

/**
 * The media server: Twilio's media streams arrive on `/media/twilio` and browsers' web calls on
 * `/media/web`, each a line on the process's one frame clock, taken by its call's conversation
 * (call-conversation.ts). Health and figures over HTTP.
 */

export const MEDIA_STREAM_PATH = '/media/twilio';
export const WEB_CALL_PATH = '/media/web';
/** A frame this late or later is heard as a gap. */
const LATE_FRAME_MS = 40;

export type MediaServerDeps = CallConversationDeps & {
  /** Voice activity detection on the callers' audio (on unless false). */
  voiceActivity?: boolean;
  /** How often the web calls' lines are said to be up (20 s unless given; tests shorten it). */
  heartbeatMs?: number;
  /**
   * The database to listen on for requests to the calls held (an answering machine's beep, an operator's
   * hang-up of a web call), from the first call that may get one on; without it, a request is found only
   * as a call's line opens.
   */
  databaseUrl?: string;
  /** What the process takes on before it refuses new lines (admission.ts); its defaults unless given. */
  admission?: Partial<AdmissionLimits>;
};

export interface MediaServer {
  url: string;
  stop(): Promise<void>;
}

export async function startMediaServer(
  deps: MediaServerDeps,
  { host, port }: { host: string; port: number },
): Promise<MediaServer> {
  startSpeechThreads();
  const clock = new FrameClock();
  const sessions = new Set<ConversationSession>();
  // The callers' voice activity model, one for every call; without it the agent stops for words alone.
  const vad =
    deps.voiceActivity === false
      ? null
      : await SileroVad.load().catch((error: unknown) => {
          deps.logger.error(
            { err: error },
            'voice activity detection is unavailable: barge-in waits for words',
          );
          return null;
        });
  // Noise suppression, for the agents that have it on; without it, their callers are heard as they come.
  const unfiltered = 'noise suppression is unavailable: callers are heard unfiltered';
  const noise = await NoiseSuppression.load((error) => deps.logger.error({ err: error }, unfiltered)).catch(
    (error: unknown) => {
      deps.logger.error({ err: error }, unfiltered);
      return null;
    },
  );
  const admission = new Admission({ ...DEFAULT_ADMISSION_LIMITS, ...deps.admission });
  const metrics = mediaMetrics(() => sessions.size, vad, noise, admission);
  clock.onTick = (lateMs, lines) => {
    metrics.tickLateness.observe(lateMs);
    if (lateMs > LATE_FRAME_MS) metrics.framesLate.inc(lines);
  };
  const server: Server = createServer((request, response) => {
    if (request.url === '/healthz') {
      // Not ready near capacity: the load balancer (Kubernetes' readiness) sends the next call elsewhere.
      const load = admission.load();
      const ready = admission.ready(load);
      response.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          status: ready ? 'ok' : 'busy',
          ready,
          conversations: sessions.size,
          load: Math.round(load.ratio * 100) / 100,
        }),
      );
    } else if (request.url === '/metrics') {
      void metrics.registry.metrics().then((text) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType });
        response.end(text);
      });
    } else response.writeHead(404).end();
  });
  // Idle connections stay open longer than a load balancer keeps its own (60 s on most; Fastify's 72 s,
  // as the api's): with Node's 5 s, a client reusing a connection as the server closed it got a reset.
  server.keepAliveTimeout = 72_000;
  const voicemail = new CallRequests<ConversationSession>(
    deps,
    'voicemail',
    (session) => void session.leaveVoicemail(),
    deps.databaseUrl,
  );
  // An operator's hang-up ends the conversation at once; a second one finds it finished already.
  const hangUps = new CallRequests<ConversationSession>(
    deps,
    'hangUp',
    (session) => void session.finish('agent_hangup'),
    deps.databaseUrl,
  );
  const running = {
    sessions,
    metrics,
    webCalls: new Set<string>(),
    vad,
    noise,
    voicemail,
    hangUps,
    admission,
  };
  // A web call has no carrier to say it ended should this process go: its lines are said to be up, and a
  // web call not heard of for a while is ended by its workflow (webCallProgress).
  const heartbeat = setInterval(() => {
    markLinesAlive(deps.core, [...running.webCalls]).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'the web calls could not be marked alive'),
    );
  }, deps.heartbeatMs ?? WEB_CALL_HEARTBEAT_MS);
  heartbeat.unref();
  // One WebSocket server for both kinds of line, the path saying which (ws answers an upgrade to any
  // other path with 400 when it has a path of its own, so the paths are told apart here).
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://media').pathname;
    if (path !== MEDIA_STREAM_PATH && path !== WEB_CALL_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (client) => {
      if (path === WEB_CALL_PATH)
        acceptWebCall(
          client,
          clock,
          (line, accessToken, accepted) =>
            startCallConversation(deps, line, { kind: 'web_call', accessToken, accepted }, running),
          deps.logger,
        );
      else
        acceptTwilioStream(
          client,
          clock,
          (line, parameters) =>
            // A warm transfer's colleague, to be briefed; else a call's conversation.
            parameters.transferId
              ? briefColleague(deps, line, parameters)
              : startCallConversation(deps, line, { kind: 'phone_call', parameters }, running),
          deps.logger,
        );
    });
  });

  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `ws://${host}:${address.port}${MEDIA_STREAM_PATH}`,
    async stop() {
      clearInterval(heartbeat);
      // Conversations still up are ended as the agent hanging up, so no call is left without one.
      await Promise.all([...sessions].map((session) => session.finish('agent_hangup')));
      await Promise.all([voicemail.stop(), hangUps.stop()]);
      admission.close();
      await vad?.close();
      await noise?.close();
      for (const client of wss.clients) client.close(1001, 'media server stopping');
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

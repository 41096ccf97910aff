import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulawDecode, writeWav } from '@voice/audio';
import {
  fillVariables,
  recordingKeyFor,
  startConversation,
  storeConversation,
  transferDestination,
  verifyMediaStreamToken,
  type CoreDeps,
  type RecordingStore,
  type ServiceEnd,
} from '@voice/core';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  ConversationSession,
  type ConversationResult,
  type SessionLimits,
  type SessionProviders,
} from './session';
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

export interface MediaServer {
  url: string;
  /** Conversations in progress. */
  active(): number;
  stop(): Promise<void>;
}

/** The call's agent, with the call's variables filled in (defaults applied). */
async function loadAgent(core: CoreDeps, callId: string) {
  const call = await core.db.call.findUnique({
    where: { id: callId },
    include: { agent: true },
  });
  if (!call?.agent) return null;
  const { agent } = call;
  const defaults = Object.fromEntries(
    (agent.variablesProvided as { name: string; default?: string | null }[])
      .filter((variable) => variable.default)
      .map((variable) => [variable.name, variable.default!]),
  );
  const vars = { ...defaults, ...(call.varsProvided as Record<string, string>) };
  return {
    call,
    agent: {
      language: agent.language,
      voice: agent.voiceId,
      prompt: fillVariables(agent.prompt, vars),
      welcomeMessage: fillVariables(agent.welcomeMessage, vars),
      endCallEnabled: agent.endCallEnabled,
      endCallCondition: agent.endCallCondition,
      transferEnabled: agent.transferCallEnabled && transferDestination(agent) !== null,
    },
    transferTo: transferDestination(agent),
  };
}

/** Both sides of the call, time-aligned frame by frame: the caller left, the agent right. */
function recordingOf(callerFrames: Buffer[], agentFrames: (Buffer | null)[]): Buffer {
  const silence = Buffer.alloc(160, 0xff);
  const side = (frames: (Buffer | null)[]) => mulawDecode(Buffer.concat(frames.map((f) => f ?? silence)));
  return writeWav(8000, [side(callerFrames), side(agentFrames)]);
}

export async function startMediaServer(
  deps: MediaServerDeps,
  { host, port }: { host: string; port: number },
): Promise<MediaServer> {
  const clock = new FrameClock();
  const sessions = new Set<ConversationSession>();
  const server: Server = createServer((request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', conversations: sessions.size }));
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
      const loaded = await loadAgent(deps.core, callId);
      if (!loaded) return refuse('the call has no agent');
      if (!(await startConversation(deps.core, callId)))
        return refuse('the call has a stream already or has ended');
      if (socket.readyState !== socket.OPEN) return;
      const line = new TwilioLine(socket, streamSid);
      clock.add(line);
      const log = deps.logger.child({ callId });
      const ended = async (result: ConversationResult) => {
        clock.remove(line);
        sessions.delete(current);
        let recordingKey: string | null = recordingKeyFor(callId);
        try {
          await deps.recordings.put(recordingKey, recordingOf(current.callerFrames, line.agentFrames));
        } catch (error) {
          recordingKey = null;
          result.failures.push(`recording: ${(error as Error).message}`);
        }
        await storeConversation(deps.core, callId, {
          ...result,
          recordingKey,
          endedAt: deps.core.clock.now(),
        });
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
          .catch((error: unknown) => log.error({ err: error }, 'the call could not be ended at the carrier'));
      };
      const current: ConversationSession = new ConversationSession(
        line,
        loaded.agent,
        deps.providers,
        ended,
        deps.limits,
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
    active: () => sessions.size,
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

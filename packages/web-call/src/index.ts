import { WORKLET_SOURCE } from './worklets';

/**
 * A web call from the browser: the microphone to an agent and the agent to the speakers, over the media
 * server's `/media/web` WebSocket (docs/voice.md, "Web calls"). No framework; any website can use it:
 *
 *     const call = startWebCall({ url: 'wss://media.example.com/media/web', accessToken });
 *     let lines = [];
 *     call.on((event) => {
 *       if (event.type === 'transcript') show((lines = applyTranscriptEvent(lines, event)));
 *       if (event.type === 'error') alert(event.message);
 *     });
 *     hangUpButton.onclick = () => call.hangUp();
 *
 * `accessToken` is what web-call-create answered (your server asks for it with its API key; never put
 * an API key in a page), or a function that gets it: called once the microphone is allowed and the audio
 * is ready, so a refused microphone creates no call. The call starts at once; a refused microphone, a
 * call that could not be created, a connection that fails or is lost, and a refused token come as
 * `error` events, each followed by `ended`.
 */

/** The line's audio, both ways: 16-bit PCM, mono, 16 kHz. */
const SAMPLE_RATE = 16_000;
/** A caller frame this loud (16-bit RMS) is speech; this long below it, the caller has stopped. */
const SPEECH_RMS = 500;
const SPEECH_HANG_MS = 400;
/**
 * How long a hang-up waits for the media server to end the call: the agent's last words, as the caller
 * heard them, come before its end.
 */
const HANG_UP_WAIT_MS = 3_000;

export interface WebCallOptions {
  /** The media server's web call endpoint, `wss://…/media/web`. */
  url: string;
  /**
   * web-call-create's `access_token` (for this call only, once, within a minute), or what creates the
   * call and gives its token once the microphone and the audio are ready (nothing is created before).
   */
  accessToken: string | (() => Promise<string>);
  /** Microphone constraints; echo cancellation, noise suppression and gain control are on by default. */
  microphone?: MediaTrackConstraints;
  /**
   * Where to load the audio worklet from (WORKLET_SOURCE of `@voice/web-call/worklets`, served as
   * JavaScript): for a page whose content security policy does not allow `blob:` scripts. A Blob URL of
   * it when omitted.
   */
  workletUrl?: string;
}

export type WebCallErrorCode =
  | 'microphone_denied'
  | 'microphone_unavailable'
  | 'not_created'
  | 'connection_failed'
  | 'connection_lost'
  | 'refused';

export type WebCallEvent =
  | { type: 'connected'; callId: string }
  | { type: 'agent_speaking'; speaking: boolean }
  | { type: 'caller_speaking'; speaking: boolean }
  /**
   * A line of the transcript as the caller hears it: the caller's words once transcribed, each agent
   * sentence as its audio starts. `replace`: the role's last line is now `content`: the agent's sentences
   * so far, or, once cut short by a barge-in or a hang-up, what the caller heard of them (empty, nothing
   * was); the caller's whole turn, when they went on after a pause.
   */
  | { type: 'transcript'; role: 'agent' | 'caller'; content: string; replace: boolean }
  | { type: 'ended'; reason: string }
  | { type: 'error'; code: WebCallErrorCode; message: string };

/** A line of the transcript a page shows. */
export interface TranscriptLine {
  role: 'agent' | 'caller';
  content: string;
}

/** The lines shown, with a `transcript` event applied (a new array). */
export function applyTranscriptEvent(
  lines: readonly TranscriptLine[],
  { role, content, replace }: Extract<WebCallEvent, { type: 'transcript' }>,
): TranscriptLine[] {
  const at = replace ? lines.findLastIndex((line) => line.role === role) : -1;
  if (at >= 0) return content ? lines.with(at, { role, content }) : lines.toSpliced(at, 1);
  return content ? [...lines, { role, content }] : [...lines];
}

/** A control message from the media server (docs/voice.md, "Web calls"). */
interface ControlMessage {
  event: string;
  call_id?: string;
  name?: string;
  role?: 'agent' | 'caller';
  content?: string;
  replace?: boolean;
  reason?: string;
}

export interface WebCallStats {
  /** Milliseconds of the agent's audio played out, and of that how much was louder than silence. */
  agentPlayedMs: number;
  agentLoudMs: number;
}

export interface WebCall {
  /** Calls `listener` with every event from now on; returns what stops it. */
  on(listener: (event: WebCallEvent) => void): () => void;
  /**
   * The caller hangs up: the microphone and the agent's audio stop at once, and the call ends
   * `user_hangup` once the media server has said so (the agent's last words as heard first).
   */
  hangUp(): void;
  /** A key of the page's keypad (`0`–`9`, `*`, `#`), as a phone's keypad sends it: `#` ends an entry. */
  pressKey(key: string): void;
  readonly callId: string | null;
  stats(): WebCallStats;
  /** Resolves with the reason once the call has ended, however it ended. */
  readonly ended: Promise<string>;
}

export function startWebCall(options: WebCallOptions): WebCall {
  const listeners = new Set<(event: WebCallEvent) => void>();
  const emit = (event: WebCallEvent) => {
    for (const listener of listeners) listener(event);
  };
  let finish: (reason: string) => void = () => {};
  const ended = new Promise<string>((resolve) => (finish = resolve));
  const state = {
    callId: null as string | null,
    done: false,
    hangingUp: false,
    stats: { agentPlayedMs: 0, agentLoudMs: 0 },
  };
  let silence: () => void = () => {};
  let teardown: () => void = () => {};
  let socket: WebSocket | null = null;

  const end = (reason: string, error?: { code: WebCallErrorCode; message: string }) => {
    if (state.done) return;
    state.done = true;
    teardown();
    // Events after the caller's own code has had a chance to listen (a start that fails at once).
    queueMicrotask(() => {
      if (error) emit({ type: 'error', ...error });
      emit({ type: 'ended', reason });
      finish(reason);
    });
  };

  void (async () => {
    let microphone: MediaStream;
    try {
      microphone = await navigator.mediaDevices.getUserMedia({
        audio: {
          echoCancellation: true,
          noiseSuppression: true,
          autoGainControl: true,
          channelCount: 1,
          ...options.microphone,
        },
      });
    } catch (error) {
      const denied = (error as DOMException).name === 'NotAllowedError';
      return end('error', {
        code: denied ? 'microphone_denied' : 'microphone_unavailable',
        message: denied
          ? 'The microphone was not allowed: allow it for this page to talk to the agent.'
          : `No microphone could be opened (${(error as Error).message}).`,
      });
    }
    if (state.done) return microphone.getTracks().forEach((track) => track.stop());
    const audio = new AudioContext({ sampleRate: SAMPLE_RATE, latencyHint: 'interactive' });
    silence = () => {
      silence = () => {};
      microphone.getTracks().forEach((track) => track.stop());
      void audio.close();
    };
    teardown = () => {
      silence();
      if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000, 'hung up');
    };
    if (options.workletUrl) await audio.audioWorklet.addModule(options.workletUrl);
    else {
      const moduleUrl = URL.createObjectURL(new Blob([WORKLET_SOURCE], { type: 'text/javascript' }));
      await audio.audioWorklet.addModule(moduleUrl);
      URL.revokeObjectURL(moduleUrl);
    }
    if (state.done) return;
    const capture = new AudioWorkletNode(audio, 'voice-capture');
    const playback = new AudioWorkletNode(audio, 'voice-playback');
    audio.createMediaStreamSource(microphone).connect(capture);
    playback.connect(audio.destination);
    await audio.resume();
    let accessToken: string;
    try {
      accessToken =
        typeof options.accessToken === 'string' ? options.accessToken : await options.accessToken();
    } catch (error) {
      return end('error', {
        code: 'not_created',
        message: `The call could not be created: ${(error as Error).message}`,
      });
    }
    if (state.done) return;
    connect(capture, playback, accessToken);
  })().catch((error: unknown) =>
    end('error', {
      code: 'connection_failed',
      message: `The call could not start: ${(error as Error).message}`,
    }),
  );

  function connect(capture: AudioWorkletNode, playback: AudioWorkletNode, accessToken: string) {
    const ws = new WebSocket(options.url);
    socket = ws;
    ws.binaryType = 'arraybuffer';
    /** Samples handed to the player so far, and the marks due once it has played up to them. */
    let queued = 0;
    let marks: { name: string; at: number }[] = [];
    let agentSpeaking = false;
    let callerSpeaking = false;
    let quietMs = 0;
    ws.onopen = () => ws.send(JSON.stringify({ event: 'start', access_token: accessToken }));
    ws.onmessage = (message) => {
      if (message.data instanceof ArrayBuffer) {
        queued += message.data.byteLength / 2;
        playback.port.postMessage(message.data, [message.data]);
        return;
      }
      const control = JSON.parse(String(message.data)) as ControlMessage;
      if (control.event === 'started') {
        state.callId = control.call_id ?? null;
        emit({ type: 'connected', callId: control.call_id! });
      } else if (control.event === 'mark') marks.push({ name: control.name!, at: queued });
      else if (control.event === 'clear') {
        marks = [];
        playback.port.postMessage('clear');
      } else if (control.event === 'transcript')
        emit({
          type: 'transcript',
          role: control.role!,
          content: control.content!,
          replace: control.replace === true,
        });
      else if (control.event === 'ended') end(control.reason ?? 'ended');
    };
    ws.onclose = (close) => {
      if (state.done) return;
      if (state.hangingUp) end('user_hangup');
      else if (close.code === 1008)
        end('error', { code: 'refused', message: `The call was refused: ${close.reason}` });
      else if (state.callId === null)
        end('error', { code: 'connection_failed', message: 'The media server could not be reached.' });
      else if (close.code === 1000) end(close.reason || 'ended');
      else
        end('error', {
          code: 'connection_lost',
          message: `The connection to the agent was lost (${close.code}).`,
        });
    };
    capture.port.onmessage = ({ data }: MessageEvent<{ pcm: ArrayBuffer; rms: number }>) => {
      if (ws.readyState !== WebSocket.OPEN || state.callId === null) return;
      ws.send(data.pcm);
      quietMs = data.rms >= SPEECH_RMS ? 0 : quietMs + 20;
      const speaking = quietMs < SPEECH_HANG_MS && (callerSpeaking || data.rms >= SPEECH_RMS);
      if (speaking !== callerSpeaking)
        emit({ type: 'caller_speaking', speaking: (callerSpeaking = speaking) });
    };
    playback.port.onmessage = ({
      data,
    }: MessageEvent<{ played: number; loud: number; idle: boolean; cleared?: boolean }>) => {
      if (data.cleared) {
        queued = data.played;
        return;
      }
      state.stats = {
        agentPlayedMs: data.played / 16,
        agentLoudMs: (data.loud ?? state.stats.agentLoudMs * 16) / 16,
      };
      // Every mark whose audio has played is echoed, as Twilio does: what the caller heard.
      while (marks.length > 0 && marks[0]!.at <= data.played)
        ws.send(JSON.stringify({ event: 'mark', name: marks.shift()!.name }));
      const speaking = !data.idle;
      if (speaking !== agentSpeaking) emit({ type: 'agent_speaking', speaking: (agentSpeaking = speaking) });
    };
  }

  return {
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    hangUp() {
      if (state.done || state.hangingUp) return;
      if (socket?.readyState !== WebSocket.OPEN) return end('user_hangup');
      state.hangingUp = true;
      socket.send(JSON.stringify({ event: 'hangup' }));
      silence();
      setTimeout(() => end('user_hangup'), HANG_UP_WAIT_MS);
    },
    pressKey(key) {
      if (!/^[0-9*#]$/.test(key)) throw new Error(`not a keypad key: ${key}`);
      if (!state.done && !state.hangingUp && socket?.readyState === WebSocket.OPEN)
        socket.send(JSON.stringify({ event: 'dtmf', digit: key }));
    },
    get callId() {
      return state.callId;
    },
    stats: () => ({ ...state.stats }),
    ended,
  };
}

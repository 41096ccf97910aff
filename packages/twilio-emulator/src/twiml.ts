import { end } from './calls';
import { openMediaStream } from './media-streams';
import { after, clearTimers, track, type EmulatorState } from './state';
import type { EmulatedCall } from './types';

// The TwiML the service answers with, followed as Twilio does: a media stream, or spoken verbs.

const decodeXml = (text: string) =>
  text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');

/**
 * `<Connect><Stream>` of an answered call: with media streams on, the WebSocket to the service and
 * the callee's audio on it. The call ends when the stream cannot connect or the service closes it.
 */
export function connectStream(state: EmulatorState, call: EmulatedCall, twiml: string) {
  if (!state.options.mediaStreams) return;
  const stream = /<Connect>\s*<Stream\b([^>]*?)(?:\/>|>([\s\S]*?)<\/Stream>)/.exec(twiml);
  const url = stream && /\burl="([^"]*)"/.exec(stream[1]!)?.[1];
  if (!url) return;
  const parameters: Record<string, string> = {};
  for (const [, attributes] of (stream[2] ?? '').matchAll(/<Parameter\b([^>]*?)\/>/g)) {
    const name = /\bname="([^"]*)"/.exec(attributes!)?.[1];
    const value = /\bvalue="([^"]*)"/.exec(attributes!)?.[1];
    if (name !== undefined) parameters[decodeXml(name)] = decodeXml(value ?? '');
  }
  call.stream = openMediaStream({
    url: decodeXml(url),
    parameters,
    accountSid: call.accountSid,
    callSid: call.sid,
    script: state.options.callee?.(call),
  });
  call.stream.opened.catch(() => end(state, call, 'completed'));
  void call.stream.closed.then(() => {
    if (call.stream?.record.closed?.by === 'service') end(state, call, 'completed');
  });
}

/**
 * A live call redirected to new TwiML: the verbs the service uses, in order. `<Dial>` hands the call
 * to that number (whose callee talks, then hangs up); `<Say>` speaks; `<Hangup>` ends the call.
 */
export function redirect(state: EmulatorState, call: EmulatedCall, twiml: string) {
  clearTimers(state, call);
  state.timers.delete(call.sid);
  // New TwiML replaces the old: a stream it had connected stops.
  if (call.stream) {
    const stream = call.stream;
    call.stream = null;
    track(state, stream.stop());
  }
  let spokenMs = 0;
  for (const [, verb, body] of twiml.matchAll(/<(Dial|Say|Hangup)\b[^>]*?(?:\/>|>([\s\S]*?)<\/\1>)/g)) {
    const text = decodeXml(body ?? '').trim();
    if (verb === 'Say') {
      call.said.push(text);
      spokenMs += 10 * text.length;
    } else if (verb === 'Dial') {
      call.transferredTo = text;
      return after(state, call, spokenMs + state.transferTalkMs, () => end(state, call, 'completed'));
    } else {
      return after(state, call, spokenMs, () => end(state, call, 'completed'));
    }
  }
  // TwiML that runs out ends the call, as Twilio's does.
  after(state, call, spokenMs, () => end(state, call, 'completed'));
}

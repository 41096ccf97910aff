import { end } from './calls';
import { conferenceAttributes, joinConference, leaveConference } from './conferences';
import { openMediaStream } from './media-streams';
import { after, clearTimers, TERMINAL, track, type EmulatorState } from './state';
import type { EmulatedCall } from './types';

// The TwiML the service answers with, followed as Twilio does: a media stream, spoken verbs, a dial.

const decodeXml = (text: string) =>
  text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');

/** The verbs followed, with their bodies: `<Dial>`'s number or `<Conference>`, `<Say>`'s words. */
const VERBS = /<(Dial|Say|Hangup)\b[^>]*?(?:\/>|>([\s\S]*?)<\/\1>)/g;

/**
 * `<Connect><Stream>` of an answered call: with media streams on, the WebSocket to the service and
 * the callee's audio on it. When the stream cannot connect or the service closes it, Twilio moves past
 * `<Connect>` to the verbs after it; the call ends when nothing follows. A stream Twilio stops (the call
 * ended, or was redirected) moves nothing on.
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
  const connected = openMediaStream({
    url: decodeXml(url),
    parameters,
    accountSid: call.accountSid,
    callSid: call.sid,
    script: state.options.callee?.(call),
  });
  call.stream = connected;
  const connectEnd = twiml.indexOf('</Connect>', stream.index);
  const rest = connectEnd < 0 ? '' : twiml.slice(connectEnd + '</Connect>'.length);
  let movedOn = false;
  // A WebSocket that cannot connect also closes: the call moves on once.
  const moveOn = () => {
    if (movedOn || call.stream !== connected || TERMINAL.has(call.status)) return;
    movedOn = true;
    if (/<(Dial|Say|Hangup)\b/.test(rest)) follow(state, call, rest);
    else end(state, call, 'completed');
  };
  connected.opened.catch(moveOn);
  void connected.closed.then(() => {
    if (connected.record.closed?.by === 'service') moveOn();
  });
}

/**
 * A live call redirected to new TwiML: it leaves the conference it was in, a stream its old TwiML had
 * connected stops, and the new TwiML's verbs are followed.
 */
export function redirect(state: EmulatorState, call: EmulatedCall, twiml: string) {
  leaveConference(state, call);
  if (call.stream) {
    const stream = call.stream;
    call.stream = null;
    track(state, stream.stop());
  }
  follow(state, call, twiml);
}

/**
 * TwiML's verbs, in order, replacing what the call was doing (its timers). `<Dial>` hands the call to
 * that number (whose callee talks, then hangs up), or with `<Conference>` puts it in that conference;
 * `<Say>` speaks; `<Hangup>` ends the call; TwiML that runs out ends it.
 */
function follow(state: EmulatorState, call: EmulatedCall, twiml: string) {
  clearTimers(state, call);
  state.timers.delete(call.sid);
  let spokenMs = 0;
  for (const [, verb, body] of twiml.matchAll(VERBS)) {
    const text = decodeXml(body ?? '').trim();
    const conference = /<Conference\b([^>]*?)>([\s\S]*?)<\/Conference>/.exec(body ?? '');
    if (verb === 'Say') {
      call.said.push(text);
      spokenMs += 10 * text.length;
    } else if (verb === 'Dial' && conference) {
      const join = () =>
        joinConference(state, call, decodeXml(conference[2]!).trim(), conferenceAttributes(conference[1]!));
      return spokenMs > 0 ? after(state, call, spokenMs, join) : join();
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

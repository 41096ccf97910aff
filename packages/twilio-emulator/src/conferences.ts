import { end } from './calls';
import { sid } from './rest';
import { clearTimers, TERMINAL, type EmulatorState } from './state';
import type { EmulatedCall, EmulatedConference } from './types';

// Conferences (`<Dial><Conference>`): the rooms calls join by name within their account, as Twilio
// runs them: a conference starts when a participant who starts it enters, and ends when a participant
// who ends it leaves, or when its last participant does.

/** The `<Conference>` attributes the emulator honours; `beep`, `waitUrl` and others are accepted, ignored. */
export interface ConferenceJoin {
  /** Twilio's default: true. Off, the participant waits (on hold) until one who starts it enters. */
  startConferenceOnEnter: boolean;
  /** Twilio's default: false. On, the conference ends, and everyone else's call, as this one leaves. */
  endConferenceOnExit: boolean;
}

/** The `<Conference>` noun's attributes, with Twilio's defaults for those left out. */
export function conferenceAttributes(attributes: string): ConferenceJoin {
  const flag = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1]?.toLowerCase();
  return {
    startConferenceOnEnter: flag('startConferenceOnEnter') !== 'false',
    endConferenceOnExit: flag('endConferenceOnExit') === 'true',
  };
}

const present = (conference: EmulatedConference) =>
  conference.participants.filter((participant) => participant.leftAt === null);

/** Nobody to talk to any more: the conference's talk stops. */
function stopTalk(state: EmulatorState, conference: EmulatedConference) {
  for (const timer of state.timers.get(conference.sid) ?? []) clearTimeout(timer);
  state.timers.delete(conference.sid);
}

/** Once two people are in a started conference, they talk (transferTalkMs), then everyone hangs up. */
function startTalk(state: EmulatorState, conference: EmulatedConference) {
  if (conference.status !== 'in-progress' || present(conference).length < 2) return;
  if (state.timers.has(conference.sid)) return;
  const timer = setTimeout(() => complete(state, conference), state.transferTalkMs);
  state.timers.set(conference.sid, [timer]);
}

/** The conference ends: every participant still in it is hung up. */
function complete(state: EmulatorState, conference: EmulatedConference) {
  if (conference.status === 'completed') return;
  conference.status = 'completed';
  stopTalk(state, conference);
  for (const participant of present(conference)) {
    participant.leftAt = Date.now();
    const call = state.calls.get(participant.callSid);
    if (call) end(state, call, 'completed');
  }
}

/**
 * The call joins its account's conference of that name, created as the first participant enters (a
 * name whose conference has ended starts a new one). The call stays in progress there, with no timers
 * of its own, until it or the conference ends.
 */
export function joinConference(state: EmulatorState, call: EmulatedCall, name: string, join: ConferenceJoin) {
  if (TERMINAL.has(call.status)) return;
  clearTimers(state, call);
  state.timers.delete(call.sid);
  let conference = [...state.conferences.values()].find(
    (candidate) =>
      candidate.accountSid === call.accountSid &&
      candidate.friendlyName === name &&
      candidate.status !== 'completed',
  );
  if (!conference) {
    conference = {
      sid: sid('CF'),
      accountSid: call.accountSid,
      friendlyName: name,
      status: 'init',
      participants: [],
    };
    state.conferences.set(conference.sid, conference);
  }
  conference.participants.push({ callSid: call.sid, joinedAt: Date.now(), leftAt: null, ...join });
  call.conference = name;
  if (join.startConferenceOnEnter && conference.status === 'init') conference.status = 'in-progress';
  startTalk(state, conference);
}

/**
 * The call leaves the conference it is in (it ended or was redirected elsewhere): a participant who ends
 * the conference ends it for everyone, and so does the last one out. `call.conference` keeps its name.
 */
export function leaveConference(state: EmulatorState, call: EmulatedCall) {
  if (call.conference === null) return;
  for (const conference of state.conferences.values()) {
    if (conference.status === 'completed' || conference.accountSid !== call.accountSid) continue;
    const participant = present(conference).find((candidate) => candidate.callSid === call.sid);
    if (!participant) continue;
    participant.leftAt = Date.now();
    if (participant.endConferenceOnExit || present(conference).length === 0) complete(state, conference);
    else if (present(conference).length < 2) stopTalk(state, conference);
  }
}

import type {
  CallStatus,
  EmulatedAccount,
  EmulatedCall,
  EmulatedConference,
  EmulatorOptions,
  TwilioEmulator,
} from './types';

/**
 * What one emulator holds: its settings, accounts, calls and conferences, the timers moving them along
 * (by call SID, and by conference SID for a conference's talk).
 */
export interface EmulatorState {
  options: EmulatorOptions;
  dialMs: number;
  ringMs: number;
  talkMs: number;
  msPerTimeoutSecond: number;
  detectionMs: number;
  transferTalkMs: number;
  accounts: Map<string, EmulatedAccount>;
  calls: Map<string, EmulatedCall>;
  conferences: Map<string, EmulatedConference>;
  timers: Map<string, NodeJS.Timeout[]>;
  /** Work in flight (callbacks, streams stopping) that close() waits for. */
  pending: Set<Promise<unknown>>;
  requests: TwilioEmulator['requests'];
  drop: ((call: EmulatedCall, status: CallStatus) => boolean) | null;
  createdHook: ((call: EmulatedCall) => Promise<void> | void) | null;
  failing: Parameters<TwilioEmulator['failRequests']>[0];
}

export function createState(options: EmulatorOptions): EmulatorState {
  const talkMs = options.talkMs ?? 200;
  return {
    options,
    dialMs: options.dialMs ?? 20,
    ringMs: options.ringMs ?? 50,
    talkMs,
    msPerTimeoutSecond: options.msPerTimeoutSecond ?? 5,
    detectionMs: options.detectionMs ?? 30,
    transferTalkMs: options.transferTalkMs ?? talkMs,
    accounts: new Map(),
    calls: new Map(),
    conferences: new Map(),
    timers: new Map(),
    pending: new Set(),
    requests: [],
    drop: null,
    createdHook: null,
    failing: null,
  };
}

export const TERMINAL = new Set<CallStatus>(['completed', 'busy', 'failed', 'no-answer', 'canceled']);

/** Work in flight that close() waits for. */
export function track(state: EmulatorState, work: Promise<unknown>) {
  state.pending.add(work);
  void work.finally(() => state.pending.delete(work));
}

/** A step of the call's progress, `ms` from now, unless the call has ended by then. */
export function after(state: EmulatorState, call: EmulatedCall, ms: number, step: () => void) {
  const timer = setTimeout(() => {
    if (!TERMINAL.has(call.status)) step();
  }, ms);
  state.timers.set(call.sid, [...(state.timers.get(call.sid) ?? []), timer]);
}

export function clearTimers(state: EmulatorState, call: EmulatedCall) {
  for (const timer of state.timers.get(call.sid) ?? []) clearTimeout(timer);
}

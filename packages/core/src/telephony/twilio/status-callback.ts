import type { AnsweredBy, CarrierEvent, CarrierOutcome } from '../carrier';

/**
 * Twilio's call status callbacks as CarrierEvents. A callback is a form-encoded POST whose parameters
 * include CallSid, CallStatus, Timestamp (RFC 2822), SequenceNumber (from 0, one per callback),
 * CallDuration (seconds, on the final callback), SipResponseCode and, with machine detection,
 * AnsweredBy (docs/telephony.md has the table).
 */

/** Failures that mean the number cannot be reached: Twilio error codes and SIP responses. */
const NOT_IN_SERVICE = new Set([
  '13224', // Dial: the number is invalid or cannot be called
  '13226', // invalid country code
  '21211', // invalid 'To' number
  '21214', // 'To' number cannot be reached
  '21217', // number not valid
  '404', // SIP Not Found
  '410', // SIP Gone
  '484', // SIP Address Incomplete
]);
/** Failures where the network or Twilio refused the call. */
const CARRIER_REJECTED = new Set([
  '13225', // Dial: forbidden number
  '21216', // call blocked by Twilio
  '32224', // blocked by regulation
  '403', // SIP Forbidden
  '603', // SIP Decline
]);

/** A failed call's outcome, from its Twilio error code or SIP response code. */
export function failureOutcome(codes: { errorCode?: string; sipResponseCode?: string }): CarrierOutcome {
  for (const code of [codes.errorCode, codes.sipResponseCode]) {
    if (code && NOT_IN_SERVICE.has(code)) return 'not_in_service';
    if (code && CARRIER_REJECTED.has(code)) return 'carrier_rejected';
  }
  return 'failed';
}

/**
 * The outcome of a call in one of Twilio's final statuses (a callback's CallStatus, a fetched call's
 * status); null for a status that is not final. A `completed` call was hung up by the callee unless the
 * service ended it itself (hang-up, transfer, voicemail), which the call records and finishCall prefers.
 */
export function endedOutcome(
  status: string,
  codes: { errorCode?: string; sipResponseCode?: string } = {},
): CarrierOutcome | null {
  switch (status) {
    case 'completed':
      return 'user_hangup';
    // The callee declining the call (SIP 603 Decline) ends it as busy too.
    case 'busy':
      return codes.sipResponseCode === '603' ? 'declined' : 'busy';
    // `canceled`: hung up by the service before anyone answered, so the callee did not answer.
    case 'no-answer':
    case 'canceled':
      return 'no_answer';
    case 'failed':
      return failureOutcome(codes);
    default:
      return null;
  }
}

/** Twilio's AnsweredBy: human, machine_start, machine_end_beep|silence|other, fax or unknown. */
export function answeredByFrom(value: string | undefined): AnsweredBy | undefined {
  if (!value) return undefined;
  if (value === 'human') return 'human';
  if (value.startsWith('machine_') || value === 'fax') return 'machine';
  return 'unknown';
}

/**
 * The event a status callback reports, or null for one that reports nothing new (`queued`). Throws
 * on a callback that lacks what every callback carries: it was not sent by Twilio's documented protocol.
 */
export function carrierEventFromStatusCallback(
  params: Readonly<Record<string, string>>,
): CarrierEvent | null {
  const carrierCallId = params.CallSid;
  const status = params.CallStatus;
  const timestamp = params.Timestamp ? Date.parse(params.Timestamp) : Number.NaN;
  if (!carrierCallId || !status || Number.isNaN(timestamp))
    throw new Error('A status callback needs CallSid, CallStatus and a valid Timestamp');
  const sequence = params.SequenceNumber !== undefined ? Number(params.SequenceNumber) : undefined;
  const base = {
    carrierCallId,
    at: new Date(timestamp).toISOString(),
    ...(sequence !== undefined && Number.isInteger(sequence) ? { sequence } : {}),
  };
  const answeredBy = answeredByFrom(params.AnsweredBy);
  const ended = (outcome: CarrierOutcome, durationMs?: number): CarrierEvent => ({
    ...base,
    kind: 'ended',
    outcome,
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(answeredBy ? { answeredBy } : {}),
  });
  switch (status) {
    case 'queued':
      return null;
    case 'initiated':
      return { ...base, kind: 'initiated' };
    case 'ringing':
      return { ...base, kind: 'ringing' };
    case 'in-progress':
      return { ...base, kind: 'answered', ...(answeredBy ? { answeredBy } : {}) };
    case 'completed': {
      const seconds = Number(params.CallDuration ?? '0');
      return ended('user_hangup', Number.isFinite(seconds) ? seconds * 1000 : undefined);
    }
    case 'busy':
    case 'no-answer':
    case 'canceled':
    case 'failed':
      return ended(
        endedOutcome(status, { errorCode: params.ErrorCode, sipResponseCode: params.SipResponseCode })!,
      );
    default:
      throw new Error(`Unknown CallStatus ${JSON.stringify(status)}`);
  }
}

/**
 * The result of async answering machine detection (MachineDetection with AsyncAmd): a POST to the
 * AsyncAmdStatusCallback with CallSid, AnsweredBy and MachineDetectionDuration, and no timestamp of
 * its own, so the time it arrived stands for when the carrier decided.
 */
export function carrierEventFromMachineDetection(
  params: Readonly<Record<string, string>>,
  receivedAt: Date,
): CarrierEvent {
  const answeredBy = answeredByFrom(params.AnsweredBy);
  if (!params.CallSid || !answeredBy)
    throw new Error('A machine detection callback needs CallSid and AnsweredBy');
  return { carrierCallId: params.CallSid, kind: 'detected', answeredBy, at: receivedAt.toISOString() };
}

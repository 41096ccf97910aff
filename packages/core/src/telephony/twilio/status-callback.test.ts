import { describe, expect, it } from 'vitest';
import { answeredByFrom, carrierEventFromStatusCallback, failureOutcome } from './status-callback';

const base = {
  AccountSid: 'AC00000000000000000000000000000000',
  CallSid: 'CA11111111111111111111111111111111',
  ApiVersion: '2010-04-01',
  Direction: 'outbound-api',
  CallbackSource: 'call-progress-events',
  From: '+14155550100',
  To: '+14155550009',
  Timestamp: 'Mon, 23 Nov 2026 10:00:05 +0000',
};

describe('Twilio status callbacks as carrier events', () => {
  it('maps each call status to its event, with the carrier time and sequence', () => {
    const event = (params: Record<string, string>) => carrierEventFromStatusCallback({ ...base, ...params });
    expect(event({ CallStatus: 'queued', SequenceNumber: '0' })).toBeNull();
    expect(event({ CallStatus: 'initiated', SequenceNumber: '0' })).toEqual({
      carrierCallId: base.CallSid,
      kind: 'initiated',
      at: '2026-11-23T10:00:05.000Z',
      sequence: 0,
    });
    expect(event({ CallStatus: 'ringing', SequenceNumber: '1' })).toMatchObject({
      kind: 'ringing',
      sequence: 1,
    });
    expect(
      event({ CallStatus: 'in-progress', SequenceNumber: '2', AnsweredBy: 'machine_end_beep' }),
    ).toMatchObject({ kind: 'answered', answeredBy: 'machine' });
    // A completed call the service did not end was hung up by the callee.
    expect(event({ CallStatus: 'completed', CallDuration: '42', SequenceNumber: '3' })).toMatchObject({
      kind: 'ended',
      outcome: 'user_hangup',
      durationMs: 42_000,
      sequence: 3,
    });
    expect(event({ CallStatus: 'busy', SipResponseCode: '486' })).toMatchObject({ outcome: 'busy' });
    expect(event({ CallStatus: 'busy', SipResponseCode: '603' })).toMatchObject({ outcome: 'declined' });
    expect(event({ CallStatus: 'no-answer', SipResponseCode: '487' })).toMatchObject({
      outcome: 'no_answer',
    });
    expect(event({ CallStatus: 'failed', SipResponseCode: '404' })).toMatchObject({
      outcome: 'not_in_service',
    });
    expect(event({ CallStatus: 'failed', ErrorCode: '13225' })).toMatchObject({
      outcome: 'carrier_rejected',
    });
    expect(event({ CallStatus: 'failed', SipResponseCode: '500' })).toMatchObject({ outcome: 'failed' });
  });

  it('refuses a callback without what every Twilio callback carries', () => {
    expect(() =>
      carrierEventFromStatusCallback({ ...base, CallStatus: 'ringing', Timestamp: 'yesterday' }),
    ).toThrow(/Timestamp/);
    expect(() =>
      carrierEventFromStatusCallback({ CallStatus: 'ringing', Timestamp: base.Timestamp }),
    ).toThrow(/CallSid/);
    expect(() => carrierEventFromStatusCallback({ ...base, CallStatus: 'exploded' })).toThrow(
      /Unknown CallStatus/,
    );
  });

  it('prefers the Twilio error code to the SIP response, and reads machine detection', () => {
    expect(failureOutcome({ errorCode: '21211', sipResponseCode: '403' })).toBe('not_in_service');
    expect(failureOutcome({})).toBe('failed');
    expect(['human', 'machine_start', 'fax', 'unknown', undefined].map(answeredByFrom)).toEqual([
      'human',
      'machine',
      'machine',
      'unknown',
      undefined,
    ]);
  });
});

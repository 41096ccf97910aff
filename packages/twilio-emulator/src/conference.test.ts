import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startTwilioEmulator, type EmulatorOptions, type TwilioEmulator } from './emulator';

/** Conferences and the TwiML after `<Connect>`, through the emulator's REST API and real media streams. */

let media: WebSocketServer;
let streamUrl: string;
/** Answers the voice webhook of calls coming in with the TwiML a test sets. */
let voice: Server;
let voiceUrl: string;
let answer = '<Response/>';

beforeAll(async () => {
  // The media server: it ends each stream as it starts, as the service does once it is done with a call,
  // unless the stream's parameters ask it to keep the stream open.
  media = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => media.once('listening', resolve));
  streamUrl = `ws://127.0.0.1:${(media.address() as AddressInfo).port}/media/twilio`;
  media.on('connection', (socket) =>
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        event?: string;
        start?: { customParameters?: Record<string, string> };
      };
      if (message.event === 'start' && message.start?.customParameters?.keep !== 'open')
        socket.close(1000, 'done');
    }),
  );
  voice = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'text/xml' }).end(answer));
  });
  await new Promise<void>((resolve) => voice.listen(0, '127.0.0.1', resolve));
  voiceUrl = `http://127.0.0.1:${(voice.address() as AddressInfo).port}/voice`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => media.close(() => resolve()));
  await new Promise<void>((resolve) => voice.close(() => resolve()));
});

const until = async (check: () => boolean) => {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** A form POST to one of the emulator's first account's resources, as Twilio's REST clients send it. */
async function postTo(target: TwilioEmulator, path: string, form: Record<string, string>) {
  const auth = Buffer.from(`${target.accountSid}:${target.authToken}`).toString('base64');
  const response = await fetch(`${target.url}/2010-04-01/Accounts/${target.accountSid}${path}`, {
    method: 'POST',
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return (await response.json()) as { sid: string; status: string };
}

/** Runs a test against an emulator of its own, closed after it. */
async function withEmulator(options: EmulatorOptions, test: (emulator: TwilioEmulator) => Promise<void>) {
  const emulator = await startTwilioEmulator({ dialMs: 5, ringMs: 10, mediaStreams: true, ...options });
  try {
    await test(emulator);
  } finally {
    await emulator.close();
  }
}

/**
 * A call to +1…0008 (it stays on the line until hung up), answered and following its Twiml; its status
 * callback is the voice webhook's server (answering 200).
 */
async function answered(emulator: TwilioEmulator, twiml: string) {
  const { sid } = await postTo(emulator, '/Calls.json', {
    To: '+14155550008',
    From: '+14155550100',
    Twiml: twiml,
    StatusCallback: voiceUrl,
  });
  await until(() => emulator.call(sid)?.answeredAt != null);
  return emulator.call(sid)!;
}

const conference = (name: string, attributes = '') =>
  `<Dial><Conference${attributes}>${name}</Conference></Dial>`;

describe('TwiML after <Connect>', () => {
  it('follows the verbs after </Connect> once the service closes the stream: the call joins the conference', () =>
    withEmulator({ transferTalkMs: 200 }, async (emulator) => {
      const colleague = await answered(
        emulator,
        `<Response><Connect><Stream url="${streamUrl}"/></Connect>${conference('room-1', ' endConferenceOnExit="true"')}</Response>`,
      );
      await until(() => colleague.conference === 'room-1');
      expect(colleague.stream!.record.closed).toMatchObject({ by: 'service' });
      expect(colleague.status).toBe('in-progress');
      const [room] = emulator.conferences();
      expect(room).toMatchObject({
        sid: expect.stringMatching(/^CF[0-9a-f]{32}$/),
        accountSid: emulator.accountSid,
        friendlyName: 'room-1',
        status: 'in-progress',
        participants: [
          { callSid: colleague.sid, leftAt: null, startConferenceOnEnter: true, endConferenceOnExit: true },
        ],
      });
      // Alone in the conference, nobody talks: the call waits there.
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(colleague.status).toBe('in-progress');

      // The caller is redirected into the same conference: the two talk, then everyone hangs up.
      const caller = await answered(emulator, '<Response><Say>Hold on</Say></Response>');
      await postTo(emulator, `/Calls/${caller.sid}.json`, {
        Twiml: `<Response>${conference('room-1')}</Response>`,
      });
      expect(caller.conference).toBe('room-1');
      expect(emulator.conferences()).toHaveLength(1);
      expect(room!.status).toBe('in-progress');
      expect(room!.participants.map((participant) => [participant.callSid, participant.leftAt])).toEqual([
        [colleague.sid, null],
        [caller.sid, null],
      ]);
      expect(room!.participants[0]!.joinedAt).toBeLessThanOrEqual(room!.participants[1]!.joinedAt);
      await until(() => room!.status === 'completed');
      expect([colleague.status, caller.status]).toEqual(['completed', 'completed']);
      expect(room!.participants.every((participant) => participant.leftAt !== null)).toBe(true);
      expect(room!.participants[1]!.leftAt! - room!.participants[1]!.joinedAt).toBeGreaterThanOrEqual(190);
      // The calls keep the name of the conference they were in.
      expect([colleague.conference, caller.conference]).toEqual(['room-1', 'room-1']);
    }));

  it('ends the call when the service closes the stream and nothing follows </Connect>', () =>
    withEmulator({}, async (emulator) => {
      const call = await answered(
        emulator,
        `<Response><Connect><Stream url="${streamUrl}"/></Connect></Response>`,
      );
      await until(() => call.status === 'completed');
      expect(call.stream!.record.closed).toMatchObject({ by: 'service' });
      expect(call.conference).toBeNull();
      expect(emulator.conferences()).toEqual([]);
    }));

  it('moves past a stream that cannot connect, once', () =>
    withEmulator({}, async (emulator) => {
      const call = await answered(
        emulator,
        `<Response><Connect><Stream url="ws://127.0.0.1:1/media/twilio"/></Connect>${conference('room-5')}</Response>`,
      );
      await until(() => call.conference === 'room-5' && call.stream!.record.closed !== null);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(call.status).toBe('in-progress');
      expect(emulator.conferences()[0]!.participants).toHaveLength(1);
    }));

  it('moves nothing on when Twilio stops the stream: a redirect, or the call ending', () =>
    withEmulator({}, async (emulator) => {
      const twiml = `<Response><Connect><Stream url="${streamUrl}"><Parameter name="keep" value="open"/></Stream></Connect>${conference('room-4')}</Response>`;
      const redirected = await answered(emulator, twiml);
      const hungUp = await answered(emulator, twiml);
      await redirected.stream!.opened;
      await hungUp.stream!.opened;
      const stream = redirected.stream!;
      await postTo(emulator, `/Calls/${redirected.sid}.json`, {
        Twiml: '<Response><Say>Moved</Say></Response>',
      });
      await postTo(emulator, `/Calls/${hungUp.sid}.json`, { Status: 'completed' });
      await until(() => stream.record.closed !== null && hungUp.stream!.record.closed !== null);
      expect([stream.record.closed!.by, hungUp.stream!.record.closed!.by]).toEqual(['twilio', 'twilio']);
      await until(() => redirected.status === 'completed');
      expect(redirected.said).toEqual(['Moved']);
      expect([redirected.conference, hungUp.conference]).toEqual([null, null]);
      expect(emulator.conferences()).toEqual([]);
    }));

  it("follows an incoming call's answer after its stream: <Say>, then <Hangup>", () =>
    withEmulator({ talkMs: 5_000 }, async (emulator) => {
      answer = `<Response><Connect><Stream url="${streamUrl}"/></Connect><Say>Goodbye</Say><Hangup/></Response>`;
      const call = await emulator.callIn({ from: '+14155550123', to: '+14155550100', voiceUrl });
      await until(() => call.status === 'completed');
      expect(call.said).toEqual(['Goodbye']);
      // It ended by <Hangup>, well before the caller would have hung up.
      expect(+call.endTime! - +call.answeredAt!).toBeLessThan(2_000);
    }));
});

describe('conferences', () => {
  it('ends the conference, and the other calls, as a participant who ends it is hung up', () =>
    withEmulator({ transferTalkMs: 60_000 }, async (emulator) => {
      const [moderator, first, second] = [
        await answered(emulator, '<Response><Say>One</Say></Response>'),
        await answered(emulator, '<Response><Say>Two</Say></Response>'),
        await answered(emulator, '<Response><Say>Three</Say></Response>'),
      ];
      // The first to join does not start the conference: it waits until the moderator enters.
      await postTo(emulator, `/Calls/${first!.sid}.json`, {
        Twiml: `<Response>${conference('room-2', ' startConferenceOnEnter="false" beep="false"')}</Response>`,
      });
      const [room] = emulator.conferences();
      expect(room!.status).toBe('init');
      for (const call of [moderator!, second!]) {
        const attributes = call === moderator ? ' endConferenceOnExit="true" waitUrl=""' : '';
        await postTo(emulator, `/Calls/${call.sid}.json`, {
          Twiml: `<Response>${conference('room-2', attributes)}</Response>`,
        });
      }
      expect(room!.status).toBe('in-progress');

      // One who does not end the conference leaves: the others stay.
      await postTo(emulator, `/Calls/${second!.sid}.json`, { Status: 'completed' });
      expect(second!.status).toBe('completed');
      expect([moderator!.status, first!.status, room!.status]).toEqual([
        'in-progress',
        'in-progress',
        'in-progress',
      ]);

      // The moderator is hung up by the service: the conference ends, and the call still in it.
      await postTo(emulator, `/Calls/${moderator!.sid}.json`, { Status: 'completed' });
      expect(room!.status).toBe('completed');
      expect(first!.status).toBe('completed');
      await until(() => first!.callbacks.at(-1)?.status === 200);
      expect(first!.callbacks.map((callback) => callback.params.CallStatus)).toEqual(['completed']);
      expect(room!.participants.map((participant) => participant.leftAt !== null)).toEqual([
        true,
        true,
        true,
      ]);

      // The name is free again: joining it starts a new conference.
      const late = await answered(emulator, '<Response><Say>Late</Say></Response>');
      await postTo(emulator, `/Calls/${late.sid}.json`, {
        Twiml: `<Response>${conference('room-2')}</Response>`,
      });
      expect(emulator.conferences().map((each) => each.status)).toEqual(['completed', 'in-progress']);
      // The last participant out ends it.
      emulator.hangUpAll();
      expect(emulator.conferences()[1]!.status).toBe('completed');
    }));

  it('leaves the conference when redirected elsewhere', () =>
    withEmulator({ transferTalkMs: 60_000 }, async (emulator) => {
      const stays = await answered(emulator, '<Response><Say>One</Say></Response>');
      const moves = await answered(emulator, '<Response><Say>Two</Say></Response>');
      for (const call of [stays, moves])
        await postTo(emulator, `/Calls/${call.sid}.json`, {
          Twiml: `<Response>${conference('room-3')}</Response>`,
        });
      await postTo(emulator, `/Calls/${moves.sid}.json`, {
        Twiml: '<Response><Dial>+14155550199</Dial></Response>',
      });
      const [room] = emulator.conferences();
      expect(room!.participants.map((participant) => participant.leftAt === null)).toEqual([true, false]);
      expect(moves.transferredTo).toBe('+14155550199');
      expect([stays.status, moves.status, room!.status]).toEqual([
        'in-progress',
        'in-progress',
        'in-progress',
      ]);
    }));
});

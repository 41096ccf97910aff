import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  accountResource,
  addAccount,
  listNumbers,
  numberResource,
  NUMBER_UPDATE_PARAMETERS,
  updateNumber,
} from './accounts';
import {
  callIn,
  callResource,
  createCall,
  CREATE_PARAMETERS,
  end,
  listCalls,
  updateCall,
  UPDATE_PARAMETERS,
} from './calls';
import { resend } from './callbacks';
import { authenticate, basicUser, readForm, single, TwilioError } from './rest';
import { createState, track, type EmulatorState } from './state';
import type { EmulatorOptions, TwilioEmulator } from './types';

/**
 * A Twilio emulator for tests and demos: the parts of Twilio's Programmable Voice REST API
 * (2010-04-01) the service uses, written from Twilio's documentation, with the documented parameters,
 * answers and errors, and status callbacks signed with the `twilio` package's own
 * getExpectedTwilioSignature. Calls progress by destination, like the simulator's test numbers. Never
 * imported by production code: the service reaches it through TWILIO_API_BASE_URL.
 *
 * A module per resource: accounts.ts (Accounts, IncomingPhoneNumbers), calls.ts (Calls), twiml.ts
 * (the TwiML followed), conferences.ts (`<Dial><Conference>`), callbacks.ts (status callbacks), amd.ts
 * (machine detection) and media-streams.ts (`<Connect><Stream>`).
 */

export * from './types';
export { DESTINATIONS } from './calls';

/** One REST request: authenticated as Twilio does, routed to its resource, answered as Twilio answers. */
async function handle(state: EmulatorState, request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://emulator');
  const send = (status: number, body: unknown) => {
    state.requests.push({
      method: request.method ?? '',
      path: url.pathname,
      status,
      user: basicUser(request),
    });
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };
  const notFound = () => new TwilioError(404, 20404, `The requested resource ${url.pathname} was not found`);
  try {
    const failure = state.failing?.({ method: request.method ?? '', path: url.pathname });
    if (failure) throw new TwilioError(failure.status, failure.code, failure.message);
    const [, accountSid, rest] = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})(.*)$/.exec(url.pathname) ?? [];
    const account = accountSid ? state.accounts.get(accountSid) : undefined;
    authenticate(request, account);
    if (!account || rest === undefined) throw notFound();
    if (rest === '.json' && request.method === 'GET') return send(200, accountResource(account));
    if (rest === '/Calls.json' && request.method === 'POST') {
      const call = createCall(state, account.sid, single(await readForm(request), CREATE_PARAMETERS));
      await state.createdHook?.(call);
      return send(201, callResource(call));
    }
    if (rest === '/Calls.json' && request.method === 'GET')
      return send(200, listCalls(state, account.sid, url.searchParams));
    const callSid = /^\/Calls\/(CA[0-9a-f]{32})\.json$/.exec(rest)?.[1];
    if (callSid) {
      const call = state.calls.get(callSid);
      if (!call || call.accountSid !== account.sid) throw notFound();
      if (request.method === 'GET') return send(200, callResource(call));
      if (request.method === 'POST') {
        updateCall(state, call, single(await readForm(request), UPDATE_PARAMETERS));
        return send(200, callResource(call));
      }
    }
    if (rest === '/IncomingPhoneNumbers.json' && request.method === 'GET')
      return send(200, listNumbers(account, url.searchParams));
    const numberSid = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(rest)?.[1];
    const number = [...account.numbers.values()].find((candidate) => candidate.sid === numberSid);
    if (number && request.method === 'GET') return send(200, numberResource(account, number));
    if (number && request.method === 'POST') {
      updateNumber(number, single(await readForm(request), NUMBER_UPDATE_PARAMETERS));
      return send(200, numberResource(account, number));
    }
    throw notFound();
  } catch (error) {
    if (error instanceof TwilioError) return send(error.status, error.body());
    return send(500, { code: 20500, message: String(error), more_info: '', status: 500 });
  }
}

export async function startTwilioEmulator(options: EmulatorOptions = {}): Promise<TwilioEmulator> {
  const state = createState(options);
  const first = addAccount(state, { sid: options.accountSid, authToken: options.authToken });
  for (const number of options.numbers ?? []) first.addNumber(number);
  const server = createServer((request, response) => void handle(state, request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accountSid: first.sid,
    authToken: first.authToken,
    addAccount: (account) => addAccount(state, account),
    account: (accountSid) => state.accounts.get(accountSid),
    calls: () => [...state.calls.values()],
    call: (callSid) => state.calls.get(callSid),
    conferences: () => [...state.conferences.values()],
    requests: state.requests,
    onCallCreated(handler) {
      state.createdHook = handler;
    },
    failRequests(predicate) {
      state.failing = predicate;
    },
    dropCallbacks(predicate) {
      state.drop = predicate;
    },
    callIn: (call) => callIn(state, call),
    resend: (callback) => resend(state, callback),
    hangUpAll() {
      for (const call of state.calls.values())
        if (call.status === 'in-progress') end(state, call, 'completed');
    },
    async close() {
      for (const list of state.timers.values()) for (const timer of list) clearTimeout(timer);
      for (const call of state.calls.values()) if (call.stream) track(state, call.stream.stop());
      await Promise.allSettled([...state.pending]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { EmulatedAccount } from './types';

// The REST API's common parts: errors as Twilio answers them, form bodies, dates, list pages and auth.

/** The path of an account's resources. */
export const base = (accountSid: string) => `/2010-04-01/Accounts/${accountSid}`;

export class TwilioError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
  body() {
    return {
      code: this.code,
      message: this.message,
      more_info: `https://www.twilio.com/docs/errors/${this.code}`,
      status: this.status,
    };
  }
}

export const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
/** Twilio's dates: RFC 2822, e.g. "Tue, 31 Aug 2010 20:36:28 +0000". */
export const rfc2822 = (date: Date | null) => (date ? date.toUTCString().replace('GMT', '+0000') : null);

export async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Form parameters as one value each; a repeated one (StatusCallbackEvent) keeps all its values. */
export function single(form: URLSearchParams, allowed: Set<string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of new Set(form.keys())) {
    if (!allowed.has(name)) throw new TwilioError(400, 21200, `Unknown parameter ${name}`);
    params[name] = form.getAll(name).join(',');
  }
  return params;
}

/** One page of a Twilio list resource (the first: the service never needs more). */
export function page(uri: string, key: string, items: unknown[], query: URLSearchParams) {
  const pageSize = Math.min(Number(query.get('PageSize') ?? '50'), 1000);
  return {
    [key]: items.slice(0, pageSize),
    start: 0,
    end: Math.max(0, Math.min(items.length, pageSize) - 1),
    page: 0,
    page_size: pageSize,
    first_page_uri: `${uri}?PageSize=${pageSize}&Page=0`,
    next_page_uri: null,
    previous_page_uri: null,
    uri: `${uri}?PageSize=${pageSize}&Page=0`,
  };
}

/** The Basic auth credentials of a request; null without them. */
function basicCredentials(request: IncomingMessage): { user: string; password: string } | null {
  const [scheme, encoded] = (request.headers.authorization ?? '').split(' ');
  if (scheme !== 'Basic' || !encoded) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0
    ? { user: decoded, password: '' }
    : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export const basicUser = (request: IncomingMessage): string | null => basicCredentials(request)?.user ?? null;

/**
 * Basic auth as Twilio checks it: the account's SID and auth token, or one of its API keys and the
 * key's secret. Anything else, including another account's credentials or none, is 20003.
 */
export function authenticate(request: IncomingMessage, account: EmulatedAccount | undefined) {
  const credentials = basicCredentials(request);
  const valid =
    account !== undefined &&
    credentials !== null &&
    ((credentials.user === account.sid && credentials.password === account.authToken) ||
      account.apiKeys.get(credentials.user) === credentials.password);
  if (!valid) throw new TwilioError(401, 20003, 'Authenticate');
}

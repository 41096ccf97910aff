import { createHash } from 'node:crypto';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient';
import { AppError } from '../../errors';

/** Twilio's own REST API; TWILIO_API_BASE_URL replaces it (an emulator of its protocol in tests). */
export const TWILIO_API_BASE_URL = 'https://api.twilio.com';

/**
 * The credentials of one Twilio account: its SID and auth token (which signs Twilio's webhooks), and
 * the API key REST requests authenticate with when the owner gave one.
 */
export interface TwilioAccount {
  accountSid: string;
  authToken: string;
  apiKey?: { sid: string; secret: string };
}

/** Twilio's RequestClient, sending every request to `baseUrl` instead of api.twilio.com. */
class BaseUrlRequestClient extends twilio.RequestClient {
  constructor(private readonly baseUrl: string) {
    super();
  }
  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    const uri = opts.uri.replace(/^https:\/\/api\.twilio\.com/, this.baseUrl.replace(/\/$/, ''));
    return super.request<TData>({ ...opts, uri });
  }
}

export type TwilioClient = ReturnType<typeof twilio>;

/** A REST client of the account (the official `twilio` package). No automatic retries: the callers decide. */
function newTwilioClient(account: TwilioAccount, apiBaseUrl = TWILIO_API_BASE_URL): TwilioClient {
  const [username, password] = account.apiKey
    ? [account.apiKey.sid, account.apiKey.secret]
    : [account.accountSid, account.authToken];
  return twilio(username, password, {
    accountSid: account.accountSid,
    ...(apiBaseUrl !== TWILIO_API_BASE_URL ? { httpClient: new BaseUrlRequestClient(apiBaseUrl) } : {}),
    autoRetry: false,
  });
}

const clients = new Map<string, TwilioClient>();

/**
 * The REST client of stored, accepted credentials, kept per account and credentials: new credentials
 * (a rotated token) get a new client. Credentials not yet checked use a client of their own, so
 * refused ones are never kept.
 */
export function twilioClient(account: TwilioAccount, apiBaseUrl = TWILIO_API_BASE_URL): TwilioClient {
  const key = createHash('sha256')
    .update(JSON.stringify([apiBaseUrl, account.accountSid, account.authToken, account.apiKey ?? null]))
    .digest('hex');
  let client = clients.get(key);
  if (!client) {
    client = newTwilioClient(account, apiBaseUrl);
    clients.set(key, client);
  }
  return client;
}

/** Twilio answering at all: a refusal (RestException) is an answer; anything else means it was not reached. */
async function askTwilio<T>(what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof twilio.RestException) throw error;
    throw new AppError('CARRIER_UNAVAILABLE', `Twilio could not be reached to ${what}; nothing was saved`);
  }
}

/**
 * Checks credentials against Twilio before anything is saved: the account must exist, accept them
 * (the auth token, and the API key when given) and be active. Returns the account's name.
 */
export async function checkTwilioAccount(
  account: TwilioAccount,
  apiBaseUrl?: string,
): Promise<{ friendlyName: string }> {
  const fetchAccount = (credentials: TwilioAccount) =>
    askTwilio('check the credentials', () =>
      newTwilioClient(credentials, apiBaseUrl).api.v2010.accounts(account.accountSid).fetch(),
    );
  try {
    const found = await fetchAccount({ accountSid: account.accountSid, authToken: account.authToken });
    if (account.apiKey) await fetchAccount(account);
    if (found.status !== 'active')
      throw new AppError(
        'UNPROCESSABLE',
        `Twilio account ${account.accountSid} is ${found.status}, not active`,
      );
    return { friendlyName: found.friendlyName };
  } catch (error) {
    if (
      error instanceof twilio.RestException &&
      (error.status === 401 || error.status === 403 || error.status === 404)
    )
      throw new AppError(
        'UNPROCESSABLE',
        `Twilio refused these credentials for account ${account.accountSid} (${error.code ?? error.status}: ${error.message})`,
      );
    throw error;
  }
}

/**
 * The Twilio number's SID when the account has the number (IncomingPhoneNumbers), null when it does
 * not: a number can be used only through the account that has it.
 */
export async function findTwilioNumber(
  account: TwilioAccount,
  phoneNumber: string,
  apiBaseUrl?: string,
): Promise<string | null> {
  const numbers = await askTwilio('look up the number', () =>
    twilioClient(account, apiBaseUrl).incomingPhoneNumbers.list({ phoneNumber, limit: 1 }),
  );
  return numbers.find((number) => number.phoneNumber === phoneNumber)?.sid ?? null;
}

/** Points a number's incoming calls at the service: its voice webhook and its status callback. */
export async function routeTwilioNumber(
  account: TwilioAccount,
  numberSid: string,
  urls: { voiceUrl: string; statusCallback: string },
  apiBaseUrl?: string,
): Promise<void> {
  await askTwilio('configure the number', () =>
    twilioClient(account, apiBaseUrl).incomingPhoneNumbers(numberSid).update({
      voiceUrl: urls.voiceUrl,
      voiceMethod: 'POST',
      statusCallback: urls.statusCallback,
      statusCallbackMethod: 'POST',
    }),
  );
}

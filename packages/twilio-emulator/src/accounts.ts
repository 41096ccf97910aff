import { randomBytes } from 'node:crypto';
import { base, page, rfc2822, sid } from './rest';
import type { EmulatorState } from './state';
import type { EmulatedAccount, IncomingNumber } from './types';

// The Accounts and IncomingPhoneNumbers resources: an account's credentials, API keys and numbers.

export const NUMBER_UPDATE_PARAMETERS = new Set([
  'FriendlyName',
  'VoiceUrl',
  'VoiceMethod',
  'VoiceFallbackUrl',
  'VoiceFallbackMethod',
  'StatusCallback',
  'StatusCallbackMethod',
  'VoiceReceiveMode',
]);

export function addAccount(
  state: EmulatorState,
  account: {
    sid?: string;
    authToken?: string;
    friendlyName?: string;
    status?: EmulatedAccount['status'];
  } = {},
): EmulatedAccount {
  const created: EmulatedAccount = {
    sid: account.sid ?? sid('AC'),
    authToken: account.authToken ?? randomBytes(16).toString('hex'),
    friendlyName: account.friendlyName ?? `Account ${state.accounts.size + 1}`,
    status: account.status ?? 'active',
    apiKeys: new Map(),
    numbers: new Map(),
    addApiKey() {
      const key = { sid: sid('SK'), secret: randomBytes(16).toString('hex') };
      created.apiKeys.set(key.sid, key.secret);
      return key;
    },
    addNumber(phoneNumber) {
      const number: IncomingNumber = {
        sid: sid('PN'),
        phoneNumber,
        friendlyName: phoneNumber,
        voiceUrl: '',
        voiceMethod: 'POST',
        statusCallback: '',
        statusCallbackMethod: 'POST',
      };
      created.numbers.set(phoneNumber, number);
      return number;
    },
  };
  state.accounts.set(created.sid, created);
  return created;
}

export function accountResource(account: EmulatedAccount) {
  return {
    sid: account.sid,
    owner_account_sid: account.sid,
    friendly_name: account.friendlyName,
    status: account.status,
    type: 'Full',
    auth_token: account.authToken,
    date_created: rfc2822(new Date(0)),
    date_updated: rfc2822(new Date(0)),
    uri: `${base(account.sid)}.json`,
    subresource_uris: {},
  };
}

export function numberResource(account: EmulatedAccount, number: IncomingNumber) {
  return {
    sid: number.sid,
    account_sid: account.sid,
    phone_number: number.phoneNumber,
    friendly_name: number.friendlyName,
    voice_url: number.voiceUrl || null,
    voice_method: number.voiceMethod,
    status_callback: number.statusCallback || null,
    status_callback_method: number.statusCallbackMethod,
    capabilities: { voice: true, sms: true, mms: false, fax: false },
    status: 'in-use',
    api_version: '2010-04-01',
    uri: `${base(account.sid)}/IncomingPhoneNumbers/${number.sid}.json`,
  };
}

/** The account's numbers, or the one `PhoneNumber` names. */
export function listNumbers(account: EmulatedAccount, query: URLSearchParams) {
  const wanted = query.get('PhoneNumber');
  const numbers = [...account.numbers.values()].filter((number) => !wanted || number.phoneNumber === wanted);
  return page(
    `${base(account.sid)}/IncomingPhoneNumbers.json`,
    'incoming_phone_numbers',
    numbers.map((number) => numberResource(account, number)),
    query,
  );
}

/** Where the number's calls go: its voice webhook and status callback, as the service points them. */
export function updateNumber(number: IncomingNumber, params: Record<string, string>) {
  if (params.FriendlyName !== undefined) number.friendlyName = params.FriendlyName;
  if (params.VoiceUrl !== undefined) number.voiceUrl = params.VoiceUrl;
  if (params.VoiceMethod !== undefined) number.voiceMethod = params.VoiceMethod;
  if (params.StatusCallback !== undefined) number.statusCallback = params.StatusCallback;
  if (params.StatusCallbackMethod !== undefined) number.statusCallbackMethod = params.StatusCallbackMethod;
}

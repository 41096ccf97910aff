import type { TwilioAccount } from './client';
import type { CoreDeps } from '../../deps';
import { open, seal } from '../../secrets/secret-box';

type Deps = Pick<CoreDeps, 'db' | 'config'>;

/** The write-only part of a connection, as sealed in its `credentials` column. */
interface StoredCredentials {
  auth_token: string;
  api_key_secret: string | null;
}

/** A Twilio account from its SID and the credentials given for it (an API key needs its SID and secret). */
export function twilioAccountFrom(
  accountSid: string,
  given: { auth_token: string; api_key_sid?: string | null; api_key_secret?: string | null },
): TwilioAccount {
  return {
    accountSid,
    authToken: given.auth_token,
    ...(given.api_key_sid && given.api_key_secret
      ? { apiKey: { sid: given.api_key_sid, secret: given.api_key_secret } }
      : {}),
  };
}

/** A connection's write-only credentials, sealed for its `credentials` column. */
export function sealTwilioAccount(config: CoreDeps['config'], account: TwilioAccount): string {
  const stored: StoredCredentials = {
    auth_token: account.authToken,
    api_key_secret: account.apiKey?.secret ?? null,
  };
  return seal(config, JSON.stringify(stored));
}

/** A stored connection's Twilio credentials, opened. */
export function twilioAccountOf(
  config: CoreDeps['config'],
  row: { carrierAccountId: string; apiKeyId: string | null; credentials: string },
): TwilioAccount {
  const stored = JSON.parse(open(config, row.credentials)) as StoredCredentials;
  return twilioAccountFrom(row.carrierAccountId, {
    auth_token: stored.auth_token,
    api_key_sid: row.apiKeyId,
    api_key_secret: stored.api_key_secret,
  });
}

/**
 * Which Twilio account a service number is used through: the account's connection that has the
 * number, or the deployment's own account (TWILIO_ACCOUNT_SID) for a number without one. Null when
 * there is neither.
 */
export async function twilioAccountForNumber(deps: Deps, number: string): Promise<TwilioAccount | null> {
  const row = await deps.db.phoneNumber.findUnique({
    where: { number },
    select: { carrierConnection: true },
  });
  if (row?.carrierConnection) return twilioAccountOf(deps.config, row.carrierConnection);
  return deps.config.twilio ?? null;
}

/** The service's number of a call: the one it dialed from, or the one an incoming call reached. */
export function serviceNumberOf(call: { direction: string; fromNumber: string; toNumber: string }): string {
  return call.direction === 'incoming' ? call.toNumber : call.fromNumber;
}

/**
 * The Twilio account a call (by its CallSid) goes through: the account of the call's service number. A
 * warm transfer's call to a colleague goes through its call's.
 */
export async function twilioAccountForCall(deps: Deps, carrierCallId: string): Promise<TwilioAccount | null> {
  const select = { direction: true, fromNumber: true, toNumber: true } as const;
  const call =
    (await deps.db.call.findUnique({ where: { carrierCallId }, select })) ??
    (await deps.db.callTransfer.findUnique({ where: { carrierCallId }, select: { call: { select } } }))?.call;
  return call ? twilioAccountForNumber(deps, serviceNumberOf(call)) : (deps.config.twilio ?? null);
}

/**
 * The auth tokens that may sign a request from the Twilio account `accountSid`: the deployment's own
 * when it is that account, and each connection's to it (accounts may connect the same Twilio account).
 */
export async function twilioAuthTokensOf(deps: Deps, accountSid: string): Promise<string[]> {
  const tokens = new Set<string>();
  if (deps.config.twilio?.accountSid === accountSid) tokens.add(deps.config.twilio.authToken);
  const connections = await deps.db.carrierConnection.findMany({
    where: { provider: 'twilio', carrierAccountId: accountSid },
    select: { carrierAccountId: true, apiKeyId: true, credentials: true },
  });
  for (const connection of connections) tokens.add(twilioAccountOf(deps.config, connection).authToken);
  return [...tokens];
}

/** The SID of the Twilio account a service number goes through (see twilioAccountForNumber). */
export async function twilioAccountSidOfNumber(deps: Deps, number: string): Promise<string | null> {
  const row = await deps.db.phoneNumber.findUnique({
    where: { number },
    select: { carrierConnection: { select: { carrierAccountId: true } } },
  });
  return row?.carrierConnection?.carrierAccountId ?? deps.config.twilio?.accountSid ?? null;
}

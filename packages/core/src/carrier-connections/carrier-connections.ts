import { Prisma } from '@voice/db';
import { twilioUrl } from '../telephony/twilio/signature';
import type { TwilioAccount } from '../telephony/twilio/client';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount, isUuid } from '../scope';
import type {
  CarrierConnectionIdInput,
  CarrierConnectionView,
  CreateCarrierConnectionInput,
  UpdateCarrierConnectionInput,
} from './schemas';
import { sealTwilioAccount, twilioAccountFrom, twilioAccountOf } from '../telephony/twilio/accounts';

/**
 * An account's own carrier accounts (Twilio). The credentials are checked against Twilio before
 * anything is written, sealed at rest like webhook secrets, and never returned. Calls from and to a
 * number go through the connection that has the number; numbers without one use the deployment's
 * Twilio account (TWILIO_ACCOUNT_SID).
 */

/** The Twilio REST helpers, loaded when a connection or a number is checked: the `twilio` package is large. */
const twilioRest = () => import('../telephony/twilio/client');

const include = { phoneNumbers: { select: { number: true }, orderBy: { number: 'asc' } } } as const;
type ConnectionRow = Prisma.CarrierConnectionGetPayload<{ include: typeof include }>;

function toView(row: ConnectionRow): CarrierConnectionView {
  return {
    carrier_connection_id: row.id,
    provider: 'twilio',
    account_sid: row.carrierAccountId,
    api_key_sid: row.apiKeyId,
    name: row.name,
    phone_numbers: row.phoneNumbers.map((number) => number.number),
    created_at: row.createdAt.toISOString(),
    verified_at: row.verifiedAt.toISOString(),
  };
}

const connectionNotFound = () => new AppError('NOT_FOUND', 'Carrier connection not found');

async function findConnection(deps: CoreDeps, accountId: string, id: string) {
  const row = isUuid(id)
    ? await deps.db.carrierConnection.findFirst({ where: inAccount(accountId, { id }), include })
    : null;
  if (!row) throw connectionNotFound();
  return row;
}

/** Checks the credentials with Twilio; a refusal (or Twilio out of reach) throws and nothing is written. */
async function checked(deps: CoreDeps, account: TwilioAccount) {
  const { checkTwilioAccount } = await twilioRest();
  return checkTwilioAccount(account, deps.config.twilioApiBaseUrl);
}

export async function createCarrierConnection(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & CreateCarrierConnectionInput,
): Promise<CarrierConnectionView> {
  const account = twilioAccountFrom(input.account_sid, input);
  const conflict = () =>
    new AppError(
      'CONFLICT',
      `Twilio account ${account.accountSid} is already connected; update that connection's credentials instead`,
    );
  const where = inAccount(accountId, { provider: input.provider, carrierAccountId: account.accountSid });
  if (await deps.db.carrierConnection.findFirst({ where })) throw conflict();
  const { friendlyName } = await checked(deps, account);
  const now = deps.clock.now();
  try {
    const row = await deps.db.carrierConnection.create({
      data: {
        accountId,
        provider: input.provider,
        carrierAccountId: account.accountSid,
        name: friendlyName,
        apiKeyId: account.apiKey?.sid ?? null,
        credentials: sealTwilioAccount(deps.config, account),
        createdAt: now,
        verifiedAt: now,
      },
      include,
    });
    return toView(row);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw conflict();
    throw error;
  }
}

export async function listCarrierConnections(
  { db }: CoreDeps,
  { accountId }: { accountId: string },
): Promise<CarrierConnectionView[]> {
  const rows = await db.carrierConnection.findMany({
    where: inAccount(accountId),
    include,
    orderBy: { createdAt: 'asc' },
  });
  return rows.map(toView);
}

export async function getCarrierConnection(
  deps: CoreDeps,
  { accountId, carrier_connection_id }: { accountId: string } & CarrierConnectionIdInput,
): Promise<CarrierConnectionView> {
  return toView(await findConnection(deps, accountId, carrier_connection_id));
}

/** Replaces a connection's credentials (a rotated auth token, a new API key), checked with Twilio first. */
export async function updateCarrierConnection(
  deps: CoreDeps,
  { accountId, carrier_connection_id, fields }: { accountId: string } & UpdateCarrierConnectionInput,
): Promise<CarrierConnectionView> {
  const existing = await findConnection(deps, accountId, carrier_connection_id);
  const account = twilioAccountFrom(existing.carrierAccountId, fields);
  const { friendlyName } = await checked(deps, account);
  const row = await deps.db.carrierConnection.update({
    where: { id: existing.id },
    data: {
      name: friendlyName,
      apiKeyId: account.apiKey?.sid ?? null,
      credentials: sealTwilioAccount(deps.config, account),
      verifiedAt: deps.clock.now(),
    },
    include,
  });
  return toView(row);
}

/** Disconnects a Twilio account; refused while numbers still use it (their calls would lose their carrier). */
export async function deleteCarrierConnection(
  deps: CoreDeps,
  { accountId, carrier_connection_id }: { accountId: string } & CarrierConnectionIdInput,
): Promise<{ deleted: true }> {
  const existing = await findConnection(deps, accountId, carrier_connection_id);
  const inUse = () =>
    new AppError(
      'CONFLICT',
      `The connection still has numbers (${existing.phoneNumbers.map((n) => n.number).join(', ')}); move or remove them first`,
    );
  if (existing.phoneNumbers.length > 0) throw inUse();
  try {
    await deps.db.carrierConnection.delete({ where: { id: existing.id } });
  } catch (error) {
    // A number took the connection meanwhile (the foreign key restricts the delete).
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003') throw inUse();
    throw error;
  }
  return { deleted: true };
}

/**
 * Makes sure a connection of the account has a number at Twilio (nothing is written otherwise) and,
 * with `route` (a number being added), points the number's incoming calls at the service when the
 * service has a public URL. Returns the connection's id.
 */
export async function claimTwilioNumber(
  deps: CoreDeps,
  {
    accountId,
    connectionId,
    number,
    route,
  }: { accountId: string; connectionId: string; number: string; route: boolean },
): Promise<string> {
  const connection = await findConnection(deps, accountId, connectionId);
  const account = twilioAccountOf(deps.config, connection);
  const { findTwilioNumber, routeTwilioNumber } = await twilioRest();
  const numberSid = await findTwilioNumber(account, number, deps.config.twilioApiBaseUrl);
  if (!numberSid)
    throw new AppError(
      'UNPROCESSABLE',
      `Twilio account ${connection.carrierAccountId} does not have the number ${number}`,
    );
  const { publicUrl } = deps.config;
  if (route && publicUrl)
    await routeTwilioNumber(
      account,
      numberSid,
      { voiceUrl: twilioUrl(publicUrl, 'voice'), statusCallback: twilioUrl(publicUrl, 'status') },
      deps.config.twilioApiBaseUrl,
    );
  return connection.id;
}

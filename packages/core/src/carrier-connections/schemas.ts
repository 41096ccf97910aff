import { z } from 'zod';

const accountSid = z
  .string()
  .trim()
  .regex(/^AC[0-9a-fA-F]{32}$/, 'account_sid must be a Twilio account SID (AC followed by 32 hex digits)');
const apiKeySid = z
  .string()
  .trim()
  .regex(/^SK[0-9a-fA-F]{32}$/, 'api_key_sid must be a Twilio API key SID (SK followed by 32 hex digits)');
const secret = (name: string) =>
  z.string().trim().min(1, `${name} is required`).max(200, `${name} is at most 200 characters`);

/** An API key is its SID and its secret together. */
function keyComplete(input: { api_key_sid?: string | null; api_key_secret?: string | null }) {
  return (input.api_key_sid == null) === (input.api_key_secret == null);
}
const keyMessage = { message: 'api_key_sid and api_key_secret go together', path: ['api_key_secret'] };

/** The write-only part: the auth token, and an API key (null or omitted: none). */
const credentialFields = {
  auth_token: secret('auth_token'),
  api_key_sid: apiKeySid.nullish(),
  api_key_secret: secret('api_key_secret').nullish(),
};

/**
 * A Twilio account to connect. The auth token is required even with an API key: Twilio signs every
 * webhook with the account's auth token, and the service refuses callbacks it cannot verify. With an
 * API key, REST requests (placing and ending calls) authenticate with the key instead of the token.
 */
export const CreateCarrierConnectionInput = z
  .object({
    provider: z.literal('twilio', 'provider must be twilio').default('twilio'),
    account_sid: accountSid,
    ...credentialFields,
  })
  .strict()
  .refine(keyComplete, keyMessage);
export type CreateCarrierConnectionInput = z.infer<typeof CreateCarrierConnectionInput>;

export const CarrierConnectionIdInput = z.object({
  carrier_connection_id: z.uuid('carrier_connection_id must be a UUID'),
});
export type CarrierConnectionIdInput = z.infer<typeof CarrierConnectionIdInput>;

/** New credentials of a connection (a rotated auth token, another API key, or none: null drops the key). */
export const UpdateCarrierConnectionFields = z
  .object(credentialFields)
  .strict()
  .refine(keyComplete, keyMessage);
export type UpdateCarrierConnectionFields = z.infer<typeof UpdateCarrierConnectionFields>;

export const UpdateCarrierConnectionInput = CarrierConnectionIdInput.extend({
  fields: UpdateCarrierConnectionFields,
});
export type UpdateCarrierConnectionInput = z.infer<typeof UpdateCarrierConnectionInput>;

/** A connection as the API shows it: never its auth token or key secret. */
export const CarrierConnectionView = z.object({
  carrier_connection_id: z.uuid(),
  provider: z.literal('twilio'),
  account_sid: z.string(),
  api_key_sid: z.string().nullable(),
  /** The carrier account's name, as Twilio reported it when the credentials were checked. */
  name: z.string().nullable(),
  /** The account's numbers this connection has (E.164). */
  phone_numbers: z.array(z.string()),
  created_at: z.string(),
  verified_at: z.string(),
});
export type CarrierConnectionView = z.infer<typeof CarrierConnectionView>;

export const DeleteCarrierConnectionResult = z.object({ deleted: z.literal(true) });

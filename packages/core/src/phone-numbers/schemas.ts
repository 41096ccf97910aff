import { z } from 'zod';

export const PhoneNumberView = z.object({
  phone_number_id: z.uuid(),
  phone_number: z.string(),
  phone_number_pretty: z.string(),
  display_name: z.string().nullable(),
  account_id: z.uuid(),
  account_name: z.string(),
  agent_id: z.uuid().nullable(),
  agent_name: z.string().nullable(),
  agent_version: z.number().int().nullable(),
  status: z.enum(['active', 'unassigned']),
  created_at: z.string(),
});
export type PhoneNumberView = z.infer<typeof PhoneNumberView>;

export const GetPhoneNumberInput = z.object({
  phone_number: z.string().min(1, 'phone_number is required'),
});
export type GetPhoneNumberInput = z.infer<typeof GetPhoneNumberInput>;

export const AddPhoneNumberInput = z.object({
  phone_number: z.string(),
  display_name: z.string().trim().min(1).max(100).nullish(),
  /**
   * The account's carrier connection that has the number (checked with the carrier); omitted: the
   * number goes through the deployment's own carrier account.
   */
  carrier_connection_id: z.uuid('carrier_connection_id must be a UUID').nullish(),
});
export type AddPhoneNumberInput = z.infer<typeof AddPhoneNumberInput>;

export const AssignPhoneNumberInput = z.object({
  phone_number: z.string(),
  /** null unassigns the number. */
  agent_id: z.uuid('agent_id must be a UUID').nullable(),
});
export type AssignPhoneNumberInput = z.infer<typeof AssignPhoneNumberInput>;

/** phone-number-assign's body: the number itself is in the path. */
export const AssignPhoneNumberFields = AssignPhoneNumberInput.omit({ phone_number: true });

export const ReleasePhoneNumberInput = GetPhoneNumberInput;
export type ReleasePhoneNumberInput = z.infer<typeof ReleasePhoneNumberInput>;

export const ReleasePhoneNumberResult = z.object({
  phone_number: z.string(),
  released: z.literal(true),
});
export type ReleasePhoneNumberResult = z.infer<typeof ReleasePhoneNumberResult>;

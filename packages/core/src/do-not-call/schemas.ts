import { z } from 'zod';

export const AddDoNotCallInput = z
  .object({
    phone_numbers: z
      .array(z.string())
      .min(1, 'must list at least one number')
      .max(10_000, 'at most 10000 numbers per request'),
    reason: z.string().max(200, 'must be at most 200 characters').optional(),
  })
  .strict();
export type AddDoNotCallInput = z.input<typeof AddDoNotCallInput>;

export const DoNotCallEntry = z.object({
  phone_number: z.string(),
  reason: z.string().nullable(),
  created_at: z.string(),
});

export const ListDoNotCallInput = z
  .object({
    limit: z.number().int().min(1).max(10_000).default(1000),
    /** The last phone number of the previous page. */
    after: z.string().optional(),
  })
  .strict();

import { z } from 'zod';

/** Dashboard sign-in's and API keys' inputs; zod only, so the dashboard validates its forms with the same schemas. */

export const PASSWORD_MIN_LENGTH = 12;

export const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(200, 'password must be at most 200 characters');

export const SignInInput = z.object({
  email: z.email('email must be an email address').max(320, 'email must be at most 320 characters'),
  password: z
    .string()
    .min(1, 'password must not be empty')
    .max(200, 'password must be at most 200 characters'),
});
export type SignInInput = z.infer<typeof SignInInput>;

export const CreateApiKeyInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(100, 'name must be at most 100 characters'),
});
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;

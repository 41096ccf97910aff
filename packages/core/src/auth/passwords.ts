import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;
/** OWASP's argon2id parameters: 19 MiB of memory, 2 passes, 1 lane. */
const PARAMETERS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMETERS);
}

/** Spent on sign-ins for unknown emails, so they take as long as a wrong password does. */
let decoy: Promise<string> | undefined;

/** Checks a password against a stored hash; with no hash it still spends the same time, then refuses. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    decoy ??= hashPassword('a password that no account has');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

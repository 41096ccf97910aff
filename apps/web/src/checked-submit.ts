import { useState, type FormEvent } from 'react';
import type { z } from 'zod';
import { invalidInput } from './api';

/**
 * A form checked with the API's own schema before anything is sent: `submit` reads the form
 * (`read`), and either keeps the schema's first problem, worded as the API words it, or sends the
 * parsed input (`send`, given a function that clears the form once it succeeded). `error` is the
 * problem to show: the schema's, else the api's answer (`apiError`).
 */
export function useCheckedSubmit<Schema extends z.ZodType>(
  schema: Schema,
  read: (data: FormData) => unknown,
  send: (input: z.output<Schema>, reset: () => void) => void,
  apiError: unknown,
) {
  const [invalid, setInvalid] = useState<Error | null>(null);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const parsed = schema.safeParse(read(new FormData(form)));
    if (!parsed.success) return setInvalid(invalidInput(parsed.error.issues));
    setInvalid(null);
    send(parsed.data, () => form.reset());
  }
  return { submit, error: invalid ?? apiError };
}

/** A form field's text, trimmed; omitted (undefined) when empty, as the API's optional fields want. */
export function optionalText(data: FormData, name: string): string | undefined {
  return String(data.get(name) ?? '').trim() || undefined;
}

import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { AppError } from './errors';

const E164 = /^\+[1-9]\d{1,14}$/;

/**
 * Checks that `value` is a dialable number written in E.164 (`+` and digits, no spaces), using the
 * full libphonenumber metadata. Throws a 400 naming the field otherwise.
 */
export function parseE164(value: string, field: string): string {
  const parsed = E164.test(value) ? parsePhoneNumberFromString(value) : undefined;
  if (!parsed || parsed.number !== value || !parsed.isValid()) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${field} must be a valid phone number in E.164 format, e.g. +14155550123`,
    );
  }
  return parsed.number;
}

/** International display form, e.g. `+1 415 555 0123`, `+972 50 123 4567`. */
export function prettyPhoneNumber(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}

import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors';
import { parseE164, prettyPhoneNumber } from './phone';
import { assertSafeInput, MAX_INPUT_DEPTH, parseConfig, parseInput } from './validation';

const Webhooks = z.object({
  webhooks: z.array(
    z.object({ name: z.string(), url: z.url().refine((u) => u.startsWith('https://'), 'must use https') }),
  ),
});

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('VALIDATION_FAILED');
    return (error as AppError).message;
  }
  throw new Error('expected a validation error');
}

describe('parseInput', () => {
  it('names the field, with its index, and the rule', () => {
    const input = {
      webhooks: [
        { name: 'a', url: 'https://a.example' },
        { name: 'b', url: 'http://b.example' },
      ],
    };
    expect(messageOf(() => parseInput(Webhooks, input))).toBe('webhooks[1].url: must use https');
  });

  it('says a missing field is required, and a wrong type is a type error', () => {
    expect(messageOf(() => parseInput(Webhooks, { webhooks: [{ url: 'https://a.example' }] }))).toBe(
      'webhooks[0].name is required',
    );
    expect(messageOf(() => parseInput(Webhooks, { webhooks: 'nope' }))).toMatch(
      /^webhooks: Invalid input: expected array/,
    );
  });

  it('ignores unknown fields', () => {
    expect(parseInput(Webhooks, { webhooks: [], extra: 1 })).toEqual({ webhooks: [] });
  });
});

describe('assertSafeInput', () => {
  it('names the field holding text Postgres cannot store', () => {
    expect(messageOf(() => assertSafeInput({ metadata: { tags: ['ok', 'a\u0000b'] } }))).toBe(
      'metadata.tags[1]: must not contain a NUL character or an unpaired surrogate',
    );
    expect(messageOf(() => assertSafeInput({ vars: { 'x\udbffy': '' } }))).toBe(
      'vars: a key must not contain a NUL character or an unpaired surrogate',
    );
    expect(() => assertSafeInput({ name: 'emoji 🔑, RTL \u202e, combining e\u0301' })).not.toThrow();
  });

  it('refuses hostile depth without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(messageOf(() => assertSafeInput({ metadata: deep }))).toMatch(
      new RegExp(`^metadata(\\[0\\])+: nested deeper than ${MAX_INPUT_DEPTH} levels$`),
    );
    let fine: unknown = 'leaf';
    for (let level = 1; level < MAX_INPUT_DEPTH; level += 1) fine = { a: fine };
    expect(() => assertSafeInput(fine)).not.toThrow();
  });
});

describe('parseConfig', () => {
  it('lists every problem of a configuration', () => {
    const Env = z.object({ DATABASE_URL: z.string(), PORT: z.coerce.number().int() });
    expect(() => parseConfig(Env, { PORT: 'x' }, 'api')).toThrow(
      /Invalid api configuration:\n {2}DATABASE_URL: .*\n {2}PORT: /,
    );
    expect(parseConfig(Env, { DATABASE_URL: 'postgres://', PORT: '80' }, 'api')).toEqual({
      DATABASE_URL: 'postgres://',
      PORT: 80,
    });
  });
});

describe('phone numbers', () => {
  it('accepts only valid E.164 and formats for display', () => {
    expect(parseE164('+14155550123', 'to_number')).toBe('+14155550123');
    for (const bad of [
      '14155550123',
      '+1 415 555 0123',
      '+1415555012',
      '+0123456789',
      '',
      '+999999999999999',
    ]) {
      expect(messageOf(() => parseE164(bad, 'to_number'))).toBe(
        'to_number must be a valid phone number in E.164 format, e.g. +14155550123',
      );
    }
    expect(prettyPhoneNumber('+442071838750')).toBe('+44 20 7183 8750');
  });
});

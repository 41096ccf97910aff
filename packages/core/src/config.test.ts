import { describe, expect, it } from 'vitest';
import { DEFAULT_COST_RATES } from './calls/cost';
import { ServiceEnv, insecureMediaStreamUrl } from './config';

describe('the media stream URL', () => {
  it('is refused as ws:// on a host the internet reaches, where Twilio would connect over TLS only', () => {
    expect(insecureMediaStreamUrl('ws://voice.example.com/media/twilio')).toMatch(/not wss:\/\/.*TLS only/);
    expect(insecureMediaStreamUrl('ws://93.184.216.34:8080/media/twilio')).toMatch(/not wss/);
  });

  it('is fine over wss://, and as ws:// on a development machine', () => {
    expect(insecureMediaStreamUrl('wss://voice.example.com/media/twilio')).toBeNull();
    for (const host of ['127.0.0.1:3002', 'localhost:3002', '[::1]:3002', '10.0.0.5', 'api.localhost'])
      expect(insecureMediaStreamUrl(`ws://${host}/media/twilio`)).toBeNull();
    expect(insecureMediaStreamUrl(undefined)).toBeNull();
  });
});

describe('CALL_COST_RATES', () => {
  const base = {
    DATABASE_URL: 'postgresql://localhost/voice',
    JWT_SECRET: 'j'.repeat(32),
    SECRETS_KEY: 's'.repeat(32),
  };
  const parse = (value?: string) =>
    ServiceEnv.safeParse({ ...base, ...(value === undefined ? {} : { CALL_COST_RATES: value }) });

  it('is the defaults when unset, and any of the rates over them when set', () => {
    expect(parse().data?.CALL_COST_RATES).toEqual(DEFAULT_COST_RATES);
    expect(parse('{"carrier_per_minute": 0.0085}').data?.CALL_COST_RATES).toEqual({
      ...DEFAULT_COST_RATES,
      carrier_per_minute: 0.0085,
    });
  });

  it('stops the service with the reason when it is not JSON, names an unknown rate, or changes only the currency', () => {
    expect(parse('0.01').error?.issues[0]?.message).toMatch(/^rates: /);
    expect(parse('{carrier: 1}').error?.issues[0]?.message).toBe(
      'must be JSON, e.g. {"carrier_per_minute": 0.0085}',
    );
    expect(parse('{"carrier_per_minute": -1}').error?.issues[0]?.message).toMatch(/^carrier_per_minute: /);
    expect(parse('{"per_call": 1}').success).toBe(false);
    expect(parse('{"currency": "EUR"}').error?.issues[0]?.message).toBe(
      'rates: a currency comes with every rate in it',
    );
  });
});

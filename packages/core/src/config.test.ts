import { describe, expect, it } from 'vitest';
import { insecureMediaStreamUrl } from './config';

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

import { parseWav, rms } from '@voice/audio/wav';
import { espeakTextToSpeech, type TextToSpeech } from '@voice/providers/tts';
import { voiceSamples } from '@voice/providers/voice-samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';

let api: TestApi;
let bare: TestApi;
let key: string;
let bareKey: string;
const spoken: { text: string; voice: string; language: string }[] = [];
/** eSpeak NG, as the api's main sets it up offline, with every synthesis it is asked for noted. */
const counted: TextToSpeech = {
  synthesize(text, options) {
    spoken.push({ text, ...options });
    return espeakTextToSpeech.synthesize(text, options);
  },
};

beforeAll(async () => {
  [api, bare] = await Promise.all([
    startTestApi({ voiceSamples: voiceSamples(counted) }),
    startTestApi({ voiceSamples: null }),
  ]);
  ({ key } = await seedAccount(api.deps, 'Alpha', []));
  ({ key: bareKey } = await seedAccount(bare.deps, 'Bare', []));
}, 60_000);
afterAll(async () => {
  await api?.close();
  await bare?.close();
});

const sample = (target: TestApi, input: unknown, as = key) =>
  http(`${target.url}/trpc/voices.sample?input=${encodeURIComponent(JSON.stringify(input))}`, { key: as });
/** The procedure's answer, from tRPC's `{result: {data}}`. */
const dataOf = (res: { json: unknown }) =>
  (res.json as { result: { data: Record<string, string> } }).result.data;

describe('voices.sample', () => {
  it("speaks a voice's sample sentence in its language as a WAV file, synthesised once", async () => {
    const res = await sample(api, { voice: 'Ori' });
    expect(res.status).toBe(200);
    const data = dataOf(res);
    expect(data).toMatchObject({ voice: 'Ori', language: 'he-IL', content_type: 'audio/wav' });
    expect(data.text).toMatch(/[\u0590-\u05FF]/);
    const wav = parseWav(Buffer.from(data.audio_base64!, 'base64'));
    expect(wav.sampleRate).toBe(8000);
    // Real speech: over a second long and clearly louder than silence.
    expect(wav.samples.length / wav.sampleRate).toBeGreaterThan(1);
    expect(rms(wav.samples)).toBeGreaterThan(500);
    expect(spoken).toEqual([{ text: data.text, voice: 'he-ori', language: 'he-IL' }]);

    const again = await sample(api, { voice: 'he-ori' });
    expect(dataOf(again)).toEqual(data);
    const english = await sample(api, { voice: 'Ori', language: 'en-US' });
    expect(dataOf(english).text).toMatch(/^Hello/);
    expect(spoken.map((entry) => entry.language)).toEqual(['he-IL', 'en-US']);
  }, 30_000);

  it('refuses an unknown voice or language with the message beside the field, and speaks nothing', async () => {
    const before = spoken.length;
    const unknown = await sample(api, { voice: 'Nobody' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.json)).toContain('Invalid voice \\"Nobody\\". Valid voices:');
    const language = await sample(api, { voice: 'Ori', language: 'english!' });
    expect(language.status).toBe(400);
    expect(JSON.stringify(language.json)).toContain(
      'language: must be a language code such as he, en or en-US',
    );
    expect(spoken.length).toBe(before);
  });

  it('says so when the server has no text-to-speech', async () => {
    const res = await sample(bare, { voice: 'Ori' }, bareKey);
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.json)).toContain('This server has no text-to-speech configured');
  });
});

import { speak } from '@voice/audio';

export interface TextToSpeech {
  /** The text spoken in the voice, as 8 kHz μ-law ready for the phone line. */
  synthesize(text: string, options: { language: string; voice: string }): Promise<Buffer>;
}

/** eSpeak NG's voice for a BCP 47 language (`he`, `en-US` → `he`, `en-us`). */
export function espeakVoiceFor(language: string): string {
  const lower = language.toLowerCase();
  return lower === 'en' ? 'en-us' : lower;
}

/**
 * The offline default: eSpeak NG, which needs no key and speaks many languages, Hebrew among them.
 * Robotic, but the line is never silent for want of a provider.
 */
export const espeakTextToSpeech: TextToSpeech = {
  synthesize: (text, { language }) => speak(text, espeakVoiceFor(language)),
};

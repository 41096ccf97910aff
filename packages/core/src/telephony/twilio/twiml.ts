import VoiceResponse from 'twilio/lib/twiml/VoiceResponse.js';

/**
 * The TwiML the service answers Twilio with, built with the `twilio` package's own VoiceResponse
 * (only its TwiML part: a service that does not talk to Twilio loads none of it).
 */

type SayLanguage = NonNullable<Exclude<Parameters<VoiceResponse['say']>[0], string>['language']>;

const SAY_REGIONS: Record<string, string> = {
  he: 'he-IL',
  en: 'en-US',
  ar: 'ar-XA',
  es: 'es-ES',
  fr: 'fr-FR',
  de: 'de-DE',
  ru: 'ru-RU',
};

/** `<Say>`'s language for an agent's language tag (Twilio's own voices take tags like `he-IL`). */
const sayLanguage = (language: string): SayLanguage =>
  (language.includes('-') ? language : (SAY_REGIONS[language] ?? language)) as SayLanguage;

type MediaStream = { url: string; parameters: Record<string, string> };

function connectStream(response: VoiceResponse, stream: MediaStream) {
  const connected = response.connect().stream({ url: stream.url });
  for (const [name, value] of Object.entries(stream.parameters)) connected.parameter({ name, value });
}

/** A call's audio streamed both ways to the media server, with the call's parameters. */
export function streamTwiml(stream: MediaStream): string {
  const response = new VoiceResponse();
  connectStream(response, stream);
  return response.toString();
}

/** Speaks a message in a language, then hangs up. */
export function sayThenHangUpTwiml(text: string, language: string): string {
  const response = new VoiceResponse();
  response.say({ language: sayLanguage(language) }, text);
  response.hangup();
  return response.toString();
}

/** Hands the call to another number. */
export function dialTwiml(destination: string): string {
  const response = new VoiceResponse();
  response.dial(destination);
  return response.toString();
}

/**
 * A conference joined for good: it starts as the call enters, and ends (the others hung up) as the call
 * leaves. No beep, no waiting music: the other side is a warm transfer's caller or its colleague.
 */
function joinConference(response: VoiceResponse, conference: string) {
  response
    .dial()
    .conference(
      { beep: 'false', startConferenceOnEnter: true, endConferenceOnExit: true, waitUrl: '' },
      conference,
    );
}

/** Moves a call into a conference (a warm transfer's caller joining the colleague). */
export function conferenceTwiml(conference: string): string {
  const response = new VoiceResponse();
  joinConference(response, conference);
  return response.toString();
}

/**
 * A warm transfer's colleague: the agent's briefing over a media stream, then, as the media server ends
 * the stream, the conference where the caller joins them.
 */
export function briefThenConferenceTwiml(stream: MediaStream, conference: string): string {
  const response = new VoiceResponse();
  connectStream(response, stream);
  joinConference(response, conference);
  return response.toString();
}

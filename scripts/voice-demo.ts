// `pnpm dev` (without --no-voice): the settings that put live conversations on the dev stack. Each provider
// whose key is set in the environment is the real one; each other is a local emulator of its protocol,
// reached through the same base-URL settings (docs/voice.md). The services never know the difference. The
// demo flow's calendar is served here over HTTPS, its certificate trusted by the stack's processes and its
// host allowed as a function's address, as a deployment allows an internal endpoint (docs/flows.md).
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR } from '@voice/dev';
import {
  DEMO_CALLEE,
  demoModel,
  demoTranscript,
  startDemoCalendar,
  startLlmEmulator,
  startSttEmulator,
} from '@voice/provider-emulators';
import { startTwilioEmulator } from '@voice/twilio-emulator';

export interface VoiceDemo {
  env: Record<string, string>;
  /** The demo calendar's availability URL: the demo flow's function node asks it. */
  calendarUrl: string;
  describe(apiUrl: string, apiKey: string): string[];
  stop(): Promise<void>;
}

export async function startVoiceDemo({
  publicUrl,
  mediaPort,
  calendarPort,
  log,
}: {
  publicUrl: string;
  mediaPort: number;
  calendarPort: number;
  log: (message: string) => void;
}): Promise<VoiceDemo> {
  const env: Record<string, string> = {
    CARRIER: 'twilio',
    MEDIA_PORT: String(mediaPort),
    MEDIA_PUBLIC_URL: process.env.MEDIA_PUBLIC_URL ?? `ws://127.0.0.1:${mediaPort}/media/twilio`,
    // The api serves what the media server records: one directory for both.
    RECORDINGS_DIR: process.env.RECORDINGS_DIR ?? join(DATA_DIR, 'recordings'),
  };
  const stops: (() => Promise<void>)[] = [];

  if (!process.env.TWILIO_ACCOUNT_SID) {
    // The callee stays on the line until the agent ends the call.
    const twilio = await startTwilioEmulator({
      mediaStreams: true,
      ringMs: 1_500,
      talkMs: 120_000,
      callee: () => DEMO_CALLEE,
    });
    Object.assign(env, {
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_API_BASE_URL: twilio.url,
    });
    stops.push(() => twilio.close());
    log(`voice: Twilio emulated at ${twilio.url} (callbacks to ${publicUrl})`);
  } else log('voice: Twilio (TWILIO_ACCOUNT_SID)');

  if (!process.env.OPENAI_API_KEY) {
    const llm = await startLlmEmulator({ reply: demoModel });
    Object.assign(env, { OPENAI_API_KEY: 'sk-demo', OPENAI_BASE_URL: llm.baseUrl });
    stops.push(() => llm.stop());
    log(`voice: language model emulated at ${llm.baseUrl}`);
  } else log('voice: language model at OPENAI_BASE_URL (or OpenAI)');

  if (!process.env.DEEPGRAM_API_KEY) {
    const stt = await startSttEmulator({ transcript: demoTranscript });
    Object.assign(env, { DEEPGRAM_API_KEY: 'dg-demo', DEEPGRAM_BASE_URL: stt.url });
    stops.push(() => stt.stop());
    log(`voice: speech-to-text emulated at ${stt.url}`);
  } else log('voice: speech-to-text at Deepgram');

  const calendar = await startDemoCalendar({ dir: join(DATA_DIR, 'demo-calendar'), port: calendarPort });
  stops.push(() => calendar.stop());
  env.WEBHOOK_ALLOWED_HOSTS = [process.env.WEBHOOK_ALLOWED_HOSTS, calendar.host].filter(Boolean).join(',');
  env.NODE_EXTRA_CA_CERTS = trusted(calendar.caFile);
  log(`voice: the demo flow's calendar at ${calendar.url} (certificate ${calendar.caFile})`);

  return {
    env,
    calendarUrl: calendar.url,
    describe: (apiUrl, apiKey) => [
      `  Media server: ws://127.0.0.1:${mediaPort}/media/twilio   (live conversations; docs/voice.md)`,
      '  First, in the dashboard: Agents → Demo Receptionist → "Talk to this agent" (your microphone),',
      '  and Agents → Demo Appointment Flow → Open the flow builder: its text chat and "Talk to the draft"',
      `  book through the demo calendar (${calendar.url}).`,
      '  Place a call, then fetch it and download its recording (recording_url):',
      `    curl -H "Authorization: Bearer ${apiKey}" -H "content-type: application/json" \\`,
      `      -d '{"from_number":"+14155550100","to_number":"+14155550008"}' ${apiUrl}/functions/v1/call-dial`,
      `    curl -H "Authorization: Bearer ${apiKey}" ${apiUrl}/functions/v1/call-get/<call_id>`,
    ],
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}

/**
 * The certificates the stack's processes trust beyond the system's: the calendar's, and any the
 * environment already named (NODE_EXTRA_CA_CERTS takes one file).
 */
function trusted(caFile: string): string {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (!extra) return caFile;
  const both = join(DATA_DIR, 'demo-calendar', 'trusted.pem');
  writeFileSync(both, `${readFileSync(extra, 'utf8').trim()}\n${readFileSync(caFile, 'utf8')}`);
  return both;
}

import { MULAW_SILENCE } from '@voice/audio';
import type { AgentTestScenario, ConversationResult, TranscriptEntry } from '@voice/core';
import type { LanguageModel, LlmMessage, SpeechToText, SttEvents, TextToSpeech } from '@voice/providers';
import { streamReply } from '../conversation/model-reply';
import type { SessionAgent } from '../conversation/options';
import { ConversationSession } from '../conversation/session';
import { TextLine } from './text-line';

/**
 * A test bench conversation (docs/voice.md, "Test bench"): the live conversation engine (the same
 * ConversationSession, prompt, tools and turn-taking as a call) on a line without audio. Speech-to-text
 * hears what the simulated caller writes, as finished utterances; text-to-speech is silence, heard at
 * once. The language model plays the caller by the scenario's persona and goal, a turn each time the
 * agent has been quiet for a moment, until either side ends the call or the caller's turns run out.
 */

/** The agent quiet this long (everything it queued heard, nothing new) has finished its turn. */
const TURN_QUIET_MS = 600;
/** How long the model may take to write the caller's turn. */
const CALLER_TURN_TIMEOUT_MS = 30_000;
/** What the simulated caller writes to hang up. */
const HANG_UP = '[hang up]';

export type TextConversationEnd = ConversationResult['end'] | 'turn_limit';

/** The instructions of the model playing the caller. */
export const callerInstructions = (scenario: AgentTestScenario) =>
  'You are playing a caller on a phone call with a company’s voice agent, to test the agent. Stay in ' +
  `character.\nPersona: ${scenario.persona}\nYour goal: ${scenario.goal}\n` +
  'Write only what you say next, one short spoken turn. When your goal is reached or the call is ' +
  `over, write ${HANG_UP} alone.`;

/** The conversation so far as the caller's model sees it: the agent's words are the user's. */
function callerView(scenario: AgentTestScenario, transcript: TranscriptEntry[]): LlmMessage[] {
  const turns = transcript.filter((entry) => entry.role !== 'system' && entry.content);
  return [
    { role: 'system', content: callerInstructions(scenario) },
    ...turns.map((entry): LlmMessage =>
      entry.role === 'agent'
        ? { role: 'user', content: entry.content }
        : { role: 'assistant', content: entry.content },
    ),
  ];
}

export async function runTextConversation({
  agent,
  llm,
  scenario,
  knowledge,
  timeoutMs = 5 * 60_000,
}: {
  agent: SessionAgent;
  llm: LanguageModel;
  scenario: AgentTestScenario;
  knowledge?: (query: string) => Promise<string[]>;
  timeoutMs?: number;
}): Promise<{ transcript: TranscriptEntry[]; end: TextConversationEnd; failures: string[] }> {
  let hear: SttEvents | null = null;
  const stt: SpeechToText = {
    async open(_options, events) {
      hear = events;
      return { send() {}, close: async () => {} };
    },
  };
  // Twenty milliseconds of silence per sentence: the words reach the transcript, nobody hears them.
  const tts: TextToSpeech = { synthesize: async () => Buffer.alloc(160, MULAW_SILENCE) };
  let finished: (result: ConversationResult) => void = () => {};
  const ended = new Promise<ConversationResult>((resolve) => (finished = resolve));
  let turns = 0;
  let turnLimit = false;
  let quiet: NodeJS.Timeout | null = null;
  const line = new TextLine({
    said: () => {},
    played: () => quiet && clearTimeout(quiet),
    quiet: () => {
      if (quiet) clearTimeout(quiet);
      quiet = setTimeout(() => void callerTurn(), TURN_QUIET_MS);
    },
  });
  const session = new ConversationSession(line, {
    // No machine to leave a message on, nobody to be transferred to warm, no noise: words alone.
    agent: {
      ...agent,
      transferMode: 'cold',
      voicemail: null,
      noiseSuppression: false,
      reminderAfterMs: null,
    },
    ...(knowledge ? { knowledge } : {}),
    providers: { llm, stt, tts },
    vad: null,
    noise: null,
    limits: { silenceTimeoutMs: CALLER_TURN_TIMEOUT_MS * 2, maxDurationMs: timeoutMs },
    ended: async (result) => finished(result),
  });

  async function callerTurn() {
    if (turns >= scenario.max_turns) {
      turnLimit = true;
      return line.hungUp();
    }
    turns += 1;
    let text: string;
    try {
      const reply = await streamReply(
        llm,
        {
          history: callerView(scenario, session.transcript),
          tools: [],
          signal: AbortSignal.timeout(CALLER_TURN_TIMEOUT_MS),
          model: null,
        },
        () => {},
      );
      text = reply.text.trim();
    } catch (error) {
      session.failures.push(`simulated caller: ${(error as Error).message}`);
      return line.hungUp();
    }
    if (!text || text.includes(HANG_UP)) return line.hungUp();
    hear?.speech();
    hear?.utterance(text);
  }

  await session.start();
  // An agent that opened with nothing to say: the caller speaks first.
  if (!quiet && !line.speaking) quiet = setTimeout(() => void callerTurn(), TURN_QUIET_MS);
  const result = await ended;
  if (quiet) clearTimeout(quiet);
  return {
    transcript: result.transcript,
    end: turnLimit ? 'turn_limit' : result.end,
    failures: result.failures,
  };
}

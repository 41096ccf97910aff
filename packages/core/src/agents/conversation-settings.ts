import { z } from 'zod';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { isUuid } from '../scope';

/**
 * How an agent takes turns on a live call: dashboard settings the spec's agent has no field for, kept
 * in `agents.conversation_settings`. Each has a default; a stored value that no longer parses is read as
 * the default, never as an error on a live call.
 */
export const ConversationSettingsSchema = z
  .object({
    /**
     * How readily the caller's voice stops the agent, 0–1: 0 waits for 400 ms of the caller's voice, 1
     * stops at the first 32 ms; 0.5 (96 ms) by default. A backchannel or a noise lets the agent go on.
     */
    interruption_sensitivity: z.number().min(0).max(1),
    /**
     * How soon the agent answers once the caller stops, 0–1: 1 (the default) once speech-to-text has
     * their words, 0 up to 800 ms later; words unsure to be a finished sentence wait 1.6 s more, a
     * sentence left unfinished 1.8 s more (docs/voice.md, "End of turn").
     */
    responsiveness: z.number().min(0).max(1),
    /** A caller silent this long after the agent finished is reminded (ms); null: the deployment's silence timeout. */
    reminder_after_ms: z.number().int().min(2_000).max(120_000).nullable(),
    /** Reminders before the agent says goodbye and ends the call. */
    reminder_max_count: z.number().int().min(0).max(5),
    /**
     * What an agent that leaves voicemail messages does with its `voicemail_message`: `text` speaks it as
     * written (its `{{variables}}` filled), `instruction` has the language model write the message by it.
     */
    voicemail_message_kind: z.enum(['text', 'instruction']),
    /**
     * Noise suppression (RNNoise) on the caller's audio before voice activity detection and
     * speech-to-text: fewer pauses for noise around the caller, for some CPU on the media server.
     */
    noise_suppression: z.boolean(),
    /**
     * How the agent transfers a call (transfer_call): `cold` hands the caller to the destination at once;
     * `warm` puts them on hold, briefs the colleague who answers with a summary of the call, then joins
     * them, and comes back to the caller when nobody answers.
     */
    transfer_mode: z.enum(['cold', 'warm']),
  })
  .strict();

export type ConversationSettings = z.infer<typeof ConversationSettingsSchema>;

export const DEFAULT_CONVERSATION_SETTINGS: ConversationSettings = {
  interruption_sensitivity: 0.5,
  responsiveness: 1,
  reminder_after_ms: null,
  reminder_max_count: 1,
  voicemail_message_kind: 'text',
  noise_suppression: false,
  transfer_mode: 'cold',
};

/** What an update may hold: any of the settings. */
export const ConversationSettingsUpdateSchema = ConversationSettingsSchema.partial();

/** An agent's settings as stored, each one that is absent or no longer valid at its default. */
export function conversationSettingsOf(stored: unknown): ConversationSettings {
  const settings = { ...DEFAULT_CONVERSATION_SETTINGS };
  const object = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  const parsed = Object.fromEntries(
    Object.keys(settings).flatMap((key) => {
      const value = ConversationSettingsSchema.shape[key as keyof ConversationSettings].safeParse(
        object[key],
      );
      return value.success && object[key] !== undefined ? [[key, value.data]] : [];
    }),
  );
  return { ...settings, ...parsed };
}

export async function getConversationSettings(
  { db }: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<ConversationSettings> {
  if (!isUuid(agentId)) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
  const agent = await db.agent.findFirst({
    where: { id: agentId, accountId },
    select: { conversationSettings: true },
  });
  if (!agent) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
  return conversationSettingsOf(agent.conversationSettings);
}

/** Sets the settings given (validated by the caller's schema), the others kept; returns them all. */
export async function setConversationSettings(
  deps: CoreDeps,
  {
    accountId,
    agentId,
    settings,
  }: { accountId: string; agentId: string; settings: Partial<ConversationSettings> },
): Promise<ConversationSettings> {
  const current = await getConversationSettings(deps, { accountId, agentId });
  const next = { ...current, ...ConversationSettingsUpdateSchema.parse(settings) };
  const { count } = await deps.db.agent.updateMany({
    where: { id: agentId, accountId },
    data: { conversationSettings: next, updatedAt: deps.clock.now() },
  });
  if (count === 0) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
  return next;
}

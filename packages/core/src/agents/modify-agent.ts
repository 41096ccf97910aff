import { isDeepStrictEqual } from 'node:util';
import { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { openWebhookSecrets, type SecretsConfig } from '../secrets/secret-box';
import {
  agentInclude,
  extractedVariables,
  providedVariables,
  toAgentView,
  transferDestination,
  type AgentRow,
} from './agent-view';
import { loadAgent } from './get-agent';
import { resolveVoice } from './resolve-voice';
import {
  callHandlingProblems,
  type AgentView,
  type ModifyAgentInput,
  type ModifyWebhookInput,
  type WebhookInput,
} from './schemas';
import { storedExtractedVariables, storedProvidedVariables } from './variables';
import { assertWebhooksAllowed, webhookRows } from './webhook-config';

export const FLOW_AGENT_MODIFY_MESSAGE =
  'Only singlePrompt agents can be modified through the API; conversationalFlow agents are edited in the dashboard';

/**
 * The editable state of an agent, to tell whether a modify changes anything. Webhook secrets are
 * compared opened, and opened only when the modify sends webhooks (`config` given): other changes
 * never need the keys.
 */
function editableState(row: AgentRow, config: SecretsConfig | null) {
  return {
    name: row.name,
    prompt: row.prompt,
    language: row.language,
    voiceId: row.voiceId,
    welcomeMessage: row.welcomeMessage,
    variablesProvided: providedVariables(row),
    variablesExtracted: extractedVariables(row),
    notificationEmails: row.notificationEmails,
    transferCallEnabled: row.transferCallEnabled,
    transferCallDestination: transferDestination(row),
    voicemailAction: row.voicemailAction,
    voicemailMessage: row.voicemailMessage,
    ringTimeoutSeconds: row.ringTimeoutSeconds,
    llmModel: row.llmModel,
    // `enabled` is part of the state: resending a webhook that a 410 disabled turns it back on.
    webhooks: row.webhooks.map(({ name, url, secret, headers, enabled }) => ({
      name,
      url,
      ...(config
        ? openWebhookSecrets(config, { secret, headers: headers as Record<string, string> })
        : { secret, headers }),
      enabled,
    })),
  };
}

/**
 * The webhooks a modify asks for, complete: one given with the `id` of a current webhook keeps that
 * id, and its stored secret and headers where it omits them (`null` removes them).
 */
function resolveWebhooks(
  current: AgentRow,
  opened: { secret: string | null; headers: Record<string, string> }[],
  webhooks: readonly ModifyWebhookInput[],
): (WebhookInput & { id?: string })[] {
  return webhooks.map(({ id, secret, headers, ...rest }, index) => {
    if (id === undefined) return { ...rest, ...(secret ? { secret } : {}), ...(headers ? { headers } : {}) };
    const position = current.webhooks.findIndex((webhook) => webhook.id === id);
    if (position < 0 || webhooks.findIndex((other) => other.id === id) !== index)
      throw new AppError(
        'VALIDATION_FAILED',
        `webhooks[${index}].id ${position < 0 ? "must be the id of one of the agent's webhooks" : 'is given twice'}`,
      );
    const stored = opened[position]!;
    const keptSecret = secret === undefined ? stored.secret : secret;
    const keptHeaders = headers === undefined ? stored.headers : (headers ?? {});
    return { id, ...rest, ...(keptSecret ? { secret: keptSecret } : {}), headers: keptHeaders };
  });
}

/**
 * How a flow agent's settings are checked against its flow (flows/flow-agent-settings.ts): given to
 * modifyAgent by the layers that change flow agents, so that agents/ does not depend on flows/.
 */
export interface FlowAgentSettingsRules {
  /** Throws when the published flow (`definition`) uses a variable no longer given. */
  checkProvided(definition: Prisma.JsonValue, provided: string[]): void;
}

/** The agent as modified must still be able to do what it is set to (the create schema's rules). */
function assertCallHandling(agent: {
  transferCallEnabled: boolean;
  transferCallDestination: string | null;
  voicemailAction: string;
  voicemailMessage: string;
}) {
  const [problem] = callHandlingProblems({
    transfer_call_enabled: agent.transferCallEnabled,
    transfer_call_destination: agent.transferCallDestination,
    voicemail_action: agent.voicemailAction,
    voicemail_message: agent.voicemailMessage,
  });
  if (problem) throw new AppError('VALIDATION_FAILED', `${problem.field} ${problem.message}`);
}

/** A flow agent's words are its flow's: it has no prompt to change. */
export const FLOW_AGENT_PROMPT_MESSAGE =
  'prompt: a conversationalFlow agent has no prompt: its flow says what it says';

/**
 * Changes only the fields given (arrays replace whole sets; omitted webhooks stay) and deploys at once.
 * A modify that changes something bumps `version` and `updated_at`; one that changes nothing leaves both.
 *
 * The API's agent-modify changes singlePrompt agents only (422 for a flow agent, as the spec says);
 * with `flowAgents` (the dashboard and the typed client) a flow agent's own settings change too: everything
 * but a prompt (its flow changes by publishing: publishFlow). Its new version carries the flow it had,
 * as a version row of its own (so a call keeps the version it was placed with), written in the same
 * transaction and guarded by the version read as a publish is; variables its flow uses must stay given.
 */
export async function modifyAgent(
  deps: CoreDeps,
  { accountId, agentId, ...input }: { accountId: string; agentId: string } & ModifyAgentInput,
  { flowAgents }: { flowAgents?: FlowAgentSettingsRules } = {},
): Promise<AgentView> {
  const current = await loadAgent(deps.db, accountId, agentId);
  const flow = current.agentType === 'conversationalFlow';
  if (flow && !flowAgents) throw new AppError('UNPROCESSABLE', FLOW_AGENT_MODIFY_MESSAGE);
  if (flow && input.prompt !== undefined && input.prompt !== current.prompt)
    throw new AppError('VALIDATION_FAILED', FLOW_AGENT_PROMPT_MESSAGE);
  const voice = input.voice === undefined ? current.voice : await resolveVoice(deps.db, input.voice);
  if (input.webhooks) await assertWebhooksAllowed(deps, input.webhooks);

  const before = editableState(current, input.webhooks ? deps.config : null);
  const webhooks = input.webhooks
    ? resolveWebhooks(
        current,
        before.webhooks as { secret: string | null; headers: Record<string, string> }[],
        input.webhooks,
      )
    : null;
  const after = {
    name: input.name ?? before.name,
    prompt: input.prompt ?? before.prompt,
    language: input.language ?? before.language,
    voiceId: voice.id,
    welcomeMessage: input.welcome_message ?? before.welcomeMessage,
    variablesProvided: input.variables_provided
      ? storedProvidedVariables(input.variables_provided)
      : before.variablesProvided,
    variablesExtracted: input.variables_extracted
      ? storedExtractedVariables(input.variables_extracted)
      : before.variablesExtracted,
    notificationEmails: input.notification_emails ?? before.notificationEmails,
    transferCallEnabled: input.transfer_call_enabled ?? before.transferCallEnabled,
    transferCallDestination:
      input.transfer_call_destination === undefined
        ? before.transferCallDestination
        : input.transfer_call_destination,
    voicemailAction: input.voicemail_action ?? before.voicemailAction,
    voicemailMessage: input.voicemail_message ?? before.voicemailMessage,
    ringTimeoutSeconds:
      input.ring_timeout_seconds === undefined ? before.ringTimeoutSeconds : input.ring_timeout_seconds,
    llmModel: input.llm_model === undefined ? before.llmModel : input.llm_model,
    webhooks: webhooks
      ? webhooks.map(({ name, url, secret, headers }) => ({
          name,
          url,
          secret: secret ?? null,
          headers: headers ?? {},
          enabled: true,
        }))
      : before.webhooks,
  };
  assertCallHandling(after);
  if (isDeepStrictEqual(before, after)) return toAgentView(current);
  if (flow)
    flowAgents?.checkProvided(
      current.flowDefinition,
      after.variablesProvided.map((variable) => variable.name),
    );

  const now = deps.clock.now();
  const row = await deps.db.$transaction(async (tx) => {
    if (flow) {
      // The version read guards it, as a publish's does: a concurrent change makes this one fail.
      const claimed = await tx.agent.updateMany({
        where: { id: current.id, version: current.version },
        data: { version: current.version + 1 },
      });
      if (claimed.count !== 1) throw new AppError('CONFLICT', 'The agent changed meanwhile: save again');
      await tx.agentFlowVersion.create({
        data: {
          agentId: current.id,
          version: current.version + 1,
          definition: current.flowDefinition as Prisma.InputJsonValue,
          publishedAt: now,
        },
      });
    }
    if (webhooks) {
      await tx.agentWebhook.deleteMany({ where: { agentId: current.id } });
      await tx.agentWebhook.createMany({
        data: webhookRows(deps.config, webhooks).map((row, index) => ({
          ...row,
          ...(webhooks[index]!.id ? { id: webhooks[index]!.id } : {}),
          agentId: current.id,
        })),
      });
    }
    return tx.agent.update({
      where: { id: current.id },
      data: {
        name: after.name,
        prompt: after.prompt,
        language: after.language,
        voiceId: after.voiceId,
        welcomeMessage: after.welcomeMessage,
        variablesProvided: after.variablesProvided,
        variablesExtracted: after.variablesExtracted,
        notificationEmails: after.notificationEmails,
        transferCallEnabled: after.transferCallEnabled,
        transferCallDestination: after.transferCallDestination ?? Prisma.DbNull,
        voicemailAction: after.voicemailAction,
        voicemailMessage: after.voicemailMessage,
        ringTimeoutSeconds: after.ringTimeoutSeconds,
        llmModel: after.llmModel,
        ...(flow ? {} : { version: { increment: 1 } }),
        deployedAt: now,
        updatedAt: now,
      },
      include: agentInclude,
    });
  });
  return toAgentView(row);
}

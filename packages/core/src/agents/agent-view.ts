import type { Prisma } from '@voice/db';
import type {
  AgentCallHandling,
  AgentView,
  OlderAgentFullView,
  OlderAgentListItem,
  OlderAgentView,
} from './schemas';

export const agentInclude = {
  voice: true,
  account: true,
  webhooks: { orderBy: { position: 'asc' } },
} satisfies Prisma.AgentInclude;
export type AgentRow = Prisma.AgentGetPayload<{ include: typeof agentInclude }>;

// Type aliases, not interfaces, so they are assignable to Prisma's JSON input type.
export type StoredProvidedVariable = {
  name: string;
  description: string;
  default: string | null;
};
export type StoredExtractedVariable = {
  name: string;
  description: string;
  required: boolean;
};

export const providedVariables = (row: Pick<AgentRow, 'variablesProvided'>) =>
  row.variablesProvided as unknown as StoredProvidedVariable[];
export const extractedVariables = (row: Pick<AgentRow, 'variablesExtracted'>) =>
  row.variablesExtracted as unknown as StoredExtractedVariable[];

/** The number a transfer goes to: stored as a JSON string; anything else (older data) is none. */
export const transferDestination = (row: Pick<AgentRow, 'transferCallDestination'>): string | null =>
  typeof row.transferCallDestination === 'string' ? row.transferCallDestination : null;

/** An agent's transfer and voicemail settings. */
export const toAgentCallHandling = (
  row: Pick<
    AgentRow,
    | 'id'
    | 'transferCallEnabled'
    | 'transferCallDestination'
    | 'voicemailAction'
    | 'voicemailMessage'
    | 'ringTimeoutSeconds'
    | 'llmModel'
  >,
): AgentCallHandling => ({
  agent_id: row.id,
  transfer_call_enabled: row.transferCallEnabled,
  transfer_call_destination: transferDestination(row),
  voicemail_action: row.voicemailAction as AgentCallHandling['voicemail_action'],
  voicemail_message: row.voicemailMessage,
  ring_timeout_seconds: row.ringTimeoutSeconds,
  llm_model: row.llmModel,
});

const RTL_LANGUAGES = new Set(['he', 'ar', 'fa', 'ur', 'yi']);

/** The current Agent shape (spec 2.1): every listed field, nothing else; flow internals never. */
export function toAgentView(row: AgentRow): AgentView {
  return {
    agent_id: row.id,
    name: row.name,
    language: row.language,
    voice: row.voice.displayName,
    agent_type: row.agentType,
    active: row.active,
    prompt: row.prompt,
    welcome_message: row.welcomeMessage,
    variables_provided: providedVariables(row).map(({ name, description, default: value }) => ({
      name,
      description,
      default: value,
    })),
    variables_extracted: extractedVariables(row).map(({ name, description, required }) => ({
      name,
      description,
      required,
    })),
    webhooks: row.webhooks.map((webhook) => ({
      id: webhook.id,
      name: webhook.name,
      url: webhook.url,
      has_secret: webhook.secret !== null,
      has_headers: Object.keys(webhook.headers as Record<string, string>).length > 0,
    })),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function olderCommon(row: AgentRow) {
  return {
    agent_id: row.id,
    agent_name: row.name,
    voice_id: row.voice.id,
    language: row.language,
    begin_message: row.welcomeMessage,
    agent_prompt: row.prompt,
    begin_message_mode: 'static' as const,
    prompt_text_direction: RTL_LANGUAGES.has(row.language.split('-')[0] ?? '')
      ? ('rtl' as const)
      : ('ltr' as const),
    version: row.version,
    deployed_at: row.deployedAt?.toISOString() ?? null,
    agent_type: row.agentType,
    notification_emails: row.notificationEmails,
  };
}

function olderVariables(row: AgentRow) {
  return {
    vars_provided: providedVariables(row).map((variable) => ({
      name: variable.name,
      type: 'string' as const,
      default_value: variable.default,
      description: variable.description,
    })),
    vars_extracted: extractedVariables(row).map((variable) => ({
      name: variable.name,
      type: 'string' as const,
      description: variable.description,
      required: variable.required,
    })),
  };
}

export function toOlderAgentView(row: AgentRow): OlderAgentView {
  return {
    ...olderCommon(row),
    ...olderVariables(row),
    account_id: row.account.id,
    account_name: row.account.name,
  };
}

export function toOlderAgentFullView(row: AgentRow): OlderAgentFullView {
  return {
    ...olderCommon(row),
    ...olderVariables(row),
    account: { id: row.account.id, name: row.account.name },
  };
}

export function toOlderAgentListItem(row: AgentRow): OlderAgentListItem {
  return {
    ...olderCommon(row),
    account: { id: row.account.id, name: row.account.name },
    end_call_enabled: row.endCallEnabled,
    end_call_condition: row.endCallCondition,
    transfer_call_enabled: row.transferCallEnabled,
    transfer_call_destination: row.transferCallDestination ?? null,
    is_operating_hours_active: row.isOperatingHoursActive,
    operating_hours: row.operatingHours ?? null,
  };
}

import { z } from 'zod';

export const AGENT_TYPES = ['singlePrompt', 'conversationalFlow'] as const;
export const AgentTypeSchema = z.enum(AGENT_TYPES);

export const MAX_WEBHOOKS = 5;
export const MAX_WEBHOOK_HEADERS = 10;
export const WEBHOOK_NAME_MAX = 50;
/** Header names the service sets itself on every delivery; a webhook may not override them. */
export const RESERVED_WEBHOOK_HEADERS = [
  'content-type',
  'x-service-event',
  'x-service-signature',
  'host',
  'content-length',
  'transfer-encoding',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

const variableName = z
  .string()
  .regex(
    IDENTIFIER,
    'must be an identifier: a letter or _, then letters, digits or _ (at most 64 characters)',
  );

function uniqueNames(list: { name: string }[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  list.forEach((item, index) => {
    if (seen.has(item.name)) {
      ctx.addIssue({
        code: 'custom',
        path: [index, 'name'],
        message: `duplicates the variable name ${item.name}`,
      });
    }
    seen.add(item.name);
  });
}

export const ProvidedVariableInput = z.object({
  name: variableName,
  description: z.string().max(1000, 'must be at most 1000 characters').optional(),
  default: z.string().max(10_000, 'must be at most 10000 characters').nullish(),
});
export type ProvidedVariableInput = z.infer<typeof ProvidedVariableInput>;

export const ExtractedVariableInput = z.object({
  name: variableName,
  description: z.string().max(1000, 'must be at most 1000 characters').optional(),
  required: z.boolean().optional(),
});
export type ExtractedVariableInput = z.infer<typeof ExtractedVariableInput>;

const ProvidedVariables = z
  .array(ProvidedVariableInput)
  .max(100, 'at most 100 variables')
  .superRefine(uniqueNames);
const ExtractedVariables = z
  .array(ExtractedVariableInput)
  .max(100, 'at most 100 variables')
  .superRefine(uniqueNames);

const WebhookHeaders = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  const names = Object.keys(headers);
  if (names.length > MAX_WEBHOOK_HEADERS) {
    ctx.addIssue({ code: 'custom', message: `at most ${MAX_WEBHOOK_HEADERS} headers` });
  }
  const seen = new Set<string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    // Values are write-only, so messages name the header, never its value.
    if (!HEADER_NAME.test(name))
      ctx.addIssue({
        code: 'custom',
        message: `header name ${JSON.stringify(name)} is not a valid HTTP header name`,
      });
    else if (RESERVED_WEBHOOK_HEADERS.includes(lower))
      ctx.addIssue({ code: 'custom', message: `header ${name} is reserved` });
    else if (seen.has(lower)) ctx.addIssue({ code: 'custom', message: `header ${name} is given twice` });
    seen.add(lower);
    const value = headers[name] ?? '';
    if (/[\r\n\0]/.test(value))
      ctx.addIssue({ code: 'custom', message: `header ${name} has a value with a line break` });
    if (value.length > 1000)
      ctx.addIssue({ code: 'custom', message: `header ${name} has a value over 1000 characters` });
  }
});

const WebhookSecret = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(256, 'must be at most 256 characters')
  .refine(
    (secret) =>
      !secret.startsWith('whsec_') ||
      /^whsec_(?:[A-Za-z0-9+/]{4}){4,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(secret),
    'a whsec_ secret must be whsec_ followed by base64 of at least 12 bytes',
  );

export const WebhookInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(WEBHOOK_NAME_MAX, `must be at most ${WEBHOOK_NAME_MAX} characters`),
  url: z.string().trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
  secret: WebhookSecret.optional(),
  headers: WebhookHeaders.optional(),
});
export type WebhookInput = z.infer<typeof WebhookInput>;

const Webhooks = z.array(WebhookInput).max(MAX_WEBHOOKS, `at most ${MAX_WEBHOOKS} webhooks per agent`);

/**
 * A webhook in agent-modify (an extension of the spec's Webhook): with the `id` of one of the agent's
 * webhooks, an omitted `secret` or `headers` keeps the stored one and `null` removes it, so a client
 * can change a webhook's name or URL without knowing its write-only parts. Without an `id`, it is a
 * new webhook as in agent-create.
 */
export const ModifyWebhookInput = WebhookInput.extend({
  id: z.uuid("must be the id of one of the agent's webhooks").optional(),
  secret: WebhookSecret.nullable().optional(),
  headers: WebhookHeaders.nullable().optional(),
});
export type ModifyWebhookInput = z.infer<typeof ModifyWebhookInput>;
const ModifyWebhooks = z
  .array(ModifyWebhookInput)
  .max(MAX_WEBHOOKS, `at most ${MAX_WEBHOOKS} webhooks per agent`);

const AgentName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const Prompt = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100_000, 'must be at most 100000 characters');
const Language = z
  .string()
  .regex(LANGUAGE, 'must be a language code such as he, en or en-US')
  .refine((code) => {
    try {
      return Intl.getCanonicalLocales(code).length === 1;
    } catch {
      return false;
    }
  }, 'must be a language code such as he, en or en-US');
const WelcomeMessage = z.string().max(5000, 'must be at most 5000 characters');
const NotificationEmails = z.array(z.email('must be an email address')).max(10, 'at most 10 addresses');

/** What the agent does when an answering machine picks up (docs/telephony.md, "Voicemail"). */
export const VOICEMAIL_ACTIONS = ['continue', 'hang_up', 'leave_message', 'retry_later'] as const;
const VoicemailAction = z.enum(VOICEMAIL_ACTIONS);
const VoicemailMessage = z.string().max(1000, 'must be at most 1000 characters');
/** Seconds a call rings before the carrier gives up as no answer (Twilio's Timeout: 5 to 600). */
/** The language model the agent talks with (an extension, docs/voice.md); null: the deployment's. */
export const LlmModel = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9._:/-]+$/, 'must be a model name such as gpt-4o-mini')
  .nullable();
export const RingTimeoutSeconds = z
  .number()
  .int('must be a whole number of seconds')
  .min(5, 'must be at least 5 seconds')
  .max(600, 'must be at most 600 seconds')
  .nullable();
const TransferDestination = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number such as +14155550123')
  .nullable();

/**
 * Call-handling combinations that cannot work: a transfer with nowhere to go, a message with no text.
 * The rules of create (on its input) and of modify (on the agent as modified).
 */
export function callHandlingProblems(agent: {
  transfer_call_enabled?: boolean;
  transfer_call_destination?: string | null;
  voicemail_action?: string;
  voicemail_message?: string;
}): { field: 'transfer_call_destination' | 'voicemail_message'; message: string }[] {
  return [
    ...(agent.transfer_call_enabled && !agent.transfer_call_destination
      ? [
          {
            field: 'transfer_call_destination' as const,
            message: 'is required when transfer_call_enabled is true',
          },
        ]
      : []),
    ...(agent.voicemail_action === 'leave_message' && !agent.voicemail_message?.trim()
      ? [
          {
            field: 'voicemail_message' as const,
            message: 'is required when voicemail_action is leave_message',
          },
        ]
      : []),
  ];
}

function callHandlingIssues(agent: Parameters<typeof callHandlingProblems>[0], ctx: z.RefinementCtx) {
  for (const { field, message } of callHandlingProblems(agent))
    ctx.addIssue({ code: 'custom', path: [field], message });
}

/** The create-agent fields, before the rules across them (for schemas that take some of them). */
export const CreateAgentFields = z.object({
  name: AgentName,
  prompt: Prompt,
  language: Language.default('he'),
  voice: z.string().default('Ori'),
  welcome_message: WelcomeMessage.default(''),
  variables_provided: ProvidedVariables.default([]),
  variables_extracted: ExtractedVariables.default([]),
  webhooks: Webhooks.default([]),
  notification_emails: NotificationEmails.default([]),
  transfer_call_enabled: z.boolean().default(false),
  transfer_call_destination: TransferDestination.default(null),
  voicemail_action: VoicemailAction.default('continue'),
  voicemail_message: VoicemailMessage.default(''),
  /** Null: the deployment's ring time (CARRIER_RING_TIMEOUT_SECONDS). */
  ring_timeout_seconds: RingTimeoutSeconds.default(null),
  /** Null: the deployment's model (LLM_MODEL). */
  llm_model: LlmModel.default(null),
  /** Only `singlePrompt` is created here: asked for a flow agent, agent-create refuses (422). */
  agent_type: AgentTypeSchema.default('singlePrompt'),
});

export const CreateAgentInput = CreateAgentFields.superRefine(callHandlingIssues);
export type CreateAgentInput = z.input<typeof CreateAgentInput>;
export type CreateAgentData = z.output<typeof CreateAgentInput>;

/** Every field optional; omitted fields stay as they are, given arrays replace the whole set. */
export const ModifyAgentInput = z.object({
  name: AgentName.optional(),
  prompt: Prompt.optional(),
  language: Language.optional(),
  voice: z.string().optional(),
  welcome_message: WelcomeMessage.optional(),
  variables_provided: ProvidedVariables.optional(),
  variables_extracted: ExtractedVariables.optional(),
  webhooks: ModifyWebhooks.optional(),
  notification_emails: NotificationEmails.optional(),
  transfer_call_enabled: z.boolean().optional(),
  transfer_call_destination: TransferDestination.optional(),
  voicemail_action: VoicemailAction.optional(),
  voicemail_message: VoicemailMessage.optional(),
  ring_timeout_seconds: RingTimeoutSeconds.optional(),
  llm_model: LlmModel.optional(),
});
export type ModifyAgentInput = z.infer<typeof ModifyAgentInput>;

/** Path parameter: any string; an id that is not a UUID is simply not found. */
export const AgentIdParams = z.object({ agent_id: z.string() });

export const ListAgentsInput = z.object({
  limit: z.coerce
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(1000, 'must be at most 1000')
    .default(50),
  pagination_key: z.string().optional(),
  agent_type: AgentTypeSchema.optional(),
});
export type ListAgentsInput = z.input<typeof ListAgentsInput>;

export const DuplicateAgentInput = z.object({ agent_name: AgentName });
export type DuplicateAgentInput = z.infer<typeof DuplicateAgentInput>;

// Responses

export const WebhookView = z.object({
  id: z.uuid(),
  name: z.string(),
  url: z.string(),
  has_secret: z.boolean(),
  has_headers: z.boolean(),
});

export const AgentView = z.object({
  agent_id: z.uuid(),
  name: z.string(),
  language: z.string(),
  voice: z.string(),
  agent_type: AgentTypeSchema,
  active: z.boolean(),
  prompt: z.string(),
  welcome_message: z.string(),
  variables_provided: z.array(
    z.object({ name: z.string(), description: z.string(), default: z.string().nullable() }),
  ),
  variables_extracted: z.array(
    z.object({ name: z.string(), description: z.string(), required: z.boolean() }),
  ),
  webhooks: z.array(WebhookView),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AgentView = z.infer<typeof AgentView>;

/**
 * How an agent handles the phone line (extensions, docs/telephony.md and docs/voice.md): transfers,
 * voicemail, ring time and its language model. Set
 * through agent create and modify; read here, so the spec's Agent shape stays exactly as it is.
 */
export const AgentCallHandling = z.object({
  agent_id: z.uuid(),
  transfer_call_enabled: z.boolean(),
  transfer_call_destination: z.string().nullable(),
  voicemail_action: VoicemailAction,
  voicemail_message: z.string(),
  ring_timeout_seconds: z.number().int().nullable(),
  llm_model: z.string().nullable(),
});
export type AgentCallHandling = z.infer<typeof AgentCallHandling>;

export const AgentListOutput = z.object({ agents: z.array(AgentView), total_count: z.number().int() });
export type AgentListOutput = z.infer<typeof AgentListOutput>;

const OlderAgentCommon = z.object({
  agent_id: z.uuid(),
  agent_name: z.string(),
  voice_id: z.string(),
  language: z.string(),
  begin_message: z.string(),
  agent_prompt: z.string(),
  begin_message_mode: z.literal('static'),
  prompt_text_direction: z.enum(['ltr', 'rtl']),
  version: z.number().int(),
  deployed_at: z.string().nullable(),
  agent_type: AgentTypeSchema,
  notification_emails: z.array(z.string()),
});
const OlderVariables = z.object({
  vars_provided: z.array(
    z.object({
      name: z.string(),
      type: z.literal('string'),
      default_value: z.string().nullable(),
      description: z.string(),
    }),
  ),
  vars_extracted: z.array(
    z.object({ name: z.string(), type: z.literal('string'), description: z.string(), required: z.boolean() }),
  ),
});
const AccountRef = z.object({ account: z.object({ id: z.uuid(), name: z.string() }) });

/** Older get-agent: the account as flat `account_id` and `account_name`. */
export const OlderAgentView = OlderAgentCommon.extend(OlderVariables.shape).extend({
  account_id: z.uuid(),
  account_name: z.string(),
});
export type OlderAgentView = z.infer<typeof OlderAgentView>;

/** Older duplicate-agent: the complete older shape with the account as an object. */
export const OlderAgentFullView = OlderAgentCommon.extend(OlderVariables.shape).extend(AccountRef.shape);
export type OlderAgentFullView = z.infer<typeof OlderAgentFullView>;

/** Older list-agents item: adds call-handling settings, omits the variables. */
export const OlderAgentListItem = OlderAgentCommon.extend(AccountRef.shape).extend({
  end_call_enabled: z.boolean(),
  end_call_condition: z.string(),
  transfer_call_enabled: z.boolean(),
  // Shapes the spec does not show; `unknown` admits null already (and `.nullable()` would document an empty anyOf).
  transfer_call_destination: z.unknown(),
  is_operating_hours_active: z.boolean(),
  operating_hours: z.unknown(),
});
export type OlderAgentListItem = z.infer<typeof OlderAgentListItem>;

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CreateAgentInput, ModifyAgentInput } from '@voice/core/schemas';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, errorMessage, fieldError, invalidInput, type Outputs } from '../../api';
import { Field, SelectField, TextAreaField } from '../../components/Field';
import { ErrorMessage } from '../../components/Messages';
import { VoiceSample } from '../../components/VoiceSample';

export type Agent = Outputs['agents']['get'];
type CallHandling = Outputs['agents']['callHandling'];
import {
  emptyWebhook,
  newKey,
  useRows,
  webhookInput,
  type ExtractedRow,
  type ProvidedRow,
  type WebhookRow,
} from './rows';
import { ExtractedVariableRows, ProvidedVariableRows } from './VariableRows';
import { WebhookRows } from './WebhookRows';

/** What an agent does when an answering machine answers (voicemail_action), as the form offers it. */
const VOICEMAIL_CHOICES: { value: NonNullable<ModifyAgentInput['voicemail_action']>; label: string }[] = [
  { value: 'continue', label: 'Go on as with a person' },
  { value: 'hang_up', label: 'Hang up' },
  { value: 'leave_message', label: 'Leave a message after the beep' },
  { value: 'retry_later', label: 'Hang up and call again later (campaigns)' },
];

/**
 * An agent's form, for a new agent or an existing one: a single-prompt agent whole, or a flow agent's
 * own settings (everything but a prompt: its flow is edited in the flow builder, and a change here is
 * its next version, its flow unchanged). Checked with the API's own schema before it is sent; the API's
 * answer, if it refuses, is shown beside the field it names. Webhook secrets and header values are
 * write-only: typed here, sent once, never shown again (the API answers only whether a webhook has
 * them); an existing webhook keeps them unless a new value is typed or their removal ticked.
 */
export function AgentEditor({
  agent,
  handling = null,
}: {
  agent: Agent | null;
  /** The agent's call handling (its voicemail action and message), for an existing agent. */
  handling?: Pick<CallHandling, 'voicemail_action' | 'voicemail_message'> | null;
}) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [invalid, setInvalid] = useState<Error | null>(null);
  const [voice, setVoice] = useState(agent?.voice ?? '');
  const [language, setLanguage] = useState(agent?.language ?? 'en-US');
  const [voicemailAction, setVoicemailAction] = useState(handling?.voicemail_action ?? 'continue');
  const flow = agent?.agent_type === 'conversationalFlow';
  const webhooks = useRows<WebhookRow>(() =>
    (agent?.webhooks ?? []).map((hook) => ({
      ...emptyWebhook(),
      id: hook.id,
      name: hook.name,
      url: hook.url,
      hasSecret: hook.has_secret,
      hasHeaders: hook.has_headers,
    })),
  );
  const provided = useRows<ProvidedRow>(() =>
    (agent?.variables_provided ?? []).map((variable) => ({
      key: newKey(),
      name: variable.name,
      description: variable.description,
      default: variable.default ?? '',
    })),
  );
  const extracted = useRows<ExtractedRow>(() =>
    (agent?.variables_extracted ?? []).map((variable) => ({ key: newKey(), ...variable })),
  );
  const voices = useQuery({ queryKey: ['voices.list'], queryFn: () => api.voices.list.query() });
  const save = useMutation({
    mutationFn: (input: { create: CreateAgentInput } | { modify: ModifyAgentInput }) =>
      'create' in input
        ? api.agents.create.mutate(input.create)
        : api.agents.modify.mutate({ agent_id: agent!.agent_id, ...input.modify }),
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: ['agents.list'] });
      queryClient.setQueryData(['agents.get', saved.agent_id], saved);
      void queryClient.invalidateQueries({ queryKey: ['agents.callHandling', saved.agent_id] });
      void navigate('/agents');
    },
  });

  // Until one is chosen, the first voice of the agent's language (its primary subtag: en-US takes en).
  const primary = language.trim().toLowerCase().split('-')[0] ?? '';
  const defaultVoice =
    (
      voices.data?.voices.find((option) => option.language.toLowerCase().split('-')[0] === primary) ??
      voices.data?.voices[0]
    )?.display_name ?? '';

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '');
    const fields = {
      name: text('name'),
      ...(flow ? {} : { prompt: text('prompt') }),
      welcome_message: text('welcome_message'),
      voicemail_action: voicemailAction,
      // Kept as it is when not asked for (only "leave a message" shows it).
      ...(form.has('voicemail_message') ? { voicemail_message: text('voicemail_message') } : {}),
      language,
      voice: voice || defaultVoice,
      variables_provided: provided.rows.map((row) => ({
        name: row.name.trim(),
        ...(row.description ? { description: row.description } : {}),
        ...(row.default ? { default: row.default } : {}),
      })),
      variables_extracted: extracted.rows.map((row) => ({
        name: row.name.trim(),
        ...(row.description ? { description: row.description } : {}),
        required: row.required,
      })),
      webhooks: webhooks.rows.map(webhookInput),
    };
    const parsed = agent ? ModifyAgentInput.safeParse(fields) : CreateAgentInput.safeParse(fields);
    if (!parsed.success) return setInvalid(invalidInput(parsed.error.issues));
    setInvalid(null);
    save.mutate(agent ? { modify: parsed.data } : { create: parsed.data as CreateAgentInput });
  }

  const error = invalid ?? save.error;
  /** A list row's problem: as the schema words it, or as the api's URL check does (`webhooks[0] ("crm"): url ...`). */
  const rowError = (list: string, index: number, field: string) => {
    const direct = fieldError(error, `${list}[${index}].${field}`);
    if (direct || !error) return direct;
    const message = errorMessage(error);
    const named = message.match(/^(\w+)\[(\d+)\] \(.*?\): (\w+) (.*)$/s);
    return named && named[1] === list && Number(named[2]) === index && named[3] === field
      ? `${named[3]} ${named[4]}`
      : undefined;
  };
  const listError = (list: string, count: number, fields: string[]) => {
    const message = fieldError(error, list);
    const onRow = Array.from({ length: count }).some((_, index) =>
      fields.some((field) => rowError(list, index, field)),
    );
    return message && !onRow ? message : undefined;
  };
  const named = [
    'name',
    'prompt',
    'welcome_message',
    'voicemail_',
    'language',
    'voice',
    'variables_',
    'webhooks',
  ];
  const formError =
    error && !named.some((field) => errorMessage(error).startsWith(field)) ? errorMessage(error) : undefined;

  return (
    <form className="form" onSubmit={submit} noValidate>
      <Field label="Name" name="name" defaultValue={agent?.name ?? ''} error={fieldError(error, 'name')} />
      {!flow && (
        <TextAreaField
          label="Prompt"
          name="prompt"
          dir="auto"
          lang={agent?.language}
          rows={8}
          defaultValue={agent?.prompt ?? ''}
          error={fieldError(error, 'prompt')}
        />
      )}
      <TextAreaField
        label="Welcome message"
        name="welcome_message"
        dir="auto"
        lang={agent?.language}
        rows={2}
        defaultValue={agent?.welcome_message ?? ''}
        error={fieldError(error, 'welcome_message')}
      />
      <div className="row">
        <Field
          label="Language"
          name="language"
          value={language}
          onChange={(event) => setLanguage(event.target.value)}
          hint="A language code: en, en-US, he"
          error={fieldError(error, 'language')}
        />
        <SelectField
          label="Voice"
          name="voice"
          value={voice || defaultVoice}
          onChange={(event) => setVoice(event.target.value)}
          error={fieldError(error, 'voice')}
        >
          {voices.data?.voices.map((option) => (
            <option key={option.id} value={option.display_name}>
              {option.display_name} ({option.gender}, {option.language})
            </option>
          ))}
        </SelectField>
        <VoiceSample voice={voice || defaultVoice} language={language} />
      </div>

      <div className="row">
        <SelectField
          label="When an answering machine answers"
          name="voicemail_action"
          value={voicemailAction}
          onChange={(event) => setVoicemailAction(event.target.value as typeof voicemailAction)}
          error={fieldError(error, 'voicemail_action')}
        >
          {VOICEMAIL_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </SelectField>
      </div>
      {voicemailAction === 'leave_message' && (
        <TextAreaField
          label="Message left after the beep ({{variable}} fills in a value)"
          name="voicemail_message"
          dir="auto"
          lang={agent?.language}
          rows={2}
          defaultValue={handling?.voicemail_message ?? ''}
          error={fieldError(error, 'voicemail_message')}
        />
      )}

      <ProvidedVariableRows provided={provided} rowError={rowError} listError={listError} />

      <ExtractedVariableRows extracted={extracted} rowError={rowError} listError={listError} />

      <WebhookRows webhooks={webhooks} rowError={rowError} listError={listError} />
      <ErrorMessage error={formError} />
      <div className="actions">
        {/* A new agent's voice, until one is chosen, is its language's first: known once the voices are. */}
        <button type="submit" disabled={save.isPending || (!voice && voices.isPending)}>
          {agent ? 'Save agent' : 'Create agent'}
        </button>
        <Link to="/agents">Cancel</Link>
      </div>
    </form>
  );
}

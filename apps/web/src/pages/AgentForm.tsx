import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CreateAgentInput, MAX_WEBHOOKS, ModifyAgentInput } from '@voice/core/schemas';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage, fieldError, invalidInput, type Outputs } from '../api';
import { Field, SelectField } from '../components/Field';
import { ErrorMessage, Pending } from '../components/Messages';

type Agent = Outputs['agents']['get'];
interface WebhookRow {
  key: number;
}

function TextArea({
  label,
  name,
  defaultValue,
  error,
  rows = 4,
}: {
  label: string;
  name: string;
  defaultValue?: string;
  error?: string | undefined;
  rows?: number;
}) {
  return (
    <div className="field">
      <label htmlFor={`agent-${name}`}>{label}</label>
      <textarea
        id={`agent-${name}`}
        name={name}
        rows={rows}
        defaultValue={defaultValue}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `agent-${name}-error` : undefined}
      />
      {error && (
        <p id={`agent-${name}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * An agent's form, for a new agent or an existing one (single-prompt agents; flow agents are read-only
 * here). Checked with the API's own schema before it is sent; the API's answer, if it refuses, is
 * shown beside the field it names. Webhook secrets and header values are write-only: typed here, sent
 * once, never shown again (the API answers only whether a webhook has them).
 */
function AgentEditor({ agent }: { agent: Agent | null }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [invalid, setInvalid] = useState<Error | null>(null);
  const [webhooks, setWebhooks] = useState<WebhookRow[]>([]);
  const [nextKey, setNextKey] = useState(0);
  const voices = useQuery({ queryKey: ['voices.list'], queryFn: () => api.voices.list.query() });
  const save = useMutation({
    mutationFn: (input: { create: CreateAgentInput } | { modify: ModifyAgentInput }) =>
      'create' in input
        ? api.agents.create.mutate(input.create)
        : api.agents.modify.mutate({ agent_id: agent!.agent_id, ...input.modify }),
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: ['agents.list'] });
      queryClient.setQueryData(['agents.get', saved.agent_id], saved);
      void navigate('/agents');
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '');
    const fields = {
      name: text('name'),
      prompt: text('prompt'),
      welcome_message: text('welcome_message'),
      language: text('language'),
      voice: text('voice'),
    };
    const hooks = webhooks.map(({ key }) => {
      const headerName = text(`webhook-${key}-header-name`).trim();
      return {
        name: text(`webhook-${key}-name`),
        url: text(`webhook-${key}-url`),
        ...(text(`webhook-${key}-secret`) ? { secret: text(`webhook-${key}-secret`) } : {}),
        ...(headerName ? { headers: { [headerName]: text(`webhook-${key}-header-value`) } } : {}),
      };
    });
    if (agent) {
      const parsed = ModifyAgentInput.safeParse(fields);
      if (!parsed.success) return setInvalid(invalidInput(parsed.error.issues));
      setInvalid(null);
      return save.mutate({ modify: parsed.data });
    }
    const parsed = CreateAgentInput.safeParse({ ...fields, webhooks: hooks });
    if (!parsed.success) return setInvalid(invalidInput(parsed.error.issues));
    setInvalid(null);
    save.mutate({ create: parsed.data });
  }

  const error = invalid ?? save.error;
  const named = ['name', 'prompt', 'welcome_message', 'language', 'voice', 'webhooks'];
  const formError =
    error && !named.some((field) => fieldError(error, field)) ? errorMessage(error) : undefined;
  /** A webhook field's problem: as the schema words it, or as the api's URL check does (`webhooks[0] ("crm"): url ...`). */
  const webhookError = (index: number, field: string) => {
    const direct = fieldError(error, `webhooks[${index}].${field}`);
    if (direct || !error) return direct;
    const message = errorMessage(error);
    const named = message.match(/^webhooks\[(\d+)\] \(.*?\): (\w+) (.*)$/s);
    return named && Number(named[1]) === index && named[2] === field ? `${named[2]} ${named[3]}` : undefined;
  };

  return (
    <form className="form" onSubmit={submit} noValidate>
      <Field label="Name" name="name" defaultValue={agent?.name ?? ''} error={fieldError(error, 'name')} />
      <TextArea
        label="Prompt"
        name="prompt"
        rows={8}
        defaultValue={agent?.prompt ?? ''}
        error={fieldError(error, 'prompt')}
      />
      <TextArea
        label="Welcome message"
        name="welcome_message"
        rows={2}
        defaultValue={agent?.welcome_message ?? ''}
        error={fieldError(error, 'welcome_message')}
      />
      <div className="row">
        <Field
          label="Language"
          name="language"
          defaultValue={agent?.language ?? 'en-US'}
          hint="A language code: en, en-US, he"
          error={fieldError(error, 'language')}
        />
        <SelectField
          label="Voice"
          name="voice"
          key={voices.data ? 'loaded' : 'loading'}
          defaultValue={agent?.voice ?? voices.data?.voices[0]?.id ?? ''}
          error={fieldError(error, 'voice')}
        >
          {voices.data?.voices.map((voice) => (
            <option key={voice.id} value={voice.id}>
              {voice.display_name} ({voice.language}, {voice.provider})
            </option>
          ))}
        </SelectField>
      </div>
      <fieldset className="choices">
        <legend>Webhooks</legend>
        {agent?.webhooks.map((hook) => (
          <p key={hook.id}>
            {hook.name} → {hook.url}
            {hook.has_secret ? ' · signed with its own secret' : ''}
            {hook.has_headers ? ' · custom headers set' : ''}
          </p>
        ))}
        {agent && <p className="hint">Webhooks of an existing agent are changed through the API.</p>}
        {!agent &&
          webhooks.map(({ key }, index) => (
            <div key={key} className="webhook" role="group" aria-label={`Webhook ${index + 1}`}>
              <div className="row">
                <Field
                  label="Webhook name"
                  name={`webhook-${key}-name`}
                  error={webhookError(index, 'name')}
                />
                <Field
                  label="URL"
                  name={`webhook-${key}-url`}
                  type="url"
                  placeholder="https://"
                  error={webhookError(index, 'url')}
                />
              </div>
              <div className="row">
                <Field
                  label="Signing secret (optional)"
                  name={`webhook-${key}-secret`}
                  type="password"
                  autoComplete="off"
                  hint="Write-only: it is never shown again"
                  error={webhookError(index, 'secret')}
                />
                <Field
                  label="Header name (optional)"
                  name={`webhook-${key}-header-name`}
                  autoComplete="off"
                />
                <Field
                  label="Header value"
                  name={`webhook-${key}-header-value`}
                  type="password"
                  autoComplete="off"
                  error={webhookError(index, 'headers')}
                />
              </div>
              <button
                type="button"
                className="secondary"
                onClick={() => setWebhooks(webhooks.filter((w) => w.key !== key))}
              >
                Remove webhook {index + 1}
              </button>
            </div>
          ))}
        {!agent && webhooks.length < MAX_WEBHOOKS && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setWebhooks([...webhooks, { key: nextKey }]);
              setNextKey(nextKey + 1);
            }}
          >
            Add webhook
          </button>
        )}
        {fieldError(error, 'webhooks') &&
          !webhooks.some(
            (_, i) =>
              webhookError(i, 'name') ||
              webhookError(i, 'url') ||
              webhookError(i, 'secret') ||
              webhookError(i, 'headers'),
          ) && (
            <p className="field-error" role="alert">
              {fieldError(error, 'webhooks')}
            </p>
          )}
      </fieldset>
      <ErrorMessage error={formError} />
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          {agent ? 'Save agent' : 'Create agent'}
        </button>
        <Link to="/agents">Cancel</Link>
      </div>
    </form>
  );
}

export function NewAgentPage() {
  return (
    <section>
      <p>
        <Link to="/agents">Agents</Link> /
      </p>
      <h1>New agent</h1>
      <AgentEditor agent={null} />
    </section>
  );
}

export function EditAgentPage() {
  const { agentId = '' } = useParams();
  const agent = useQuery({
    queryKey: ['agents.get', agentId],
    queryFn: () => api.agents.get.query({ agent_id: agentId }),
  });
  if (agent.isError || !agent.data) return <Pending query={agent} />;
  return (
    <section>
      <p>
        <Link to="/agents">Agents</Link> /
      </p>
      <h1>{agent.data.name}</h1>
      {agent.data.agent_type === 'conversationalFlow' ? (
        <p>A conversational flow agent: read-only here.</p>
      ) : (
        <AgentEditor agent={agent.data} />
      )}
    </section>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  CreateAgentInput,
  DuplicateAgentInput,
  MAX_WEBHOOKS,
  ModifyAgentInput,
  type ModifyWebhookInput,
} from '@voice/core/schemas';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage, fieldError, invalidInput, type Outputs } from '../api';
import { Field, SelectField, TextAreaField } from '../components/Field';
import { useCheckedSubmit } from '../checked-submit';
import { ErrorMessage, Pending } from '../components/Messages';
import { VoiceSample } from '../components/VoiceSample';

type Agent = Outputs['agents']['get'];

/** A webhook being edited: an existing one (with its id) keeps its write-only parts unless told. */
interface WebhookRow {
  key: number;
  id?: string;
  name: string;
  url: string;
  hasSecret: boolean;
  hasHeaders: boolean;
  secret: string;
  removeSecret: boolean;
  headerName: string;
  headerValue: string;
  removeHeaders: boolean;
}
interface ProvidedRow {
  key: number;
  name: string;
  description: string;
  default: string;
}
interface ExtractedRow {
  key: number;
  name: string;
  description: string;
  required: boolean;
}

let nextKey = 0;
const newKey = () => (nextKey += 1);

const emptyWebhook = (): WebhookRow => ({
  key: newKey(),
  name: '',
  url: '',
  hasSecret: false,
  hasHeaders: false,
  secret: '',
  removeSecret: false,
  headerName: '',
  headerValue: '',
  removeHeaders: false,
});

/** The webhook as the API takes it: an existing one sends its id and only the write-only parts changed. */
function webhookInput(row: WebhookRow): ModifyWebhookInput {
  const headerName = row.headerName.trim();
  const secret = row.secret ? { secret: row.secret } : row.removeSecret ? { secret: null } : {};
  const headers = headerName
    ? { headers: { [headerName]: row.headerValue } }
    : row.removeHeaders
      ? { headers: null }
      : {};
  return { ...(row.id ? { id: row.id } : {}), name: row.name, url: row.url, ...secret, ...headers };
}

/** One list of the form (webhooks, variables): its rows, and how to change one, add one, remove one. */
function useRows<Row extends { key: number }>(initial: () => Row[]) {
  const [rows, setRows] = useState(initial);
  return {
    rows,
    change: (key: number, changes: Partial<Row>) =>
      setRows((current) => current.map((row) => (row.key === key ? { ...row, ...changes } : row))),
    add: (row: Row) => setRows((current) => [...current, row]),
    remove: (key: number) => setRows((current) => current.filter((row) => row.key !== key)),
  };
}

/**
 * An agent's form, for a new agent or an existing one (single-prompt agents; flow agents are read-only
 * here). Checked with the API's own schema before it is sent; the API's answer, if it refuses, is
 * shown beside the field it names. Webhook secrets and header values are write-only: typed here, sent
 * once, never shown again (the API answers only whether a webhook has them); an existing webhook keeps
 * them unless a new value is typed or their removal ticked.
 */
function AgentEditor({ agent }: { agent: Agent | null }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [invalid, setInvalid] = useState<Error | null>(null);
  const [voice, setVoice] = useState(agent?.voice ?? '');
  const [language, setLanguage] = useState(agent?.language ?? 'en-US');
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
      language,
      voice: voice || (voices.data?.voices[0]?.display_name ?? ''),
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
  const named = ['name', 'prompt', 'welcome_message', 'language', 'voice', 'variables_', 'webhooks'];
  const formError =
    error && !named.some((field) => errorMessage(error).startsWith(field)) ? errorMessage(error) : undefined;

  return (
    <form className="form" onSubmit={submit} noValidate>
      <Field label="Name" name="name" defaultValue={agent?.name ?? ''} error={fieldError(error, 'name')} />
      <TextAreaField
        label="Prompt"
        name="prompt"
        rows={8}
        defaultValue={agent?.prompt ?? ''}
        error={fieldError(error, 'prompt')}
      />
      <TextAreaField
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
          value={language}
          onChange={(event) => setLanguage(event.target.value)}
          hint="A language code: en, en-US, he"
          error={fieldError(error, 'language')}
        />
        <SelectField
          label="Voice"
          name="voice"
          value={voice || voices.data?.voices[0]?.display_name || ''}
          onChange={(event) => setVoice(event.target.value)}
          error={fieldError(error, 'voice')}
        >
          {voices.data?.voices.map((option) => (
            <option key={option.id} value={option.display_name}>
              {option.display_name} ({option.gender}, {option.language})
            </option>
          ))}
        </SelectField>
        <VoiceSample voice={voice || voices.data?.voices[0]?.display_name || ''} language={language} />
      </div>

      <fieldset className="choices">
        <legend>Variables given to each call</legend>
        <p className="hint">
          Filled from the dial or the campaign's CSV; the prompt uses them as {'{{name}}'}.
        </p>
        {provided.rows.map((row, index) => (
          <div key={row.key} className="row" role="group" aria-label={`Given variable ${index + 1}`}>
            <Field
              label="Variable name"
              value={row.name}
              onChange={(event) => provided.change(row.key, { name: event.target.value })}
              error={rowError('variables_provided', index, 'name')}
            />
            <Field
              label="Description"
              value={row.description}
              onChange={(event) => provided.change(row.key, { description: event.target.value })}
              error={rowError('variables_provided', index, 'description')}
            />
            <Field
              label="Default"
              value={row.default}
              onChange={(event) => provided.change(row.key, { default: event.target.value })}
              error={rowError('variables_provided', index, 'default')}
            />
            <button type="button" className="secondary" onClick={() => provided.remove(row.key)}>
              Remove given variable {index + 1}
            </button>
          </div>
        ))}
        <ErrorMessage
          error={listError('variables_provided', provided.rows.length, ['name', 'description', 'default'])}
        />
        <button
          type="button"
          className="secondary"
          onClick={() => provided.add({ key: newKey(), name: '', description: '', default: '' })}
        >
          Add given variable
        </button>
      </fieldset>

      <fieldset className="choices">
        <legend>Variables extracted from each call</legend>
        {extracted.rows.map((row, index) => (
          <div key={row.key} className="row" role="group" aria-label={`Extracted variable ${index + 1}`}>
            <Field
              label="Variable name"
              value={row.name}
              onChange={(event) => extracted.change(row.key, { name: event.target.value })}
              error={rowError('variables_extracted', index, 'name')}
            />
            <Field
              label="What to extract"
              value={row.description}
              onChange={(event) => extracted.change(row.key, { description: event.target.value })}
              error={rowError('variables_extracted', index, 'description')}
            />
            <label className="inline">
              <input
                type="checkbox"
                checked={row.required}
                onChange={(event) => extracted.change(row.key, { required: event.target.checked })}
              />{' '}
              Required
            </label>
            <button type="button" className="secondary" onClick={() => extracted.remove(row.key)}>
              Remove extracted variable {index + 1}
            </button>
          </div>
        ))}
        <ErrorMessage
          error={listError('variables_extracted', extracted.rows.length, ['name', 'description'])}
        />
        <button
          type="button"
          className="secondary"
          onClick={() => extracted.add({ key: newKey(), name: '', description: '', required: false })}
        >
          Add extracted variable
        </button>
      </fieldset>

      <fieldset className="choices">
        <legend>Webhooks</legend>
        {webhooks.rows.map((row, index) => (
          <div key={row.key} className="webhook" role="group" aria-label={`Webhook ${index + 1}`}>
            <div className="row">
              <Field
                label="Webhook name"
                value={row.name}
                onChange={(event) => webhooks.change(row.key, { name: event.target.value })}
                error={rowError('webhooks', index, 'name')}
              />
              <Field
                label="URL"
                type="url"
                placeholder="https://"
                value={row.url}
                onChange={(event) => webhooks.change(row.key, { url: event.target.value })}
                error={rowError('webhooks', index, 'url')}
              />
            </div>
            <div className="row">
              <Field
                label={row.hasSecret ? 'New signing secret (optional)' : 'Signing secret (optional)'}
                type="password"
                autoComplete="off"
                value={row.secret}
                onChange={(event) => webhooks.change(row.key, { secret: event.target.value })}
                hint={
                  row.hasSecret
                    ? 'A secret is set and kept unless you type a new one'
                    : 'Write-only: it is never shown again'
                }
                error={rowError('webhooks', index, 'secret')}
              />
              <Field
                label="Header name (optional)"
                autoComplete="off"
                value={row.headerName}
                onChange={(event) => webhooks.change(row.key, { headerName: event.target.value })}
                {...(row.hasHeaders ? { hint: 'Headers are set; a header typed here replaces them' } : {})}
              />
              <Field
                label="Header value"
                type="password"
                autoComplete="off"
                value={row.headerValue}
                onChange={(event) => webhooks.change(row.key, { headerValue: event.target.value })}
                error={rowError('webhooks', index, 'headers')}
              />
            </div>
            {(row.hasSecret || row.hasHeaders) && (
              <div className="row">
                {row.hasSecret && (
                  <label className="inline">
                    <input
                      type="checkbox"
                      checked={row.removeSecret}
                      onChange={(event) => webhooks.change(row.key, { removeSecret: event.target.checked })}
                    />{' '}
                    Remove the secret
                  </label>
                )}
                {row.hasHeaders && (
                  <label className="inline">
                    <input
                      type="checkbox"
                      checked={row.removeHeaders}
                      onChange={(event) => webhooks.change(row.key, { removeHeaders: event.target.checked })}
                    />{' '}
                    Remove the headers
                  </label>
                )}
              </div>
            )}
            <button type="button" className="secondary" onClick={() => webhooks.remove(row.key)}>
              Remove webhook {index + 1}
            </button>
          </div>
        ))}
        <ErrorMessage
          error={listError('webhooks', webhooks.rows.length, ['name', 'url', 'secret', 'headers'])}
        />
        {webhooks.rows.length < MAX_WEBHOOKS && (
          <button type="button" className="secondary" onClick={() => webhooks.add(emptyWebhook())}>
            Add webhook
          </button>
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

/** A copy of the agent under a new name (its webhooks' write-only parts copied by the api). */
function DuplicateAgent({ agent }: { agent: Agent }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const duplicate = useMutation({
    mutationFn: (input: DuplicateAgentInput) =>
      api.agents.duplicate.mutate({ agent_id: agent.agent_id, ...input }),
    onSuccess: (copy) => {
      void queryClient.invalidateQueries({ queryKey: ['agents.list'] });
      void navigate(`/agents/${copy.agent_id}`);
    },
  });
  const { submit, error } = useCheckedSubmit(
    DuplicateAgentInput,
    (data) => ({ agent_name: data.get('agent_name') }),
    (input) => duplicate.mutate(input),
    duplicate.error,
  );
  return (
    <form className="form inline-form" onSubmit={submit} noValidate aria-label="Duplicate agent">
      <Field
        label="Name of the copy"
        name="agent_name"
        defaultValue={`${agent.name} (copy)`}
        error={fieldError(error, 'agent_name') ?? (error ? errorMessage(error) : undefined)}
      />
      <div className="actions">
        <button type="submit" className="secondary" disabled={duplicate.isPending}>
          Duplicate
        </button>
      </div>
    </form>
  );
}

/** A flow agent, shown as it is: it is edited where its flow is designed, not here. */
function FlowAgentView({ agent }: { agent: Agent }) {
  return (
    <>
      <p>A conversational flow agent: read-only here.</p>
      <dl className="details">
        <dt>Language</dt>
        <dd>{agent.language}</dd>
        <dt>Voice</dt>
        <dd>{agent.voice}</dd>
        <dt>Welcome message</dt>
        <dd>{agent.welcome_message || '—'}</dd>
        <dt>Given variables</dt>
        <dd>{agent.variables_provided.map((variable) => variable.name).join(', ') || '—'}</dd>
        <dt>Extracted variables</dt>
        <dd>{agent.variables_extracted.map((variable) => variable.name).join(', ') || '—'}</dd>
        <dt>Webhooks</dt>
        <dd>{agent.webhooks.map((hook) => `${hook.name} → ${hook.url}`).join(', ') || '—'}</dd>
      </dl>
    </>
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
        <FlowAgentView agent={agent.data} />
      ) : (
        <AgentEditor key={agent.data.agent_id} agent={agent.data} />
      )}
      <h2>Duplicate</h2>
      <DuplicateAgent agent={agent.data} />
    </section>
  );
}

import { useMutation, useQuery } from '@tanstack/react-query';
import {
  CreateCampaignInput,
  RETRYABLE_OUTCOMES,
  parseContactsCsv,
  type CsvContact,
  type CsvProblem,
} from '@voice/core/schemas';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, errorMessage, fieldError, invalidInput } from '../api';
import { CallingWindows, type CallingWindow } from '../components/CallingWindows';
import { ContactsPreview } from '../components/ContactsPreview';
import { Field, SelectField } from '../components/Field';
import { localInputToMs } from '../format';
import { ErrorMessage } from '../components/Messages';

/** What each retryable outcome is called in the form. */
const RETRY_LABELS: Record<(typeof RETRYABLE_OUTCOMES)[number], string> = {
  busy: 'Busy',
  no_answer: 'No answer',
  error: 'An error',
  voicemail: 'Answering machine',
  voicemail_left: 'Message left on a machine',
};

const browserTimezone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

type Upload =
  | { name: string; contacts: { line: number; contact: CsvContact }[]; problems: CsvProblem[] }
  | { name: string; error: string };

/**
 * A campaign from a CSV of contacts. The file is read here; the api checks every row (the same checks
 * campaign-create makes, and the do-not-call list) and writes nothing until the campaign is created.
 * The preview lists every rejected row with its line in the file; only the accepted rows are sent.
 */
export function NewCampaignPage() {
  const navigate = useNavigate();
  const [upload, setUpload] = useState<Upload | null>(null);
  const [timezone, setTimezone] = useState(browserTimezone);
  const [windows, setWindows] = useState<CallingWindow[]>([]);
  const [agentId, setAgentId] = useState('');
  const [invalid, setInvalid] = useState<Error | null>(null);
  const agents = useQuery({
    queryKey: ['agents.list', 'all'],
    queryFn: () => api.agents.list.query({ limit: 1000 }),
  });
  const numbers = useQuery({ queryKey: ['phoneNumbers.list'], queryFn: () => api.phoneNumbers.list.query() });
  const rows = upload && 'contacts' in upload ? upload.contacts : [];
  const check = useQuery({
    queryKey: ['campaigns.checkContacts', upload, timezone],
    queryFn: () => api.campaigns.checkContacts.mutate({ contacts: rows.map((row) => row.contact), timezone }),
    enabled: rows.length > 0,
    staleTime: Infinity,
  });
  const create = useMutation({
    mutationFn: (input: CreateCampaignInput) => api.campaigns.create.mutate(input),
    onSuccess: (campaign) => void navigate(`/campaigns/${campaign.campaign_id}`),
  });

  async function choose(file: File | undefined) {
    if (!file) return setUpload(null);
    const parsed = parseContactsCsv(await file.text());
    setUpload(parsed.ok ? { name: file.name, ...parsed } : { name: file.name, error: parsed.reason });
  }

  // The api counts the file's data rows; the preview speaks of its lines, as its first column does.
  const inLines = (reason: string) =>
    reason.replace(/repeats row (\d+)/, (said, row: string) =>
      rows[Number(row) - 1] ? `repeats line ${rows[Number(row) - 1]!.line}` : said,
    );
  const rejectedRows = new Set(check.data?.rejected.map((r) => r.row));
  const accepted = rows.filter((_, index) => !rejectedRows.has(index + 1));
  const rejected = [
    ...(upload && 'problems' in upload ? upload.problems : []),
    ...(check.data?.rejected.map(({ row, reason }) => ({
      line: rows[row - 1]!.line,
      reason: inLines(reason),
    })) ?? []),
  ].sort((a, b) => a.line - b.line);
  const ready = !upload || ('contacts' in upload && (rows.length === 0 || check.isSuccess));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const optionalNumber = (name: string) => {
      const value = String(form.get(name) ?? '').trim();
      return value === '' ? undefined : Number(value);
    };
    // A date and time in the browser's timezone, as the API's ISO 8601 instant.
    const instant = (name: string) => {
      const ms = localInputToMs(String(form.get(name) ?? ''));
      return ms === undefined ? undefined : new Date(ms).toISOString();
    };
    const parsed = CreateCampaignInput.safeParse({
      name: form.get('name'),
      agent_id: form.get('agent_id'),
      from_numbers: form.getAll('from_numbers'),
      timezone,
      max_concurrent_calls: optionalNumber('max_concurrent_calls'),
      dials_per_minute: optionalNumber('dials_per_minute') ?? null,
      ring_timeout_seconds: optionalNumber('ring_timeout_seconds') ?? null,
      schedule: {
        ...(instant('start_at') ? { start_at: instant('start_at') } : {}),
        ...(instant('end_at') ? { end_at: instant('end_at') } : {}),
      },
      calling_windows: windows,
      retry_policy: {
        retry_on: form.getAll('retry_on'),
        max_attempts: optionalNumber('max_attempts'),
        delay_seconds: (optionalNumber('retry_delay_minutes') ?? 60) * 60,
      },
      draft: form.get('draft') === 'on',
      contacts: accepted.map((row) => row.contact),
    });
    if (!parsed.success) return setInvalid(invalidInput(parsed.error.issues));
    setInvalid(null);
    create.mutate(parsed.data);
  }

  const error = invalid ?? create.error;
  const fields = [
    'name',
    'agent_id',
    'from_numbers',
    'timezone',
    'max_concurrent_calls',
    'dials_per_minute',
    'ring_timeout_seconds',
    'schedule',
    'calling_windows',
    'retry_policy',
  ];
  const formError =
    error && !fields.some((field) => fieldError(error, field)) ? errorMessage(error) : undefined;

  return (
    <section>
      <p>
        <Link to="/campaigns">Campaigns</Link> /
      </p>
      <h1>New campaign</h1>
      <form className="form" onSubmit={submit} noValidate>
        <Field label="Name" name="name" required error={fieldError(error, 'name')} />
        <SelectField
          label="Agent"
          name="agent_id"
          value={agentId}
          onChange={(event) => setAgentId(event.target.value)}
          error={fieldError(error, 'agent_id')}
        >
          <option value="" disabled>
            Choose an agent
          </option>
          {agents.data?.agents.map((agent) => (
            <option key={agent.agent_id} value={agent.agent_id}>
              {agent.name}
              {agent.agent_type === 'conversationalFlow' ? ' (flow)' : ''}
            </option>
          ))}
        </SelectField>
        <fieldset
          className="choices"
          aria-describedby={fieldError(error, 'from_numbers') ? 'from-error' : undefined}
        >
          <legend>Call from</legend>
          {numbers.data?.map((number) => (
            <label key={number.phone_number} className="inline">
              <input type="checkbox" name="from_numbers" value={number.phone_number} />{' '}
              {number.phone_number_pretty}
              {number.display_name ? ` (${number.display_name})` : ''}
            </label>
          ))}
          {numbers.data?.length === 0 && <p>This account has no phone numbers yet.</p>}
          {fieldError(error, 'from_numbers') && (
            <p id="from-error" className="field-error" role="alert">
              {fieldError(error, 'from_numbers')}
            </p>
          )}
        </fieldset>
        <Field
          label="Timezone"
          name="timezone"
          value={timezone}
          onChange={(event) => setTimezone(event.target.value)}
          hint="Contacts without a timezone column are called in this one (IANA name)"
          error={fieldError(error, 'timezone')}
        />
        <div className="row">
          <Field
            label="Calls at once"
            name="max_concurrent_calls"
            type="number"
            min={1}
            defaultValue={10}
            error={fieldError(error, 'max_concurrent_calls')}
          />
          <Field
            label="Dials per minute"
            name="dials_per_minute"
            type="number"
            min={1}
            hint="Empty: as fast as the calls-at-once cap allows"
            error={fieldError(error, 'dials_per_minute')}
          />
          <Field
            label="Ring time (seconds)"
            name="ring_timeout_seconds"
            type="number"
            min={5}
            max={600}
            hint="Empty: the agent's ring time, else the carrier's (60 s at Twilio)"
            error={fieldError(error, 'ring_timeout_seconds')}
          />
        </div>
        <h2>Schedule</h2>
        <div className="row">
          <Field
            label="Start at"
            name="start_at"
            type="datetime-local"
            hint="Your browser's time. Empty: as soon as it is created"
            error={fieldError(error, 'schedule.start_at')}
          />
          <Field
            label="End at"
            name="end_at"
            type="datetime-local"
            hint="Your browser's time. Empty: when every contact is done"
            error={fieldError(error, 'schedule.end_at')}
          />
        </div>
        <CallingWindows
          windows={windows}
          onChange={setWindows}
          errorOf={(index, field) => fieldError(error, `calling_windows[${index}].${field}`)}
        />
        <h2>Retries</h2>
        <fieldset className="choices">
          <legend>Call again after</legend>
          {RETRYABLE_OUTCOMES.map((outcome) => (
            <label key={outcome} className="inline">
              <input
                type="checkbox"
                name="retry_on"
                value={outcome}
                defaultChecked={outcome === 'busy' || outcome === 'no_answer'}
              />{' '}
              {RETRY_LABELS[outcome]}
            </label>
          ))}
          {fieldError(error, 'retry_policy.retry_on') && (
            <p className="field-error" role="alert">
              {fieldError(error, 'retry_policy.retry_on')}
            </p>
          )}
        </fieldset>
        <div className="row">
          <Field
            label="Attempts per contact"
            name="max_attempts"
            type="number"
            min={1}
            max={10}
            defaultValue={3}
            hint="Default 3, the first call included"
            error={fieldError(error, 'retry_policy.max_attempts')}
          />
          <Field
            label="Wait before calling again (minutes)"
            name="retry_delay_minutes"
            type="number"
            min={0}
            defaultValue={60}
            hint="Default 60"
            error={fieldError(error, 'retry_policy.delay_seconds')}
          />
        </div>
        <div className="field">
          <label htmlFor="contacts-file">Contacts (CSV)</label>
          <small id="contacts-hint" className="hint">
            A header naming a to_number column; an optional timezone column; every other column is a variable.
          </small>
          <input
            id="contacts-file"
            type="file"
            accept=".csv,text/csv"
            aria-describedby="contacts-hint"
            onChange={(event) => void choose(event.target.files?.[0])}
          />
        </div>
        <ContactsPreview
          agentId={agentId}
          contacts={upload && 'contacts' in upload ? accepted.map((row) => row.contact) : null}
        />
        <ErrorMessage error={upload && 'error' in upload ? `${upload.name}: ${upload.error}` : undefined} />
        <ErrorMessage error={check.error} />
        {upload && 'contacts' in upload && (check.isSuccess || rows.length === 0) && (
          <section className="preview" aria-labelledby="preview-title">
            <h2 id="preview-title">Preview of {upload.name}</h2>
            <p role="status">
              {(rows.length + upload.problems.length).toLocaleString()} rows read:{' '}
              <strong>{accepted.length.toLocaleString()} accepted</strong>
              {check.data && check.data.skipped_dnc > 0
                ? ` (${check.data.skipped_dnc.toLocaleString()} on the do-not-call list, kept but never dialed)`
                : ''}
              , <strong>{rejected.length.toLocaleString()} rejected</strong>. Nothing is saved until you
              create the campaign.
            </p>
            {rejected.length > 0 && (
              <div className="table-scroll">
                <table>
                  <caption>Rejected rows</caption>
                  <thead>
                    <tr>
                      <th scope="col">Line</th>
                      <th scope="col">Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rejected.slice(0, 500).map((row) => (
                      <tr key={row.line}>
                        <td>{row.line}</td>
                        <td>{row.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        )}
        <label className="inline">
          <input type="checkbox" name="draft" /> Save as a draft (start it later)
        </label>
        <ErrorMessage error={formError} />
        <div className="actions">
          <button type="submit" disabled={!ready || create.isPending}>
            {create.isPending
              ? 'Creating…'
              : upload && 'contacts' in upload
                ? `Create campaign with ${accepted.length.toLocaleString()} contacts`
                : 'Create campaign'}
          </button>
        </div>
      </form>
    </section>
  );
}

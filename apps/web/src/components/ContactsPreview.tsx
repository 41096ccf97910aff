import { useQuery } from '@tanstack/react-query';
import { fillVariables, placeholdersIn, type CsvContact } from '@voice/core/schemas';
import { api, saveFile } from '../api';

/** Rows the preview fills the agent's texts from. */
const PREVIEW_ROWS = 3;

/**
 * The chosen agent's side of a contacts file: a CSV template with a column for each variable its texts
 * use, and, once a file is read, its welcome message and prompt filled from the first rows, warning of
 * a `{{variable}}` that neither a column nor the agent's default fills (it would be said as written).
 */
export function ContactsPreview({ agentId, contacts }: { agentId: string; contacts: CsvContact[] | null }) {
  const agent = useQuery({
    queryKey: ['agents.get', agentId],
    queryFn: () => api.agents.get.query({ agent_id: agentId }),
    enabled: agentId !== '',
  });
  if (!agent.data) return null;
  const { welcome_message, prompt, variables_provided } = agent.data;
  const defaults = Object.fromEntries(
    variables_provided.filter((v) => v.default).map((v) => [v.name, v.default as string]),
  );
  const used = placeholdersIn(`${welcome_message}\n${prompt}`);
  const template = () => {
    const header = ['to_number', 'timezone', ...used];
    const example = ['+14155550123', 'America/New_York', ...used.map((name) => defaults[name] ?? '')];
    saveFile(
      new Blob([`${header.join(',')}\n${example.join(',')}\n`], { type: 'text/csv' }),
      `${agent.data.name} contacts.csv`,
    );
  };
  const rows = (contacts ?? []).slice(0, PREVIEW_ROWS);
  const unfilled = contacts
    ? used.filter((name) => !(name in defaults) && !contacts.some((contact) => name in contact.variables))
    : [];
  return (
    <div className="contacts-preview">
      <button type="button" className="secondary" onClick={template}>
        Download a CSV template for {agent.data.name}
      </button>
      {unfilled.length > 0 && (
        <p className="field-error" role="alert">
          No column fills {unfilled.map((name) => `{{${name}}}`).join(', ')}: the agent would say{' '}
          {unfilled.length === 1 ? 'it' : 'them'} as written. Add a column, or a default to the agent.
        </p>
      )}
      {rows.length > 0 && used.length > 0 && (
        <>
          <h3>What the agent is told for the first rows</h3>
          <ol className="filled">
            {rows.map((contact, index) => {
              const vars = { ...defaults, ...contact.variables };
              return (
                <li key={index}>
                  <strong>{contact.to_number}</strong>
                  {welcome_message && <p dir="auto">{fillVariables(welcome_message, vars)}</p>}
                  <p dir="auto" className="hint">
                    {fillVariables(prompt, vars).slice(0, 300)}
                    {prompt.length > 300 ? '…' : ''}
                  </p>
                </li>
              );
            })}
          </ol>
        </>
      )}
    </div>
  );
}

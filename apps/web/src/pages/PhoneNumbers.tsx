import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AddPhoneNumberInput } from '@voice/core/schemas';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, errorMessage, fieldError, type Outputs } from '../api';
import { optionalText, useCheckedSubmit } from '../checked-submit';
import { DataTable } from '../components/DataTable';
import { Field, PhoneNumberField } from '../components/Field';
import { ErrorMessage } from '../components/Messages';
import { formatTime } from '../format';

type PhoneNumber = Outputs['phoneNumbers']['list'][number];
type AgentOption = { agent_id: string; name: string };

/** One number's agent: chosen from the account's agents, saved on its own (incoming calls reach it). */
function AssignAgent({ number, agents }: { number: PhoneNumber; agents: AgentOption[] }) {
  const queryClient = useQueryClient();
  const [agentId, setAgentId] = useState(number.agent_id ?? '');
  const assign = useMutation({
    mutationFn: () =>
      api.phoneNumbers.assign.mutate({ phone_number: number.phone_number, agent_id: agentId || null }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['phoneNumbers.list'] }),
  });
  const changed = agentId !== (number.agent_id ?? '');
  return (
    <form
      className="inline-form"
      aria-label={`Agent of ${number.phone_number}`}
      onSubmit={(event) => {
        event.preventDefault();
        assign.mutate();
      }}
    >
      <label className="visually-hidden" htmlFor={`agent-${number.phone_number_id}`}>
        Agent of {number.phone_number}
      </label>
      <select
        id={`agent-${number.phone_number_id}`}
        value={agentId}
        onChange={(event) => setAgentId(event.target.value)}
      >
        <option value="">No agent (calls are refused)</option>
        {agents.map((agent) => (
          <option key={agent.agent_id} value={agent.agent_id}>
            {agent.name}
          </option>
        ))}
      </select>{' '}
      <button type="submit" className="secondary" disabled={!changed || assign.isPending}>
        {agentId ? 'Assign' : 'Unassign'}
      </button>
      <ErrorMessage error={assign.error} />
    </form>
  );
}

function AddNumberForm() {
  const queryClient = useQueryClient();
  const add = useMutation({
    mutationFn: (input: AddPhoneNumberInput) => api.phoneNumbers.add.mutate(input),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['phoneNumbers.list'] }),
  });
  const { submit, error } = useCheckedSubmit(
    AddPhoneNumberInput,
    (data) => ({
      phone_number: optionalText(data, 'phone_number') ?? '',
      display_name: optionalText(data, 'display_name'),
    }),
    (input, reset) => add.mutate(input, { onSuccess: reset }),
    add.error,
  );
  const nameError = fieldError(error, 'display_name');
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Add a phone number">
      <div className="row">
        <PhoneNumberField
          hint="A number of the carrier account, E.164"
          error={error && !nameError ? errorMessage(error) : undefined}
        />
        <Field label="Display name (optional)" name="display_name" error={nameError} />
      </div>
      <div className="actions">
        <button type="submit" disabled={add.isPending}>
          Add number
        </button>
      </div>
    </form>
  );
}

/** The account's phone numbers and the agent that answers each. */
export function PhoneNumbersPage() {
  const numbers = useQuery({ queryKey: ['phoneNumbers.list'], queryFn: () => api.phoneNumbers.list.query() });
  const agents = useQuery({
    queryKey: ['agents.list', { limit: 1000 }],
    queryFn: () => api.agents.list.query({ limit: 1000 }),
  });
  const options = agents.data?.agents ?? [];
  const queryClient = useQueryClient();
  const release = useMutation({
    mutationFn: (phone_number: string) => api.phoneNumbers.release.mutate({ phone_number }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['phoneNumbers.list'] }),
  });
  return (
    <section>
      <h1>Phone numbers</h1>
      <ErrorMessage error={numbers.error ?? agents.error} />
      <ErrorMessage error={release.error} />
      {numbers.data && (
        <DataTable
          caption="Phone numbers"
          rows={numbers.data}
          rowKey={(number) => number.phone_number_id}
          empty="No numbers yet."
          columns={[
            { header: 'Number', cell: (number) => number.phone_number_pretty },
            { header: 'Name', cell: (number) => number.display_name ?? '—' },
            {
              header: 'Agent',
              cell: (number) =>
                agents.data ? (
                  <AssignAgent key={number.agent_id ?? ''} number={number} agents={options} />
                ) : number.agent_id ? (
                  <Link to={`/agents/${number.agent_id}`}>{number.agent_name}</Link>
                ) : (
                  'None'
                ),
            },
            { header: 'Added', cell: (number) => formatTime(number.created_at) },
          ]}
          removal={{
            verb: 'Release',
            name: (number) => number.phone_number_pretty,
            consequence:
              'Its calls are no longer answered and nothing dials from it; it stays with your carrier and can be added again.',
            remove: (number) => release.mutate(number.phone_number),
            pending: release.isPending,
          }}
        />
      )}
      <h2>Add a number</h2>
      <AddNumberForm />
    </section>
  );
}

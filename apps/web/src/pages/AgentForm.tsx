import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DuplicateAgentInput } from '@voice/core/schemas';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage, fieldError } from '../api';
import { Field } from '../components/Field';
import { useCheckedSubmit } from '../checked-submit';
import { Pending } from '../components/Messages';
import { AgentLatency } from '../components/LatencyBars';
import { TalkToAgent } from '../components/TalkToAgent';
import { AgentEditor, type Agent } from './agent-form/AgentEditor';
import { AgentKnowledge } from './agent-form/AgentKnowledge';
import { AgentTestBench } from './agent-form/AgentTestBench';
import { AgentTurnTaking } from './agent-form/AgentTurnTaking';

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

/** A flow agent, shown as it is: its flow is edited in the flow builder (and never through the API). */
function FlowAgentView({ agent }: { agent: Agent }) {
  return (
    <>
      <p>
        A conversational flow agent. <Link to={`/agents/${agent.agent_id}/flow`}>Open the flow builder</Link>
      </p>
      <dl className="details">
        <dt>Language</dt>
        <dd>{agent.language}</dd>
        <dt>Voice</dt>
        <dd>{agent.voice}</dd>
        <dt>Welcome message</dt>
        <dd dir="auto">{agent.welcome_message || '—'}</dd>
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
      <AgentLatency agentId={agent.data.agent_id} />
      <TalkToAgent agentId={agent.data.agent_id} />
      {agent.data.agent_type === 'conversationalFlow' ? (
        <FlowAgentView agent={agent.data} />
      ) : (
        <>
          <AgentEditor key={agent.data.agent_id} agent={agent.data} />
          <AgentKnowledge agentId={agent.data.agent_id} />
          <AgentTestBench agentId={agent.data.agent_id} />
        </>
      )}
      <AgentTurnTaking agentId={agent.data.agent_id} />
      <h2>Duplicate</h2>
      <DuplicateAgent agent={agent.data} />
    </section>
  );
}

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
  const handling = useQuery({
    queryKey: ['agents.callHandling', agentId],
    queryFn: () => api.agents.callHandling.query({ agent_id: agentId }),
  });
  if (agent.isError || !agent.data) return <Pending query={agent} />;
  if (handling.isError || !handling.data) return <Pending query={handling} />;
  return (
    <section>
      <p>
        <Link to="/agents">Agents</Link> /
      </p>
      <h1>{agent.data.name}</h1>
      <AgentLatency agentId={agent.data.agent_id} />
      <TalkToAgent agentId={agent.data.agent_id} />
      {agent.data.agent_type === 'conversationalFlow' ? (
        <>
          <p>
            A conversational flow agent: what it says is its flow.{' '}
            <Link to={`/agents/${agent.data.agent_id}/flow`}>Open the flow builder</Link>. Its own settings
            are below; saving them makes its next version, its flow unchanged.
          </p>
          <AgentEditor key={agent.data.agent_id} agent={agent.data} handling={handling.data} />
        </>
      ) : (
        <>
          <AgentEditor key={agent.data.agent_id} agent={agent.data} handling={handling.data} />
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

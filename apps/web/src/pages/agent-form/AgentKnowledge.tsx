import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api';
import { ErrorMessage } from '../../components/Messages';

/** The knowledge bases a prompt agent answers from (a dashboard setting: the API's agent has none). */
export function AgentKnowledge({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const bases = useQuery({ queryKey: ['knowledge.list'], queryFn: () => api.knowledge.list.query() });
  const current = useQuery({
    queryKey: ['knowledge.agent', agentId],
    queryFn: () => api.knowledge.agent.query({ agent_id: agentId }),
  });
  const [chosen, setChosen] = useState<string[] | null>(null);
  const selected = chosen ?? current.data?.knowledge_base_ids ?? [];
  const save = useMutation({
    mutationFn: () => api.knowledge.setAgent.mutate({ agent_id: agentId, knowledge_base_ids: selected }),
    onSuccess: () => {
      setChosen(null);
      void queryClient.invalidateQueries({ queryKey: ['knowledge.agent', agentId] });
    },
  });
  if (!bases.data || !current.data) return null;
  return (
    <section aria-label="Knowledge bases of the agent">
      <h2>Knowledge bases</h2>
      {bases.data.length === 0 ? (
        <p className="hint">
          No knowledge base yet: <Link to="/knowledge">create one</Link> for the agent to answer from.
        </p>
      ) : (
        <form
          className="form"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          <p className="hint">
            The agent answers questions from these, and says it does not know what they do not hold.
          </p>
          {bases.data.map((base) => (
            <label key={base.id} className="checkbox">
              <input
                type="checkbox"
                checked={selected.includes(base.id)}
                onChange={(event) =>
                  setChosen(
                    event.target.checked ? [...selected, base.id] : selected.filter((id) => id !== base.id),
                  )
                }
              />{' '}
              {base.name}
            </label>
          ))}
          <div className="actions">
            <button type="submit" className="secondary" disabled={save.isPending || chosen === null}>
              Save knowledge bases
            </button>
            {save.isSuccess && chosen === null && <span role="status"> Saved.</span>}
          </div>
          <ErrorMessage error={save.error} />
        </form>
      )}
    </section>
  );
}

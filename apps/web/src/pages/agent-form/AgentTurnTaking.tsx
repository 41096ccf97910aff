import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api';
import { ErrorMessage } from '../../components/Messages';

/** How the agent takes turns on a live call (dashboard settings: the API's agent has no field for them). */
export function AgentTurnTaking({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const current = useQuery({
    queryKey: ['agents.conversationSettings', agentId],
    queryFn: () => api.agents.conversationSettings.query({ agent_id: agentId }),
  });
  const [sensitivity, setSensitivity] = useState<number | null>(null);
  const value = sensitivity ?? current.data?.interruption_sensitivity ?? 0.5;
  const save = useMutation({
    mutationFn: () =>
      api.agents.setConversationSettings.mutate({ agent_id: agentId, interruption_sensitivity: value }),
    onSuccess: () => {
      setSensitivity(null);
      void queryClient.invalidateQueries({ queryKey: ['agents.conversationSettings', agentId] });
    },
  });
  if (!current.data) return null;
  return (
    <section aria-label="Turn-taking">
      <h2>Turn-taking</h2>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <label>
          Interruption sensitivity: {value.toFixed(2)}
          <input
            type="range"
            min={0}
            max={1}
            step={0.05}
            value={value}
            onChange={(event) => setSensitivity(Number(event.target.value))}
          />
        </label>
        <p className="hint">
          How soon the caller&apos;s voice stops the agent: low waits for longer speech, high stops at the
          first syllable. A backchannel (&ldquo;uh-huh&rdquo;, &ldquo;yeah&rdquo;) or a noise never costs the
          agent its turn: it goes on where it stopped.
        </p>
        <div className="actions">
          <button type="submit" className="secondary" disabled={save.isPending || sensitivity === null}>
            Save turn-taking
          </button>
          {save.isSuccess && sensitivity === null && <span role="status"> Saved.</span>}
        </div>
        <ErrorMessage error={save.error} />
      </form>
    </section>
  );
}

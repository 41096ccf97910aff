import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api';
import { ErrorMessage } from '../../components/Messages';

type Settings = Awaited<ReturnType<typeof api.agents.conversationSettings.query>>;

/** How the agent takes turns on a live call (dashboard settings: the API's agent has no field for them). */
export function AgentTurnTaking({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const current = useQuery({
    queryKey: ['agents.conversationSettings', agentId],
    queryFn: () => api.agents.conversationSettings.query({ agent_id: agentId }),
  });
  const [draft, setDraft] = useState<Partial<Settings> | null>(null);
  const save = useMutation({
    mutationFn: () => api.agents.setConversationSettings.mutate({ agent_id: agentId, ...draft }),
    onSuccess: () => {
      setDraft(null);
      void queryClient.invalidateQueries({ queryKey: ['agents.conversationSettings', agentId] });
    },
  });
  if (!current.data) return null;
  const value = { ...current.data, ...draft };
  const change = (changes: Partial<Settings>) => setDraft({ ...draft, ...changes });
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
        <Slider
          label="Interruption sensitivity"
          value={value.interruption_sensitivity}
          onChange={(interruption_sensitivity) => change({ interruption_sensitivity })}
        />
        <p className="hint">
          How soon the caller&apos;s voice stops the agent: low waits for longer speech, high stops at the
          first syllable. A backchannel (&ldquo;uh-huh&rdquo;, &ldquo;yeah&rdquo;) or a noise never costs the
          agent its turn: it goes on, softer only until the caller&apos;s words show what they were.
        </p>
        <Slider
          label="Responsiveness"
          value={value.responsiveness}
          onChange={(responsiveness) => change({ responsiveness })}
        />
        <p className="hint">
          How soon the agent answers once the caller stops: 1 at once, 0 up to 0.8 s later. After a sentence
          left unfinished (&ldquo;my number is 0 5 4&hellip;&rdquo;, &ldquo;I&apos;d like to
          book&hellip;&rdquo;) it waits 1.8 s more, and 1.6 s more after one it cannot tell.
        </p>
        <label>
          Remind a silent caller after (seconds; empty: the deployment&apos;s silence timeout)
          <input
            type="number"
            min={2}
            max={120}
            value={value.reminder_after_ms === null ? '' : value.reminder_after_ms / 1000}
            onChange={(event) =>
              change({
                reminder_after_ms:
                  event.target.value === '' ? null : Math.round(Number(event.target.value) * 1000),
              })
            }
          />
        </label>
        <label>
          Reminders before the agent says goodbye
          <input
            type="number"
            min={0}
            max={5}
            value={value.reminder_max_count}
            onChange={(event) => change({ reminder_max_count: Number(event.target.value) })}
          />
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={value.noise_suppression}
            onChange={(event) => change({ noise_suppression: event.target.checked })}
          />
          Noise suppression on the caller&apos;s audio
        </label>
        <p className="hint">
          Filters noise around the caller (street, music, a fan) before the agent listens: fewer pauses for
          noise, at some CPU cost on the media server.
        </p>
        <label>
          Voicemail message (agents that leave one on an answering machine)
          <select
            value={value.voicemail_message_kind}
            onChange={(event) =>
              change({ voicemail_message_kind: event.target.value as Settings['voicemail_message_kind'] })
            }
          >
            <option value="text">spoken as written</option>
            <option value="instruction">an instruction: the model writes the message</option>
          </select>
        </label>
        <label>
          Transfers (agents that transfer calls)
          <select
            value={value.transfer_mode}
            onChange={(event) => change({ transfer_mode: event.target.value as Settings['transfer_mode'] })}
          >
            <option value="cold">cold: the caller is put through at once</option>
            <option value="warm">warm: the agent briefs the colleague first</option>
          </select>
        </label>
        <div className="actions">
          <button type="submit" className="secondary" disabled={save.isPending || draft === null}>
            Save turn-taking
          </button>
          {save.isSuccess && draft === null && <span role="status"> Saved.</span>}
        </div>
        <ErrorMessage error={save.error} />
      </form>
    </section>
  );
}

/** A setting from 0 to 1, in twentieths. */
function Slider({
  label,
  value,
  onChange,
}: {
  label: string;
  value: number;
  onChange: (value: number) => void;
}) {
  return (
    <label>
      {label}: {value.toFixed(2)}
      <input
        type="range"
        min={0}
        max={1}
        step={0.05}
        value={value}
        onChange={(event) => onChange(Number(event.target.value))}
      />
    </label>
  );
}

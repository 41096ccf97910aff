import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api';
import { ErrorMessage } from '../../components/Messages';

type Run = Awaited<ReturnType<typeof api.agents.test.query>>;

/** What the scenarios box holds at first: one scenario to start from. */
const EXAMPLE = `- name: Books an appointment
  persona: Dana, a patient who prefers mornings and answers briefly.
  goal: Book an appointment on Tuesday morning.
  criteria:
    - The agent asks which day suits the caller.
    - The agent confirms "Tuesday morning".
  max_turns: 6
`;

const finished = (run: Run) => run.status !== 'queued' && run.status !== 'running';

/**
 * The agent's test bench (docs/voice.md): scenarios in YAML, each a simulated caller the language model
 * plays against the agent as it is now, then graded criterion by criterion. Runs are listed newest first
 * with their verdicts, looked at again every two seconds while one is under way.
 */
export function AgentTestBench({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const [scenarios, setScenarios] = useState(EXAMPLE);
  const runs = useQuery({
    queryKey: ['agents.tests', agentId],
    queryFn: () => api.agents.tests.query({ agent_id: agentId }),
    refetchInterval: (query) => (query.state.data?.every(finished) === false ? 2_000 : false),
  });
  const start = useMutation({
    mutationFn: () => api.agents.startTest.mutate({ agent_id: agentId, scenarios }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['agents.tests', agentId] }),
  });
  return (
    <section aria-label="Test bench">
      <h2>Test bench</h2>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          start.mutate();
        }}
      >
        <label>
          Scenarios (YAML: name, persona, goal, criteria, max_turns)
          <textarea rows={10} value={scenarios} onChange={(event) => setScenarios(event.target.value)} />
        </label>
        <p className="hint">
          Each scenario&apos;s caller is played by the language model and talks with the agent as it is now,
          as text through the same conversation engine as a call; the model then grades the conversation
          against each criterion. Results are kept per agent version.
        </p>
        <div className="actions">
          <button type="submit" disabled={start.isPending}>
            Run tests
          </button>
        </div>
        <ErrorMessage error={start.error} />
      </form>
      {runs.data?.map((run) => (
        <TestRun key={run.run_id} run={run} />
      ))}
    </section>
  );
}

function TestRun({ run }: { run: Run }) {
  return (
    <article aria-label={`Test run ${run.run_id}`} className="test-run">
      <h3>
        Version {run.agent_version}: <span className={`verdict-${run.status}`}>{run.status}</span>{' '}
        <small>{new Date(run.created_at).toLocaleString()}</small>
      </h3>
      {run.error && <p role="alert">{run.error}</p>}
      <ul>
        {run.scenarios.map((scenario, index) => (
          <li key={index}>
            <strong>{scenario.name}</strong>{' '}
            <span
              className={`verdict-${scenario.error ? 'error' : scenario.passed === null ? 'running' : scenario.passed ? 'passed' : 'failed'}`}
            >
              {scenario.error
                ? 'error'
                : scenario.passed === null
                  ? '…'
                  : scenario.passed
                    ? 'passed'
                    : 'failed'}
            </span>
            {scenario.error && <p>{scenario.error}</p>}
            <ul>
              {scenario.verdicts.map((verdict, at) => (
                <li key={at}>
                  {verdict.passed ? 'pass' : 'fail'}: {verdict.criterion}
                  {verdict.reason ? ` (${verdict.reason})` : ''}
                </li>
              ))}
            </ul>
            {scenario.transcript.length > 0 && (
              <details>
                <summary>Conversation{scenario.end ? ` (${scenario.end})` : ''}</summary>
                <ol>
                  {scenario.transcript.map((entry, at) => (
                    <li key={at}>
                      {entry.role}: {entry.content}
                    </li>
                  ))}
                </ol>
              </details>
            )}
          </li>
        ))}
      </ul>
    </article>
  );
}

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { FlowDefinition } from '@voice/core/schemas';
import { api, type Outputs } from '../../api';
import { FunctionCallList } from '../../components/FunctionCalls';
import { ErrorMessage } from '../../components/Messages';

type Turn = Outputs['flows']['testTurn'];
type Line = { role: 'caller' | 'agent' | 'system'; content: string };

/**
 * The builder's text chat: the flow on the canvas (saved or not) run by the same engine as a call, the
 * caller's words typed; the path, the variables and the function calls shown as it goes.
 */
export function TestChat({ agentId, flow }: { agentId: string; flow: FlowDefinition }) {
  const [lines, setLines] = useState<Line[]>([]);
  const [state, setState] = useState<Turn['state'] | null>(null);
  const [invocations, setInvocations] = useState<Turn['invocations']>([]);
  const [text, setText] = useState('');
  const turn = useMutation({
    mutationFn: (said: string | null) =>
      api.flows.testTurn.mutate({
        agent_id: agentId,
        flow,
        dialogue: lines.flatMap((line) =>
          line.role === 'system' ? [] : [{ role: line.role, content: line.content }],
        ),
        state: said === null ? null : state,
        text: said,
      }),
    onSuccess: (result, said) => {
      setLines((before) => [
        ...(said === null ? [] : [...before, { role: 'caller' as const, content: said }]),
        ...result.entries,
      ]);
      setInvocations((before) => (said === null ? result.invocations : [...before, ...result.invocations]));
      setState(result.state);
      setText('');
    },
  });
  const started = state !== null;
  return (
    <section className="flow-test" aria-label="Test by text chat">
      <h2>Test by text chat</h2>
      <div className="actions">
        <button type="button" onClick={() => turn.mutate(null)} disabled={turn.isPending}>
          {started ? 'Start again' : 'Start the chat'}
        </button>
      </div>
      <ErrorMessage error={turn.error} />
      <ol className="chat" aria-label="Chat" aria-live="polite">
        {lines.map((line, index) => (
          <li key={index} className={`chat-${line.role}`} dir="auto">
            <span className="visually-hidden">{line.role}: </span>
            {line.content}
          </li>
        ))}
      </ol>
      {started && !state.ended && (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (text.trim()) turn.mutate(text.trim());
          }}
        >
          <label>
            The caller says{' '}
            <input
              dir="auto"
              value={text}
              onChange={(event) => setText(event.target.value)}
              disabled={turn.isPending}
            />
          </label>
          <button type="submit" disabled={turn.isPending || !text.trim()}>
            Send
          </button>
        </form>
      )}
      {state && (
        <dl className="details" aria-label="Where the chat is">
          <dt>Path</dt>
          <dd>{state.path.join(' → ') || '—'}</dd>
          <dt>Variables</dt>
          <dd>
            {Object.entries(state.vars)
              .map(([name, value]) => `${name} = ${value}`)
              .join(', ') || '—'}
          </dd>
          <dt>Ended</dt>
          <dd>{state.ended ?? 'not yet'}</dd>
        </dl>
      )}
      {invocations.length > 0 && (
        <>
          <h3>Function calls</h3>
          <FunctionCallList invocations={invocations} />
        </>
      )}
    </section>
  );
}

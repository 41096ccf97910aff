import { useQuery } from '@tanstack/react-query';
import { api } from '../api';

/** One answer's steps, as the media server timed them (ms on the call's clock; null when unknown). */
interface Turn {
  caller_stopped_ms: number | null;
  stt_final_ms: number;
  llm_first_token_ms: number | null;
  first_sentence_synthesized_ms: number | null;
  first_frame_ms: number;
  voice_to_voice_ms: number | null;
}

/** The steps of an answer, each from the one before it: what each part of the pipeline took. */
function steps(turn: Turn) {
  const start = turn.caller_stopped_ms ?? turn.stt_final_ms;
  const marks: [string, number | null][] = [
    ['Speech-to-text', turn.stt_final_ms],
    ['Language model', turn.llm_first_token_ms],
    ['Speech synthesis', turn.first_sentence_synthesized_ms],
    ['To the line', turn.first_frame_ms],
  ];
  let previous = start;
  return marks.map(([name, at]) => {
    const ms = at === null ? 0 : Math.max(0, at - previous);
    if (at !== null) previous = at;
    return { name, ms };
  });
}

const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value)} ms`);

/**
 * A call's answers, each as a bar of its steps (caller stopped → final transcript → the model's first
 * words → first sentence synthesized → first frame sent), with the call's median and 95th percentile.
 */
export function LatencyBars({ callId }: { callId: string }) {
  const latency = useQuery({
    queryKey: ['calls.latency', callId],
    queryFn: () => api.calls.latency.query({ call_id: callId }),
  });
  if (!latency.data || latency.data.turns.length === 0) return null;
  const { turns, p50_ms, p95_ms } = latency.data;
  const widest = Math.max(...turns.map((turn) => steps(turn).reduce((sum, step) => sum + step.ms, 0)), 1);
  return (
    <>
      <h2>Latency</h2>
      <p>
        Voice to voice: median {ms(p50_ms)}, 95th percentile {ms(p95_ms)} over {turns.length} answer
        {turns.length === 1 ? '' : 's'}.
      </p>
      <ol className="latency" aria-label="Latency of each answer">
        {turns.map((turn, index) => {
          const parts = steps(turn);
          const label = parts.map((part) => `${part.name} ${Math.round(part.ms)} ms`).join(', ');
          return (
            <li key={index}>
              <span className="latency-total">
                Answer {index + 1}: {ms(turn.voice_to_voice_ms)}
              </span>
              <span className="latency-bar" role="img" aria-label={label} title={label}>
                {parts.map((part) => (
                  <span
                    key={part.name}
                    className={`latency-step step-${part.name.split(' ')[0]!.toLowerCase()}`}
                    style={{ width: `${(100 * part.ms) / widest}%` }}
                  />
                ))}
              </span>
            </li>
          );
        })}
      </ol>
      <p className="hint">Speech-to-text, language model, speech synthesis, to the line.</p>
    </>
  );
}

/** An agent's answers over its recent calls: voice to voice, median and 95th percentile. */
export function AgentLatency({ agentId }: { agentId: string }) {
  const latency = useQuery({
    queryKey: ['agents.latency', agentId],
    queryFn: () => api.agents.latency.query({ agent_id: agentId }),
  });
  if (!latency.data || latency.data.answers === 0) return null;
  const { answers, calls, p50_ms, p95_ms } = latency.data;
  return (
    <p>
      Answers callers in {ms(p50_ms)} (median) and {ms(p95_ms)} (95th percentile), voice to voice, over{' '}
      {answers} answers in its last {calls} calls.
    </p>
  );
}

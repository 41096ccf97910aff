import { useQuery } from '@tanstack/react-query';
import { api, type Outputs } from '../api';
import { formatDuration } from '../format';

type Invocation = Outputs['calls']['functionInvocations'][number];

/** A flow's function requests: what was sent, what came back (never shown to API keys). */
export function FunctionCallList({ invocations }: { invocations: Invocation[] }) {
  return (
    <ul className="invocations" aria-label="Function calls">
      {invocations.map((invocation, index) => (
        <li key={index}>
          <strong>{invocation.name || invocation.node}</strong>{' '}
          {invocation.ok ? `ok (HTTP ${invocation.status})` : `failed: ${invocation.error}`} in{' '}
          {invocation.latency_ms} ms
          {invocation.at_ms > 0 && <small> at {formatDuration(invocation.at_ms)}</small>}
          <div>
            <small>{invocation.url}</small>
          </div>
          <h4>Request</h4>
          <pre>{JSON.stringify(invocation.request, null, 2)}</pre>
          {invocation.response !== null && (
            <>
              <h4>Response</h4>
              <pre>{invocation.response}</pre>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/** A call's function requests, when its agent's flow made any. */
export function CallFunctionCalls({ callId }: { callId: string }) {
  const invocations = useQuery({
    queryKey: ['calls.functionInvocations', callId],
    queryFn: () => api.calls.functionInvocations.query({ call_id: callId }),
  });
  if (!invocations.data?.length) return null;
  return (
    <>
      <h2>Function calls</h2>
      <FunctionCallList invocations={invocations.data} />
    </>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api';
import { formatTime } from '../format';
import { ErrorMessage } from './Messages';

function Values({ values }: { values: Record<string, string> }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <p className="hint">No values extracted.</p>;
  return (
    <dl className="details">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd dir="auto">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * What the post-call analysis found (summary, extracted values), with **Re-extract**: the analysis again
 * with the agent's current extracted variables. The analyses it replaced stay listed, with who and when.
 */
export function CallAnalysis({ callId, status }: { callId: string; status: string }) {
  const queryClient = useQueryClient();
  const analysis = useQuery({
    queryKey: ['calls.analysis', callId, status],
    queryFn: () => api.calls.analysis.query({ call_id: callId }),
  });
  const reanalyze = useMutation({
    mutationFn: () => api.calls.reanalyze.mutate({ call_id: callId }),
    onSuccess: (data) => {
      queryClient.setQueryData(['calls.analysis', callId, status], data);
      void queryClient.invalidateQueries({ queryKey: ['calls.get', callId] });
    },
  });
  const data = analysis.data;
  return (
    <section aria-labelledby="analysis-heading">
      <div className="page-head">
        <h2 id="analysis-heading">Analysis</h2>
        <button
          type="button"
          className="secondary"
          disabled={reanalyze.isPending || !data}
          onClick={() => reanalyze.mutate()}
        >
          {reanalyze.isPending ? 'Re-extracting…' : 'Re-extract'}
        </button>
      </div>
      <ErrorMessage error={analysis.error ?? reanalyze.error} />
      {data && (
        <>
          <p dir="auto" data-testid="call-summary">
            {data.summary ?? 'Not analysed yet.'}
          </p>
          <div data-testid="vars-extracted">
            <Values values={data.vars_extracted} />
          </div>
          {data.history.length > 0 && (
            <details>
              <summary>Earlier analyses ({data.history.length})</summary>
              <ol className="history">
                {data.history.map((entry) => (
                  <li key={entry.replaced_at}>
                    <p className="hint">
                      Replaced {formatTime(entry.replaced_at)} by {entry.replaced_by}
                    </p>
                    <p dir="auto">{entry.summary ?? 'Not analysed.'}</p>
                    <Values values={entry.vars_extracted} />
                  </li>
                ))}
              </ol>
            </details>
          )}
        </>
      )}
    </section>
  );
}

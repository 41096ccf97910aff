import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { CALL_STATUSES, ListCallsInput } from '@voice/core/schemas';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api';
import { nextKeys, Pager } from '../components/Pager';
import { callStatusLabel, formatDuration, formatTime, humanize, localInputToMs } from '../format';
import { ErrorMessage } from '../components/Messages';

/** Rows per page the list offers; 1,000 is the API's most. */
const PAGE_SIZES = [50, 200, 1000] as const;
const DIRECTIONS = ['outgoing', 'incoming'] as const;

/** The call-list filters live in the URL, so a filtered list can be bookmarked and shared. */
function useFilters() {
  const [params, setParams] = useSearchParams();
  const filters = {
    agent: params.get('agent') ?? '',
    statuses: params.getAll('status'),
    direction: params.get('direction') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    test: params.get('test') === '1',
    limit: PAGE_SIZES.find((size) => String(size) === params.get('limit')) ?? PAGE_SIZES[0],
  };
  const set = (changes: Partial<typeof filters>) => {
    const next = { ...filters, ...changes };
    const search = new URLSearchParams();
    if (next.agent) search.set('agent', next.agent);
    for (const status of next.statuses) search.append('status', status);
    if (next.direction) search.set('direction', next.direction);
    if (next.from) search.set('from', next.from);
    if (next.to) search.set('to', next.to);
    if (next.test) search.set('test', '1');
    if (next.limit !== PAGE_SIZES[0]) search.set('limit', String(next.limit));
    setParams(search, { replace: true });
  };
  return [filters, set] as const;
}

export function CallsPage() {
  const [filters, setFilters] = useFilters();
  const [keys, setKeys] = useState<(string | undefined)[]>([undefined]);
  const pageIndex = keys.length - 1;
  const agents = useQuery({
    queryKey: ['agents.list', 'all'],
    queryFn: () => api.agents.list.query({ limit: 1000 }),
  });

  const lower = localInputToMs(filters.from);
  const upper = localInputToMs(filters.to);
  const input = ListCallsInput.safeParse({
    filter_criteria: {
      ...(filters.agent ? { agent_id: [filters.agent] } : {}),
      ...(filters.statuses.length ? { call_status: filters.statuses } : {}),
      ...(filters.direction ? { direction: [filters.direction] } : {}),
      ...(lower !== undefined || upper !== undefined
        ? { start_timestamp: { lower_threshold: lower, upper_threshold: upper } }
        : {}),
      include_test_calls: filters.test,
    },
    limit: filters.limit,
    pagination_key: keys[pageIndex],
  });
  const calls = useQuery({
    queryKey: ['calls.list', input.data],
    queryFn: () => api.calls.list.query(input.data),
    enabled: input.success,
    placeholderData: keepPreviousData,
  });
  const filter = (changes: Parameters<typeof setFilters>[0]) => {
    setKeys([undefined]);
    setFilters(changes);
  };

  return (
    <section>
      <h1>Calls</h1>
      <form className="filters" aria-label="Call filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Agent{' '}
          <select value={filters.agent} onChange={(event) => filter({ agent: event.target.value })}>
            <option value="">All agents</option>
            {agents.data?.agents.map((agent) => (
              <option key={agent.agent_id} value={agent.agent_id}>
                {agent.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Direction{' '}
          <select value={filters.direction} onChange={(event) => filter({ direction: event.target.value })}>
            <option value="">Both</option>
            {DIRECTIONS.map((direction) => (
              <option key={direction} value={direction}>
                {direction}
              </option>
            ))}
          </select>
        </label>
        <label>
          From{' '}
          <input
            type="datetime-local"
            value={filters.from}
            onChange={(event) => filter({ from: event.target.value })}
          />
        </label>
        <label>
          To{' '}
          <input
            type="datetime-local"
            value={filters.to}
            onChange={(event) => filter({ to: event.target.value })}
          />
        </label>
        <label>
          Rows per page{' '}
          <select
            value={filters.limit}
            onChange={(event) => filter({ limit: Number(event.target.value) as (typeof PAGE_SIZES)[number] })}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size.toLocaleString()}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={filters.test}
            onChange={(event) => filter({ test: event.target.checked })}
          />{' '}
          Test calls
        </label>
        <fieldset className="statuses">
          <legend>Status</legend>
          {CALL_STATUSES.map((status) => (
            <label key={status} className="inline">
              <input
                type="checkbox"
                checked={filters.statuses.includes(status)}
                onChange={(event) =>
                  filter({
                    statuses: event.target.checked
                      ? [...filters.statuses, status]
                      : filters.statuses.filter((s) => s !== status),
                  })
                }
              />{' '}
              {humanize(status)}
            </label>
          ))}
        </fieldset>
      </form>
      <ErrorMessage error={input.success ? undefined : input.error.issues[0]?.message} />
      <ErrorMessage error={calls.error} />
      {calls.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption className="visually-hidden">Calls</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Status</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Direction</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {calls.data.calls.map((call) => (
                  <tr key={call.call_id}>
                    <td>
                      <Link to={`/calls/${call.call_id}`}>{formatTime(call.start_timestamp)}</Link>
                    </td>
                    <td>
                      <span className={`status status-${call.call_status}`}>
                        {callStatusLabel(call.call_status)}
                      </span>
                    </td>
                    <td>{call.agent?.name ?? '—'}</td>
                    <td>{call.direction}</td>
                    <td>{call.call_type === 'web_call' ? 'Web call' : call.from_number}</td>
                    <td>{call.call_type === 'web_call' ? '—' : call.to_number}</td>
                    <td>{formatDuration(call.duration_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {calls.data.calls.length === 0 && <p>No calls match these filters.</p>}
          <Pager
            what="calls"
            total={calls.data.total_count}
            shown={calls.data.calls.length}
            pageIndex={pageIndex}
            hasNext={
              calls.data.calls.length === filters.limit &&
              (pageIndex + 1) * filters.limit < calls.data.total_count
            }
            onPrevious={() => setKeys(keys.slice(0, -1))}
            onNext={() => setKeys(nextKeys(keys, calls.data.calls.at(-1)?.call_id))}
          />
        </>
      )}
    </section>
  );
}

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { CALL_STATUSES, DISCONNECTION_REASONS, ListCallsInput } from '@voice/core/schemas';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { AgentFilter, CampaignFilter, WindowFields } from '../components/FilterFields';
import { api, download } from '../api';
import { DataTable } from '../components/DataTable';
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
    campaign: params.get('campaign') ?? '',
    reason: params.get('reason') ?? '',
    number: params.get('number') ?? '',
    /** Which side the number search looks at: the number called (`to`) or called from. */
    side: params.get('side') === 'from' ? ('from' as const) : ('to' as const),
    prefix: params.get('match') === 'prefix',
    summaries: params.get('summaries') === '1',
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
    if (next.campaign) search.set('campaign', next.campaign);
    if (next.reason) search.set('reason', next.reason);
    if (next.number) search.set('number', next.number);
    if (next.side === 'from') search.set('side', 'from');
    if (next.prefix) search.set('match', 'prefix');
    if (next.summaries) search.set('summaries', '1');
    if (next.limit !== PAGE_SIZES[0]) search.set('limit', String(next.limit));
    setParams(search, { replace: true });
  };
  return [filters, set] as const;
}

export function CallsPage() {
  const [filters, setFilters] = useFilters();
  const [keys, setKeys] = useState<(string | undefined)[]>([undefined]);
  const pageIndex = keys.length - 1;
  const [exporting, setExporting] = useState<{ pending: boolean; error?: string }>({ pending: false });

  const lower = localInputToMs(filters.from);
  const upper = localInputToMs(filters.to);
  const number = filters.number.replace(/[\s()-]/g, '');
  const input = ListCallsInput.safeParse({
    filter_criteria: {
      ...(filters.campaign ? { campaign_id: [filters.campaign] } : {}),
      ...(filters.reason ? { disconnection_reason: [filters.reason] } : {}),
      ...(number
        ? { [`${filters.side}_number`]: { value: number, match: filters.prefix ? 'prefix' : 'exact' } }
        : {}),
      include_summary: filters.summaries,
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
  const exportCsv = async () => {
    if (!input.success) return;
    setExporting({ pending: true });
    const { limit: _limit, pagination_key: _key, ...whole } = input.data;
    try {
      await download(
        '/functions/v1/call-export',
        whole,
        `calls-${new Date().toISOString().slice(0, 10)}.csv`,
      );
      setExporting({ pending: false });
    } catch (error) {
      setExporting({ pending: false, error: error instanceof Error ? error.message : String(error) });
    }
  };

  return (
    <section>
      <h1>Calls</h1>
      <form className="filters" aria-label="Call filters" onSubmit={(event) => event.preventDefault()}>
        <AgentFilter value={filters.agent} onChange={(agent) => filter({ agent })} />
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
        <CampaignFilter value={filters.campaign} onChange={(campaign) => filter({ campaign })} />
        <label>
          Why it failed{' '}
          <select value={filters.reason} onChange={(event) => filter({ reason: event.target.value })}>
            <option value="">Any</option>
            {DISCONNECTION_REASONS.map((reason) => (
              <option key={reason} value={reason}>
                {humanize(reason)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Number{' '}
          <input
            type="search"
            inputMode="tel"
            placeholder="+1415…"
            value={filters.number}
            onChange={(event) => filter({ number: event.target.value })}
          />
        </label>
        <label>
          Number is the{' '}
          <select
            value={filters.side}
            onChange={(event) => filter({ side: event.target.value as 'to' | 'from' })}
          >
            <option value="to">number called</option>
            <option value="from">number called from</option>
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={filters.prefix}
            onChange={(event) => filter({ prefix: event.target.checked })}
          />{' '}
          Number starts with
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={filters.summaries}
            onChange={(event) => filter({ summaries: event.target.checked })}
          />{' '}
          Summaries
        </label>
        <WindowFields from={filters.from} to={filters.to} onChange={filter} />
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
          <div className="page-head">
            <p>
              {calls.data.total_count.toLocaleString()} call{calls.data.total_count === 1 ? '' : 's'} match.
            </p>
            <button
              type="button"
              className="secondary"
              disabled={exporting.pending}
              onClick={() => void exportCsv()}
            >
              {exporting.pending ? 'Exporting…' : 'Export CSV'}
            </button>
          </div>
          <ErrorMessage error={exporting.error} />
          <DataTable
            caption="Calls"
            rows={calls.data.calls}
            rowKey={(call) => call.call_id}
            columns={[
              {
                header: 'Started',
                cell: (call) => <Link to={`/calls/${call.call_id}`}>{formatTime(call.start_timestamp)}</Link>,
              },
              {
                header: 'Number',
                cell: (call) =>
                  call.call_type === 'web_call'
                    ? 'Web call'
                    : call.direction === 'incoming'
                      ? `${call.from_number} (incoming)`
                      : call.to_number,
              },
              { header: 'Agent', cell: (call) => call.agent?.name ?? '—' },
              {
                header: 'Outcome',
                cell: (call) => (
                  <>
                    <span className={`status status-${call.call_status}`}>
                      {callStatusLabel(call.call_status)}
                    </span>
                    {call.disconnection_reason ? ` · ${humanize(call.disconnection_reason)}` : ''}
                  </>
                ),
              },
              { header: 'Duration', cell: (call) => formatDuration(call.duration_ms) },
              ...(filters.summaries
                ? [
                    {
                      header: 'Summary',
                      cell: (call: (typeof calls.data.calls)[number]) => call.summary ?? '—',
                    },
                  ]
                : []),
            ]}
          />
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

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { CallAnalyticsInput } from '@voice/core/schemas';
import { useSearchParams } from 'react-router';
import { AgentFilter, CampaignFilter, WindowFields } from '../components/FilterFields';
import { api } from '../api';
import { HourChart, OutcomeChart } from '../components/AnalyticsCharts';
import { DataTable } from '../components/DataTable';
import { ErrorMessage } from '../components/Messages';
import { callStatusLabel, formatDuration, formatMoney, humanize, localInputToMs } from '../format';

const HOUR = 3_600_000;
const PERIODS = [
  { value: '1d', label: 'Last 24 hours', ms: 24 * HOUR },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * HOUR },
  { value: '30d', label: 'Last 30 days', ms: 30 * 24 * HOUR },
  { value: '90d', label: 'Last 90 days', ms: 90 * 24 * HOUR },
  { value: 'custom', label: 'From … to …', ms: 0 },
] as const;
const TIMEZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The page's filters live in the URL, so a view can be bookmarked and shared. */
function useFilters() {
  const [params, setParams] = useSearchParams();
  const filters = {
    period: PERIODS.find((p) => p.value === params.get('period'))?.value ?? '7d',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    agent: params.get('agent') ?? '',
    campaign: params.get('campaign') ?? '',
    direction: params.get('direction') ?? '',
  };
  const set = (changes: Partial<typeof filters>) => {
    const next = { ...filters, ...changes };
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(next))
      if (value && !(name === 'period' && value === '7d')) search.set(name, value);
    setParams(search, { replace: true });
  };
  return [filters, set] as const;
}

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);
/** An outcome as a person reads it: a status's label, or what an answering machine did. */
const outcomeLabel = (outcome: string) =>
  outcome === 'voicemail'
    ? 'Voicemail'
    : outcome === 'voicemail_left'
      ? 'Voicemail, message left'
      : callStatusLabel(outcome);

export function AnalyticsPage() {
  const [filters, setFilters] = useFilters();
  // A preset period ends at the next whole hour, so the request stays the same for the hour.
  const end = Math.ceil(Date.now() / HOUR) * HOUR;
  const preset = PERIODS.find((p) => p.value === filters.period)!;
  const window =
    preset.value === 'custom'
      ? { start_timestamp: localInputToMs(filters.from), end_timestamp: localInputToMs(filters.to) }
      : { start_timestamp: end - preset.ms, end_timestamp: end };
  const input = CallAnalyticsInput.safeParse({
    ...window,
    timezone: TIMEZONE,
    filter_criteria: {
      ...(filters.agent ? { agent_id: [filters.agent] } : {}),
      ...(filters.campaign ? { campaign_id: [filters.campaign] } : {}),
      ...(filters.direction ? { direction: [filters.direction] } : {}),
    },
  });
  const analytics = useQuery({
    queryKey: ['analytics.calls', input.data],
    queryFn: () => api.analytics.calls.query(input.data!),
    enabled: input.success,
    placeholderData: keepPreviousData,
  });
  const data = analytics.data;
  // Days and months are UTC's (the rollups' buckets); hours are shown in the viewer's time.
  const label = (timestamp: number) =>
    new Intl.DateTimeFormat(
      undefined,
      data?.interval === 'hour'
        ? { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }
        : data?.interval === 'month'
          ? { month: 'long', year: 'numeric', timeZone: 'UTC' }
          : { dateStyle: 'medium', timeZone: 'UTC' },
    ).format(timestamp);

  return (
    <section>
      <h1>Analytics</h1>
      <form className="filters" aria-label="Analytics filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Period{' '}
          <select
            value={filters.period}
            onChange={(event) => setFilters({ period: event.target.value as '7d' })}
          >
            {PERIODS.map((period) => (
              <option key={period.value} value={period.value}>
                {period.label}
              </option>
            ))}
          </select>
        </label>
        {filters.period === 'custom' && (
          <>
            <WindowFields from={filters.from} to={filters.to} onChange={setFilters} />
          </>
        )}
        <AgentFilter value={filters.agent} onChange={(agent) => setFilters({ agent })} />
        <CampaignFilter value={filters.campaign} onChange={(campaign) => setFilters({ campaign })} />
        <label>
          Direction{' '}
          <select
            value={filters.direction}
            onChange={(event) => setFilters({ direction: event.target.value })}
          >
            <option value="">Both</option>
            <option value="outgoing">outgoing</option>
            <option value="incoming">incoming</option>
          </select>
        </label>
      </form>
      {!input.success && (
        <p role="alert" className="error">
          {input.error.issues[0]?.path.join('.') === 'start_timestamp' || !window.start_timestamp
            ? 'Choose when the period starts and ends.'
            : input.error.issues[0]?.message}
        </p>
      )}
      <ErrorMessage error={analytics.error} />
      {data && (
        <>
          <p className="hint">
            Test calls are not counted. Times are whole hours; the chart steps by {data.interval}
            {data.interval === 'hour' ? '' : ' (UTC)'}.
          </p>
          <dl className="counts" aria-label="Totals">
            <dt>Calls</dt>
            <dd data-figure="calls">{data.totals.calls}</dd>
            <dt>Connect rate</dt>
            <dd data-figure="connect_rate">{percent(data.totals.connect_rate)}</dd>
            <dt>Voicemail rate</dt>
            <dd data-figure="voicemail_rate">{percent(data.totals.voicemail_rate)}</dd>
            <dt>Average duration</dt>
            <dd data-figure="average_duration">
              {data.totals.average_duration_ms === null
                ? '—'
                : formatDuration(data.totals.average_duration_ms)}
            </dd>
            <dt>90th percentile duration</dt>
            <dd data-figure="p90_duration">
              {data.totals.p90_duration_ms === null ? '—' : formatDuration(data.totals.p90_duration_ms)}
            </dd>
            <dt>Talk time</dt>
            <dd data-figure="talk_time">{formatDuration(data.totals.talk_time_ms)}</dd>
            <dt>Cost</dt>
            <dd data-figure="cost">
              {data.totals.cost.map((c) => formatMoney(c.combined_cost, c.currency)).join(' + ') || '—'}
            </dd>
            <dt>Cost per call</dt>
            <dd data-figure="cost_per_call">
              {data.totals.cost.map((c) => formatMoney(c.average_cost, c.currency)).join(' + ') || '—'}
            </dd>
          </dl>
          <h2>Outcomes over time</h2>
          <OutcomeChart series={data.series} label={label} />
          <h2>By outcome</h2>
          <DataTable
            caption="Calls by outcome"
            columns={[
              { header: 'Outcome', cell: (row) => outcomeLabel(row.outcome) },
              {
                header: 'Reason',
                cell: (row) => (row.disconnection_reason ? humanize(row.disconnection_reason) : '—'),
              },
              { header: 'Calls', cell: (row) => row.calls },
              {
                header: 'Share',
                cell: (row) => percent(data.totals.calls ? row.calls / data.totals.calls : null),
              },
            ]}
            rows={data.outcomes}
            rowKey={(row) => `${row.outcome}/${row.disconnection_reason ?? ''}`}
            empty="No calls in this period."
          />
          <h2>By hour of day</h2>
          <HourChart counts={data.calls_by_hour} timezone={data.timezone} />
        </>
      )}
    </section>
  );
}

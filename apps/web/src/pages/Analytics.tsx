import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CallAnalyticsInput, fromWall } from '@voice/core/schemas';
import { useSearchParams } from 'react-router';
import { AgentFilter, CampaignFilter, WindowFields } from '../components/FilterFields';
import { api } from '../api';
import { HourChart, OutcomeChart } from '../components/AnalyticsCharts';
import { DataTable } from '../components/DataTable';
import { ErrorMessage } from '../components/Messages';
import { callStatusLabel, formatDuration, formatMoney, humanize } from '../format';

const HOUR = 3_600_000;
const PERIODS = [
  { value: '1d', label: 'Last 24 hours', ms: 24 * HOUR },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * HOUR },
  { value: '30d', label: 'Last 30 days', ms: 30 * 24 * HOUR },
  { value: '90d', label: 'Last 90 days', ms: 90 * 24 * HOUR },
  { value: 'custom', label: 'From … to …', ms: 0 },
] as const;
/** Every time zone the browser knows, for the account's time zone. */
const TIME_ZONES = [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])];

/** A `datetime-local` value as the time it names in `zone`. */
function zonedInputToMs(value: string, zone: string): number | undefined {
  const wall = Date.parse(`${value}Z`);
  return value && !Number.isNaN(wall) ? fromWall(zone, wall) : undefined;
}

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
  const queryClient = useQueryClient();
  const account = useQuery({ queryKey: ['account.get'], queryFn: () => api.account.get.query() });
  const zone = account.data?.time_zone;
  const setZone = useMutation({
    mutationFn: (time_zone: string) => api.account.update.mutate({ time_zone }),
    onSuccess: (settings) => {
      queryClient.setQueryData(['account.get'], settings);
      void queryClient.invalidateQueries({ queryKey: ['analytics.calls'] });
    },
  });
  // The list shows the zone being saved, so the change is not undone (nor sent again) meanwhile.
  const chosenZone = setZone.isPending ? setZone.variables : zone;
  // A preset period ends at the next whole hour, so the request stays the same for the hour.
  const end = Math.ceil(Date.now() / HOUR) * HOUR;
  const preset = PERIODS.find((p) => p.value === filters.period)!;
  const window =
    preset.value === 'custom'
      ? {
          start_timestamp: zone && zonedInputToMs(filters.from, zone),
          end_timestamp: zone && zonedInputToMs(filters.to, zone),
        }
      : { start_timestamp: end - preset.ms, end_timestamp: end };
  // The account's time zone counts the days and hours (the request names none).
  const input = CallAnalyticsInput.safeParse({
    ...window,
    filter_criteria: {
      ...(filters.agent ? { agent_id: [filters.agent] } : {}),
      ...(filters.campaign ? { campaign_id: [filters.campaign] } : {}),
      ...(filters.direction ? { direction: [filters.direction] } : {}),
    },
  });
  const analytics = useQuery({
    queryKey: ['analytics.calls', input.data],
    queryFn: () => api.analytics.calls.query(input.data!),
    enabled: input.success && zone !== undefined,
    placeholderData: keepPreviousData,
  });
  const data = analytics.data;
  // Hours, days and months of the account's time zone, shown as its clocks show them.
  const label = (timestamp: number) =>
    new Intl.DateTimeFormat(
      undefined,
      data?.interval === 'hour'
        ? { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: data.timezone }
        : data?.interval === 'month'
          ? { month: 'long', year: 'numeric', timeZone: data.timezone }
          : { dateStyle: 'medium', timeZone: data?.timezone },
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
          Time zone{' '}
          <select
            value={chosenZone ?? ''}
            disabled={!zone || setZone.isPending}
            onChange={(event) => {
              if (event.target.value !== chosenZone) setZone.mutate(event.target.value);
            }}
          >
            {!zone && <option value="">…</option>}
            {zone && !TIME_ZONES.includes(zone) && <option value={zone}>{zone}</option>}
            {TIME_ZONES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
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
      {!input.success && zone && (
        <p role="alert" className="error">
          {input.error.issues[0]?.path.join('.') === 'start_timestamp' || !window.start_timestamp
            ? 'Choose when the period starts and ends.'
            : input.error.issues[0]?.message}
        </p>
      )}
      <ErrorMessage error={account.error ?? setZone.error ?? analytics.error} />
      {data && (
        <>
          <p className="hint">
            Test calls are not counted. The chart steps by {data.interval}; hours, days and months are the
            account&apos;s time zone&apos;s ({data.timezone}), for everyone who opens this page.
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

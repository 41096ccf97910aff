import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { api, type Outputs } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import { ProgressChart, type Sample } from '../components/ProgressChart';
import { FINISHED, LIVE_LABELS, useLiveCampaign } from './campaign-live';
import { formatTime, humanize } from '../format';
import { progressOf } from './Campaigns';
import { ErrorMessage, Pending } from '../components/Messages';

const CONTACTS_PAGE = 100;

/** Running totals of the history's points, from nothing a step before the first. */
function cumulative(history: Outputs['campaigns']['history'] | undefined): Sample[] {
  if (!history?.points.length) return [];
  const totals: Record<string, number> = {};
  let dialed = 0;
  const first = { at: history.points[0]!.at - history.step_seconds * 1000, dialed: 0, outcomes: {} };
  return [
    first,
    ...history.points.map((point) => {
      dialed += point.calls;
      for (const [outcome, n] of Object.entries(point.outcomes)) totals[outcome] = (totals[outcome] ?? 0) + n;
      return { at: point.at, dialed, outcomes: { ...totals } };
    }),
  ];
}

/**
 * A campaign as it runs: its counts, a chart of dials and outcomes, the calls in flight against its
 * cap, all pushed by the api (a tRPC subscription over server-sent events) as they change.
 */
export function CampaignPage() {
  const { campaignId = '' } = useParams();
  const queryClient = useQueryClient();
  const key = ['campaigns.get', campaignId];
  const { campaign, live } = useLiveCampaign(campaignId);

  const data = campaign.data;
  const contacts = useQuery({
    queryKey: ['campaigns.contacts.list', campaignId, data?.counts],
    queryFn: () => api.campaigns.contacts.list.query({ campaign_id: campaignId, limit: CONTACTS_PAGE }),
    enabled: Boolean(data),
    placeholderData: keepPreviousData,
  });
  // The chart: the campaign's stored history, read again whenever its counts move.
  const history = useQuery({
    queryKey: ['campaigns.history', campaignId, data?.counts],
    queryFn: () => api.campaigns.history.query({ campaign_id: campaignId }),
    enabled: Boolean(data),
    placeholderData: keepPreviousData,
  });
  const samples = useMemo(() => cumulative(history.data), [history.data]);
  const stuck = useQuery({
    queryKey: ['campaigns.contacts.stuck', campaignId, data?.counts.by_state.calling],
    queryFn: () => api.campaigns.contacts.stuck.query({ campaign_id: campaignId }),
    enabled: Boolean(data?.counts.by_state.calling),
    refetchInterval: 60_000,
  });
  const control = useMutation({
    mutationFn: (action: 'pause' | 'resume' | 'cancel') =>
      api.campaigns[action].mutate({ campaign_id: campaignId }),
    onSuccess: (next) => queryClient.setQueryData(key, next),
  });

  // A link to one contact (from its call's page) scrolls to its row once the contacts are in.
  const { hash } = useLocation();
  useEffect(() => {
    if (!hash.startsWith('#contact-') || !contacts.data) return;
    const row = document.getElementById(hash.slice(1));
    row?.scrollIntoView({ block: 'center' });
    row?.classList.add('highlighted');
  }, [hash, contacts.data]);

  if (campaign.isError || !data) return <Pending query={campaign} />;

  const { done, total } = progressOf(data.counts);
  const inFlight = data.counts.by_state.calling;
  return (
    <section>
      <p>
        <Link to="/campaigns">Campaigns</Link> /
      </p>
      <div className="page-head">
        <h1>{data.name}</h1>
        <span className={`status status-${data.status}`} data-testid="campaign-status">
          {humanize(data.status)}
        </span>
        <span className={`live live-${live}`} aria-live="polite" data-testid="campaign-live">
          {LIVE_LABELS[live]}
        </span>
      </div>
      <div className="actions">
        {(data.status === 'running' || data.status === 'scheduled') && (
          <button
            type="button"
            className="secondary"
            onClick={() => control.mutate('pause')}
            disabled={control.isPending}
          >
            Pause
          </button>
        )}
        {(data.status === 'paused' || data.status === 'draft') && (
          <button type="button" onClick={() => control.mutate('resume')} disabled={control.isPending}>
            {data.status === 'draft' ? 'Start' : 'Resume'}
          </button>
        )}
        {!FINISHED.includes(data.status) && (
          <ConfirmButton
            label="Cancel campaign"
            question="Cancel this campaign? Calls in progress finish; nobody else is dialed."
            confirmLabel="Cancel campaign"
            onConfirm={() => control.mutate('cancel')}
            disabled={control.isPending}
          />
        )}
      </div>
      <ErrorMessage error={control.error} />
      {data.paused_reason && (
        <p className="error" role="status" data-testid="campaign-paused-reason">
          Paused by the service: {data.paused_reason}
        </p>
      )}
      <div className="cards">
        <div className="card">
          <h2>Progress</h2>
          <progress max={Math.max(total, 1)} value={done} aria-label="Contacts done" />
          <p data-testid="campaign-progress">
            {done.toLocaleString()} of {total.toLocaleString()} contacts done
          </p>
        </div>
        <div className="card">
          <h2>In flight</h2>
          <meter min={0} max={data.max_concurrent_calls} value={inFlight} aria-label="Calls in flight" />
          <p>
            {inFlight} of at most {data.max_concurrent_calls} calls at once
          </p>
        </div>
        <div className="card">
          <h2>By state</h2>
          <dl className="counts">
            {Object.entries(data.counts.by_state).map(([state, count]) => (
              <div key={state}>
                <dt>{humanize(state)}</dt>
                <dd>{count.toLocaleString()}</dd>
              </div>
            ))}
          </dl>
        </div>
        <div className="card">
          <h2>By outcome</h2>
          {Object.keys(data.counts.by_outcome).length === 0 ? (
            <p>No outcomes yet.</p>
          ) : (
            <dl className="counts">
              {Object.entries(data.counts.by_outcome).map(([outcome, count]) => (
                <div key={outcome}>
                  <dt>{humanize(outcome)}</dt>
                  <dd>{count.toLocaleString()}</dd>
                </div>
              ))}
            </dl>
          )}
        </div>
      </div>
      {stuck.data && stuck.data.contacts.length > 0 && (
        <div className="anomaly" role="alert">
          <p>
            {stuck.data.contacts.length} contact{stuck.data.contacts.length === 1 ? ' has' : 's have'} been
            calling for longer than a call can last ({Math.round(stuck.data.threshold_seconds / 60)} min: the
            ring time, then the longest call). The service's reliability checks end such calls and release
            their contacts.
          </p>
          <ul>
            {stuck.data.contacts.map((contact) => (
              <li key={contact.contact_id}>
                #{contact.position} {contact.to_number}, calling since {formatTime(contact.calling_since)}
                {contact.last_call_id && (
                  <>
                    {' '}
                    · <Link to={`/calls/${contact.last_call_id}`}>Open call</Link>
                  </>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      <h2>Calls and outcomes over time</h2>
      <ProgressChart samples={samples} />
      <dl className="details">
        <div>
          <dt>Started</dt>
          <dd>{formatTime(data.started_at)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{formatTime(data.finished_at)}</dd>
        </div>
        <div>
          <dt>Calling from</dt>
          <dd>{data.from_numbers.join(', ')}</dd>
        </div>
        <div>
          <dt>Timezone</dt>
          <dd>{data.timezone}</dd>
        </div>
      </dl>
      <h2>Contacts</h2>
      {contacts.data && (
        <div className="table-scroll">
          <table className="cards">
            <caption className="visually-hidden">Contacts</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Number</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last outcome</th>
                <th scope="col">Last call</th>
              </tr>
            </thead>
            <tbody>
              {contacts.data.contacts.map((contact) => (
                <tr key={contact.contact_id} id={`contact-${contact.contact_id}`}>
                  <td data-label="#">{contact.position}</td>
                  <td data-label="Number">{contact.to_number}</td>
                  <td data-label="State">{humanize(contact.state)}</td>
                  <td data-label="Attempts">{contact.attempts}</td>
                  <td data-label="Last outcome">
                    {contact.last_outcome ? humanize(contact.last_outcome) : '—'}
                  </td>
                  <td data-label="Last call">
                    {contact.last_call_id ? (
                      <Link to={`/calls/${contact.last_call_id}`}>Open call</Link>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {total > CONTACTS_PAGE && (
            <p className="hint">
              The first {CONTACTS_PAGE} of {total.toLocaleString()} contacts.
            </p>
          )}
        </div>
      )}
    </section>
  );
}

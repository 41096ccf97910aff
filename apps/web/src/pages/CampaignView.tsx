import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, type Outputs } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import { ProgressChart, type Sample } from '../components/ProgressChart';
import { formatTime, humanize } from '../format';
import { progressOf } from './Campaigns';
import { ErrorMessage, Pending } from '../components/Messages';

type Campaign = Outputs['campaigns']['get'];
const FINISHED = ['completed', 'canceled'];
const CONTACTS_PAGE = 100;

function sampleOf(campaign: Campaign, at: string): Sample {
  return {
    at: Date.parse(at),
    dialed: progressOf(campaign.counts).done,
    outcomes: campaign.counts.by_outcome,
  };
}

/**
 * A campaign as it runs: its counts, a chart of dials and outcomes, the calls in flight against its
 * cap, all pushed by the api (a tRPC subscription over server-sent events) as they change.
 */
export function CampaignPage() {
  const { campaignId = '' } = useParams();
  const queryClient = useQueryClient();
  const key = ['campaigns.get', campaignId];
  const campaign = useQuery({
    queryKey: key,
    queryFn: () => api.campaigns.get.query({ campaign_id: campaignId }),
  });
  const [samples, setSamples] = useState<Sample[]>([]);
  const [live, setLive] = useState<'connecting' | 'live' | 'finished' | 'lost'>('connecting');

  useEffect(() => {
    setSamples([]);
    const subscription = api.campaigns.watch.subscribe(
      { campaign_id: campaignId },
      {
        onStarted: () => setLive('live'),
        onData: ({ campaign: next, at }) => {
          queryClient.setQueryData(['campaigns.get', campaignId], next);
          setSamples((previous) => [...previous.slice(-599), sampleOf(next, at)]);
          if (FINISHED.includes(next.status)) setLive('finished');
        },
        onError: () => setLive('lost'),
        onComplete: () => setLive('finished'),
      },
    );
    return () => subscription.unsubscribe();
  }, [campaignId, queryClient]);

  const data = campaign.data;
  const contacts = useQuery({
    queryKey: ['campaigns.contacts.list', campaignId, data?.counts],
    queryFn: () => api.campaigns.contacts.list.query({ campaign_id: campaignId, limit: CONTACTS_PAGE }),
    enabled: Boolean(data),
    placeholderData: keepPreviousData,
  });
  const control = useMutation({
    mutationFn: (action: 'pause' | 'resume' | 'cancel') =>
      api.campaigns[action].mutate({ campaign_id: campaignId }),
    onSuccess: (next) => queryClient.setQueryData(key, next),
  });

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
        <span className={`live live-${live}`} aria-live="polite">
          {live === 'live'
            ? 'Live'
            : live === 'finished'
              ? 'Finished'
              : live === 'lost'
                ? 'Updates lost: reload'
                : 'Connecting…'}
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
      <h2>Dials and outcomes over time</h2>
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
          <table>
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
                <tr key={contact.contact_id}>
                  <td>{contact.position}</td>
                  <td>{contact.to_number}</td>
                  <td>{humanize(contact.state)}</td>
                  <td>{contact.attempts}</td>
                  <td>{contact.last_outcome ? humanize(contact.last_outcome) : '—'}</td>
                  <td>
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

import { useQuery } from '@tanstack/react-query';
import { CAMPAIGN_STATUSES } from '@voice/core/schemas';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api';
import { formatTime, humanize } from '../format';
import { ErrorMessage } from '../components/Messages';

/** How far a campaign has got: the contacts no longer waiting, of all of them. */
export function progressOf(counts: { total: number; by_state: Record<string, number> }) {
  const waiting = (counts.by_state.queued ?? 0) + (counts.by_state.calling ?? 0);
  return { done: counts.total - waiting, total: counts.total };
}

export function CampaignsPage() {
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const input = { limit: 200, ...(status ? { status: status as (typeof CAMPAIGN_STATUSES)[number] } : {}) };
  const campaigns = useQuery({
    queryKey: ['campaigns.list', input],
    queryFn: () => api.campaigns.list.query(input),
    refetchInterval: 5_000,
  });

  return (
    <section>
      <div className="page-head">
        <h1>Campaigns</h1>
        <Link className="button" to="/campaigns/new">
          New campaign
        </Link>
      </div>
      <div className="filters">
        <label>
          Status{' '}
          <select
            value={status}
            onChange={(event) =>
              setParams(event.target.value ? { status: event.target.value } : {}, { replace: true })
            }
          >
            <option value="">All</option>
            {CAMPAIGN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {humanize(s)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorMessage error={campaigns.error} />
      {campaigns.data && (
        <div className="table-scroll">
          <table className="cards">
            <caption className="visually-hidden">Campaigns</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <th scope="col">Concurrency</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {campaigns.data.map((campaign) => {
                const { done, total } = progressOf(campaign.counts);
                return (
                  <tr key={campaign.campaign_id}>
                    <td data-label="Name">
                      <Link to={`/campaigns/${campaign.campaign_id}`}>{campaign.name}</Link>
                    </td>
                    <td data-label="Status">
                      <span className={`status status-${campaign.status}`}>{humanize(campaign.status)}</span>
                    </td>
                    <td data-label="Progress">
                      <progress
                        max={Math.max(total, 1)}
                        value={done}
                        aria-label={`${campaign.name} progress`}
                      />{' '}
                      {done.toLocaleString()} / {total.toLocaleString()}
                    </td>
                    <td data-label="Concurrency">{campaign.max_concurrent_calls}</td>
                    <td data-label="Created">{formatTime(campaign.created_at)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {campaigns.data.length === 0 && <p>No campaigns yet.</p>}
        </div>
      )}
    </section>
  );
}

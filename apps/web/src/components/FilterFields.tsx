import { useQuery } from '@tanstack/react-query';
import { api } from '../api';

/** A filter form's field: one of the account's agents, or all. */
export function AgentFilter({ value, onChange }: { value: string; onChange(agentId: string): void }) {
  const agents = useQuery({
    queryKey: ['agents.list', 'all'],
    queryFn: () => api.agents.list.query({ limit: 1000 }),
  });
  return (
    <label>
      Agent{' '}
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">All agents</option>
        {agents.data?.agents.map((agent) => (
          <option key={agent.agent_id} value={agent.agent_id}>
            {agent.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A filter form's field: one of the account's campaigns, or every call. */
export function CampaignFilter({ value, onChange }: { value: string; onChange(campaignId: string): void }) {
  const campaigns = useQuery({
    queryKey: ['campaigns.list', 'all'],
    queryFn: () => api.campaigns.list.query({ limit: 1000 }),
  });
  return (
    <label>
      Campaign{' '}
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">All calls</option>
        {campaigns.data?.map((campaign) => (
          <option key={campaign.campaign_id} value={campaign.campaign_id}>
            {campaign.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A filter form's window: from and to, in the viewer's time (`datetime-local`). */
export function WindowFields({
  from,
  to,
  onChange,
}: {
  from: string;
  to: string;
  onChange(changes: { from?: string; to?: string }): void;
}) {
  return (
    <>
      <label>
        From{' '}
        <input
          type="datetime-local"
          value={from}
          onChange={(event) => onChange({ from: event.target.value })}
        />
      </label>
      <label>
        To{' '}
        <input type="datetime-local" value={to} onChange={(event) => onChange({ to: event.target.value })} />
      </label>
    </>
  );
}

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api';
import { nextKeys, Pager } from '../components/Pager';
import { formatTime } from '../format';
import { ErrorMessage } from '../components/Messages';

const PAGE_SIZE = 50;

export function AgentsPage() {
  const [type, setType] = useState<'' | 'singlePrompt' | 'conversationalFlow'>('');
  const [keys, setKeys] = useState<(string | undefined)[]>([undefined]);
  const pageIndex = keys.length - 1;
  const input = { limit: PAGE_SIZE, pagination_key: keys[pageIndex], ...(type ? { agent_type: type } : {}) };
  const agents = useQuery({
    queryKey: ['agents.list', input],
    queryFn: () => api.agents.list.query(input),
    placeholderData: keepPreviousData,
  });

  return (
    <section>
      <div className="page-head">
        <h1>Agents</h1>
        <div className="actions">
          <Link className="button" to="/agents/new">
            New agent
          </Link>
          <Link className="button secondary" to="/agents/new-flow">
            New flow agent
          </Link>
        </div>
      </div>
      <div className="filters">
        <label>
          Type{' '}
          <select
            value={type}
            onChange={(event) => {
              setType(event.target.value as typeof type);
              setKeys([undefined]);
            }}
          >
            <option value="">All</option>
            <option value="singlePrompt">Single prompt</option>
            <option value="conversationalFlow">Conversational flow</option>
          </select>
        </label>
      </div>
      <ErrorMessage error={agents.error} />
      {agents.data && (
        <>
          <div className="table-scroll">
            <table className="cards">
              <caption className="visually-hidden">Agents</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Voice</th>
                  <th scope="col">Language</th>
                  <th scope="col">Webhooks</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {agents.data.agents.map((agent) => (
                  <tr key={agent.agent_id}>
                    <td data-label="Name">
                      <Link to={`/agents/${agent.agent_id}`}>{agent.name}</Link>
                    </td>
                    <td data-label="Type">
                      {agent.agent_type === 'conversationalFlow' ? (
                        <Link to={`/agents/${agent.agent_id}/flow`}>Flow</Link>
                      ) : (
                        'Single prompt'
                      )}
                    </td>
                    <td data-label="Voice">{agent.voice}</td>
                    <td data-label="Language">{agent.language}</td>
                    <td data-label="Webhooks">{agent.webhooks.length}</td>
                    <td data-label="Updated">{formatTime(agent.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            what="agents"
            total={agents.data.total_count}
            shown={agents.data.agents.length}
            pageIndex={pageIndex}
            hasNext={
              agents.data.agents.length === PAGE_SIZE && (pageIndex + 1) * PAGE_SIZE < agents.data.total_count
            }
            onPrevious={() => setKeys(keys.slice(0, -1))}
            onNext={() => setKeys(nextKeys(keys, agents.data.agents.at(-1)?.agent_id))}
          />
        </>
      )}
    </section>
  );
}

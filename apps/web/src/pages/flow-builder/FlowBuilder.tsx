import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { FlowDefinition, problemsOf, type FlowProblem } from '@voice/core/schemas';
import { api, type Outputs } from '../../api';
import { ErrorMessage, Pending } from '../../components/Messages';
import { TalkToAgent } from '../../components/TalkToAgent';
import { EdgePanel, FlowSettings } from './EdgePanel';
import { FlowCanvas, type Selection } from './FlowCanvas';
import { FlowList } from './FlowList';
import { NodePanel } from './NodePanel';
import { TestChat } from './TestChat';
import {
  ADDABLE,
  addNode,
  connect,
  freePosition,
  newNode,
  removeEdge,
  removeNode,
  replaceEdge,
  replaceNode,
  type NodeType,
} from './flow-edit';

/** Saves the flow as JSON to the user's computer. */
function download(name: string, flow: FlowDefinition) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([JSON.stringify(flow, null, 2)], { type: 'application/json' }));
  link.download = `${name.replace(/[^\w-]+/g, '_')}.flow.json`;
  link.click();
  URL.revokeObjectURL(link.href);
}

function Builder({ opened, agentName }: { opened: Outputs['flows']['get']; agentName: string }) {
  const queryClient = useQueryClient();
  const [flow, setFlow] = useState<FlowDefinition>(opened.flow);
  const [dirty, setDirty] = useState(false);
  const [selected, setSelected] = useState<Selection>(null);
  const [adding, setAdding] = useState<NodeType>('say');
  const [status, setStatus] = useState('');
  const [importError, setImportError] = useState<FlowProblem[]>([]);
  const bases = useQuery({ queryKey: ['knowledge.list'], queryFn: () => api.knowledge.list.query() });
  const problems = useMemo(() => problemsOf(flow, { provided: opened.provided }), [flow, opened.provided]);
  const edit = (next: FlowDefinition) => {
    setFlow(next);
    setDirty(true);
    setStatus('');
  };

  const validate = useMutation({
    mutationFn: () => api.flows.validate.mutate({ agent_id: opened.agentId, flow }),
    onSuccess: ({ problems: found }) =>
      setStatus(
        found.length === 0
          ? 'The flow is valid: it can be published.'
          : `${found.length} problem(s): see them on the nodes.`,
      ),
  });
  const save = useMutation({
    mutationFn: () => api.flows.saveDraft.mutate({ agent_id: opened.agentId, flow }),
    onSuccess: ({ problems: found }) => {
      setDirty(false);
      setStatus(
        `Draft saved${found.length ? ` (${found.length} problem(s) to fix before publishing)` : ''}.`,
      );
    },
  });
  const publish = useMutation({
    mutationFn: async () => {
      if (dirty || !opened.hasDraft) await api.flows.saveDraft.mutate({ agent_id: opened.agentId, flow });
      return api.flows.publish.mutate({ agent_id: opened.agentId });
    },
    onSuccess: ({ version }) => {
      setDirty(false);
      setStatus(`Published as version ${version}.`);
      void queryClient.invalidateQueries({ queryKey: ['flows.get', opened.agentId] });
    },
  });

  const node =
    selected?.kind === 'node' ? flow.nodes.find((candidate) => candidate.id === selected.id) : undefined;
  const edge =
    selected?.kind === 'edge' ? flow.edges.find((candidate) => candidate.id === selected.id) : undefined;
  const busy = save.isPending || publish.isPending;

  return (
    <>
      <p className="flow-version">
        Version {opened.version} ·{' '}
        {dirty ? 'unsaved changes' : opened.hasDraft ? 'draft saved' : 'as published'}
      </p>
      <div className="flow-toolbar" role="toolbar" aria-label="Flow">
        <label>
          Node kind{' '}
          <select value={adding} onChange={(event) => setAdding(event.target.value as NodeType)}>
            {ADDABLE.map((kind) => (
              <option key={kind.type} value={kind.type}>
                {kind.label}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            const added = newNode(flow, adding, freePosition(flow));
            edit(addNode(flow, added));
            setSelected({ kind: 'node', id: added.id });
          }}
        >
          Add node
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => validate.mutate()}
          disabled={validate.isPending}
        >
          Validate
        </button>
        <button type="button" className="secondary" onClick={() => save.mutate()} disabled={busy}>
          Save draft
        </button>
        <button type="button" onClick={() => publish.mutate()} disabled={busy || problems.length > 0}>
          Publish
        </button>
        <button type="button" className="secondary" onClick={() => download(agentName, flow)}>
          Export JSON
        </button>
        <label className="button secondary">
          Import JSON
          <input
            type="file"
            accept="application/json,.json"
            className="visually-hidden"
            onChange={async (event) => {
              const file = event.target.files?.[0];
              if (!file) return;
              let input: unknown;
              try {
                input = JSON.parse(await file.text());
              } catch {
                return setImportError([{ message: `${file.name} is not JSON` }]);
              }
              // Checked by the flow's own schema, as the api checks it.
              const parsed = FlowDefinition.safeParse(input);
              if (!parsed.success) return setImportError(problemsOf(input));
              setImportError([]);
              setSelected(null);
              edit(parsed.data);
            }}
          />
        </label>
      </div>
      <p role="status" className="flow-status">
        {status}
      </p>
      <ErrorMessage error={validate.error ?? save.error ?? publish.error} />
      {importError.length > 0 && (
        <ul className="error" role="alert" aria-label="The import's problems">
          {importError.map((problem, index) => (
            <li key={index}>{problem.message}</li>
          ))}
        </ul>
      )}
      <div className="flow-builder">
        <FlowCanvas
          flow={flow}
          problems={problems}
          selected={selected}
          onSelect={setSelected}
          onMove={(id, position) => {
            const moved = flow.nodes.find((candidate) => candidate.id === id);
            if (moved) edit(replaceNode(flow, id, { ...moved, position }));
          }}
          onRemoveNode={(id) => {
            edit(removeNode(flow, id));
            setSelected(null);
          }}
          onRemoveEdge={(id) => {
            edit(removeEdge(flow, id));
            setSelected(null);
          }}
          onConnect={(from, to) => edit(connect(flow, from, to))}
        />
        {node ? (
          <NodePanel
            // By place, not id: typing the node's Id renames it without rebuilding the panel.
            key={`node-${flow.nodes.indexOf(node)}`}
            flow={flow}
            node={node}
            knowledgeBases={bases.data ?? []}
            problems={problems.filter((problem) => problem.node === node.id && !problem.edge)}
            onChange={(changed) => {
              edit(replaceNode(flow, node.id, changed));
              if (changed.id !== node.id) setSelected({ kind: 'node', id: changed.id });
            }}
            onStart={() => edit({ ...flow, start: node.id })}
            onRemove={() => {
              edit(removeNode(flow, node.id));
              setSelected(null);
            }}
          />
        ) : edge ? (
          <EdgePanel
            key={edge.id}
            flow={flow}
            edge={edge}
            problems={problems.filter((problem) => problem.edge === edge.id)}
            onChange={(changed) => edit(replaceEdge(flow, changed))}
            onRemove={() => {
              edit(removeEdge(flow, edge.id));
              setSelected(null);
            }}
          />
        ) : (
          <FlowSettings flow={flow} onChange={edit} />
        )}
      </div>
      <section aria-label="Problems">
        <h2>Problems</h2>
        {problems.length === 0 ? (
          <p>None: the flow can be published.</p>
        ) : (
          <ul className="flow-problems">
            {problems.map((problem, index) => (
              <li key={index}>
                {problem.node ? `${problem.node}: ` : ''}
                {problem.message}
              </li>
            ))}
          </ul>
        )}
      </section>
      <FlowList
        flow={flow}
        problems={problems}
        onSelect={setSelected}
        onConnect={(from, to) => edit(connect(flow, from, to))}
      />
      <TestChat agentId={opened.agentId} flow={flow} />
      <h2>Test by voice</h2>
      <TalkToAgent
        agentId={opened.agentId}
        label="Talk to the draft"
        create={() => api.flows.testWebCall.mutate({ agent_id: opened.agentId, flow })}
      />
    </>
  );
}

/** The flow builder of a flow agent: canvas, side panel, list view, validation, drafts, publishing, tests. */
export function FlowBuilderPage() {
  const { agentId = '' } = useParams();
  const opened = useQuery({
    queryKey: ['flows.get', agentId],
    queryFn: () => api.flows.get.query({ agent_id: agentId }),
    // The canvas holds the flow being edited: a refetch must not replace it under the user's hands.
    refetchOnWindowFocus: false,
  });
  const agent = useQuery({
    queryKey: ['agents.get', agentId],
    queryFn: () => api.agents.get.query({ agent_id: agentId }),
  });
  if (!opened.data || !agent.data) return <Pending query={opened.isError ? opened : agent} />;
  return (
    <section className="flow-page">
      <p>
        <Link to="/agents">Agents</Link> / <Link to={`/agents/${agentId}`}>{agent.data.name}</Link> /
      </p>
      <h1>Flow of {agent.data.name}</h1>
      <Builder key={`${opened.data.version}`} opened={opened.data} agentName={agent.data.name} />
    </section>
  );
}

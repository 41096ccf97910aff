import { useState } from 'react';
import type { FlowDefinition, FlowProblem } from '@voice/core/schemas';
import { conditionLabel, nodeLabel } from './flow-edit';
import type { Selection } from './FlowCanvas';

/**
 * The flow as lists, the canvas's equivalent for the keyboard and screen readers: every node and edge
 * with its problems, a button to edit each, and a form to connect two nodes.
 */
export function FlowList({
  flow,
  problems,
  onSelect,
  onConnect,
}: {
  flow: FlowDefinition;
  problems: FlowProblem[];
  onSelect: (selection: Selection) => void;
  onConnect: (from: string, to: string) => void;
}) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const name = (id: string) => {
    const node = flow.nodes.find((candidate) => candidate.id === id);
    return node ? nodeLabel(node) : id;
  };
  const count = (matches: (problem: FlowProblem) => boolean) => problems.filter(matches).length;
  return (
    <section aria-label="Flow as a list">
      <h2>Nodes</h2>
      <table className="cards">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Kind</th>
            <th scope="col">Problems</th>
            <th scope="col">
              <span className="visually-hidden">Edit</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {flow.nodes.map((node) => (
            <tr key={node.id}>
              <td data-label="Node" dir="auto">
                {nodeLabel(node)}
                {flow.start === node.id ? ' (start)' : ''}
              </td>
              <td data-label="Kind">{node.type}</td>
              <td data-label="Problems">
                {count((problem) => problem.node === node.id && !problem.edge) || ''}
              </td>
              <td data-label="Edit">
                <button
                  type="button"
                  className="link"
                  onClick={() => onSelect({ kind: 'node', id: node.id })}
                >
                  Edit<span className="visually-hidden"> node {nodeLabel(node)}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Edges</h2>
      <table className="cards">
        <thead>
          <tr>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Taken when</th>
            <th scope="col">Problems</th>
            <th scope="col">
              <span className="visually-hidden">Edit</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {flow.edges.map((edge) => (
            <tr key={edge.id}>
              <td data-label="From" dir="auto">
                {name(edge.from)}
              </td>
              <td data-label="To" dir="auto">
                {name(edge.to)}
              </td>
              <td data-label="Taken when" dir="auto">
                {conditionLabel(edge.condition)}
              </td>
              <td data-label="Problems">{count((problem) => problem.edge === edge.id) || ''}</td>
              <td data-label="Edit">
                <button
                  type="button"
                  className="link"
                  onClick={() => onSelect({ kind: 'edge', id: edge.id })}
                >
                  Edit
                  <span className="visually-hidden">
                    {' '}
                    edge {name(edge.from)} → {name(edge.to)}
                  </span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="inline-form"
        aria-label="Connect two nodes"
        onSubmit={(event) => {
          event.preventDefault();
          if (from && to) onConnect(from, to);
        }}
      >
        {(
          [
            ['From', from, setFrom],
            ['To', to, setTo],
          ] as const
        ).map(([label, value, set]) => (
          <label key={label}>
            {label}{' '}
            <select value={value} onChange={(event) => set(event.target.value)}>
              <option value="">—</option>
              {flow.nodes.map((node) => (
                <option key={node.id} value={node.id}>
                  {nodeLabel(node)}
                </option>
              ))}
            </select>
          </label>
        ))}
        <button type="submit" className="secondary" disabled={!from || !to}>
          Connect
        </button>
      </form>
    </section>
  );
}

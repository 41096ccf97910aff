import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type EdgeChange,
  type Node,
  type NodeChange,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import type { FlowDefinition, FlowProblem } from '@voice/core/schemas';
import { conditionLabel, gridPosition, nodeLabel } from './flow-edit';

/** What the builder has selected: a node or an edge, or nothing (the flow's settings). */
export type Selection = { kind: 'node' | 'edge'; id: string } | null;

type CanvasNode = Node<{ label: string; type: string; start: boolean; problems: number }, 'flow'>;

function FlowNodeView({ data }: NodeProps<CanvasNode>) {
  return (
    <div className={`flow-node flow-node-${data.type}${data.problems > 0 ? ' has-problems' : ''}`}>
      <Handle type="target" position={Position.Top} />
      <small>
        {data.start ? 'start · ' : ''}
        {data.type}
      </small>
      <strong dir="auto">{data.label}</strong>
      {data.problems > 0 && (
        <span className="flow-node-problems">
          {data.problems} problem{data.problems === 1 ? '' : 's'}
        </span>
      )}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

const nodeTypes = { flow: FlowNodeView };

/**
 * The flow drawn on a canvas (React Flow): nodes moved by dragging or with the arrow keys once focused,
 * connected by dragging from a node's lower handle to another's upper one, deleted with Delete or
 * Backspace, selected by clicking (or Enter) to edit them in the side panel.
 */
export function FlowCanvas({
  flow,
  problems,
  selected,
  onSelect,
  onMove,
  onRemoveNode,
  onRemoveEdge,
  onConnect,
}: {
  flow: FlowDefinition;
  problems: FlowProblem[];
  selected: Selection;
  onSelect: (selection: Selection) => void;
  onMove: (id: string, position: { x: number; y: number }) => void;
  onRemoveNode: (id: string) => void;
  onRemoveEdge: (id: string) => void;
  onConnect: (from: string, to: string) => void;
}) {
  const nodes: CanvasNode[] = flow.nodes.map((node, index) => ({
    id: node.id,
    type: 'flow',
    position: node.position ?? gridPosition(index),
    data: {
      label: nodeLabel(node),
      type: node.type,
      start: flow.start === node.id,
      problems: problems.filter((problem) => problem.node === node.id && !problem.edge).length,
    },
    selected: selected?.kind === 'node' && selected.id === node.id,
    ariaLabel: `${node.type} node ${nodeLabel(node)}`,
  }));
  const edges: Edge[] = flow.edges.map((edge) => ({
    id: edge.id,
    source: edge.from,
    target: edge.to,
    label: conditionLabel(edge.condition),
    selected: selected?.kind === 'edge' && selected.id === edge.id,
    markerEnd: { type: MarkerType.ArrowClosed },
    className: problems.some((problem) => problem.edge === edge.id) ? 'has-problems' : '',
  }));
  const nodesChanged = (changes: NodeChange<CanvasNode>[]) => {
    for (const change of changes) {
      if (change.type === 'position' && change.position) onMove(change.id, change.position);
      else if (change.type === 'remove') onRemoveNode(change.id);
      else if (change.type === 'select' && change.selected) onSelect({ kind: 'node', id: change.id });
    }
  };
  const edgesChanged = (changes: EdgeChange[]) => {
    for (const change of changes) {
      if (change.type === 'remove') onRemoveEdge(change.id);
      else if (change.type === 'select' && change.selected) onSelect({ kind: 'edge', id: change.id });
    }
  };
  return (
    <div className="flow-canvas" aria-label="Flow canvas">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={nodesChanged}
        onEdgesChange={edgesChanged}
        onConnect={(connection) => onConnect(connection.source, connection.target)}
        onPaneClick={() => onSelect(null)}
        deleteKeyCode={['Delete', 'Backspace']}
        fitView
        minZoom={0.2}
      >
        <Background />
        <Controls />
      </ReactFlow>
    </div>
  );
}

import type { EdgeCondition, FlowDefinition, FlowEdge, FlowProblem } from '@voice/core/schemas';
import { Field, SelectField, TextAreaField } from '../../components/Field';
import { CONDITION_TYPES, conditionOf, nodeLabel } from './flow-edit';

/** The side panel of the edge selected: its condition, and its problems. */
export function EdgePanel({
  flow,
  edge,
  problems,
  onChange,
  onRemove,
}: {
  flow: FlowDefinition;
  edge: FlowEdge;
  problems: FlowProblem[];
  onChange: (edge: FlowEdge) => void;
  onRemove: () => void;
}) {
  const name = (id: string) => {
    const node = flow.nodes.find((candidate) => candidate.id === id);
    return node ? nodeLabel(node) : id;
  };
  const { condition } = edge;
  return (
    <section className="flow-panel" aria-label={`Edge ${edge.id}`}>
      <h2>
        Edge: {name(edge.from)} → {name(edge.to)}
      </h2>
      {problems.length > 0 && (
        <ul className="flow-problems" aria-label="Problems of this edge">
          {problems.map((problem, index) => (
            <li key={index}>{problem.message}</li>
          ))}
        </ul>
      )}
      <SelectField
        label="Taken when"
        value={condition.type}
        onChange={(event) =>
          onChange({
            ...edge,
            condition: conditionOf(event.target.value as EdgeCondition['type'], condition),
          })
        }
      >
        {CONDITION_TYPES.map((kind) => (
          <option key={kind.type} value={kind.type}>
            {kind.label}
          </option>
        ))}
      </SelectField>
      {condition.type === 'rule' && (
        <Field
          label="Rule"
          hint='For example: age >= 18 and answer == "yes"'
          value={condition.rule}
          onChange={(event) => onChange({ ...edge, condition: { type: 'rule', rule: event.target.value } })}
        />
      )}
      {condition.type === 'intent' && (
        <TextAreaField
          label="What the caller means (the model decides)"
          dir="auto"
          rows={2}
          value={condition.description}
          onChange={(event) =>
            onChange({ ...edge, condition: { type: 'intent', description: event.target.value } })
          }
        />
      )}
      <div className="actions">
        <button type="button" className="danger" onClick={onRemove}>
          Delete edge
        </button>
      </div>
    </section>
  );
}

/** The flow's own settings: the persona every instruction shares, and where a caller asking for a person goes. */
export function FlowSettings({
  flow,
  onChange,
}: {
  flow: FlowDefinition;
  onChange: (flow: FlowDefinition) => void;
}) {
  return (
    <section className="flow-panel" aria-label="Flow settings">
      <h2>Flow settings</h2>
      <TextAreaField
        label="How the agent speaks (persona, for instructions and answers)"
        dir="auto"
        rows={3}
        value={flow.global_prompt}
        onChange={(event) => onChange({ ...flow, global_prompt: event.target.value })}
      />
      <SelectField
        label="When the caller asks for a person, go to"
        value={flow.human_handoff?.to ?? ''}
        onChange={(event) =>
          onChange({ ...flow, human_handoff: event.target.value ? { to: event.target.value } : null })
        }
      >
        <option value="">(nowhere: the flow goes on)</option>
        {flow.nodes.map((node) => (
          <option key={node.id} value={node.id}>
            {nodeLabel(node)}
          </option>
        ))}
      </SelectField>
      <p className="hint">Select a node or an edge, on the canvas or in the list, to edit it.</p>
    </section>
  );
}

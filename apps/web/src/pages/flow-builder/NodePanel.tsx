import {
  FLOW_VARIABLE_TYPES,
  type FlowDefinition,
  type FlowFunction,
  type FlowNode,
  type FlowProblem,
  type FlowSpeech,
  type FlowVariable,
} from '@voice/core/schemas';
import { Field, SelectField, TextAreaField } from '../../components/Field';
import { nodeLabel } from './flow-edit';
import { commaList, joinList, useParsedText, wholeNumber } from './parsed-text';

/** The side panel of the node selected: every setting of its kind, and its problems. */

/** A comma separated list, typed or pasted. */
function ListField({
  label,
  items,
  onChange,
}: {
  label: string;
  items: string[];
  onChange: (items: string[]) => void;
}) {
  const [shown, onText] = useParsedText(items, joinList, commaList);
  return <Field label={label} value={shown} onChange={(event) => onChange(onText(event.target.value))} />;
}

/** A whole number, typed (it may be emptied on the way) or pasted. */
function NumberField({
  label,
  value,
  min,
  max,
  onChange,
}: {
  label: string;
  value: number;
  min: number;
  max: number;
  onChange: (value: number) => void;
}) {
  const [shown, onText] = useParsedText(value, String, wholeNumber);
  return (
    <Field
      label={label}
      type="number"
      min={min}
      max={max}
      value={shown}
      onChange={(event) => onChange(onText(event.target.value))}
    />
  );
}

const formatMappings = (mappings: FlowFunction['response']) =>
  mappings.map((mapping) => `${mapping.variable} = ${mapping.path}`).join('\n');
const parseMappings = (text: string): FlowFunction['response'] =>
  text
    .split('\n')
    .filter((line) => line.includes('='))
    .map((line) => {
      const [variable = '', ...path] = line.split('=');
      return { variable: variable.trim(), path: path.join('=').trim() };
    });

/** The response fields a function keeps, a `variable = $.path` per line. */
function MappingsField({
  mappings,
  onChange,
}: {
  mappings: FlowFunction['response'];
  onChange: (mappings: FlowFunction['response']) => void;
}) {
  const [shown, onText] = useParsedText(mappings, formatMappings, parseMappings);
  return (
    <TextAreaField
      label="Response fields kept (one per line: variable = $.json.path)"
      rows={3}
      value={shown}
      onChange={(event) => onChange(onText(event.target.value))}
    />
  );
}

function SpeechFields({ speech, onChange }: { speech: FlowSpeech; onChange: (speech: FlowSpeech) => void }) {
  return (
    <>
      <SelectField
        label="The agent says"
        value={speech.kind}
        onChange={(event) => onChange({ ...speech, kind: event.target.value as FlowSpeech['kind'] })}
      >
        <option value="text">These words</option>
        <option value="instruction">What the model writes for an instruction</option>
      </SelectField>
      <TextAreaField
        label={speech.kind === 'text' ? 'Words ({{variable}} fills in a value)' : 'Instruction to the model'}
        dir="auto"
        rows={3}
        value={speech.content}
        onChange={(event) => onChange({ ...speech, content: event.target.value })}
      />
    </>
  );
}

function VariableRow({
  variable,
  onChange,
  onRemove,
}: {
  variable: FlowVariable;
  onChange: (variable: FlowVariable) => void;
  onRemove: () => void;
}) {
  return (
    <fieldset className="flow-row">
      <legend>Variable {variable.name}</legend>
      <Field
        label="Name"
        value={variable.name}
        onChange={(event) => onChange({ ...variable, name: event.target.value })}
      />
      <SelectField
        label="Type"
        value={variable.type}
        onChange={(event) => onChange({ ...variable, type: event.target.value as FlowVariable['type'] })}
      >
        {FLOW_VARIABLE_TYPES.map((type) => (
          <option key={type} value={type}>
            {type.replace('_', '/')}
          </option>
        ))}
      </SelectField>
      <Field
        label="Description (for the model)"
        dir="auto"
        value={variable.description}
        onChange={(event) => onChange({ ...variable, description: event.target.value })}
      />
      {variable.type === 'choice' && (
        <ListField
          label="Choices (comma separated)"
          items={variable.choices ?? []}
          onChange={(choices) => onChange({ ...variable, choices })}
        />
      )}
      <label className="checkbox">
        <input
          type="checkbox"
          checked={variable.required}
          onChange={(event) => onChange({ ...variable, required: event.target.checked })}
        />{' '}
        Required
      </label>
      <button type="button" className="secondary" onClick={onRemove}>
        Remove variable {variable.name}
      </button>
    </fieldset>
  );
}

function FunctionFields({ fn, onChange }: { fn: FlowFunction; onChange: (fn: FlowFunction) => void }) {
  const headers = Object.entries(fn.headers);
  return (
    <>
      <Field
        label="URL (HTTPS)"
        type="url"
        value={fn.url}
        onChange={(event) => onChange({ ...fn, url: event.target.value })}
      />
      <ListField
        label="Variables sent (comma separated)"
        items={fn.body_variables}
        onChange={(body_variables) => onChange({ ...fn, body_variables })}
      />
      <Field
        label="Signing secret (write-only)"
        type="password"
        autoComplete="off"
        placeholder={fn.secret === null ? 'set: type to replace' : 'none'}
        value={fn.secret ?? ''}
        onChange={(event) => {
          const { secret: _secret, ...rest } = fn;
          onChange(event.target.value ? { ...rest, secret: event.target.value } : rest);
        }}
      />
      {headers.map(([name, value], index) => (
        <fieldset className="flow-row" key={index}>
          <legend>Header {name}</legend>
          <Field
            label="Name"
            value={name}
            onChange={(event) =>
              onChange({
                ...fn,
                headers: Object.fromEntries(
                  headers.map(([n, v], i) => (i === index ? [event.target.value, v] : [n, v])),
                ),
              })
            }
          />
          <Field
            label="Value (write-only)"
            type="password"
            autoComplete="off"
            placeholder={value === null ? 'set: type to replace' : ''}
            value={value ?? ''}
            onChange={(event) =>
              onChange({
                ...fn,
                headers: Object.fromEntries(
                  headers.map(([n, v], i) => (i === index ? [n, event.target.value] : [n, v])),
                ),
              })
            }
          />
          <button
            type="button"
            className="secondary"
            onClick={() =>
              onChange({ ...fn, headers: Object.fromEntries(headers.filter((_, i) => i !== index)) })
            }
          >
            Remove header {name}
          </button>
        </fieldset>
      ))}
      <button
        type="button"
        className="secondary"
        onClick={() => onChange({ ...fn, headers: { ...fn.headers, 'X-Header': '' } })}
      >
        Add header
      </button>
      <NumberField
        label="Time limit (ms)"
        min={500}
        max={30_000}
        value={fn.timeout_ms}
        onChange={(timeout_ms) => onChange({ ...fn, timeout_ms })}
      />
      <MappingsField mappings={fn.response} onChange={(response) => onChange({ ...fn, response })} />
      <Field
        label="Filler while it runs"
        dir="auto"
        value={fn.filler}
        onChange={(event) => onChange({ ...fn, filler: event.target.value })}
      />
    </>
  );
}

export function NodePanel({
  flow,
  node,
  knowledgeBases,
  problems,
  onChange,
  onStart,
  onRemove,
}: {
  flow: FlowDefinition;
  node: FlowNode;
  knowledgeBases: { id: string; name: string }[];
  problems: FlowProblem[];
  onChange: (node: FlowNode) => void;
  onStart: () => void;
  onRemove: () => void;
}) {
  return (
    <section className="flow-panel" aria-label={`Node ${nodeLabel(node)}`}>
      <h2>
        {node.type} node: {nodeLabel(node)}
      </h2>
      {problems.length > 0 && (
        <ul className="flow-problems" aria-label="Problems of this node">
          {problems.map((problem, index) => (
            <li key={index}>{problem.message}</li>
          ))}
        </ul>
      )}
      <Field
        label="Name"
        dir="auto"
        value={node.name}
        onChange={(event) => onChange({ ...node, name: event.target.value })}
      />
      <Field label="Id" value={node.id} onChange={(event) => onChange({ ...node, id: event.target.value })} />
      <label className="checkbox">
        <input
          type="checkbox"
          checked={flow.start === node.id}
          onChange={onStart}
          disabled={flow.start === node.id}
        />{' '}
        The flow starts here
      </label>
      {(node.type === 'say' || node.type === 'ask') && (
        <SpeechFields speech={node.speech} onChange={(speech) => onChange({ ...node, speech })} />
      )}
      {(node.type === 'end' || node.type === 'transfer') && (
        <SpeechFields
          speech={node.speech ?? { kind: 'text', content: '' }}
          onChange={(speech) => onChange({ ...node, speech })}
        />
      )}
      {node.type === 'ask' && (
        <>
          {node.variables.map((variable, index) => (
            <VariableRow
              key={index}
              variable={variable}
              onChange={(changed) =>
                onChange({ ...node, variables: node.variables.map((v, i) => (i === index ? changed : v)) })
              }
              onRemove={() => onChange({ ...node, variables: node.variables.filter((_, i) => i !== index) })}
            />
          ))}
          <button
            type="button"
            className="secondary"
            onClick={() =>
              onChange({
                ...node,
                variables: [
                  ...node.variables,
                  {
                    name: `answer_${node.variables.length + 1}`,
                    type: 'string',
                    description: '',
                    required: true,
                  },
                ],
              })
            }
          >
            Add variable
          </button>
          <NumberField
            label="Times to ask before the fallback"
            min={1}
            max={5}
            value={node.max_attempts}
            onChange={(max_attempts) => onChange({ ...node, max_attempts })}
          />
        </>
      )}
      {node.type === 'function' && (
        <FunctionFields fn={node.function} onChange={(fn) => onChange({ ...node, function: fn })} />
      )}
      {node.type === 'knowledge' && (
        <fieldset>
          <legend>Answers from</legend>
          {knowledgeBases.length === 0 && (
            <p className="hint">The account has no knowledge base yet: create one under Knowledge.</p>
          )}
          {knowledgeBases.map((base) => (
            <label key={base.id} className="checkbox">
              <input
                type="checkbox"
                checked={node.knowledge_base_ids.includes(base.id)}
                onChange={(event) =>
                  onChange({
                    ...node,
                    knowledge_base_ids: event.target.checked
                      ? [...node.knowledge_base_ids, base.id]
                      : node.knowledge_base_ids.filter((id) => id !== base.id),
                  })
                }
              />{' '}
              {base.name}
            </label>
          ))}
        </fieldset>
      )}
      {node.type === 'knowledge' && (
        <TextAreaField
          label="How to answer"
          dir="auto"
          rows={2}
          value={node.instruction}
          onChange={(event) => onChange({ ...node, instruction: event.target.value })}
        />
      )}
      <div className="actions">
        <button type="button" className="danger" onClick={onRemove}>
          Delete node
        </button>
      </div>
    </section>
  );
}

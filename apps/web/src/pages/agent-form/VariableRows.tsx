import { ErrorMessage } from '../../components/Messages';
import { Field } from '../../components/Field';
import { newKey, type ExtractedRow, type ListRows, type ProvidedRow, type RowErrors } from './rows';

/** The variables each call is given (from the dial or the campaign's CSV), one row each. */
export function ProvidedVariableRows({
  provided,
  rowError,
  listError,
}: { provided: ListRows<ProvidedRow> } & RowErrors) {
  return (
    <fieldset className="choices">
      <legend>Variables given to each call</legend>
      <p className="hint">
        Filled from the dial or the campaign's CSV; the prompt uses them as {'{{name}}'}.
      </p>
      {provided.rows.map((row, index) => (
        <div key={row.key} className="row" role="group" aria-label={`Given variable ${index + 1}`}>
          <Field
            label="Variable name"
            {...provided.bind(row, 'name')}
            error={rowError('variables_provided', index, 'name')}
          />
          <Field
            label="Description"
            {...provided.bind(row, 'description')}
            error={rowError('variables_provided', index, 'description')}
          />
          <Field
            label="Default"
            {...provided.bind(row, 'default')}
            error={rowError('variables_provided', index, 'default')}
          />
          <button type="button" className="secondary" onClick={() => provided.remove(row.key)}>
            Remove given variable {index + 1}
          </button>
        </div>
      ))}
      <ErrorMessage
        error={listError('variables_provided', provided.rows.length, ['name', 'description', 'default'])}
      />
      <button
        type="button"
        className="secondary"
        onClick={() => provided.add({ key: newKey(), name: '', description: '', default: '' })}
      >
        Add given variable
      </button>
    </fieldset>
  );
}

/** The variables the post-call analysis extracts from each call, one row each. */
export function ExtractedVariableRows({
  extracted,
  rowError,
  listError,
}: { extracted: ListRows<ExtractedRow> } & RowErrors) {
  return (
    <fieldset className="choices">
      <legend>Variables extracted from each call</legend>
      {extracted.rows.map((row, index) => (
        <div key={row.key} className="row" role="group" aria-label={`Extracted variable ${index + 1}`}>
          <Field
            label="Variable name"
            {...extracted.bind(row, 'name')}
            error={rowError('variables_extracted', index, 'name')}
          />
          <Field
            label="What to extract"
            {...extracted.bind(row, 'description')}
            error={rowError('variables_extracted', index, 'description')}
          />
          <label className="inline">
            <input
              type="checkbox"
              checked={row.required}
              onChange={(event) => extracted.change(row.key, { required: event.target.checked })}
            />{' '}
            Required
          </label>
          <button type="button" className="secondary" onClick={() => extracted.remove(row.key)}>
            Remove extracted variable {index + 1}
          </button>
        </div>
      ))}
      <ErrorMessage
        error={listError('variables_extracted', extracted.rows.length, ['name', 'description'])}
      />
      <button
        type="button"
        className="secondary"
        onClick={() => extracted.add({ key: newKey(), name: '', description: '', required: false })}
      >
        Add extracted variable
      </button>
    </fieldset>
  );
}

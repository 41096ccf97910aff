import { MAX_WEBHOOKS } from '@voice/core/schemas';
import { ErrorMessage } from '../../components/Messages';
import { Field } from '../../components/Field';
import { emptyWebhook, type ListRows, type RowErrors, type WebhookRow } from './rows';

/**
 * The agent's webhooks, one row each. Secrets and header values are write-only: typed here, sent once,
 * never shown again; an existing webhook keeps them unless a new value is typed or their removal ticked.
 */
export function WebhookRows({
  webhooks,
  rowError,
  listError,
}: { webhooks: ListRows<WebhookRow> } & RowErrors) {
  return (
    <fieldset className="choices">
      <legend>Webhooks</legend>
      {webhooks.rows.map((row, index) => (
        <div key={row.key} className="webhook" role="group" aria-label={`Webhook ${index + 1}`}>
          <div className="row">
            <Field
              label="Webhook name"
              {...webhooks.bind(row, 'name')}
              error={rowError('webhooks', index, 'name')}
            />
            <Field
              label="URL"
              type="url"
              placeholder="https://"
              {...webhooks.bind(row, 'url')}
              error={rowError('webhooks', index, 'url')}
            />
          </div>
          <div className="row">
            <Field
              label={row.hasSecret ? 'New signing secret (optional)' : 'Signing secret (optional)'}
              type="password"
              autoComplete="off"
              {...webhooks.bind(row, 'secret')}
              hint={
                row.hasSecret
                  ? 'A secret is set and kept unless you type a new one'
                  : 'Write-only: it is never shown again'
              }
              error={rowError('webhooks', index, 'secret')}
            />
            <Field
              label="Header name (optional)"
              autoComplete="off"
              {...webhooks.bind(row, 'headerName')}
              {...(row.hasHeaders ? { hint: 'Headers are set; a header typed here replaces them' } : {})}
            />
            <Field
              label="Header value"
              type="password"
              autoComplete="off"
              {...webhooks.bind(row, 'headerValue')}
              error={rowError('webhooks', index, 'headers')}
            />
          </div>
          {(row.hasSecret || row.hasHeaders) && (
            <div className="row">
              {row.hasSecret && (
                <label className="inline">
                  <input
                    type="checkbox"
                    checked={row.removeSecret}
                    onChange={(event) => webhooks.change(row.key, { removeSecret: event.target.checked })}
                  />{' '}
                  Remove the secret
                </label>
              )}
              {row.hasHeaders && (
                <label className="inline">
                  <input
                    type="checkbox"
                    checked={row.removeHeaders}
                    onChange={(event) => webhooks.change(row.key, { removeHeaders: event.target.checked })}
                  />{' '}
                  Remove the headers
                </label>
              )}
            </div>
          )}
          <button type="button" className="secondary" onClick={() => webhooks.remove(row.key)}>
            Remove webhook {index + 1}
          </button>
        </div>
      ))}
      <ErrorMessage
        error={listError('webhooks', webhooks.rows.length, ['name', 'url', 'secret', 'headers'])}
      />
      {webhooks.rows.length < MAX_WEBHOOKS && (
        <button type="button" className="secondary" onClick={() => webhooks.add(emptyWebhook())}>
          Add webhook
        </button>
      )}
    </fieldset>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CreateApiKeyInput } from '@voice/core/schemas';
import { useState } from 'react';
import { api, errorMessage, fieldError } from '../api';
import { useCheckedSubmit } from '../checked-submit';
import { DataTable } from '../components/DataTable';
import { Field } from '../components/Field';
import { formatTime } from '../format';
import { ErrorMessage } from '../components/Messages';

/**
 * API keys are for machines. A new key is shown once, here, and kept nowhere in the browser (not in
 * the query cache, not in storage): leaving the page forgets it.
 */
export function ApiKeysPage() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['apiKeys.list'], queryFn: () => api.apiKeys.list.query() });
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const create = useMutation({
    mutationFn: (input: CreateApiKeyInput) => api.apiKeys.create.mutate(input),
    onSuccess: ({ apiKey, key }) => {
      setCreated({ name: apiKey.name, key });
      void queryClient.invalidateQueries({ queryKey: ['apiKeys.list'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.apiKeys.revoke.mutate({ id }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['apiKeys.list'] }),
  });

  const { submit, error } = useCheckedSubmit(
    CreateApiKeyInput,
    (data) => ({ name: data.get('name') }),
    (input, reset) => {
      setCreated(null);
      create.mutate(input, { onSuccess: reset });
    },
    create.error,
  );

  return (
    <section>
      <h1>API keys</h1>
      <form className="form" onSubmit={submit} noValidate aria-label="New API key">
        <Field
          label="Key name"
          name="name"
          hint="What uses it, e.g. CRM sync"
          error={fieldError(error, 'name') ?? (error ? errorMessage(error) : undefined)}
        />
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            Create key
          </button>
        </div>
      </form>
      {created && (
        <div className="secret" role="status">
          <p>
            The key <strong>{created.name}</strong>, shown this once: copy it now, it cannot be seen again.
          </p>
          <p>
            <code data-testid="new-api-key">{created.key}</code>
          </p>
          <button
            type="button"
            className="secondary"
            onClick={() => void navigator.clipboard?.writeText(created.key)}
          >
            Copy
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <ErrorMessage error={keys.error} />
      <ErrorMessage error={revoke.error} />
      {keys.data && (
        <DataTable
          caption="API keys"
          rows={keys.data}
          rowKey={(key) => key.id}
          columns={[
            { header: 'Name', cell: (key) => key.name },
            { header: 'Key', cell: (key) => <code>{key.prefix}…</code> },
            { header: 'Created', cell: (key) => formatTime(key.created_at) },
            { header: 'Last used', cell: (key) => formatTime(key.last_used_at) },
            {
              header: 'Status',
              cell: (key) => (key.revoked_at ? `Revoked ${formatTime(key.revoked_at)}` : 'Active'),
            },
          ]}
          removal={{
            verb: 'Revoke',
            name: (key) => key.name,
            consequence: 'Requests with it fail from now on.',
            remove: (key) => revoke.mutate(key.id),
            pending: revoke.isPending,
            removable: (key) => !key.revoked_at,
          }}
        />
      )}
    </section>
  );
}

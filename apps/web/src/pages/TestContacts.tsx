import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AddTestContactInput } from '@voice/core/schemas';
import { api, errorMessage, fieldError } from '../api';
import { optionalText, useCheckedSubmit } from '../checked-submit';
import { Field, PhoneNumberField } from '../components/Field';
import { ErrorMessage } from '../components/Messages';
import { NumberTable } from '../components/NumberTable';

/** The account's testers' phones: calls to them are test calls, left out of lists and counts by default. */
export function TestContactsPage() {
  const queryClient = useQueryClient();
  const contacts = useQuery({
    queryKey: ['calls.testContacts.list'],
    queryFn: () => api.calls.testContacts.list.query(),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['calls.testContacts.list'] });
  const add = useMutation({
    mutationFn: (input: AddTestContactInput) => api.calls.testContacts.add.mutate(input),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (phone_number: string) => api.calls.testContacts.remove.mutate({ phone_number }),
    onSuccess: refresh,
  });
  const { submit, error } = useCheckedSubmit(
    AddTestContactInput,
    (data) => ({ phone_number: optionalText(data, 'phone_number') ?? '', name: optionalText(data, 'name') }),
    (input, reset) => add.mutate(input, { onSuccess: reset }),
    add.error,
  );
  const nameError = fieldError(error, 'name');
  return (
    <section>
      <h1>Test contacts</h1>
      <p className="hint">
        Calls to these numbers are test calls: the call list leaves them out unless asked to include them.
      </p>
      <form className="form" onSubmit={submit} noValidate aria-label="Add a test contact">
        <div className="row">
          <PhoneNumberField error={error && !nameError ? errorMessage(error) : undefined} />
          <Field label="Whose phone (optional)" name="name" error={nameError} />
        </div>
        <div className="actions">
          <button type="submit" disabled={add.isPending}>
            Add test contact
          </button>
        </div>
      </form>
      <ErrorMessage error={contacts.error ?? remove.error} />
      {contacts.data && (
        <NumberTable
          caption="Test contacts"
          rows={contacts.data}
          detail={{ header: 'Whose', cell: (contact) => contact.name ?? '—' }}
          consequence="Its calls count as real calls from now on."
          remove={remove}
          empty="No test contacts yet."
        />
      )}
    </section>
  );
}

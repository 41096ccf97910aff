import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AddDoNotCallInput, parseDoNotCallCsv } from '@voice/core/schemas';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { api, errorMessage, fieldError } from '../api';
import { optionalText, useCheckedSubmit } from '../checked-submit';
import { Field, PhoneNumberField } from '../components/Field';
import { ErrorMessage } from '../components/Messages';
import { NumberTable } from '../components/NumberTable';
import { Pager } from '../components/Pager';

const PAGE_SIZE = 100;
/** The api takes at most this many numbers a request; a bigger file would be imported in parts. */
const MAX_IMPORT = 10_000;

type Added = { added: number; already_listed: number };
const addedText = ({ added, already_listed }: Added) =>
  `${added.toLocaleString()} added, ${already_listed.toLocaleString()} already on the list`;

/**
 * The api's message about `phone_numbers[i]`, told with the file's line it came from (`lineOf`), or
 * as is beside the one number of the form.
 */
function numberProblem(error: unknown, lineOf?: (index: number) => string): string | undefined {
  if (!error) return undefined;
  const message = errorMessage(error);
  const match = message.match(/^phone_numbers\[(\d+)\]:? (.*)$/s);
  if (!match) return fieldError(error, 'phone_numbers');
  return lineOf ? `${lineOf(Number(match[1]))}: ${match[2]}` : match[2];
}

function useAddNumbers(onAdded: (result: Added) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: AddDoNotCallInput) => api.doNotCall.add.mutate(input),
    onSuccess: (result) => {
      onAdded(result);
      void queryClient.invalidateQueries({ queryKey: ['doNotCall.list'] });
    },
  });
}

function AddNumberForm() {
  const [result, setResult] = useState<Added | null>(null);
  const add = useAddNumbers(setResult);
  const { submit, error } = useCheckedSubmit(
    AddDoNotCallInput,
    (data) => ({
      phone_numbers: [optionalText(data, 'phone_number')].filter(Boolean),
      reason: optionalText(data, 'reason'),
    }),
    (input, reset) => {
      setResult(null);
      add.mutate(input, { onSuccess: reset });
    },
    add.error,
  );
  const numberError = numberProblem(error);
  const reasonError = fieldError(error, 'reason');
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Add a number">
      <div className="row">
        <PhoneNumberField error={numberError} />
        <Field label="Reason (optional)" name="reason" error={reasonError} />
      </div>
      <ErrorMessage error={error && !numberError && !reasonError ? errorMessage(error) : null} />
      <div className="actions">
        <button type="submit" disabled={add.isPending}>
          Add number
        </button>
      </div>
      {result && <p role="status">{addedText(result)}</p>}
    </form>
  );
}

/**
 * A CSV read in the browser: its numbers and bad lines shown first; the import sends them in one
 * request, which the api checks whole (one bad number and nothing is written).
 */
function ImportForm() {
  const [file, setFile] = useState<{ name: string; parsed: ReturnType<typeof parseDoNotCallCsv> } | null>(
    null,
  );
  const [result, setResult] = useState<Added | null>(null);
  const add = useAddNumbers(setResult);
  async function choose(event: ChangeEvent<HTMLInputElement>) {
    const chosen = event.target.files?.[0];
    setResult(null);
    add.reset();
    setFile(chosen ? { name: chosen.name, parsed: parseDoNotCallCsv(await chosen.text()) } : null);
  }
  const parsed = file?.parsed;
  const numbers = parsed?.ok ? parsed.numbers : [];
  const fileError = !parsed
    ? undefined
    : !parsed.ok
      ? parsed.reason
      : numbers.length > MAX_IMPORT
        ? `at most ${MAX_IMPORT.toLocaleString()} numbers a file; this one has ${numbers.length.toLocaleString()}`
        : numberProblem(add.error, (index) => `line ${numbers[index]?.line ?? '?'}`);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = String(new FormData(event.currentTarget).get('reason') ?? '').trim();
    if (!numbers.length || numbers.length > MAX_IMPORT) return;
    add.mutate({
      phone_numbers: numbers.map((number) => number.phone_number),
      ...(reason ? { reason } : {}),
    });
  }
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Import a CSV">
      <div className="row">
        <Field
          label="CSV file"
          type="file"
          accept=".csv,text/csv"
          onChange={(event) => void choose(event)}
          hint="A header naming a phone_number column; other columns are ignored"
          error={fileError}
        />
        <Field label="Reason for all (optional)" name="reason" error={fieldError(add.error, 'reason')} />
      </div>
      {parsed?.ok && (
        <div className="preview" role="status">
          <p>
            {file?.name}: {numbers.length.toLocaleString()} numbers
            {parsed.problems.length > 0 && `, ${parsed.problems.length} lines left out`}
          </p>
          {parsed.problems.length > 0 && (
            <ul>
              {parsed.problems.slice(0, 20).map((problem) => (
                <li key={problem.line}>
                  Line {problem.line}: {problem.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div className="actions">
        <button type="submit" disabled={add.isPending || !numbers.length || numbers.length > MAX_IMPORT}>
          Import {numbers.length ? numbers.length.toLocaleString() : ''} numbers
        </button>
      </div>
      {result && <p role="status">{addedText(result)}</p>}
    </form>
  );
}

/** The account's do-not-call list: numbers no campaign or dial will call. */
export function DoNotCallPage() {
  const queryClient = useQueryClient();
  const [afters, setAfters] = useState<(string | undefined)[]>([undefined]);
  const pageIndex = afters.length - 1;
  const input = { limit: PAGE_SIZE, ...(afters[pageIndex] ? { after: afters[pageIndex] } : {}) };
  const list = useQuery({
    queryKey: ['doNotCall.list', input],
    queryFn: () => api.doNotCall.list.query(input),
    placeholderData: keepPreviousData,
  });
  const remove = useMutation({
    mutationFn: (phone_number: string) => api.doNotCall.remove.mutate({ phone_number }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['doNotCall.list'] }),
  });
  const rows = list.data ?? [];
  return (
    <section>
      <h1>Do-not-call list</h1>
      <p className="hint">Campaigns skip these numbers and dials to them are refused.</p>
      <h2>Add a number</h2>
      <AddNumberForm />
      <h2>Import a CSV</h2>
      <ImportForm />
      <h2>Numbers</h2>
      <ErrorMessage error={list.error} />
      <ErrorMessage error={remove.error} />
      {list.data && (
        <>
          <NumberTable
            caption="Numbers on the do-not-call list"
            rows={rows}
            detail={{ header: 'Reason', cell: (row) => row.reason ?? '—' }}
            consequence="It can be called again."
            remove={remove}
          />
          {rows.length === 0 && pageIndex === 0 && <p>No numbers yet.</p>}
          <Pager
            what="numbers"
            shown={rows.length}
            pageIndex={pageIndex}
            hasNext={rows.length === PAGE_SIZE}
            onPrevious={() => setAfters(afters.slice(0, -1))}
            onNext={() => setAfters([...afters, rows.at(-1)?.phone_number])}
          />
        </>
      )}
    </section>
  );
}

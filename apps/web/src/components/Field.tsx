import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

type Described = { label: string; error?: string | undefined; hint?: string };

/** A label, a hint and an error around one control, the error announced to screen readers. */
function Labelled({
  label,
  error,
  hint,
  control,
}: Described & { control: (props: { id: string; describedBy?: string; invalid?: true }) => ReactNode }) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      {control({
        id,
        ...(describedBy ? { describedBy } : {}),
        ...(error ? { invalid: true as const } : {}),
      })}
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled input with its error beside it. */
export function Field({ label, error, hint, ...input }: Described & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Labelled
      label={label}
      error={error}
      {...(hint ? { hint } : {})}
      control={({ id, describedBy, invalid }) => (
        <input id={id} aria-invalid={invalid} aria-describedby={describedBy} {...input} />
      )}
    />
  );
}

/** A labelled select with its error beside it. */
export function SelectField({
  label,
  error,
  hint,
  children,
  ...select
}: Described & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Labelled
      label={label}
      error={error}
      {...(hint ? { hint } : {})}
      control={({ id, describedBy, invalid }) => (
        <select id={id} aria-invalid={invalid} aria-describedby={describedBy} {...select}>
          {children}
        </select>
      )}
    />
  );
}

/** A labelled text area with its error beside it. */
export function TextAreaField({
  label,
  error,
  hint,
  ...textarea
}: Described & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Labelled
      label={label}
      error={error}
      {...(hint ? { hint } : {})}
      control={({ id, describedBy, invalid }) => (
        <textarea id={id} aria-invalid={invalid} aria-describedby={describedBy} {...textarea} />
      )}
    />
  );
}

/** The field of a form that adds a phone number to one of the account's lists: E.164, with its country code. */
export function PhoneNumberField({ error, hint }: { error: string | undefined; hint?: string }) {
  return (
    <Field
      label="Phone number"
      name="phone_number"
      placeholder="+14155550123"
      hint={hint ?? 'E.164, with the country code'}
      error={error}
    />
  );
}

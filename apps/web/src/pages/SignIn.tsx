import { useMutation } from '@tanstack/react-query';
import { SignInInput } from '@voice/core/schemas';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, errorMessage, fieldError } from '../api';
import { Field } from '../components/Field';
import { useRememberSession, useSession } from '../session';
import { ErrorMessage } from '../components/Messages';

/** Where to go after signing in: a path of the dashboard only, never another site. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/calls';
}

export function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const session = useSession();
  const remember = useRememberSession();
  const navigate = useNavigate();
  const [invalid, setInvalid] = useState<Error | null>(null);
  const signIn = useMutation({
    mutationFn: (input: SignInInput) => api.session.signIn.mutate(input),
    onSuccess: (signedIn) => {
      remember(signedIn);
      void navigate(next, { replace: true });
    },
  });

  if (session.isSuccess) return <Navigate to={next} replace />;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parsed = SignInInput.safeParse({ email: form.get('email'), password: form.get('password') });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      setInvalid(new Error(`${String(issue?.path[0] ?? 'form')}: ${issue?.message ?? 'invalid'}`));
      return;
    }
    setInvalid(null);
    signIn.mutate(parsed.data);
  }

  const error = invalid ?? signIn.error;
  const formError =
    error && !fieldError(error, 'email') && !fieldError(error, 'password') ? errorMessage(error) : null;
  return (
    <main id="main" className="sign-in">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate aria-describedby={formError ? 'sign-in-error' : undefined}>
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="username"
          error={fieldError(error, 'email')}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          error={fieldError(error, 'password')}
        />
        <ErrorMessage id="sign-in-error" error={formError} />
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

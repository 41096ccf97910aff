import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { api, errorStatus, setCsrfToken, type Outputs } from './api';

export type Session = Outputs['session']['get'];
export const SESSION_KEY = ['session'] as const;

export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      const session = await api.session.get.query();
      setCsrfToken(session.csrf_token);
      return session;
    },
    staleTime: Infinity,
  });
}

/** Remembers a session the sign-in returned, so the pages need not ask for it again. */
export function useRememberSession() {
  const queryClient = useQueryClient();
  return (session: Session | null) => {
    setCsrfToken(session?.csrf_token ?? '');
    if (session) queryClient.setQueryData(SESSION_KEY, session);
    else queryClient.clear();
  };
}

/** Renders its children for a signed-in user; anyone else goes to the sign-in page, and back after. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <p className="loading">Loading…</p>;
  if (session.isError) {
    if (errorStatus(session.error) === 401) {
      const next = `${location.pathname}${location.search}`;
      return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
    }
    return <p role="alert">The service did not answer: {session.error.message}</p>;
  }
  return children;
}

import { useMutation } from '@tanstack/react-query';
import { NavLink, Navigate, Route, Routes, useNavigate } from 'react-router';
import { api } from './api';
import { AgentsPage } from './pages/Agents';
import { CallsPage } from './pages/Calls';
import { NotFoundPage } from './pages/NotFound';
import { SignInPage } from './pages/SignIn';
import { RequireSession, useRememberSession, useSession } from './session';

const SECTIONS = [
  { to: '/agents', label: 'Agents' },
  { to: '/calls', label: 'Calls' },
] as const;

function Layout({ children }: { children: React.ReactNode }) {
  const session = useSession();
  const remember = useRememberSession();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => api.session.signOut.mutate(),
    onSettled: () => {
      remember(null);
      void navigate('/sign-in');
    },
  });
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <span className="brand">Voice agents</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.to}>
                <NavLink to={section.to}>{section.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <span>
            {session.data?.user.email} · {session.data?.account.name}
          </span>
          <button
            type="button"
            className="secondary"
            onClick={() => signOut.mutate()}
            disabled={signOut.isPending}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

function Signed({ children }: { children: React.ReactNode }) {
  return (
    <RequireSession>
      <Layout>{children}</Layout>
    </RequireSession>
  );
}

export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/" element={<Navigate to="/calls" replace />} />
      <Route
        path="/agents"
        element={
          <Signed>
            <AgentsPage />
          </Signed>
        }
      />
      <Route
        path="/calls"
        element={
          <Signed>
            <CallsPage />
          </Signed>
        }
      />
      <Route
        path="*"
        element={
          <Signed>
            <NotFoundPage />
          </Signed>
        }
      />
    </Routes>
  );
}

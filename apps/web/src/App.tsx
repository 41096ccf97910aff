import { useMutation } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { NavLink, Navigate, Route, Routes, useNavigate } from 'react-router';
import { api } from './api';
import { EditAgentPage, NewAgentPage } from './pages/AgentForm';
import { AgentsPage } from './pages/Agents';
import { AnalyticsPage } from './pages/Analytics';
import { ApiKeysPage } from './pages/ApiKeys';
import { NewFlowAgentPage } from './pages/flow-builder/NewFlowAgent';
import { KnowledgeBasesPage } from './pages/KnowledgeBases';
import { CallPage } from './pages/CallView';
import { CallsPage } from './pages/Calls';
import { NewCampaignPage } from './pages/CampaignNew';
import { CampaignPage } from './pages/CampaignView';
import { CampaignsPage } from './pages/Campaigns';
import { DoNotCallPage } from './pages/DoNotCall';
import { NotFoundPage } from './pages/NotFound';
import { PhoneNumbersPage } from './pages/PhoneNumbers';
import { SignInPage } from './pages/SignIn';
import { TestContactsPage } from './pages/TestContacts';
import { RequireSession, useRememberSession, useSession } from './session';

// The flow builder (and its canvas library) loads when it is opened.
const FlowBuilderPage = lazy(() =>
  import('./pages/flow-builder/FlowBuilder').then((module) => ({ default: module.FlowBuilderPage })),
);

const SECTIONS = [
  { to: '/agents', label: 'Agents' },
  { to: '/knowledge', label: 'Knowledge' },
  { to: '/calls', label: 'Calls' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/phone-numbers', label: 'Numbers' },
  { to: '/do-not-call', label: 'Do not call' },
  { to: '/test-contacts', label: 'Test contacts' },
  { to: '/api-keys', label: 'API keys' },
] as const;

/** The signed-in pages, each inside the layout. */
const PAGES: { path: string; page: React.ReactNode }[] = [
  { path: '/agents', page: <AgentsPage /> },
  { path: '/agents/new', page: <NewAgentPage /> },
  { path: '/agents/new-flow', page: <NewFlowAgentPage /> },
  {
    path: '/agents/:agentId/flow',
    page: (
      <Suspense fallback={<p className="loading">Loading…</p>}>
        <FlowBuilderPage />
      </Suspense>
    ),
  },
  { path: '/agents/:agentId', page: <EditAgentPage /> },
  { path: '/knowledge', page: <KnowledgeBasesPage /> },
  { path: '/calls', page: <CallsPage /> },
  { path: '/analytics', page: <AnalyticsPage /> },
  { path: '/calls/:callId', page: <CallPage /> },
  { path: '/campaigns', page: <CampaignsPage /> },
  { path: '/campaigns/new', page: <NewCampaignPage /> },
  { path: '/campaigns/:campaignId', page: <CampaignPage /> },
  { path: '/phone-numbers', page: <PhoneNumbersPage /> },
  { path: '/do-not-call', page: <DoNotCallPage /> },
  { path: '/test-contacts', page: <TestContactsPage /> },
  { path: '/api-keys', page: <ApiKeysPage /> },
  { path: '*', page: <NotFoundPage /> },
];

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

/** The window's title follows the page's heading ("Calls · Voice agents"), whichever page is open. */
function useHeadingTitle() {
  useEffect(() => {
    const update = () => {
      const heading = document.querySelector('h1')?.textContent?.trim();
      const title = heading ? `${heading} · Voice agents` : 'Voice agents';
      if (document.title !== title) document.title = title;
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, []);
}

export function App() {
  useHeadingTitle();
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/" element={<Navigate to="/calls" replace />} />
      {PAGES.map(({ path, page }) => (
        <Route key={path} path={path} element={<Signed>{page}</Signed>} />
      ))}
    </Routes>
  );
}

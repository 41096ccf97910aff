import { useMutation } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { NavLink, Navigate, Route, Routes, useNavigate } from 'react-router';
import { api } from './api';
import { RequireSession, useRememberSession, useSession } from './session';

/**
 * Each page loads when it is first opened (its own chunk, with what only it uses: the flow builder's
 * canvas, the analytics charts), so the first load carries the shell alone.
 */
function lazyPage<Name extends string>(
  load: () => Promise<Record<Name, React.ComponentType>>,
  name: Name,
): React.ComponentType {
  return lazy(async (): Promise<{ default: React.ComponentType }> => ({ default: (await load())[name] }));
}

const AgentsPage = lazyPage(() => import('./pages/Agents'), 'AgentsPage');
const NewAgentPage = lazyPage(() => import('./pages/AgentForm'), 'NewAgentPage');
const EditAgentPage = lazyPage(() => import('./pages/AgentForm'), 'EditAgentPage');
const NewFlowAgentPage = lazyPage(() => import('./pages/flow-builder/NewFlowAgent'), 'NewFlowAgentPage');
const FlowBuilderPage = lazyPage(() => import('./pages/flow-builder/FlowBuilder'), 'FlowBuilderPage');
const KnowledgeBasesPage = lazyPage(() => import('./pages/KnowledgeBases'), 'KnowledgeBasesPage');
const CallsPage = lazyPage(() => import('./pages/Calls'), 'CallsPage');
const CallPage = lazyPage(() => import('./pages/CallView'), 'CallPage');
const AnalyticsPage = lazyPage(() => import('./pages/Analytics'), 'AnalyticsPage');
const CampaignsPage = lazyPage(() => import('./pages/Campaigns'), 'CampaignsPage');
const NewCampaignPage = lazyPage(() => import('./pages/CampaignNew'), 'NewCampaignPage');
const CampaignPage = lazyPage(() => import('./pages/CampaignView'), 'CampaignPage');
const PhoneNumbersPage = lazyPage(() => import('./pages/PhoneNumbers'), 'PhoneNumbersPage');
const DoNotCallPage = lazyPage(() => import('./pages/DoNotCall'), 'DoNotCallPage');
const TestContactsPage = lazyPage(() => import('./pages/TestContacts'), 'TestContactsPage');
const ApiKeysPage = lazyPage(() => import('./pages/ApiKeys'), 'ApiKeysPage');
const NotFoundPage = lazyPage(() => import('./pages/NotFound'), 'NotFoundPage');
const SignInPage = lazyPage(() => import('./pages/SignIn'), 'SignInPage');

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
  { path: '/agents/:agentId/flow', page: <FlowBuilderPage /> },
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
        <Suspense fallback={<p className="loading">Loading…</p>}>{children}</Suspense>
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
      <Route
        path="/sign-in"
        element={
          <Suspense fallback={<p className="loading">Loading…</p>}>
            <SignInPage />
          </Suspense>
        }
      />
      <Route path="/" element={<Navigate to="/calls" replace />} />
      {PAGES.map(({ path, page }) => (
        <Route key={path} path={path} element={<Signed>{page}</Signed>} />
      ))}
    </Routes>
  );
}

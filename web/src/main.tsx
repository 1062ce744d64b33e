// The Crucible web app: sign in, settings, projects and the evaluation flow, worlds and runs.
import { StrictMode, Suspense, lazy, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Form } from 'react-aria-components';
import { CrucibleApiError, client, unwrap } from './client.ts';
import type { Features, Me } from './types.ts';
import { IntakeCorrectionPage, IntakeRevisionPage } from './pages/intake.tsx';
import { DraftPage, PlanPage, ProjectPage, ProjectsPage } from './pages/projects.tsx';
import { Action, Breadcrumb, CreditBalance, ErrorBanner, Field, Link, SessionContext, navigate, useAction, useLocation, useSession } from './ui.tsx';
import './styles.css';

// Every screen but the projects is its own chunk, loaded when it opens: the first screen stays small (docs/web.md).
// The world editor carries the diagram (and, on its Advanced tab, CodeMirror); the run page its own SVG plots.
const AuthoringSessionPage = lazy(() => import('./pages/authoring.tsx').then((m) => ({ default: m.AuthoringSessionPage })));
const BillingPage = lazy(() => import('./pages/billing.tsx').then((m) => ({ default: m.BillingPage })));
const PurchasePage = lazy(() => import('./pages/billing.tsx').then((m) => ({ default: m.PurchasePage })));
const SponsorPage = lazy(() => import('./pages/sponsor.tsx').then((m) => ({ default: m.SponsorPage })));
const ProgramPage = lazy(() => import('./pages/sponsor.tsx').then((m) => ({ default: m.ProgramPage })));
const ReviewPage = lazy(() => import('./pages/review.tsx').then((m) => ({ default: m.ReviewPage })));
const SettingsPage = lazy(() => import('./pages/settings.tsx').then((m) => ({ default: m.SettingsPage })));
const WorldEditorPage = lazy(() => import('./pages/worlds.tsx').then((m) => ({ default: m.WorldEditorPage })));
const WorldRevisionPage = lazy(() => import('./pages/worlds.tsx').then((m) => ({ default: m.WorldRevisionPage })));
const RunPage = lazy(() => import('./pages/run.tsx'));

const ORG_KEY = 'crucible.org_id';

function SignIn({ onSignedIn }: { onSignedIn(): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useAction(async () => {
    await client.POST('/v1/auth/sessions', { body: { email, password } }).then(unwrap);
    onSignedIn();
  });
  return (
    <main className="signin">
      <h1>Crucible</h1>
      <p className="muted">Sign in to evaluate an early health-technology idea.</p>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          void signIn.run();
        }}
      >
        <Field label="Email" type="email" name="email" value={email} onChange={setEmail} isRequired autoComplete="username" />
        <Field label="Password" type="password" name="password" value={password} onChange={setPassword} isRequired autoComplete="current-password" />
        <ErrorBanner error={signIn.error} />
        <Action type="submit" variant="primary" isDisabled={signIn.pending}>
          {signIn.pending ? 'Signing in…' : 'Sign in'}
        </Action>
      </Form>
    </main>
  );
}

const projectPath = /^\/projects\/([^/]+)$/;

function Routes() {
  return (
    <Suspense fallback={<p aria-busy="true">Loading…</p>}>
      <Page />
    </Suspense>
  );
}

function Page() {
  const { path } = useLocation();
  const { features } = useSession();
  const at = (pattern: RegExp) => pattern.exec(path)?.slice(1) as string[] | undefined;
  if (path === '/' || path === '/projects') return <ProjectsPage />;
  if (path === '/settings') return <SettingsPage />;
  // the billing and sponsor screens exist only while their deployment flag is on (GET /v1/features)
  if (features.billing) {
    if (path === '/billing') return <BillingPage />;
    if (path === '/billing/done') return <PurchasePage />;
    const purchase = at(/^\/billing\/purchases\/([^/]+)$/);
    if (purchase) return <PurchasePage intent_id={purchase[0]!} />;
  }
  if (features.sponsor_api) {
    if (path === '/sponsor') return <SponsorPage />;
    const program = at(/^\/sponsor\/programs\/([^/]+)$/);
    if (program) return <ProgramPage program_id={program[0]!} />;
  }
  const project = at(projectPath);
  if (project) return <ProjectPage project_id={project[0]!} />;
  const draft = at(/^\/projects\/([^/]+)\/drafts\/([^/]+)$/);
  if (draft) return <DraftPage project_id={draft[0]!} draft_id={draft[1]!} />;
  const intake = at(/^\/projects\/([^/]+)\/intakes\/([1-9][0-9]{0,8})(\/correct)?$/);
  if (intake?.[2]) return <IntakeCorrectionPage project_id={intake[0]!} revision={Number(intake[1])} />;
  if (intake) return <IntakeRevisionPage project_id={intake[0]!} revision={Number(intake[1])} />;
  const plan = at(/^\/projects\/([^/]+)\/plans\/([^/]+)$/);
  if (plan) return <PlanPage project_id={plan[0]!} plan_id={plan[1]!} />;
  const world = at(/^\/projects\/([^/]+)\/worlds\/new$/);
  if (world) return <WorldEditorPage project_id={world[0]!} />;
  const review = at(/^\/reviews\/([^/]+)$/);
  if (review) return <ReviewPage review_id={review[0]!} />;
  const revision = at(/^\/world-revisions\/([^/]+)$/);
  if (revision) return <WorldRevisionPage world_revision_id={revision[0]!} />;
  const authoring = at(/^\/authoring-sessions\/([^/]+)$/);
  if (authoring) return <AuthoringSessionPage session_id={authoring[0]!} />;
  const run = at(/^\/runs\/([^/]+)$/);
  if (run) return <RunPage run_id={run[0]!} />;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page at this address. <Link to="/">Go to your projects</Link>.
      </p>
    </section>
  );
}

/** Who is signed in and which features are on; `me` is undefined while loading and null when signed out. */
function useSignedIn() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [features, setFeatures] = useState<Features | undefined>(undefined);
  const refresh = useCallback(async () => {
    try {
      const [who, flags] = await Promise.all([client.GET('/v1/me').then(unwrap), client.GET('/v1/features').then(unwrap)]);
      setFeatures(flags);
      setMe(who);
      setError(null);
    } catch (caught) {
      if (caught instanceof CrucibleApiError && caught.status === 401) setMe(null);
      else setError(caught);
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return { me, setMe, error, features, refresh };
}

function OrganizationPicker({ orgs, current, setOrg }: { orgs: Me['memberships']; current: string; setOrg(id: string): void }) {
  if (orgs.length <= 1) return <span className="muted">{orgs[0]?.org_name}</span>;
  return (
    <label>
      <span className="visually-hidden">Organization</span>
      <select value={current} onChange={(e) => setOrg(e.target.value)} aria-label="Organization">
        {orgs.map((o) => (
          <option key={o.org_id} value={o.org_id}>
            {o.org_name}
          </option>
        ))}
      </select>
    </label>
  );
}

function TopBar({ onSignOut, signingOut }: { onSignOut(): void; signingOut: boolean }) {
  const { me, org_id, setOrg, features } = useSession();
  return (
    <header className="top">
      <Link to="/" className="brand">
        Crucible
      </Link>
      <nav aria-label="Main">
        <Link to="/">Projects</Link>
        {features.billing && <Link to="/billing">Billing</Link>}
        {features.sponsor_api && <Link to="/sponsor">Sponsor</Link>}
        <Link to="/settings">Settings</Link>
      </nav>
      <div className="who">
        {org_id && <CreditBalance org_id={org_id} />}
        <OrganizationPicker orgs={me.memberships} current={org_id} setOrg={setOrg} />
        <span className="muted small email">{me.user.email}</span>
        <Action onPress={onSignOut} isDisabled={signingOut}>
          Sign out
        </Action>
      </div>
    </header>
  );
}

function App() {
  const { me, setMe, error, features, refresh } = useSignedIn();
  const [org_id, setOrgId] = useState<string>(() => localStorage.getItem(ORG_KEY) ?? '');
  const signOut = useAction(async () => {
    await client.DELETE('/v1/auth/sessions/current').then(unwrap);
    setMe(null);
    navigate('/', { replace: true });
  });

  if (me === undefined) return error ? <ErrorBanner error={error} /> : <p aria-busy="true">Loading…</p>;
  if (me === null) return <SignIn onSignedIn={() => void refresh()} />;
  if (!features) return <p aria-busy="true">Loading…</p>;
  const orgs = me.memberships;
  const current = orgs.find((o) => o.org_id === org_id)?.org_id ?? orgs[0]?.org_id ?? '';
  const setOrg = (id: string) => {
    localStorage.setItem(ORG_KEY, id);
    setOrgId(id);
  };
  return (
    <SessionContext.Provider value={{ me, org_id: current, setOrg, refresh, features }}>
      <TopBar onSignOut={() => void signOut.run()} signingOut={signOut.pending} />
      <ErrorBanner error={signOut.error} />
      <main className="content">
        <Breadcrumb />
        {current ? <Routes /> : <p>You are not a member of any organization yet; ask an operator to add you.</p>}
      </main>
    </SessionContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

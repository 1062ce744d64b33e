// Shared pieces: navigation, error display (always the envelope's message), polling, and accessible form controls
// from React Aria Components (labels, keyboard focus, announcements).
import { type ReactNode, createContext, useCallback, useContext, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { Button, FieldError, Input, Label, TextArea, TextField } from 'react-aria-components';
import { client, envelopeOf, unwrap } from './client.ts';
import type { AddCreditsAdvice, Features, Me } from './types.ts';
import { TechnicalDetails } from './technical.tsx';

// ---------- a small history router: the server answers every non-API path with index.html ----------
const listeners = new Set<() => void>();
function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}
export function navigate(to: string, options: { replace?: boolean } = {}) {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}
export function useLocation(): { path: string; search: URLSearchParams } {
  const href = useSyncExternalStore(subscribe, () => location.pathname + location.search);
  const url = new URL(href, location.origin);
  return { path: url.pathname, search: url.searchParams };
}
export function Link({ to, children, className }: { to: string; children: ReactNode; className?: string }) {
  return (
    <a
      href={to}
      className={className}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

// ---------- the signed-in user and the organization being worked in ----------
export type Session = { me: Me; org_id: string; setOrg(org_id: string): void; refresh(): Promise<void>; features: Features };
export const SessionContext = createContext<Session | null>(null);
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in app');
  return session;
}

// ---------- errors ----------
/** The app's own first sentence for the common error codes: what to do first. The envelope's message follows it. */
const FIRST_STEP: Record<string, string> = {
  NETWORK: 'The service cannot be reached. Check your connection and try again.',
  FORBIDDEN: 'Your role in this organization does not allow this. Ask an owner or admin.',
  NOT_FOUND: 'This item does not exist, or it belongs to another organization.',
  VALIDATION_FAILED: 'Something in what you entered needs correcting; see the notes below.',
  APPROVAL_REQUIRED: 'This needs an explicit approval first. Approve it on the plan, then try again.',
  CONFLICT: 'This cannot be done in the item’s current state. Reload the page to see where it stands.',
  QUOTA_EXCEEDED: 'Your organization reached a limit for this. Ask an admin.',
  RATE_LIMITED: 'Too many requests just now. Wait a minute and try again.',
  PAYLOAD_TOO_LARGE: 'What you sent is too large. Send less at once.',
  PROVIDER_NOT_CONFIGURED: 'The AI provider is not set up for this service. Ask the operator, or add your own provider key in Settings.',
  PROVIDER_ERROR: 'The AI provider did not answer properly. Try again in a few minutes; nothing was charged beyond actual use.',
  TEMPORARILY_UNAVAILABLE: 'The service is busy. Try again in a few minutes.',
  INTERNAL: 'Something went wrong on our side. Try again; if it happens again, send the technical details to support.',
};

/** Text a person should not have to read (ids, pointers, field names, contract names, HTTP paths): kept for the disclosure. */
const TECHNICAL = [
  /\b[a-z]{2,5}_[0-9a-z]{8,}\b/,
  /(?:^|[\s("'])\/[a-z_]+(?:\/[a-z0-9_-]+)+/,
  /\b[a-z]+(?:_[a-z0-9]+)+\b/,
  /\b(?:IntakeSpec|EvaluationPlan|WorldSpec|ResourceSpec|ConceptReview|RunManifest|MetricSummary)\b/,
  /\b(?:GET|POST|PUT|PATCH|DELETE) \/v1\//,
];
export function looksTechnical(text: string): boolean {
  return TECHNICAL.some((pattern) => pattern.test(text));
}

/** Server sentences in words: contract names and the few field names that reach prose, said as a person would. */
const WORDS: Array<[RegExp, string]> = [
  [/\s*\((?:byok_provider|hosted_inference|user_declared|ai_hypothesis)\)/g, ''],
  [/\bWorldSpec\b/g, 'world model'],
  [/\bIntakeSpec\b/g, 'intake'],
  [/\bEvaluationPlan\b/g, 'plan'],
  [/\bConceptReview\b/g, 'review'],
  [/\buser_declared\b/g, 'declared by you'],
  [/\bai_hypothesis\b/g, 'AI hypothesis'],
  [/\bhosted_inference\b/g, 'the service’s AI'],
  [/\bhosted inference\b/g, 'the service’s AI'],
  [/\bbyok_provider\b/g, 'your own provider key'],
  [/\s*\((?:GET|POST|PUT|PATCH|DELETE) \/v1\/[^)]*\)/g, ''],
  [/(?:^|\s)\/[a-z_]+(?:\/[a-z0-9_-]+)+:?\s*/g, ' '],
];
export function plainText(text: string): string {
  let out = text;
  for (const [pattern, words] of WORDS) out = out.replace(pattern, words);
  return out.replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, (name) => name.replaceAll('_', ' ')).trim();
}

// Words placed inside a sentence (after a colon, a label): one rule with the server's texts (clients/sdk/src/words/sentences.ts).
export { inSentence } from '../../clients/sdk/src/words/index.ts';

export function errorMessage(error: unknown): string {
  const envelope = envelopeOf(error);
  if (envelope) return envelope.message;
  return error instanceof Error ? error.message : String(error);
}
/** The way to get credits the API named with an INSUFFICIENT_CREDITS answer, when it named one. */
export function addCreditsOf(envelope: { code: string; details: unknown } | null): AddCreditsAdvice | null {
  if (envelope?.code !== 'INSUFFICIENT_CREDITS' || !envelope.details || typeof envelope.details !== 'object') return null;
  const advice = (envelope.details as { add_credits?: AddCreditsAdvice }).add_credits;
  return advice && typeof advice.way === 'string' ? advice : null;
}

/** "Not enough credits": how many there are and are needed, then the way to get credits on this deployment. */
function NotEnoughCredits({ envelope, advice }: { envelope: { message: string; details: unknown; request_id: string }; advice: AddCreditsAdvice }) {
  const numbers = envelope.details as { available_credits?: number; needed_credits?: number };
  return (
    <div className="error" role="alert">
      <p className="error-message">
        Your organization does not have enough credits for this
        {typeof numbers.needed_credits === 'number'
          ? `: it has ${formatNumber(numbers.available_credits ?? 0)} available and this needs ${formatNumber(numbers.needed_credits)}.`
          : '.'}
      </p>
      <AddCreditsWay advice={advice} />
      <TechnicalDetails summary="Technical details of this error">
        <p>{envelope.message}</p>
        <p>INSUFFICIENT_CREDITS{envelope.request_id ? ` · request ${envelope.request_id}` : ''}</p>
      </TechnicalDetails>
    </div>
  );
}

/** How to get credits here: the Billing page, a sponsor code, the command for the owner of a local service, or whom to ask. */
export function AddCreditsWay({ advice }: { advice: AddCreditsAdvice }) {
  if (advice.way === 'operator_command' && advice.command) {
    return (
      <div className="add-credits" data-testid="add-credits">
        <p>This service runs on your computer. To add credits, run this command in its folder (where you started it with npm start):</p>
        <pre>{advice.command}</pre>
        <CopyButton text={advice.command} label="Copy the command" />
      </div>
    );
  }
  return (
    <p className="add-credits" data-testid="add-credits">
      {advice.sentence} {advice.way === 'billing' && <Link to="/billing">Open the Billing page</Link>}
      {advice.way === 'sponsor_code' && <Link to="/sponsor">Open the Sponsor page</Link>}
    </p>
  );
}

export function ErrorBanner({ error }: { error: unknown }) {
  if (!error) return null;
  const envelope = envelopeOf(error);
  const advice = addCreditsOf(envelope);
  if (envelope && advice) return <NotEnoughCredits envelope={envelope} advice={advice} />;
  const details = envelope && Array.isArray(envelope.details) ? envelope.details : [];
  const message = errorMessage(error);
  const first = envelope ? FIRST_STEP[envelope.code] : undefined;
  const plainDetails = details.filter((d) => !looksTechnical(d.message));
  return (
    <div className="error" role="alert">
      <p className="error-message">{first ?? (looksTechnical(message) ? 'The request was refused. The technical details below say why.' : message)}</p>
      {first && !looksTechnical(message) && <p>{message}</p>}
      {envelope?.code === 'NOT_FOUND' && (
        <p>
          <Link to="/">Go to your projects</Link>
        </p>
      )}
      {plainDetails.length > 0 && (
        <ul>
          {plainDetails.slice(0, 20).map((d) => (
            <li key={`${d.path}:${d.message}`}>{d.message}</li>
          ))}
        </ul>
      )}
      {(envelope?.code || looksTechnical(message) || details.length > 0) && (
        <TechnicalDetails summary="Technical details of this error">
          <p>{message}</p>
          {details.length > 0 && (
            <ul>
              {details.slice(0, 20).map((d) => (
                <li key={`${d.path}:${d.message}`}>
                  {d.path ? <code>{d.path}</code> : null} {d.message}
                </li>
              ))}
            </ul>
          )}
          {envelope?.code && (
            <p>
              {envelope.code}
              {envelope.request_id ? ` · request ${envelope.request_id}` : ''}
            </p>
          )}
        </TechnicalDetails>
      )}
    </div>
  );
}

/** Runs an action, keeping its pending state and error; the error is the API envelope's message. */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(
    async (...args: A): Promise<T | undefined> => {
      setPending(true);
      setError(null);
      try {
        return await action(...args);
      } catch (caught) {
        setError(caught);
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [action],
  );
  return { run, pending, error, setError };
}

/** Loads data and reloads on demand; while `poll_ms` is set and `until` is false, polls (a long job can be left and returned to). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], poll?: { ms: number; until: (value: T) => boolean }) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const pollRef = useRef(poll);
  pollRef.current = poll;
  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the caller's deps or a manual reload change
  useEffect(() => {
    let active = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const once = async () => {
      try {
        const loaded = await loadRef.current();
        if (!active) return;
        setValue(loaded);
        setError(null);
        const p = pollRef.current;
        if (p && !p.until(loaded)) timer = setTimeout(once, p.ms);
      } catch (caught) {
        if (active) setError(caught);
      }
    };
    void once();
    return () => {
      active = false;
      if (timer) clearTimeout(timer);
    };
  }, [...deps, tick]);
  return { value, error, reload: () => setTick((t) => t + 1), setValue };
}

// ---------- form controls ----------
export function Field(props: {
  label: string;
  value: string;
  onChange(value: string): void;
  type?: string;
  name?: string;
  isRequired?: boolean;
  autoComplete?: string;
  description?: string;
  placeholder?: string;
  inputMode?: 'numeric' | 'text';
}) {
  return (
    <TextField
      className="field"
      value={props.value}
      onChange={props.onChange}
      type={props.type}
      name={props.name}
      isRequired={props.isRequired}
      autoComplete={props.autoComplete}
    >
      <Label>{props.label}</Label>
      <Input placeholder={props.placeholder} inputMode={props.inputMode} />
      {props.description && <span className="muted small">{props.description}</span>}
      <FieldError />
    </TextField>
  );
}
/** A labelled native select of strings: `options` are the values with the words a person reads for each. */
export function Choice(props: { label: string; value: string; onChange(value: string): void; options: Array<{ value: string; label: string }> }) {
  return (
    <label className="field">
      <span>{props.label}</span>
      <select value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Area(props: { label: string; value: string; onChange(value: string): void; rows?: number; className?: string; spellCheck?: boolean }) {
  return (
    <TextField className={`field ${props.className ?? ''}`} value={props.value} onChange={props.onChange}>
      <Label>{props.label}</Label>
      <TextArea rows={props.rows ?? 6} spellCheck={props.spellCheck} />
    </TextField>
  );
}
export function Action(props: {
  children: ReactNode;
  onPress?: () => void;
  isDisabled?: boolean;
  variant?: 'primary' | 'secondary' | 'danger';
  type?: 'button' | 'submit';
  'aria-label'?: string;
}) {
  return (
    <Button
      type={props.type ?? 'button'}
      className={`button ${props.variant ?? 'secondary'}`}
      onPress={props.onPress}
      isDisabled={props.isDisabled}
      aria-label={props['aria-label']}
    >
      {props.children}
    </Button>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Action
      onPress={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
        } catch {
          setCopied(false);
        }
      }}
    >
      {copied ? 'Copied' : label}
    </Action>
  );
}

export function Status({ value }: { value: string }) {
  return <span className={`status status-${value}`}>{value.replaceAll('_', ' ')}</span>;
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  return new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
export function formatNumber(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined) return 'undefined';
  return Number.isInteger(value) ? value.toLocaleString() : value.toLocaleString(undefined, { maximumFractionDigits: digits });
}

export function Pager({ offset, next, onPage, limit }: { offset: number; next: number | null; onPage(offset: number): void; limit: number }) {
  if (offset === 0 && next === null) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <Action isDisabled={offset === 0} onPress={() => onPage(Math.max(0, offset - limit))}>
        Previous
      </Action>
      <span className="muted">
        rows {offset + 1}–{next ?? 'the end'}
      </span>
      <Action isDisabled={next === null} onPress={() => next !== null && onPage(next)}>
        Next
      </Action>
    </nav>
  );
}

// ---------- the header's balance, read again when something on a screen changed it ----------
const balanceListeners = new Set<() => void>();
/** Tells the header the balance may have changed: a purchase paid, a code redeemed, a run, review or AI step ended. */
export function balanceChanged(): void {
  for (const listener of balanceListeners) listener();
}
/** Calls balanceChanged when `status` moves on from a value already seen (not when it is first read). */
export function useBalanceChangedOn(status: string | undefined): void {
  const seen = useRef(status);
  useEffect(() => {
    if (seen.current !== undefined && status !== undefined && seen.current !== status) balanceChanged();
    if (status !== undefined) seen.current = status;
  }, [status]);
}

/** The header's credit balance: what the organization can spend now, read again on each new screen and when it changes. */
export function CreditBalance({ org_id }: { org_id: string }) {
  const { path } = useLocation();
  const [changes, setChanges] = useState(0);
  useEffect(() => {
    const listener = () => setChanges((n) => n + 1);
    balanceListeners.add(listener);
    return () => void balanceListeners.delete(listener);
  }, []);
  const credits = useLoad(() => client.GET('/v1/orgs/{org_id}/credits', { path: { org_id } }).then(unwrap), [org_id, path, changes]);
  if (!credits.value) return null;
  const empty = credits.value.available_credits === 0;
  const way = credits.value.add_credits.way;
  return (
    <span className="credits">
      <Link to="/settings">
        <span data-testid="header-credits">{formatNumber(credits.value.available_credits)}</span> credits available
      </Link>
      {empty && (
        <Link to={way === 'billing' ? '/billing' : way === 'sponsor_code' ? '/sponsor' : '/settings#credits'} className="add-credits-link">
          {way === 'billing' ? 'Buy credits' : way === 'sponsor_code' ? 'Redeem a sponsor code' : 'How to add credits'}
        </Link>
      )}
    </span>
  );
}

// ---------- the breadcrumb: the project's title and the step, for every page inside a project ----------
type Crumbs = { project_id: string; step: string; middle?: { text: string; to: string } } | null;
const projectTitles = new Map<string, string>();

/** The project and the step a path shows; pages of a job or a world read their project from the API. */
async function crumbsOf(path: string): Promise<Crumbs> {
  const at = (pattern: RegExp) => pattern.exec(path)?.slice(1) as string[] | undefined;
  const inProject = at(/^\/projects\/([^/]+)(?:\/(drafts|plans|worlds)\/[^/]+)?$/);
  if (inProject) {
    const steps: Record<string, string> = { drafts: 'Intake draft', plans: 'Evaluation plan', worlds: 'New world' };
    return { project_id: inProject[0]!, step: inProject[1] ? steps[inProject[1]]! : '' };
  }
  const intake = at(/^\/projects\/([^/]+)\/intakes\/(\d+)(\/correct)?$/);
  if (intake) {
    const [project_id, revision, correct] = intake;
    return correct
      ? {
          project_id: project_id!,
          step: 'Correcting the intake',
          middle: { text: `Intake, revision ${revision}`, to: `/projects/${project_id}/intakes/${revision}` },
        }
      : { project_id: project_id!, step: `Intake, revision ${revision}` };
  }
  const review = at(/^\/reviews\/([^/]+)$/)?.[0];
  if (review) {
    const r = await client.GET('/v1/reviews/{review_id}', { path: { review_id: review } }).then(unwrap);
    return {
      project_id: r.project_id,
      step: 'Concept and evidence review',
      middle: { text: 'Evaluation plan', to: `/projects/${r.project_id}/plans/${r.plan_id}` },
    };
  }
  const run = at(/^\/runs\/([^/]+)$/)?.[0];
  if (run) {
    const r = await client.GET('/v1/runs/{run_id}', { path: { run_id: run } }).then(unwrap);
    const world = await client.GET('/v1/world-revisions/{world_revision_id}', { path: { world_revision_id: r.world_revision_id } }).then(unwrap);
    return { project_id: r.project_id, step: 'Simulation run', middle: { text: `World: ${world.name}`, to: `/world-revisions/${r.world_revision_id}` } };
  }
  const revision = at(/^\/world-revisions\/([^/]+)$/)?.[0];
  if (revision) {
    const w = await client.GET('/v1/world-revisions/{world_revision_id}', { path: { world_revision_id: revision } }).then(unwrap);
    return { project_id: w.project_id, step: `World: ${w.name}` };
  }
  const session = at(/^\/authoring-sessions\/([^/]+)$/)?.[0];
  if (session) {
    const s = await client.GET('/v1/authoring-sessions/{session_id}', { path: { session_id: session } }).then(unwrap);
    return { project_id: s.project_id, step: 'Authoring session' };
  }
  return null;
}

async function projectTitle(project_id: string): Promise<string> {
  const known = projectTitles.get(project_id);
  if (known !== undefined) return known;
  const project = await client.GET('/v1/projects/{project_id}', { path: { project_id } }).then(unwrap);
  projectTitles.set(project_id, project.title);
  return project.title;
}

/** "Projects / <the project's title> / <the step>" above every page inside a project (the last part is the page itself). */
export function Breadcrumb() {
  const { path } = useLocation();
  const crumbs = useLoad(async () => {
    const found = await crumbsOf(path);
    return found ? { ...found, title: await projectTitle(found.project_id) } : null;
  }, [path]);
  const c = crumbs.value;
  if (!c) return null;
  return (
    <nav aria-label="Breadcrumb" className="breadcrumb" data-testid="breadcrumb">
      <ol>
        <li>
          <Link to="/">Projects</Link>
        </li>
        <li aria-current={c.step ? undefined : 'page'}>{c.step ? <Link to={`/projects/${c.project_id}`}>{c.title}</Link> : c.title}</li>
        {c.middle && (
          <li>
            <Link to={c.middle.to}>{c.middle.text}</Link>
          </li>
        )}
        {c.step && <li aria-current="page">{c.step}</li>}
      </ol>
    </nav>
  );
}

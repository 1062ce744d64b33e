// One module reads and validates the environment at start and fails fast with a clear message
// (ARCHITECTURE.md: Configuration). Everything is optional for the embedded default.
import { POOL_THREADS_MAX } from '../compute/pool.ts';
import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { TLSConfig } from '@temporalio/client';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

import {
  AI_PROVIDERS as ALL_AI_PROVIDERS,
  type AiProvider,
  type HostedAiProvider,
  isAiProvider,
  perHostedProvider,
  providerBaseUrlEnv,
  providerModelEnv,
} from '../domain/ai/providers.ts';
import type { SignInLimits } from '../domain/accounts/rules.ts';
import { AI_CALL_TIMEOUT_SECONDS_DEFAULT, AI_CALL_TIMEOUT_SECONDS_MAX, AI_CALL_TIMEOUT_SECONDS_MIN } from '../domain/ai/attempts.ts';
import { CREDITS_MAX } from '../domain/credits/rules.ts';
import { WORK_QUEUES, type WorkQueue } from '../domain/jobs.ts';
import { PDF_READ_SECONDS_MAX } from '../domain/intake/sources.ts';
import { REPLICATIONS_MAX } from '../domain/simulation/limits.ts';
import { RUN_SHARD_SECONDS_DEFAULT, RUN_SHARDS_IN_FLIGHT_DEFAULT } from '../domain/simulation/shards.ts';

export type HostedProvider = HostedAiProvider;
export type { SignInLimits };
export type { AiProvider };

export type Config = {
  database_url: string | null;
  data_dir: string;
  temporal_address: string | null;
  temporal_namespace: string;
  /**
   * TLS to Temporal (null: plaintext): on with TEMPORAL_TLS=true, TEMPORAL_API_KEY or any of TEMPORAL_TLS_CERT / _KEY /
   * _CA / _SERVER_NAME; carries the client certificate pair (mTLS), the CA and the server-name override.
   */
  temporal_tls: TLSConfig | null;
  /** Temporal Cloud's API key (TEMPORAL_API_KEY), sent as a bearer token, over TLS only. */
  temporal_api_key: string | null;
  temporal_task_queue: string;
  temporal_ui_port: number;
  /** The kinds of work a worker process serves (CRUCIBLE_WORKER_QUEUES or `worker --queues`; default all): docs/deploy.md */
  worker_queues: WorkQueue[];
  /** How many activities of each task queue one worker process runs at once (CRUCIBLE_<QUEUE>_QUEUE_CONCURRENCY). */
  worker_concurrency: Record<WorkQueue, number>;
  /** threads of this process's compute pool (CRUCIBLE_COMPUTE_THREADS); null: one per core */
  compute_threads: number | null;
  host: string;
  port: number;
  public_url: string | null;
  log_level: string;
  sponsor_api_enabled: boolean;
  billing_enabled: boolean;
  master_key: Buffer | null;
  /** earlier master keys (SERVICE_MASTER_KEY_PREVIOUS): Temporal payloads written under them still decode (docs/deploy.md) */
  master_keys_previous: Buffer[];
  /** origins of the Temporal UI allowed to call the codec endpoint from a browser (CORS) */
  temporal_ui_origins: string[];
  /** quarantined sources' raw lines are purged by the maintenance workflow after this many days */
  quarantine_retention_days: number;
  session_secret: Buffer | null;
  session_lifetime_seconds: number;
  /** sign-in limits per email-and-address (backoff) and per client address (docs/decisions.md "Sign-in attempts") */
  sign_in_limits: SignInLimits;
  /** behind a reverse proxy: read the client address from X-Forwarded-For (only when the proxy sets it) */
  trust_proxy: boolean;
  /**
   * How many proxies in front append to X-Forwarded-For (CRUCIBLE_TRUSTED_PROXIES; 1 by default behind a proxy, 0 without
   * one): the client address is the entry that many places from the right, never a leftmost entry the client wrote.
   */
  trusted_proxies: number;
  /** a request whose headers and body have not all arrived in this time is answered 408 REQUEST_TIMEOUT */
  request_timeout_seconds: number;
  models: Record<HostedProvider, string | null>;
  provider_base_urls: Record<HostedProvider, string | null>;
  hosted_provider: AiProvider;
  hosted_api_key: string | null;
  ai_credits_per_1k_tokens: number;
  /** One model-call attempt's timeout; a model call's step also ends at its deadline (docs/ai-and-literature.md). */
  ai_call_timeout_seconds: number;
  europe_pmc_base_url: string;
  stripe_secret_key: string | null;
  stripe_webhook_secret: string | null;
  stripe_api_base: string | null;
  /** Payments run in the provider's live mode (real money) or test mode; prices and sessions must be of this mode. */
  stripe_live_mode: boolean;
  /** Where Checkout sends the browser back (configuration only: the caller supplies no redirect URL). */
  billing_return_url: string | null;
  /** Tests: the reconciliation timer fires this many seconds after checkout instead of at the session's expiry. */
  billing_reconcile_after_seconds: number | null;
  /** a world run that reaches this wall-clock time ends timed_out with the replications it completed */
  run_wall_clock_limit_seconds: number;
  /** spec: Limits — the AI preparation limit of a whole authoring session (a create may ask for less, never more) */
  authoring_ai_limits: { calls_max: number; tokens_max: number; ai_iterations_max: number; wall_seconds_max: number };
  /**
   * credits the first organization gets on the first start (0: none); default 500 on the embedded default, 0 with
   * DATABASE_URL unless set (docs/decisions.md "Welcome credits")
   */
  welcome_credits: number;
  /** an authoring session that waits this long for answers, revise or approve ends expired */
  authoring_wait_seconds_max: number;
  /** steps (drafts, answers, revisions) one authoring workflow run takes before it continues as new */
  authoring_steps_per_run_max: number;
  /**
   * how a world run is split into shards, read by the worker that plans the run (domain/simulation/shards.ts): a shard's
   * target seconds on one pool thread, a fixed number of replications per shard instead (null: by duration), and the
   * shards of one run running at once
   */
  run_shards: { seconds: number; replications: number | null; in_flight: number };
  /** how long an answers/revise/approve call waits for a worker to accept the step before it answers 503 */
  authoring_update_accept_seconds: number;
  /** how long an extraction request with a PDF waits for a worker to read it before it answers 503 */
  pdf_read_wait_seconds: number;
};

/** A PDF read stops at PDF_READ_SECONDS_MAX; the margin covers the worker taking it, the screening and the store. */
export const PDF_READ_WAIT_SECONDS_DEFAULT = PDF_READ_SECONDS_MAX + 30;

/**
 * The welcome grant of the embedded default: at the default price of 1 credit per 1,000 tokens it covers, even at their
 * upper-bound reservations, a review (307), three or four intake drafts of a few pages (about 25 to 40 each) and several
 * small runs (a few credits each) (docs/decisions.md "Welcome credits").
 */
export const WELCOME_CREDITS_DEFAULT = 500;

/** The task queue of the deployment's workers unless CRUCIBLE_TASK_QUEUE names another. */
export const DEFAULT_TASK_QUEUE = 'crucible';

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function bool(env: Env, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  problems.push(`${name} must be true or false (got "${raw}")`);
  return fallback;
}

/** A model call's attempt timeout: its default, least and most (domain/ai/attempts.ts). */
const AI_CALL_TIMEOUT_SECONDS = [AI_CALL_TIMEOUT_SECONDS_DEFAULT, AI_CALL_TIMEOUT_SECONDS_MIN, AI_CALL_TIMEOUT_SECONDS_MAX] as const;

function int(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return value;
}

function url(env: Env, name: string, problems: string[], protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  try {
    const parsed = new URL(raw);
    if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
    return raw.replace(/\/+$/, '');
  } catch {
    problems.push(`${name} must be a ${protocols.join(' or ')} URL`);
    return null;
  }
}

function key32(env: Env, name: string, problems: string[]): Buffer | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  const decoded = Buffer.from(raw, 'base64');
  if (decoded.length !== 32 || decoded.toString('base64').replace(/=+$/, '') !== raw.trim().replace(/=+$/, '')) {
    problems.push(`${name} must be 32 bytes encoded as base64 (generate one with: openssl rand -base64 32)`);
    return null;
  }
  return decoded;
}

/** A comma-separated list of 32-byte base64 keys (each checked like key32). */
function keyList(env: Env, name: string, problems: string[]): Buffer[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .flatMap((item, at) => key32({ [`${name}[${at}]`]: item }, `${name}[${at}]`, problems) ?? []);
}

/** A comma-separated list of web origins (scheme, host and port only, as a browser sends them in Origin). */
function origins(env: Env, name: string, fallback: string[], problems: string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const out: string[] = [];
  for (const item of raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    let origin: string | null = null;
    try {
      const parsed = new URL(item);
      if (['http:', 'https:'].includes(parsed.protocol) && parsed.origin === item.replace(/\/+$/, '')) origin = parsed.origin;
    } catch {
      // reported below
    }
    if (origin) out.push(origin);
    else problems.push(`${name} must list origins such as https://temporal-ui.example.org (scheme, host and port only; got "${item}")`);
  }
  return out;
}

function text(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

/** The hosted AI provider, its model per provider and its key: a named provider needs both (no model is guessed). */
function hostedAi(env: Env, problems: string[]) {
  const hosted = (env.CRUCIBLE_HOSTED_AI_PROVIDER ?? '').trim() || null;
  if (hosted !== null && !isAiProvider(hosted)) {
    problems.push(`CRUCIBLE_HOSTED_AI_PROVIDER must be one of ${ALL_AI_PROVIDERS.join(', ')} (got "${hosted}")`);
  }
  const models = perHostedProvider((provider) => text(env, providerModelEnv(provider)));
  const hostedProvider = (hosted ?? 'offline') as AiProvider;
  const hostedApiKey = text(env, 'CRUCIBLE_HOSTED_AI_API_KEY');
  if (hostedProvider !== 'offline' && !models[hostedProvider]) {
    problems.push(`CRUCIBLE_HOSTED_AI_PROVIDER is ${hostedProvider} but CRUCIBLE_${hostedProvider.toUpperCase()}_MODEL is not set; no model is guessed`);
  }
  if (hostedProvider !== 'offline' && !hostedApiKey) {
    problems.push(`CRUCIBLE_HOSTED_AI_PROVIDER is ${hostedProvider} but CRUCIBLE_HOSTED_AI_API_KEY is not set`);
  }
  return { models, hostedProvider, hostedApiKey };
}

function signInLimits(env: Env, problems: string[]): SignInLimits {
  const window_seconds = int(env, 'CRUCIBLE_SIGN_IN_WINDOW_SECONDS', 15 * 60, 1, 24 * 3600, problems);
  return {
    per_email_max: int(env, 'CRUCIBLE_SIGN_IN_ATTEMPTS_PER_EMAIL_MAX', 10, 1, 10_000, problems),
    per_address_max: int(env, 'CRUCIBLE_SIGN_IN_ATTEMPTS_PER_ADDRESS_MAX', 100, 1, 1_000_000, problems),
    window_seconds,
    backoff_base_seconds: int(env, 'CRUCIBLE_SIGN_IN_BACKOFF_BASE_SECONDS', 1, 1, 3600, problems),
    // the longest wait between two attempts of one email from one address: the window unless set
    backoff_max_seconds: int(env, 'CRUCIBLE_SIGN_IN_BACKOFF_MAX_SECONDS', window_seconds, 1, 24 * 3600, problems),
  };
}

/** Proxy hops that append to X-Forwarded-For: 1 behind a proxy unless set, 0 (the socket's address) without one. */
function trustedProxies(env: Env, problems: string[]): number {
  const raw = env.CRUCIBLE_TRUSTED_PROXIES;
  if (raw === undefined || raw === '') return bool(env, 'CRUCIBLE_TRUST_PROXY', false, []) ? 1 : 0;
  return int(env, 'CRUCIBLE_TRUSTED_PROXIES', 1, 1, 10, problems);
}

/** Checks between settings: an https public URL needs a trusted proxy; the log level is one pino knows. */
function crossCheck(config: Config, problems: string[]): void {
  if (config.public_url?.startsWith('https:') && !config.trust_proxy) {
    // The service listens on plain HTTP only: an https public URL means a TLS-terminating proxy in front, which must be
    // trusted to say the request came over HTTPS (X-Forwarded-Proto) before the Secure session cookie is sent.
    problems.push(
      'CRUCIBLE_PUBLIC_URL is https:// but CRUCIBLE_TRUST_PROXY is not true: the service listens on plain HTTP, so set CRUCIBLE_TRUST_PROXY=true behind a TLS-terminating proxy that sets X-Forwarded-Proto and X-Forwarded-For, or use an http:// CRUCIBLE_PUBLIC_URL',
    );
  }
  if (config.trusted_proxies > 0 && !config.trust_proxy) {
    problems.push(
      'CRUCIBLE_TRUSTED_PROXIES is set but CRUCIBLE_TRUST_PROXY is not true: set CRUCIBLE_TRUST_PROXY=true behind the proxies, or unset CRUCIBLE_TRUSTED_PROXIES',
    );
  }
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.log_level)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${config.log_level}")`);
  }
}

/**
 * A comma-separated list of task-queue kinds (`simulation,model,default`), each once; unset: all of them. Also reads
 * `crucible-server worker --queues` (named by `name`).
 */
export function workQueues(raw: string | undefined, name: string, problems: string[]): WorkQueue[] {
  if (raw === undefined || raw.trim() === '') return [...WORK_QUEUES];
  const items = raw.split(',').map((item) => item.trim());
  const unknown = items.filter((item) => !(WORK_QUEUES as readonly string[]).includes(item));
  if (unknown.length > 0 || new Set(items).size !== items.length) {
    problems.push(`${name} must list task queues from ${WORK_QUEUES.join(', ')}, each once, separated by commas (got "${raw}")`);
    return [...WORK_QUEUES];
  }
  return items as WorkQueue[];
}

/**
 * Activities one worker process runs at once per queue. Simulation: one per core by default (each run's replications
 * share the process's compute pool, so more only queue there while holding memory); model calls wait on a provider, so
 * more; the default queue's steps are short (Temporal's own default).
 */
function workerConcurrency(env: Env, problems: string[]): Record<WorkQueue, number> {
  return {
    default: int(env, 'CRUCIBLE_DEFAULT_QUEUE_CONCURRENCY', 100, 1, 10_000, problems),
    model: int(env, 'CRUCIBLE_MODEL_QUEUE_CONCURRENCY', 20, 1, 10_000, problems),
    simulation: int(env, 'CRUCIBLE_SIMULATION_QUEUE_CONCURRENCY', Math.max(2, availableParallelism()), 1, 1_000, problems),
  };
}

/** A PEM file named by a path variable, read at start; a bad path or content is a problem naming the variable. */
function pemFile(env: Env, name: string, problems: string[], check: (pem: Buffer) => void): Buffer | null {
  const path = text(env, name);
  if (path === null) return null;
  let pem: Buffer;
  try {
    pem = readFileSync(resolve(path));
  } catch (error) {
    problems.push(`${name} must be the path of a readable PEM file (${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return null;
  }
  try {
    check(pem);
    return pem;
  } catch (error) {
    problems.push(`${name} (${path}) ${(error as Error).message}`);
    return null;
  }
}

function certificate(pem: Buffer): X509Certificate {
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  const cert = new X509Certificate(pem);
  if (Date.parse(cert.validTo) < Date.now()) throw new Error(`holds a certificate that expired on ${cert.validTo}`);
  return cert;
}

/**
 * The connection to Temporal: TLS with a client certificate (mTLS) and its own CA and server name, and/or Temporal
 * Cloud's API key. A certificate without its key, a key that is not the certificate's, an unreadable or expired file, or
 * a credential with TLS switched off stops the start naming the variable.
 */
function temporalAuth(env: Env, problems: string[]): { tls: TLSConfig | null; api_key: string | null } {
  const api_key = text(env, 'TEMPORAL_API_KEY')?.trim() ?? null;
  if (api_key !== null && !/^[\x21-\x7e]+$/.test(api_key))
    problems.push('TEMPORAL_API_KEY must be the key as Temporal Cloud shows it (printable characters, no spaces)');
  const cert = pemFile(env, 'TEMPORAL_TLS_CERT', problems, certificate);
  const key = pemFile(env, 'TEMPORAL_TLS_KEY', problems, (pem) => {
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem.toString())) throw new Error('holds no PEM private key (-----BEGIN PRIVATE KEY-----)');
    createPrivateKey(pem);
  });
  const ca = pemFile(env, 'TEMPORAL_TLS_CA', problems, certificate);
  const server_name = text(env, 'TEMPORAL_TLS_SERVER_NAME')?.trim() ?? null;
  if (server_name !== null && !/^[A-Za-z0-9.-]+$/.test(server_name)) problems.push(`TEMPORAL_TLS_SERVER_NAME must be a host name (got "${server_name}")`);
  if (cert && key && !new X509Certificate(cert).checkPrivateKey(createPrivateKey(key)))
    problems.push("TEMPORAL_TLS_KEY is not the private key of TEMPORAL_TLS_CERT's certificate");
  if ((text(env, 'TEMPORAL_TLS_CERT') === null) !== (text(env, 'TEMPORAL_TLS_KEY') === null))
    problems.push('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (the client certificate and its private key): set both or neither');
  const named = ['TEMPORAL_API_KEY', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CA', 'TEMPORAL_TLS_SERVER_NAME'].filter(
    (name) => text(env, name) !== null,
  );
  const enabled = bool(env, 'TEMPORAL_TLS', named.length > 0, problems);
  if (!enabled) {
    if (named.length > 0)
      problems.push(`TEMPORAL_TLS is false but ${named.join(', ')} ${named.length > 1 ? 'are' : 'is'} set: these need TLS; unset TEMPORAL_TLS or set it true`);
    return { tls: null, api_key: null };
  }
  const tls: TLSConfig = {};
  if (cert && key) tls.clientCertPair = { crt: cert, key };
  if (ca) tls.serverRootCACertificate = ca;
  if (server_name) tls.serverNameOverride = server_name;
  return { tls, api_key };
}

/** What every connection to Temporal (client, worker) is opened with: TLS and the API key of the configuration. */
export function temporalConnectOptions(config: Pick<Config, 'temporal_tls' | 'temporal_api_key'>): { tls?: TLSConfig; apiKey?: string } {
  return { ...(config.temporal_tls ? { tls: config.temporal_tls } : {}), ...(config.temporal_api_key ? { apiKey: config.temporal_api_key } : {}) };
}

/** How the worker splits a world run into shards (domain/simulation/shards.ts). */
function runShards(env: Env, problems: string[]): Config['run_shards'] {
  return {
    seconds: int(env, 'CRUCIBLE_RUN_SHARD_SECONDS', RUN_SHARD_SECONDS_DEFAULT, 1, 600, problems),
    replications: env.CRUCIBLE_RUN_SHARD_REPLICATIONS ? int(env, 'CRUCIBLE_RUN_SHARD_REPLICATIONS', 1, 1, REPLICATIONS_MAX, problems) : null,
    in_flight: int(env, 'CRUCIBLE_RUN_SHARDS_IN_FLIGHT', RUN_SHARDS_IN_FLIGHT_DEFAULT, 1, 64, problems),
  };
}

/** An authoring session's limits on AI work (spec: Authoring sessions, limits). */
function authoringAiLimits(env: Env, problems: string[]): Config['authoring_ai_limits'] {
  return {
    calls_max: int(env, 'CRUCIBLE_AUTHORING_AI_CALLS_MAX', 20, 0, 10_000, problems),
    tokens_max: int(env, 'CRUCIBLE_AUTHORING_AI_TOKENS_MAX', 400_000, 0, 100_000_000, problems),
    ai_iterations_max: int(env, 'CRUCIBLE_AUTHORING_AI_ITERATIONS_MAX', 20, 0, 10_000, problems),
    wall_seconds_max: int(env, 'CRUCIBLE_AUTHORING_AI_WALL_SECONDS_MAX', 1_800, 0, 86_400, problems),
  };
}

/** Reads the environment. Throws ConfigError listing every bad value. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const databaseUrl = url(env, 'DATABASE_URL', problems, ['postgres:', 'postgresql:']);
  const port = int(env, 'PORT', 8080, 0, 65535, problems);
  const { models, hostedProvider, hostedApiKey } = hostedAi(env, problems);
  const temporal_ui_port = int(env, 'CRUCIBLE_TEMPORAL_UI_PORT', 8233, 0, 65535, problems);
  const temporal = temporalAuth(env, problems);
  const config: Config = {
    database_url: databaseUrl,
    data_dir: resolve(env.CRUCIBLE_DATA_DIR || '.data'),
    temporal_address: text(env, 'TEMPORAL_ADDRESS'),
    temporal_namespace: env.TEMPORAL_NAMESPACE || 'default',
    temporal_tls: temporal.tls,
    temporal_api_key: temporal.api_key,
    temporal_task_queue: env.CRUCIBLE_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    temporal_ui_port,
    worker_queues: workQueues(env.CRUCIBLE_WORKER_QUEUES, 'CRUCIBLE_WORKER_QUEUES', problems),
    worker_concurrency: workerConcurrency(env, problems),
    compute_threads: env.CRUCIBLE_COMPUTE_THREADS ? int(env, 'CRUCIBLE_COMPUTE_THREADS', 1, 1, POOL_THREADS_MAX, problems) : null,
    host: env.HOST || '127.0.0.1',
    port,
    public_url: url(env, 'CRUCIBLE_PUBLIC_URL', problems, ['http:', 'https:']),
    log_level: env.LOG_LEVEL || 'info',
    sponsor_api_enabled: bool(env, 'SERVICE_SPONSOR_API_ENABLED', false, problems),
    billing_enabled: bool(env, 'SERVICE_BILLING_ENABLED', false, problems),
    master_key: key32(env, 'SERVICE_MASTER_KEY', problems),
    master_keys_previous: keyList(env, 'SERVICE_MASTER_KEY_PREVIOUS', problems),
    // The dev server's UI under both loopback names: its own links say localhost, `start` prints 127.0.0.1.
    temporal_ui_origins: origins(
      env,
      'CRUCIBLE_TEMPORAL_UI_ORIGIN',
      [`http://localhost:${temporal_ui_port}`, `http://127.0.0.1:${temporal_ui_port}`],
      problems,
    ),
    quarantine_retention_days: int(env, 'CRUCIBLE_QUARANTINE_RETENTION_DAYS', 30, 1, 3650, problems),
    session_secret: key32(env, 'CRUCIBLE_SESSION_SECRET', problems),
    session_lifetime_seconds: int(env, 'CRUCIBLE_SESSION_LIFETIME_SECONDS', 4 * 3600, 60, 24 * 3600, problems),
    sign_in_limits: signInLimits(env, problems),
    trust_proxy: bool(env, 'CRUCIBLE_TRUST_PROXY', false, problems),
    trusted_proxies: trustedProxies(env, problems),
    request_timeout_seconds: int(env, 'CRUCIBLE_REQUEST_TIMEOUT_SECONDS', 120, 1, 3600, problems),
    models,
    provider_base_urls: perHostedProvider((provider) => url(env, providerBaseUrlEnv(provider), problems, ['http:', 'https:'])),
    hosted_provider: hostedProvider,
    hosted_api_key: hostedApiKey,
    ai_credits_per_1k_tokens: int(env, 'CRUCIBLE_AI_CREDITS_PER_1K_TOKENS', 1, 0, 1_000_000, problems),
    ai_call_timeout_seconds: int(env, 'CRUCIBLE_AI_CALL_TIMEOUT_SECONDS', ...AI_CALL_TIMEOUT_SECONDS, problems),
    europe_pmc_base_url: url(env, 'CRUCIBLE_EUROPE_PMC_BASE_URL', problems, ['http:', 'https:']) ?? 'https://www.ebi.ac.uk/europepmc/webservices/rest',
    stripe_secret_key: text(env, 'STRIPE_SECRET_KEY'),
    stripe_webhook_secret: text(env, 'STRIPE_WEBHOOK_SECRET'),
    stripe_api_base: url(env, 'CRUCIBLE_STRIPE_API_BASE', problems, ['http:', 'https:']),
    stripe_live_mode: bool(env, 'STRIPE_LIVE_MODE', (env.STRIPE_SECRET_KEY ?? '').startsWith('sk_live_'), problems),
    billing_return_url: url(env, 'CRUCIBLE_BILLING_RETURN_URL', problems, ['http:', 'https:']),
    billing_reconcile_after_seconds: env.CRUCIBLE_BILLING_RECONCILE_AFTER_SECONDS
      ? int(env, 'CRUCIBLE_BILLING_RECONCILE_AFTER_SECONDS', 3600, 1, 3600, problems)
      : null,
    run_wall_clock_limit_seconds: int(env, 'CRUCIBLE_RUN_WALL_CLOCK_LIMIT_SECONDS', 600, 1, 86_400, problems),
    authoring_ai_limits: authoringAiLimits(env, problems),
    welcome_credits: int(env, 'CRUCIBLE_WELCOME_CREDITS', databaseUrl ? 0 : WELCOME_CREDITS_DEFAULT, 0, CREDITS_MAX, problems),
    authoring_wait_seconds_max: int(env, 'CRUCIBLE_AUTHORING_WAIT_SECONDS_MAX', 7 * 24 * 3600, 1, 90 * 24 * 3600, problems),
    authoring_steps_per_run_max: int(env, 'CRUCIBLE_AUTHORING_STEPS_PER_RUN_MAX', 25, 1, 1_000, problems),
    run_shards: runShards(env, problems),
    authoring_update_accept_seconds: int(env, 'CRUCIBLE_AUTHORING_UPDATE_ACCEPT_SECONDS', 20, 1, 100, problems),
    pdf_read_wait_seconds: int(env, 'CRUCIBLE_PDF_READ_WAIT_SECONDS', PDF_READ_WAIT_SECONDS_DEFAULT, 1, 600, problems),
  };
  crossCheck(config, problems);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}

/**
 * The embedded default keeps its generated secrets in the data directory (mode 0600) and says so.
 * With DATABASE_URL set (several api/worker processes), the secrets must come from the environment.
 */
export function ensureLocalSecrets(config: Config, say: (line: string) => void = () => {}): Config {
  const missing = (['master_key', 'session_secret'] as const).filter((name) => config[name] === null);
  if (missing.length === 0) return config;
  if (config.database_url) {
    throw new ConfigError(
      `Invalid configuration:\n  - with DATABASE_URL set, ${missing.map((m) => (m === 'master_key' ? 'SERVICE_MASTER_KEY' : 'CRUCIBLE_SESSION_SECRET')).join(' and ')} must be set (32 bytes, base64) so every process shares them`,
    );
  }
  mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
  const next = { ...config };
  for (const name of missing) {
    const file = resolve(config.data_dir, name === 'master_key' ? 'master.key' : 'session.key');
    if (!existsSync(file)) {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
      say(`generated ${name === 'master_key' ? 'SERVICE_MASTER_KEY' : 'CRUCIBLE_SESSION_SECRET'} in ${file} (mode 0600); keep it outside the database`);
    }
    next[name] = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
  return next;
}

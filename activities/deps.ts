import type { Logger } from 'pino';
import type { AiProvider, HostedAiProvider } from '../domain/ai/providers.ts';
import type { JobTemporal } from '../integrations/temporal/jobs.ts';
import type { Db } from '../store/db.ts';

/**
 * The configuration values activities read, passed in by the worker (runtime/worker.ts: activityDeps) so activities never
 * import runtime/config.
 */
export type ActivityConfig = {
  models: Record<HostedAiProvider, string | null>;
  provider_base_urls: Record<HostedAiProvider, string | null>;
  hosted_provider: AiProvider;
  hosted_api_key: string | null;
  master_key: Buffer | null;
  /** earlier master keys (SERVICE_MASTER_KEY_PREVIOUS): what was sealed under them still opens */
  master_keys_previous: readonly Buffer[];
  ai_credits_per_1k_tokens: number;
  /** One model-call attempt's timeout (CRUCIBLE_AI_CALL_TIMEOUT_SECONDS). */
  ai_call_timeout_seconds: number;
  europe_pmc_base_url: string;
  stripe_secret_key: string | null;
  stripe_api_base: string | null;
  stripe_webhook_secret: string | null;
  billing_reconcile_after_seconds: number | null;
  authoring_steps_per_run_max: number;
  /** how a world run is split into shards (CRUCIBLE_RUN_SHARD_SECONDS, CRUCIBLE_RUN_SHARD_REPLICATIONS, CRUCIBLE_RUN_SHARDS_IN_FLIGHT) */
  run_shards: { seconds: number; replications: number | null; in_flight: number };
  /** quarantined sources' sealed lines are purged after this many days */
  quarantine_retention_days: number;
};

/** What activities need: they touch the world only through these. */
export type ActivityDeps = {
  config: ActivityConfig;
  db: Db;
  logger: Logger;
  /** Where the maintenance reconcilers start jobs: the service's client and this worker's task queue. */
  jobs: JobTemporal | null;
};

/**
 * An activity written as a function of the deps and its one input, bound to the deps: the shape the worker registers
 * and workflows proxy by name (the factories in this folder only assemble these).
 */
export function withDeps<I, O>(deps: ActivityDeps, activity: (deps: ActivityDeps, input: I) => Promise<O>): (input: I) => Promise<O> {
  return (input) => activity(deps, input);
}

// The one activity through which every AI call is made: it chooses the provider (the
// organization's own key or the deployment's hosted provider), decrypts a stored key here and only here (spec: Provider
// key), calls the gateway, and records the call in ai_usage once per activity execution. It does not touch the ledger:
// the calling workflow adds `credits_charged` to its meter (workflows/credits.ts).
import { Context, type Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Value } from 'typebox/value';
import { AI_CALL_FAILURE_TYPES, AiCallInput, type AiCallResult } from '../domain/ai/call.ts';
import type { AiCallProvider, ByokProvider } from '../domain/ai/keys.ts';
import { type AttemptClock, attemptTimeoutMs, lastAttemptBecause, lastAttemptWords } from '../domain/ai/attempts.ts';
import { aiCallCredits, chargeWithinLimit } from '../domain/ai/pricing.ts';
import { aiProviderName } from '../domain/ai/providers.ts';
import { aiSchema, offlineTask } from '../domain/ai/registry.ts';
import { providerKeyMissing, providerNotConfigured } from '../store/providerKeys/availability.ts';
import { ProviderKeyDecryptionError } from '../store/providerKeys/crypto.ts';
import { openLiveProviderKey } from '../store/providerKeys/keys.ts';
import { recordAiUsage } from '../store/providerKeys/usage.ts';
import { redactKey } from '../integrations/ai/common.ts';
import { callStructured, OFFLINE_MODEL_LABEL } from '../integrations/ai/gateway.ts';
import { type ActivityDeps, withDeps } from './deps.ts';

function fail(type: string, message: string, details: Record<string, unknown> = {}): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true, details: [details] });
}

type Route = { provider: AiCallProvider; model: string; byok: boolean; key_id: string | null; api_key: string | undefined };

/** How often callModel heartbeats while a provider call is in flight. */
export const AI_CALL_HEARTBEAT_INTERVAL_MS = 2_000;

/** The activity execution that makes the call: a retry of it has the same three ids. */
function currentCall(): { workflow_id: string; run_id: string; activity_id: string } {
  let info: ReturnType<typeof Context.current>['info'];
  try {
    info = Context.current().info;
  } catch {
    fail(AI_CALL_FAILURE_TYPES.bad_input, 'callModel runs only as a Temporal activity: its usage row is keyed by the activity execution');
  }
  const { workflowId, runId } = info.workflowExecution ?? { workflowId: '', runId: '' };
  return { workflow_id: workflowId ?? '', run_id: runId ?? '', activity_id: info.activityId };
}

/** The provider of a call with the organization's own key (spec: Provider key): decrypted here, and only here. */
async function byokRoute({ config, db }: ActivityDeps, org_id: string, provider: ByokProvider): Promise<Route> {
  const model = config.models[provider];
  // spec: Provider keys endpoints — no model is guessed; fail before any call.
  if (!model) {
    const error = providerNotConfigured(provider, true);
    fail(AI_CALL_FAILURE_TYPES.provider_not_configured, error.message, { provider });
  }
  let opened: { key_id: string; api_key: string } | undefined;
  try {
    opened = await openLiveProviderKey(db, config.master_key, org_id, provider, config.master_keys_previous);
  } catch (error) {
    if (error instanceof ProviderKeyDecryptionError) fail(AI_CALL_FAILURE_TYPES.key_undecryptable, error.message, { provider });
    throw error;
  }
  if (!opened) fail(AI_CALL_FAILURE_TYPES.key_missing, providerKeyMissing(provider, org_id).message, { provider });
  return { provider, model, byok: true, key_id: opened.key_id, api_key: opened.api_key };
}

/** The provider of a call: the organization's own key when the input names one, else the deployment's hosted provider. */
async function route(deps: ActivityDeps, input: AiCallInput): Promise<Route> {
  if (input.byok_provider) return byokRoute(deps, input.org_id, input.byok_provider);
  const { config } = deps;
  const provider = config.hosted_provider;
  if (provider === 'offline') return { provider, model: OFFLINE_MODEL_LABEL, byok: false, key_id: null, api_key: undefined };
  const model = config.models[provider];
  if (!model || !config.hosted_api_key) {
    fail(AI_CALL_FAILURE_TYPES.provider_not_configured, providerNotConfigured(provider, false).message, { provider });
  }
  return { provider, model, byok: false, key_id: null, api_key: config.hosted_api_key };
}

type Schema = NonNullable<ReturnType<typeof aiSchema>>;
type Heuristic = ReturnType<typeof offlineTask>;
type Answer = Awaited<ReturnType<typeof callStructured>>;

/** The input checked against its contract, and the registered schema the answer must match. */
function checkedSchema(input: AiCallInput): Schema {
  if (!Value.Check(AiCallInput, input)) {
    const first = [...Value.Errors(AiCallInput, input)][0];
    fail(AI_CALL_FAILURE_TYPES.bad_input, `callModel input is invalid: ${first?.instancePath || '/'} ${first?.message ?? ''}`.trim());
  }
  const schema = aiSchema(input.schema_name);
  if (!schema) fail(AI_CALL_FAILURE_TYPES.bad_input, `no AI schema is registered as "${input.schema_name}"; register it with registerAiSchema`);
  return schema;
}

/** The offline provider answers by the task's registered heuristic; undefined for a real provider. */
function offlineHeuristic(chosen: Route, input: AiCallInput): Heuristic {
  if (chosen.provider !== 'offline') return undefined;
  const heuristic = offlineTask(input.task);
  if (!heuristic) {
    fail(AI_CALL_FAILURE_TYPES.bad_input, `no offline heuristic is registered for task "${input.task}"; register it with registerOfflineTask`, {
      provider: 'offline',
    });
  }
  return heuristic;
}

/** What Temporal says of this attempt and its step, for the attempt's timeout and the question whether it is the last. */
function attemptClock(info: Info, started_ms: number): AttemptClock {
  const policy = info.retryPolicy;
  const ms = (duration: unknown): number | undefined => (typeof duration === 'number' ? duration : undefined); // the worker gives ms
  return {
    attempt: info.attempt,
    maximum_attempts: policy?.maximumAttempts || null,
    initial_interval_ms: ms(policy?.initialInterval) ?? 1_000,
    backoff_coefficient: policy?.backoffCoefficient ?? 2,
    maximum_interval_ms: ms(policy?.maximumInterval) ?? null,
    scheduled_ms: info.scheduledTimestampMs,
    schedule_to_close_ms: info.scheduleToCloseTimeoutMs || null,
    start_to_close_ms: info.startToCloseTimeoutMs || null,
    started_ms,
  };
}

/**
 * A failure another attempt might fix, on the attempt that is the last (attempts spent, or no time left before the
 * step's deadline): recorded as final, in words that say what happened and what to do, never as one to be retried.
 */
function lastAttemptFailure(failure: ApplicationFailure, clock: AttemptClock, logger: ActivityDeps['logger']): ApplicationFailure {
  const retry_after_ms = typeof failure.nextRetryDelay === 'number' ? failure.nextRetryDelay : undefined;
  const because = failure.nonRetryable ? null : lastAttemptBecause(clock, Date.now(), retry_after_ms);
  if (because === null) return failure;
  logger.warn({ type: failure.type, attempts: clock.attempt, because }, 'ai call gave up: no attempt was answered');
  return ApplicationFailure.create({
    type: failure.type ?? AI_CALL_FAILURE_TYPES.call_failed,
    message: lastAttemptWords({ last: failure.message, attempts: clock.attempt, because, schedule_to_close_ms: clock.schedule_to_close_ms }),
    nonRetryable: true,
    details: failure.details ? [...failure.details] : [],
  });
}

/** The provider's answer, heartbeating while it is in flight; a failure reaches history typed, in words and without the key. */
async function callProvider({ config, logger }: ActivityDeps, input: AiCallInput, chosen: Route, schema: Schema, heuristic: Heuristic): Promise<Answer> {
  // Heartbeats while the provider answers: a workflow that sets a heartbeat timeout notices a dead worker early.
  const context = Context.current();
  const clock = attemptClock(context.info, Date.now());
  const beating = setInterval(() => context.heartbeat(), AI_CALL_HEARTBEAT_INTERVAL_MS);
  try {
    return await callStructured({
      provider: chosen.provider,
      model: chosen.model,
      api_key: chosen.api_key,
      base_url: chosen.provider === 'offline' ? undefined : (config.provider_base_urls[chosen.provider] ?? undefined),
      system: input.system,
      prompt: input.prompt,
      schema,
      schema_name: input.schema_name,
      offline: heuristic ? () => heuristic(input.offline_input) : undefined,
      max_output_tokens: input.max_output_tokens,
      tools: input.tools,
      timeout_ms: attemptTimeoutMs(config.ai_call_timeout_seconds * 1000, clock),
      abort_signal: context.cancellationSignal,
    });
  } catch (error) {
    // The gateway's failures are already typed, key-free and in words; anything else is redacted before history.
    if (error instanceof ApplicationFailure) throw lastAttemptFailure(error, clock, logger);
    const message = error instanceof Error ? error.message : String(error);
    const failure = ApplicationFailure.create({
      type: AI_CALL_FAILURE_TYPES.call_failed,
      message: `The call to ${aiProviderName(chosen.provider)} failed: ${redactKey(message, chosen.api_key).slice(0, 300)}`,
      nonRetryable: false,
      details: [{ provider: chosen.provider }],
    });
    throw lastAttemptFailure(failure, clock, logger);
  } finally {
    clearInterval(beating);
  }
}

/**
 * Records the call in ai_usage once per activity execution, with its credits (0 for BYOK). A retried execution gets the
 * first recorded figures back, so the workflow's meter counts the call once.
 */
async function meter(
  { config, db, logger }: ActivityDeps,
  input: AiCallInput,
  chosen: Route,
  answer: Answer,
  call: ReturnType<typeof currentCall>,
): Promise<AiCallResult> {
  const price = aiCallCredits({
    byok: chosen.byok,
    input_tokens: answer.usage.input_tokens,
    output_tokens: answer.usage.output_tokens,
    credits_per_1k_tokens: config.ai_credits_per_1k_tokens,
  });
  // A provider that bills more than the job reserved keeps its answer: the call is charged what is left of the
  // reservation and the rest is absorbed, on the usage row as in the ledger.
  const { credits_charged, credits_absorbed } = chargeWithinLimit(price, input.credits_limit);
  if (credits_absorbed > 0) {
    logger.warn({ org_id: input.org_id, provider: chosen.provider, task: input.task, credits_absorbed }, 'ai call billed beyond its reservation');
  }
  const { usage, recorded_now } = await recordAiUsage(db, {
    org_id: input.org_id,
    provider: chosen.provider,
    model: chosen.model,
    byok: chosen.byok,
    key_id: chosen.key_id,
    input_tokens: answer.usage.input_tokens,
    output_tokens: answer.usage.output_tokens,
    duration_ms: answer.duration_ms,
    subject: input.subject,
    task: input.task,
    credits_charged,
    credits_absorbed,
    call,
  });
  logger.info(
    { usage_id: usage.id, org_id: input.org_id, provider: usage.provider, model: usage.model, byok: usage.byok, task: input.task, recorded_now },
    'ai call metered',
  );
  return {
    object: answer.object,
    usage_id: usage.id,
    provider: usage.provider,
    model: usage.model,
    byok: usage.byok,
    heuristic: answer.heuristic,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    duration_ms: usage.duration_ms,
    credits_charged: usage.credits_charged,
    credits_absorbed: usage.credits_absorbed,
  };
}

/** One structured-output call, metered. Returns the checked object, token usage and credits_charged (0 for BYOK). */
async function callModel(deps: ActivityDeps, input: AiCallInput): Promise<AiCallResult> {
  const schema = checkedSchema(input);
  const call = currentCall();
  const chosen = await route(deps, input);
  const heuristic = offlineHeuristic(chosen, input);
  const answer = await callProvider(deps, input, chosen, schema, heuristic);
  return meter(deps, input, chosen, answer, call);
}

export function aiActivities(deps: ActivityDeps) {
  return {
    callModel: withDeps(deps, callModel),
  };
}

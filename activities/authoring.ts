// Authoring session activities (spec: Authoring sessions (beta)): load what a session starts from, validate and smoke-run a
// candidate world and store the checkpoint (GET reads it), approve into a world revision, end a session. Each is safe to
// retry: a checkpoint is stored once per number, and approving a session that already has its revision returns it.
import type { JobFailure } from '../domain/contracts/jobFailure.ts';
import { ApplicationFailure } from '@temporalio/common';
import type { AuthoringStart } from '../domain/authoring/session.ts';
import { JOB_CREDITS, meteredTransferIds } from '../domain/jobs.ts';
import { ServiceError } from '../domain/errors.ts';
import { type AiUsage, aiNextSteps, type Checkpoint, checkpointWorld, diffCheckpoints, NEXT_STEPS_MAX, ruleNextSteps } from '../domain/authoring/checkpoint.ts';
import { type AuthoringDraft, assembleWorld, type Question, queueTemplate, type Slot, type SlotValue, startingTemplate } from '../domain/authoring/draft.ts';
import type { IntakeSpec } from '../domain/contracts/intakeSpec.ts';
import type { WorldSpec } from '../domain/contracts/worldSpec.ts';
import { modelCheck, runSequential, summarize, validateWorld } from '../domain/simulation/index.ts';
import { latestCheckpoint, markApproved, type SessionStatus, findSession, setSessionStatus, writeCheckpoint } from '../store/authoring/sessions.ts';
import { findTransfer, transferIdFor } from '../store/credits/ledger.ts';
import { voidUnusedJobCredits } from '../store/jobs.ts';
import { createWorldRevision } from '../store/worlds/worlds.ts';
import { type ActivityDeps, withDeps } from './deps.ts';
import '../domain/authoring/register.ts';
import '../domain/simulation/register.ts';

/** Replications of each variant in the smoke run (a check that the world runs, not a result). */
export const SMOKE_REPLICATIONS_MAX = 2;
/** The smoke run's horizon is at most this many world time units past the warm-up. */
export const SMOKE_HORIZON_PAST_WARM_UP_MAX = 7 * 24 * 60;

export type { AuthoringStart };

export type CheckpointInput = {
  session_id: string;
  number: number;
  reason: Checkpoint['reason'];
  /** the step was a revise with instructions: a checkpoint it left unchanged says so */
  revise_instructions?: boolean;
  intake: IntakeSpec | null;
  template: WorldSpec;
  slots: Slot[];
  filled: Record<string, SlotValue>;
  questions: Question[];
  draft: AuthoringDraft | null;
  ai: Checkpoint['ai'];
};

function missing(session_id: string): never {
  throw new ServiceError('NOT_FOUND', `authoring session ${session_id} does not exist`);
}

/** What the session starts from: its intake revision (or none), and the template with its slots. */
async function loadAuthoringSession({ config, db }: ActivityDeps, input: { session_id: string }): Promise<AuthoringStart> {
  const session = (await findSession(db, input.session_id)) ?? missing(input.session_id);
  let intake: IntakeSpec | null = null;
  if (session.intake_revision_id) {
    const found = await db.one<{ spec: unknown }>('select spec from intake_revisions where id = ?', [session.intake_revision_id]);
    if (found) intake = (typeof found.spec === 'string' ? JSON.parse(found.spec) : found.spec) as IntakeSpec;
  }
  const base = session.starting_world ? startingTemplate(session.starting_world) : { ...queueTemplate(intake), filled: {} };
  const reserved = await findTransfer(db, transferIdFor(meteredTransferIds(JOB_CREDITS.authoring.transfer_base(session.id)).reserve));
  return {
    session_id: session.id,
    org_id: session.org_id,
    project_id: session.project_id,
    byok_provider: session.byok_provider,
    offline: session.byok_provider === null && config.hosted_provider === 'offline',
    created_by: session.created_by,
    ai_limits: session.ai_limits,
    wait_seconds_max: session.wait_seconds_max,
    steps_per_run_max: config.authoring_steps_per_run_max,
    credits_per_1k_tokens: config.ai_credits_per_1k_tokens,
    first_step_credits_reserved: reserved?.kind === 'reservation' ? reserved.credits : null,
    intake,
    template: base.world,
    slots: base.slots,
    filled: base.filled,
  };
}

type Validation = ReturnType<typeof validateWorld>;

/**
 * The smoke run of a valid world (the simulation engine in-process: few replications, a short horizon); a failure is
 * added to the validation's problems.
 */
function smokeRun(world: WorldSpec, validation: Validation): { smoke: ReturnType<typeof summarize> | null; smoke_run: Checkpoint['smoke_run'] } {
  if (!validation.valid) return { smoke: null, smoke_run: null };
  const horizon = Math.min(world.horizon, world.warm_up + SMOKE_HORIZON_PAST_WARM_UP_MAX);
  // Custom windows may fall past the shortened horizon: the smoke run measures warm-up to its own horizon.
  const measured = world.measured.map(({ window: _window, ...measure }) => measure) as WorldSpec['measured'];
  const smokeWorld: WorldSpec = { ...world, horizon, replications: Math.min(world.replications, SMOKE_REPLICATIONS_MAX), measured };
  try {
    const smoke = summarize(smokeWorld, runSequential(smokeWorld));
    const metrics = smoke.map((row) => ({ measure_id: row.measure_id, variant_id: row.variant_id, n: row.n, mean: row.mean }));
    return { smoke, smoke_run: { replications: smokeWorld.replications, horizon, metrics } };
  } catch (error) {
    validation.problems.push({ pointer: '', message: `the smoke run failed: ${(error as Error).message}` });
    return { smoke: null, smoke_run: null };
  }
}

/**
 * Assembles the candidate world, validates it, smoke-runs a valid one, runs the rule checks, diffs against the previous
 * checkpoint and stores it.
 */
async function writeAuthoringCheckpoint({ db, logger }: ActivityDeps, input: CheckpointInput): Promise<{ valid: boolean; checkpoint: number }> {
  const world = assembleWorld(input.template, input.slots, input.filled);
  const validation = validateWorld(world);
  const { smoke, smoke_run } = smokeRun(world, validation);
  // The model check of a valid world: while a warning stands the session does not call the model complete.
  const warnings = validation.problems.length === 0 ? modelCheck(world) : [];
  const previous = await latestCheckpoint(db, input.session_id);
  const next_steps = [
    ...ruleNextSteps({ world, problems: validation.problems, warnings, questions: input.questions, filled: input.filled, intake: input.intake, smoke }),
    ...aiNextSteps(input.draft),
  ].slice(0, NEXT_STEPS_MAX);
  const body: Omit<Checkpoint, 'changes_since_previous'> = {
    number: input.number,
    reason: input.reason,
    world: checkpointWorld({ world, slots: input.slots, filled: input.filled, smoke }),
    validation: { valid: validation.problems.length === 0, problems: validation.problems },
    model_check: warnings,
    smoke_run,
    questions: input.questions,
    next_steps,
    ai: input.ai,
  };
  const changes_since_previous = diffCheckpoints(previous && previous.number < input.number ? previous : null, body);
  if (input.revise_instructions && changes_since_previous.length === 0) {
    // Revise is honest: a model iteration that changed nothing says so instead of looking like progress.
    body.next_steps.unshift({
      kind: 'revision_changed_nothing',
      source: 'rule',
      message:
        'The revision with your instructions changed nothing: the model proposed no value with a source this session can check. Set values with a reference, or answer the open questions.',
    });
  }
  const checkpoint: Checkpoint = { ...body, changes_since_previous };
  const status: SessionStatus = 'waiting';
  await db.transaction((tx) => writeCheckpoint(tx, { session_id: input.session_id, checkpoint, status }));
  logger.info(
    { session_id: input.session_id, checkpoint: input.number, valid: checkpoint.validation.valid, questions: input.questions.length },
    'authoring checkpoint stored',
  );
  return { valid: checkpoint.validation.valid, checkpoint: input.number };
}

/** Saves the latest checkpoint's world as a world revision exactly as POST /v1/projects/{project_id}/worlds does. */
async function approveAuthoringSession({ db }: ActivityDeps, input: { session_id: string; approved_by: string }): Promise<{ world_revision_id: string }> {
  return db.transaction(async (tx) => {
    const session =
      (await tx.one<{ world_revision_id: string | null; project_id: string }>(
        'select world_revision_id, project_id from authoring_sessions where id = ? for update',
        [input.session_id],
      )) ?? missing(input.session_id);
    if (session.world_revision_id) return { world_revision_id: session.world_revision_id };
    const checkpoint = await latestCheckpoint(tx, input.session_id);
    if (!checkpoint) throw ApplicationFailure.create({ type: 'CONFLICT', message: 'the session has no checkpoint to approve', nonRetryable: true });
    const world = checkpoint.world.spec;
    const result = validateWorld(world);
    if (!result.valid)
      throw ApplicationFailure.create({
        type: 'VALIDATION_FAILED',
        message: `the checkpoint's world is invalid: ${result.problems[0]?.message}`,
        nonRetryable: true,
      });
    const revision = await createWorldRevision(tx, { project_id: session.project_id, world, created_by: input.approved_by });
    await markApproved(tx, input.session_id, revision.world_revision_id);
    await voidUnusedJobCredits(tx, 'authoring', input.session_id);
    return { world_revision_id: revision.world_revision_id };
  });
}

async function markAuthoringDrafting({ db }: ActivityDeps, input: { session_id: string }): Promise<void> {
  await db.transaction((tx) => setSessionStatus(tx, input.session_id, 'drafting'));
}

async function endAuthoringSession(
  { db }: ActivityDeps,
  input: {
    session_id: string;
    status: 'expired' | 'failed';
    failure: JobFailure | null;
    /** `error`: the same value under its name before this release, from a step scheduled by it. */
    error?: JobFailure | null;
  },
): Promise<void> {
  // A first step's reservation the session never used (it ended before that AI step) is voided with the end.
  await db.transaction(async (tx) => {
    await setSessionStatus(tx, input.session_id, input.status, input.failure ?? input.error ?? null);
    await voidUnusedJobCredits(tx, 'authoring', input.session_id);
  });
}

export function authoringActivities(deps: ActivityDeps) {
  return {
    loadAuthoringSession: withDeps(deps, loadAuthoringSession),
    markAuthoringDrafting: withDeps(deps, markAuthoringDrafting),
    writeAuthoringCheckpoint: withDeps(deps, writeAuthoringCheckpoint),
    approveAuthoringSession: withDeps(deps, approveAuthoringSession),
    endAuthoringSession: withDeps(deps, endAuthoringSession),
  };
}

export type { AiUsage };

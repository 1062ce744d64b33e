// Intake drafting activities: move the draft row through its states and read the processed sources for the prompt
//. Each is safe to retry: state changes only apply from the states they leave.
import { ApplicationFailure } from '@temporalio/common';
import type { IntakeSpec } from '../domain/contracts/intakeSpec.ts';
import { checkCitations, citationLookupFrom, relocateCitations } from '../domain/intake/citations.ts';
import { keepStatedNumbers } from '../domain/intake/statedNumbers.ts';
import { INTAKE_DRAFT_PROMPT, type DraftSource } from '../domain/prompts/intakeDraft.ts';
import type { JobFailure } from '../domain/contracts/jobFailure.ts';
import { type DraftStatus, type DraftUsage, markDraftEnded, markDraftStarted, markDraftSucceeded } from '../store/intake/drafts.ts';
import { citedSources, processedSourceLines } from '../store/intake/sources.ts';
import { citedSourceIds } from '../domain/contracts/intakeSpec.ts';
import { invariant } from '../domain/errors.ts';
import { notFound } from '../store/db.ts';
import type { ActivityDeps } from './deps.ts';

export type { DraftUsage };
// The worker process needs the IntakeSpec AI schema and the offline drafter registered before callModel runs.
import '../domain/intake/register.ts';
import type { HostedAiProvider } from '../domain/ai/providers.ts';

export type IntakeDraftJob = {
  draft_id: string;
  status: DraftStatus;
  org_id: string;
  project_id: string;
  byok_provider: HostedAiProvider | null;
  credits_max: number;
  created_by: string;
};

/** Failure types these activities throw (non-retryable: a retry cannot fix them). */
export const INTAKE_FAILURE_TYPES = { no_sources: 'IntakeSourcesUnavailable' } as const;

/** A draft row's source ids (jsonb: an array, or its text on a driver that returns text). */
function idList(source_ids: unknown): string[] {
  return (typeof source_ids === 'string' ? JSON.parse(source_ids) : source_ids) as string[];
}

/** The draft's processed sources of its project; none left is a non-retryable failure. */
async function draftSources(db: ActivityDeps['db'], draft_id: string): Promise<DraftSource[]> {
  const draft = await db.one<{ org_id: string; project_id: string; source_ids: unknown }>(
    'select org_id, project_id, source_ids from intake_drafts where id = ?',
    [draft_id],
  );
  if (!draft) throw notFound(`Intake draft ${draft_id}`);
  const sources = (await processedSourceLines(db, draft.org_id, idList(draft.source_ids))).filter((source) => source.project_id === draft.project_id);
  for (const source of sources) {
    invariant(source.status === 'processed', `source ${source.id} sent to a provider is processed`);
  }
  if (sources.length === 0) {
    throw ApplicationFailure.create({
      type: INTAKE_FAILURE_TYPES.no_sources,
      message: 'none of the requested sources is a processed source of this project any more',
      nonRetryable: true,
    });
  }
  return sources.map((source) => ({ id: source.id, name: source.name, status: source.status, lines: source.lines }));
}

type CompletedDraft = { draft_id: string; spec: IntakeSpec; usage: DraftUsage; heuristic: boolean };

/**
 * The drafted document with each citation where the service finds its quote in the draft's processed sources, checked
 * against the project's sources, its numbers stated by their quotes, labelled, stored; the draft marked succeeded.
 */
async function completeDraft({ db, logger }: ActivityDeps, input: CompletedDraft): Promise<{ citations_dropped: number }> {
  return db.transaction(async (tx) => {
    const draft = await tx.one<{ org_id: string; project_id: string; source_ids: unknown }>(
      'select org_id, project_id, source_ids from intake_drafts where id = ?',
      [input.draft_id],
    );
    if (!draft) throw notFound(`Intake draft ${input.draft_id}`);
    // spec: IntakeSpec (citations) — each citation is where the service finds its quote in the draft's processed sources
    const drafted = (await processedSourceLines(tx, draft.org_id, idList(draft.source_ids))).filter((source) => source.project_id === draft.project_id);
    const relocated = relocateCitations(input.spec, drafted);
    for (const { path, from, to } of relocated.moved) logger.debug({ draft_id: input.draft_id, path, from, to }, 'intake draft citation relocated');
    const cited = await citedSources(tx, { org_id: draft.org_id, project_id: draft.project_id, ids: citedSourceIds(relocated.spec) });
    const check = checkCitations(relocated.spec, citationLookupFrom([...cited].map(([id, source]) => ({ id, ...source }))));
    // Numbers must be stated by their quotes, for a model's draft and the offline drafter's alike.
    const numbers = keepStatedNumbers(check.spec);
    const not_stated = [...numbers.claims_removed, ...numbers.statements_unknown].map(({ path, message }) => ({
      path,
      reason: 'number_not_stated' as const,
      message,
    }));
    // A model's draft is labelled with who made it; the offline heuristic labels its own.
    const spec: IntakeSpec = input.heuristic
      ? numbers.spec
      : {
          ...numbers.spec,
          drafted_by: {
            provider: input.usage.provider,
            model: input.usage.model,
            method: `structured output for the ${INTAKE_DRAFT_PROMPT.id} prompt ${INTAKE_DRAFT_PROMPT.version}`,
          },
        };
    await markDraftSucceeded(tx, {
      id: input.draft_id,
      spec,
      dropped: { citations: check.dropped, claims: [...check.dropped_claims, ...not_stated] },
      usage: input.usage,
    });
    logger.info({ draft_id: input.draft_id, citations_kept: check.citations_kept, citations_dropped: check.dropped.length }, 'intake draft stored');
    return { citations_dropped: check.dropped.length };
  });
}

export function intakeActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    /** queued → drafting; returns the job (a terminal draft comes back as it is, and the workflow stops). */
    async startIntakeDraft(input: { draft_id: string }): Promise<IntakeDraftJob> {
      const draft = await db.transaction((tx) => markDraftStarted(tx, input.draft_id));
      if (!draft) throw notFound(`Intake draft ${input.draft_id}`);
      return {
        draft_id: draft.id,
        status: draft.status,
        org_id: draft.org_id,
        project_id: draft.project_id,
        byok_provider: draft.byok_provider as IntakeDraftJob['byok_provider'],
        credits_max: draft.credits_max,
        created_by: draft.created_by,
      };
    },

    /**
     * The draft's sources that are processed and belong to its project, numbered-line ready. Only processed sources are
     * ever read here (spec: only readable, unflagged sources are sent to an AI provider): the query filters on it and
     * every row is asserted again before it leaves.
     */
    async loadIntakeDraftSources(input: { draft_id: string }): Promise<DraftSource[]> {
      return draftSources(db, input.draft_id);
    },

    /** Checks the drafted document's citations against the project's sources, stores it and marks the draft succeeded. */
    async completeIntakeDraft(input: CompletedDraft): Promise<{ citations_dropped: number }> {
      return completeDraft(deps, input);
    },

    /** queued/drafting → failed or canceled; a no-op on a draft that already ended. */
    async endIntakeDraft(input: {
      draft_id: string;
      status: 'failed' | 'canceled';
      failure: JobFailure | null;
      /** `error`: the same value under its name before this release, from a step scheduled by it. */
      error?: JobFailure | null;
      usage: DraftUsage | null;
    }): Promise<void> {
      const failure = input.failure ?? input.error ?? null;
      await db.transaction((tx) => markDraftEnded(tx, { id: input.draft_id, status: input.status, failure, usage: input.usage }));
    },
  };
}

// Confirmed IntakeSpec revisions: numbered 1, 2, 3... per project with no gap or duplicate (spec: Versioning - distinct intake
// revision saves serialize revision numbering). The planning room reads them through latestIntakeRevision / getIntakeRevision.
import type { IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import type { DroppedCitation, DroppedClaim } from '../../domain/intake/citations.ts';
import { invariant } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';
import { lockProject } from '../projects/projects.ts';
import { parseJson } from './sources.ts';

export type IntakeRevisionView = {
  id: string;
  project_id: string;
  org_id: string;
  revision: number;
  spec: IntakeSpec;
  dropped_citations: DroppedCitation[];
  dropped_claims: DroppedClaim[];
  draft_id: string | null;
  created_by: string;
  created_at: string;
};

/** A revision without its document, for lists. */
export type IntakeRevisionSummary = Omit<IntakeRevisionView, 'spec' | 'dropped_citations' | 'dropped_claims'> & {
  dropped_citation_count: number;
  dropped_claim_count: number;
};

function view(row: Record<string, unknown>): IntakeRevisionView {
  return {
    id: row.id as string,
    project_id: row.project_id as string,
    org_id: row.org_id as string,
    revision: Number(row.revision),
    spec: parseJson<IntakeSpec>(row.spec),
    dropped_citations: parseJson<DroppedCitation[]>(row.dropped_citations) ?? [],
    dropped_claims: parseJson<DroppedClaim[]>(row.dropped_claims) ?? [],
    draft_id: (row.draft_id as string | null) ?? null,
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
  };
}

/**
 * Creates revision n+1 of the project's intake. Locks the project row first, so concurrent saves queue and each reads the
 * number the previous one wrote: distinct and gapless. Call inside the transaction that also checked the citations.
 */
export async function createIntakeRevision(
  tx: Tx,
  input: {
    project_id: string;
    spec: IntakeSpec;
    dropped_citations: DroppedCitation[];
    dropped_claims: DroppedClaim[];
    draft_id: string | null;
    created_by: string;
  },
): Promise<IntakeRevisionView> {
  const project = await lockProject(tx, input.project_id);
  invariant(project !== undefined, `project ${input.project_id} exists when its intake is saved`);
  const last = await tx.one<{ revision: number | null }>('select max(revision) as revision from intake_revisions where project_id = ?', [input.project_id]);
  const revision = Number(last?.revision ?? 0) + 1;
  const [row] = await tx.query(
    `insert into intake_revisions (id, project_id, org_id, revision, spec, dropped_citations, dropped_claims, draft_id, created_by)
     values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?) returning *`,
    [
      newId('int'),
      input.project_id,
      project.org_id,
      revision,
      JSON.stringify(input.spec),
      JSON.stringify(input.dropped_citations),
      JSON.stringify(input.dropped_claims),
      input.draft_id,
      input.created_by,
    ],
  );
  return view(row!);
}

/** The newest confirmed intake of a project, or undefined when none was confirmed yet. */
export async function latestIntakeRevision(tx: Tx, project_id: string): Promise<IntakeRevisionView | undefined> {
  const row = await tx.one('select * from intake_revisions where project_id = ? order by revision desc limit 1', [project_id]);
  return row && view(row);
}

/** The revision a draft was confirmed as, if it was: a draft is confirmed once. */
export async function revisionOfDraft(tx: Tx, project_id: string, draft_id: string): Promise<number | undefined> {
  const row = await tx.one<{ revision: number }>('select revision from intake_revisions where project_id = ? and draft_id = ? order by revision limit 1', [
    project_id,
    draft_id,
  ]);
  return row ? Number(row.revision) : undefined;
}

export async function getIntakeRevision(tx: Tx, project_id: string, revision: number): Promise<IntakeRevisionView | undefined> {
  const row = await tx.one('select * from intake_revisions where project_id = ? and revision = ?', [project_id, revision]);
  return row && view(row);
}

/** Newest first; fetches limit+1 rows for paging. */
export async function listIntakeRevisions(tx: Tx, project_id: string, offset: number, limit: number): Promise<IntakeRevisionSummary[]> {
  const rows = await tx.query(
    `select id, project_id, org_id, revision, draft_id, created_by, created_at,
       jsonb_array_length(dropped_citations) as dropped_citation_count, jsonb_array_length(dropped_claims) as dropped_claim_count
     from intake_revisions where project_id = ? order by revision desc offset ? limit ?`,
    [project_id, offset, limit + 1],
  );
  return rows.map((row) => ({
    id: row.id as string,
    project_id: row.project_id as string,
    org_id: row.org_id as string,
    revision: Number(row.revision),
    draft_id: (row.draft_id as string | null) ?? null,
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
    dropped_citation_count: Number(row.dropped_citation_count),
    dropped_claim_count: Number(row.dropped_claim_count),
  }));
}

// An intake draft as the API shows it: the row with its reservation as `credits_reserved` and the dropped citations
// and claims as lists. Sources and revisions are shown as the store reads them.
import type { Static } from 'typebox';
import type { IntakeDraft } from '../../../domain/contracts/intake.ts';
import type { DraftView } from '../../../store/intake/drafts.ts';

export function presentDraft(draft: DraftView): Static<typeof IntakeDraft> {
  return {
    id: draft.id,
    project_id: draft.project_id,
    org_id: draft.org_id,
    status: draft.status,
    source_ids: draft.source_ids,
    skipped_source_ids: draft.skipped_source_ids,
    byok_provider: draft.byok_provider,
    credits_reserved: draft.credits_max,
    spec: draft.spec,
    dropped_citations: draft.dropped_citations?.citations ?? [],
    dropped_claims: draft.dropped_citations?.claims ?? [],
    usage: draft.usage,
    failure: draft.failure,
    error: draft.failure,
    created_by: draft.created_by,
    created_at: draft.created_at,
    started_at: draft.started_at,
    finished_at: draft.finished_at,
  };
}

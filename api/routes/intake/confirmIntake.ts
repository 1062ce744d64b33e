import type { Static } from 'typebox';
import { screenDocument } from '../../../compute/extraction.ts';
import { ConfirmIntakeBody, INTAKE_DOCUMENT_BYTES_MAX, IntakeRevision } from '../../../domain/contracts/intake.ts';
import { citedSourceIds, type IntakeSpec, intakeSpecErrors } from '../../../domain/contracts/intakeSpec.ts';
import { type ErrorDetail, ServiceError } from '../../../domain/errors.ts';
import { checkCitations, citationLookupFrom } from '../../../domain/intake/citations.ts';
import { filledUnknownErrors, filledUnknowns } from '../../../domain/intake/unknowns.ts';
import type { Tx } from '../../../store/db.ts';
import { findDraft } from '../../../store/intake/drafts.ts';
import { createIntakeRevision, revisionOfDraft } from '../../../store/intake/revisions.ts';
import { attachSourcesToProject, citedSources } from '../../../store/intake/sources.ts';
import { lockProject } from '../../../store/projects/projects.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from '../projects/load.ts';

function prefixed(details: ErrorDetail[], prefix: string): ErrorDetail[] {
  return details.map((detail) => ({ ...detail, path: `${prefix}${detail.path === '/' ? '' : (detail.path ?? '')}` }));
}

/** The document as an IntakeSpec whose line ranges hold, screened like a source, and its draft (if named) in the project. */
async function checkedDocument(deps: AppDeps, project_id: string, body: Static<typeof ConfirmIntakeBody>): Promise<IntakeSpec> {
  const errors = intakeSpecErrors(body.spec); // the schema held; the line ranges are checked here
  if (errors.length > 0) {
    throw new ServiceError('VALIDATION_FAILED', 'the document is not a valid IntakeSpec 1.0.0; fix the listed fields', prefixed(errors, '/spec'));
  }
  const spec = body.spec as IntakeSpec;
  // One intake: a field with a value is never also "not known yet" in a confirmed revision.
  const filled = filledUnknownErrors(spec, '/spec');
  if (filled.length > 0) {
    const names = filledUnknowns(spec).map(({ name }) => name);
    throw new ServiceError(
      'VALIDATION_FAILED',
      `Remove ${names.join(', ')} from the unknowns (the intake gives ${names.length === 1 ? 'it a value' : 'them values'}), or clear ${names.length === 1 ? 'that field' : 'those fields'}, then confirm again. Nothing was stored.`,
      filled,
    );
  }
  // spec: Intake — a confirmed or imported document is screened like a source before anything stores or sends it.
  const findings = await screenDocument(spec);
  if (findings.length > 0) {
    const kinds = [...new Set(findings.map((finding) => finding.kind))].join(', ');
    throw new ServiceError(
      'VALIDATION_FAILED',
      `the document holds possible secrets or patient identifiers (${kinds}); remove them and confirm again. Nothing was stored.`,
      findings.map((finding) => ({
        path: `/spec${finding.pointer}`,
        message: `possible ${finding.kind}`,
        kind: finding.kind,
        category: finding.category,
        masked: finding.masked,
      })),
    );
  }
  if (body.draft_id !== undefined) {
    const draft = await findDraft(deps.db, body.draft_id);
    if (!draft || draft.project_id !== project_id) {
      throw new ServiceError('NOT_FOUND', `Intake draft ${body.draft_id} was not found in project ${project_id}.`, [
        { path: '/draft_id', message: 'not found' },
      ]);
    }
  }
  return spec;
}

/** A draft is confirmed once: a second confirmation would record the same draft as two revisions. Call under the project lock. */
async function refuseConfirmedDraft(tx: Tx, project_id: string, draft_id: string): Promise<void> {
  const revision = await revisionOfDraft(tx, project_id, draft_id);
  if (revision === undefined) return;
  throw new ServiceError(
    'CONFLICT',
    `This draft was already confirmed as intake revision ${revision}. To change the intake, correct revision ${revision}: it becomes a new revision.`,
    [{ path: '/draft_id', message: `already confirmed as revision ${revision}`, revision }],
  );
}

export function confirmIntakeRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'post',
    path: '/v1/projects/{project_id}/intakes',
    operation_id: 'confirmIntake',
    summary:
      'Confirm an IntakeSpec (a corrected draft or JSON from your own assistant): citations are checked, failing ones dropped and listed; creates revision n+1',
    tag: 'intake',
    no_store: true,
    auth: 'user',
    scope: 'write',
    role: 'member',
    idempotency: 'optional',
    body: ConfirmIntakeBody,
    body_limit: { bytes: INTAKE_DOCUMENT_BYTES_MAX, name: 'INTAKE_DOCUMENT_BYTES_MAX' },
    responses: {
      201: { description: 'the new revision with the citations that were dropped', schema: IntakeRevision },
      409: { description: 'CONFLICT: the draft named by draft_id was already confirmed; details name its revision' },
    },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'write');
      const body = input.body;
      const spec = await checkedDocument(deps, project.id, body);
      const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, ...body } }, async (tx) => {
        // The project lock comes first: concurrent confirmations queue here and get distinct, gapless numbers.
        await lockProject(tx, project.id);
        if (body.draft_id !== undefined) await refuseConfirmedDraft(tx, project.id, body.draft_id);
        const ids = citedSourceIds(spec);
        await attachSourcesToProject(tx, { org_id: project.org_id, project_id: project.id, ids });
        const cited = await citedSources(tx, { org_id: project.org_id, project_id: project.id, ids });
        const check = checkCitations(spec, citationLookupFrom([...cited].map(([id, source]) => ({ id, ...source }))));
        const revision = await createIntakeRevision(tx, {
          project_id: project.id,
          spec: check.spec,
          dropped_citations: check.dropped,
          dropped_claims: check.dropped_claims,
          draft_id: body.draft_id ?? null,
          created_by: input.auth.user_id,
        });
        return { status: 201, body: revision };
      });
      respond(ctx, outcome);
    },
  });
}

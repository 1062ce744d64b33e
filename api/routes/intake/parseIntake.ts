import type { ByokProvider } from '../../../domain/ai/keys.ts';
import type { JobRow } from '../../../domain/jobs.ts';
import { IntakeDraft, ParseIntakeBody } from '../../../domain/contracts/intake.ts';
import { intakeDraftCreditsBound } from '../../../domain/intake/register.ts';
import { draftSources } from '../../../domain/intake/sources.ts';
import { buildIntakeDraftUserMessage } from '../../../domain/prompts/intakeDraft.ts';
import { startJobOf } from '../../../integrations/temporal/jobs.ts';
import { createDraft } from '../../../store/intake/drafts.ts';
import { attachSourcesToProject, findOrgSources, processedSourceLines } from '../../../store/intake/sources.ts';
import { reserveJobCredits } from '../../../store/jobs.ts';
import { assertAiAvailable } from '../../../store/providerKeys/availability.ts';
import { lockProject } from '../../../store/projects/projects.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from '../projects/load.ts';
import { presentDraft } from './present.ts';

export function parseIntakeRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  return route({
    method: 'post',
    path: '/v1/projects/{project_id}/intakes/parse',
    operation_id: 'parseIntake',
    starts_job: 'the intake draft',
    summary: "Request drafting of an IntakeSpec from the project's processed sources (the intake-draft workflow, metered in credits)",
    tag: 'intake',
    auth: 'user',
    scope: 'write',
    role: 'member',
    idempotency: 'optional',
    body: ParseIntakeBody,
    responses: {
      202: { description: 'the draft, queued; poll GET /v1/intake-drafts/{draft_id}', schema: IntakeDraft },
      402: { description: 'INSUFFICIENT_CREDITS: the balance cannot cover the reservation' },
      503: { description: 'PROVIDER_NOT_CONFIGURED' },
    },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'write');
      const { user_id } = input.auth;
      const body = input.body;
      const { processed, skipped } = draftSources(body.source_ids, await findOrgSources(db, project.org_id, [...new Set(body.source_ids)]), project.id);
      const byok_provider: ByokProvider | null = body.byok_provider ?? null;
      const texts = await processedSourceLines(db, project.org_id, processed);
      const prompt = buildIntakeDraftUserMessage(texts); // throws 422 naming DRAFT_INPUT_CHARS_MAX
      const credits_max = intakeDraftCreditsBound({ prompt, byok: byok_provider !== null, credits_per_1k_tokens: config.ai_credits_per_1k_tokens });
      const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, ...body } }, async (tx) => {
        // Checked inside the idempotent transaction: a replay returns the original answer, not today's balance.
        await assertAiAvailable({ config, db: tx }, project.org_id, byok_provider);
        await lockProject(tx, project.id);
        await attachSourcesToProject(tx, { org_id: project.org_id, project_id: project.id, ids: processed });
        const draft = await createDraft(tx, {
          project_id: project.id,
          org_id: project.org_id,
          source_ids: processed,
          skipped_source_ids: skipped,
          byok_provider,
          credits_max,
          created_by: user_id,
        });
        // Admission: the draft's reservation, in this transaction (store/jobs.ts); 402 rolls the create back.
        await reserveJobCredits(tx, {
          kind: 'intake_draft',
          resource_id: draft.id,
          org_id: draft.org_id,
          project_id: draft.project_id,
          credits: credits_max,
          caused_by: user_id,
        });
        return { status: 202, body: presentDraft(draft) };
      });
      // After the commit, on replays too: the deterministic id makes a repeated start a no-op.
      await startJobOf(deps.temporal, 'intake_draft', outcome.body as JobRow);
      respond(ctx, outcome);
    },
  });
}

import { IntakeDraft } from '../../../domain/contracts/intake.ts';
import { findDraft } from '../../../store/intake/drafts.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { presentDraft } from './present.ts';

export function getIntakeDraftRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'get',
    path: '/v1/intake-drafts/{draft_id}',
    operation_id: 'getIntakeDraft',
    summary: 'Poll a drafting run: status, the drafted IntakeSpec, usage (tokens, credits), error',
    tag: 'intake',
    no_store: true,
    auth: 'user',
    scope: 'read',
    role: 'member',
    pollable: true,
    responses: { 200: { description: 'the draft', schema: IntakeDraft }, 304: { description: 'not modified: the If-None-Match version is current' } },
    handler: async (ctx, input) => {
      const id = input.params.draft_id;
      ctx.body = presentDraft(await authorizeOwned(deps, ctx, `Intake draft ${id}`, await findDraft(db, id)));
    },
  });
}

import { Page } from '../../../domain/contracts/common.ts';
import { IntakeDraftListItem } from '../../../domain/contracts/intake.ts';
import { listDrafts } from '../../../store/intake/drafts.ts';
import type { AppDeps } from '../../context.ts';
import { page } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { PageQuery } from '../../schemas.ts';
import { loadProject } from '../projects/load.ts';
import { presentDraft } from './present.ts';

export function listIntakeDraftsRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/intake-drafts',
    operation_id: 'listIntakeDrafts',
    summary: "A project's intake drafts, newest first: state, credits and failure (the drafted document is read with getIntakeDraft)",
    tag: 'intake',
    no_store: true,
    auth: 'user',
    scope: 'read',
    role: 'member',
    query: { ...PageQuery },
    responses: { 200: { description: 'drafts', schema: Page(IntakeDraftListItem) } },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'read');
      const { offset, limit } = input.query;
      const rows = await listDrafts(deps.db, project.id, offset, limit);
      ctx.body = page(
        rows.map((row) => {
          const { spec: _spec, dropped_citations: _citations, dropped_claims: _claims, ...item } = presentDraft(row);
          return item;
        }),
        offset,
        limit,
      );
    },
  });
}

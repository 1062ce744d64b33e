import { IntakeRevision } from '../../../domain/contracts/intake.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { getIntakeRevision } from '../../../store/intake/revisions.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadProject } from '../projects/load.ts';

export function getIntakeRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'get',
    path: '/v1/projects/{project_id}/intakes/{revision}',
    operation_id: 'getIntake',
    summary: 'One confirmed intake revision with its IntakeSpec and the citations dropped when it was confirmed',
    tag: 'intake',
    no_store: true,
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: { 200: { description: 'the revision', schema: IntakeRevision } },
    handler: async (ctx, input) => {
      const project = await loadProject(deps, ctx, input.params.project_id, 'read');
      const raw = input.params.revision;
      const number = /^[1-9][0-9]{0,8}$/.test(raw) ? Number(raw) : null;
      const revision = number === null ? undefined : await getIntakeRevision(db, project.id, number);
      if (!revision) throw new ServiceError('NOT_FOUND', `Intake revision ${raw.slice(0, 20)} of project ${project.id} was not found.`);
      ctx.body = revision;
    },
  });
}

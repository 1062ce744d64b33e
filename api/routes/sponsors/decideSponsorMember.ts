import { DecideMemberBody, EnrollmentDecision } from '../../../domain/contracts/sponsors.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { decisionOutcome } from '../../../domain/sponsors/rules.ts';
import { decideEnrollment, findEnrollment } from '../../../store/sponsors/sponsors.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { institutionPost, loadProgram, lockedProgram } from './access.ts';

export function decideSponsorMemberRoute(deps: AppDeps): RouteDef {
  return route({
    ...institutionPost,
    method: 'post',
    path: '/v1/sponsors/programs/{program_id}/members/decide',
    operation_id: 'decideSponsorMember',
    summary: 'Approve (active; no credits issued) or decline (declined, final) a pending enrollment',
    body: DecideMemberBody,
    responses: { 200: { description: 'the decided enrollment', schema: EnrollmentDecision } },
    handler: async (ctx, { body, params, auth }) => {
      const found = await loadProgram(deps, auth.user_id, params.program_id);
      const note = body.note?.trim() || null;
      const outcome = await idempotent(deps.db, ctx, { owner_id: found.institution_id, hashed_body: { program_id: found.id, ...body } }, async (tx) => {
        const program = await lockedProgram(tx, found.id);
        const enrollment = await findEnrollment(tx, program.id, body.org_id);
        if (!enrollment) throw new ServiceError('NOT_FOUND', `Organization ${body.org_id} has no enrollment in program ${program.id}.`);
        const status = decisionOutcome(program, enrollment.status, body.approve, Date.now());
        const decided = await decideEnrollment(tx, { enrollment_id: enrollment.id, status, decided_by: auth.user_id, note });
        return {
          status: 200,
          body: { program_id: program.id, org_id: decided.org_id, status: decided.status, note: decided.decision_note, decided_at: decided.decided_at },
        };
      });
      respond(ctx, outcome);
    },
  });
}

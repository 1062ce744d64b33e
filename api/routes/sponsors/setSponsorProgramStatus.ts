import { Program, SetProgramStatusBody } from '../../../domain/contracts/sponsors.ts';
import { nextStatus } from '../../../domain/sponsors/rules.ts';
import { findInstitution, setProgramStatus } from '../../../store/sponsors/sponsors.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { institutionPost, loadProgram, lockedProgram } from './access.ts';
import { presentProgram } from './present.ts';

export function setSponsorProgramStatusRoute(deps: AppDeps): RouteDef {
  return route({
    ...institutionPost,
    method: 'post',
    path: '/v1/sponsors/programs/{program_id}/status',
    operation_id: 'setSponsorProgramStatus',
    summary: 'Activate (needs the institution verified: 409 APPROVAL_REQUIRED) or close a program; closed never reopens (409)',
    body: SetProgramStatusBody,
    responses: { 200: { description: 'the program', schema: Program } },
    handler: async (ctx, { body, params, auth }) => {
      const found = await loadProgram(deps, auth.user_id, params.program_id);
      const outcome = await idempotent(deps.db, ctx, { owner_id: found.institution_id, hashed_body: { program_id: found.id, ...body } }, async (tx) => {
        const program = await lockedProgram(tx, found.id);
        const institution = await findInstitution(tx, program.institution_id);
        const next = nextStatus(program, body.status, institution?.verified_at != null, Date.now());
        const updated = next === program.status ? program : await setProgramStatus(tx, program.id, next);
        return { status: 200, body: presentProgram(updated) };
      });
      respond(ctx, outcome);
    },
  });
}

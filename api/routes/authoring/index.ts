// Authoring sessions (beta; spec: Endpoints — Authoring sessions; Authoring session checkpoint): create (Idempotency-Key),
// list per project, get (reads the database: readable while no worker runs), and answers / revise / approve, each a
// Temporal Update of the session's workflow whose update id is the request's Idempotency-Key (a retried request is one
// step). States and the calls each accepts: docs/authoring.md.
import '../../../domain/authoring/register.ts';
import '../../../domain/simulation/register.ts';
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { answerAuthoringSessionRoute } from './answerAuthoringSession.ts';
import { approveAuthoringSessionRoute } from './approveAuthoringSession.ts';
import { createAuthoringSessionRoute } from './createAuthoringSession.ts';
import { getAuthoringSessionRoute } from './getAuthoringSession.ts';
import { listAuthoringSessionsRoute } from './listAuthoringSessions.ts';
import { reviseAuthoringSessionRoute } from './reviseAuthoringSession.ts';

export function authoringRoutes(deps: AppDeps): RouteDef[] {
  return [
    createAuthoringSessionRoute(deps),
    listAuthoringSessionsRoute(deps),
    getAuthoringSessionRoute(deps),
    answerAuthoringSessionRoute(deps),
    reviseAuthoringSessionRoute(deps),
    approveAuthoringSessionRoute(deps),
  ];
}

// Evaluation plans (spec: What the service does 2; EvaluationPlan; endpoints evaluation-plans and approve).
// A plan is made from the project's latest confirmed intake revision; nothing on it is approved implicitly.
import type { Context } from 'koa';
import { Type } from 'typebox';
import { APPROVAL_SCOPES, EvaluationPlan } from '../../domain/contracts/evaluationPlan.ts';
import { ServiceError } from '../../domain/errors.ts';
import { approvableScopes, planEvaluations } from '../../domain/planning/planner.ts';
import '../../domain/review/register.ts';
import { getIntakeRevision, latestIntakeRevision } from '../../store/intake/revisions.ts';
import { approvePlan, createPlan, findPlan, listPlans, type PlanView } from '../../store/review/plans.ts';
import type { AppDeps } from '../context.ts';
import { page} from '../http.ts';
import { idempotent, respond } from '../idempotency.ts';
import { route, type RouteDef } from '../registry.ts';
import { Id, Page, PageQuery, Timestamp } from '../schemas.ts';
import { loadProject } from './projects/load.ts';

const CreatePlan = Type.Object(
  {
    intake_revision: Type.Optional(Type.Integer({ minimum: 1, description: 'plan from this confirmed revision; default: the latest' })),
  },
  { additionalProperties: false },
);

const Approve = Type.Object(
  { scope: Type.String({ minLength: 1, maxLength: 64, description: `one of the scopes the plan lists in approvals_needed (${APPROVAL_SCOPES.join(', ')})` }) },
  { additionalProperties: false },
);

// The contract carries $id 'EvaluationPlan'; inline copies in the OpenAPI document go without it (one $id per document).
const { $id: _plan_id, ...EvaluationPlanInline } = JSON.parse(JSON.stringify(EvaluationPlan)) as Record<string, unknown>;
const EvaluationPlanDoc = Type.Unsafe<unknown>(EvaluationPlanInline);

export const PlanOut = Type.Object({
  id: Id('plan'),
  project_id: Id('proj'),
  org_id: Id('org'),
  intake_revision: Type.Integer({ minimum: 1 }),
  created_by: Type.String(),
  created_at: Timestamp,
  approvals: Type.Array(Type.Object({ scope: Type.String(), approved_by: Type.String(), approved_at: Timestamp })),
  plan: EvaluationPlanDoc,
});

/** A plan of a project the caller may act on; another project's or organization's plan is a plain 404. */
export async function loadPlan(deps: AppDeps, ctx: Context, project_id: string, plan_id: string, scope: 'read' | 'write' | 'run'): Promise<PlanView> {
  await loadProject(deps, ctx, project_id, scope);
  const plan = await findPlan(deps.db, project_id, plan_id);
  if (!plan) throw new ServiceError('NOT_FOUND', `Evaluation plan ${plan_id} of project ${project_id} was not found.`);
  return plan;
}

export function planRoutes(deps: AppDeps): RouteDef[] {
  const { db, config } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/projects/{project_id}/evaluation-plans',
      operation_id: 'createEvaluationPlan',
      summary: "Plan the evaluations for the project's latest confirmed intake: a decision with an explanation per evaluation, approvals needed, estimated credits, Business questions",
      tag: 'review',
      auth: 'user',
      scope: 'write',
      role: 'member',
      idempotency: 'optional',
      body: CreatePlan,
      responses: {
        201: { description: 'the plan; nothing is approved yet', schema: PlanOut },
        409: { description: 'the project has no confirmed intake yet (CONFLICT)' },
      },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'write');
        const body = input.body;
        const auth = input.auth;
        const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, ...body } }, async (tx) => {
          const revision = body.intake_revision ? await getIntakeRevision(tx, project.id, body.intake_revision) : await latestIntakeRevision(tx, project.id);
          if (!revision) {
            if (body.intake_revision) {
              throw new ServiceError('NOT_FOUND', `Project ${project.id} has no confirmed intake revision ${body.intake_revision}.`, [
                { path: '/intake_revision', message: 'no such confirmed revision' },
              ]);
            }
            throw new ServiceError(
              'CONFLICT',
              `Project ${project.id} has no confirmed intake yet; confirm one with POST /v1/projects/${project.id}/intakes, then create the plan.`,
              [{ path: '/intake', message: 'confirm an intake first' }],
            );
          }
          const plan = planEvaluations({ intake: revision.spec, intake_revision: revision.revision, credits_per_1k_tokens: config.ai_credits_per_1k_tokens });
          return { status: 201, body: await createPlan(tx, { project_id: project.id, org_id: project.org_id, plan, created_by: auth.user_id }) };
        });
        respond(ctx, outcome);
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects/{project_id}/evaluation-plans/{plan_id}',
      operation_id: 'getEvaluationPlan',
      summary: 'Read one evaluation plan with its approvals',
      tag: 'review',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'the plan', schema: PlanOut } },
      handler: async (ctx, input) => {
        ctx.body = await loadPlan(deps, ctx, input.params.project_id, input.params.plan_id, 'read');
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects/{project_id}/evaluation-plans',
      operation_id: 'listEvaluationPlans',
      summary: "List a project's evaluation plans, newest first",
      tag: 'review',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'plans', schema: Page(PlanOut) } },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'read');
        const { offset, limit } = input.query;
        ctx.body = page(await listPlans(db, project.id, offset, limit), offset, limit);
      },
    }),
    route({
      method: 'post',
      path: '/v1/projects/{project_id}/evaluation-plans/{plan_id}/approve',
      operation_id: 'approveEvaluationPlan',
      summary: 'Approve one scope the plan lists (hosted_inference approves hosted inference for this plan); approving again is a no-op',
      tag: 'review',
      auth: 'user',
      scope: 'write',
      role: 'member',
      body: Approve,
      responses: {
        200: { description: 'the plan with its approvals', schema: PlanOut },
        422: { description: 'the scope is not one the plan lists (VALIDATION_FAILED)' },
      },
      handler: async (ctx, input) => {
        const plan = await loadPlan(deps, ctx, input.params.project_id, input.params.plan_id, 'write');
        const body = input.body;
        const listed = approvableScopes(plan.plan);
        if (!listed.includes(body.scope)) {
          throw new ServiceError(
            'VALIDATION_FAILED',
            listed.length === 0
              ? `Plan ${plan.id} lists no approvals, so "${body.scope}" cannot be approved.`
              : `"${body.scope}" is not an approval this plan lists; approve one of: ${listed.join(', ')}.`,
            [{ path: '/scope', message: listed.length === 0 ? 'the plan lists no approvals' : `must be one of ${listed.join(', ')}` }],
          );
        }
        const auth = input.auth;
        await db.transaction((tx) => approvePlan(tx, { plan_id: plan.id, scope: body.scope, approved_by: auth.user_id }));
        ctx.body = await findPlan(db, plan.project_id, plan.id);
      },
    }),
  ];
}

// Evaluation plans and their explicit approvals (spec: EvaluationPlan; "No call implicitly approves processing").
import type { Static } from 'typebox';
import type { EvaluationPlan } from '../../domain/contracts/evaluationPlan.ts';
import type { Plan, PlanApproval as PlanApprovalBody } from '../../domain/contracts/plans.ts';
import { newId } from '../../domain/ids.ts';
import { isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';

export type PlanApproval = Static<typeof PlanApprovalBody>;

/** A plan with its approvals as the API returns it (domain/contracts/plans.ts); nothing is approved when it is made. */
export type PlanView = Static<typeof Plan>;

function parse<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function view(row: Record<string, unknown>, approvals: PlanApproval[]): PlanView {
  return {
    id: row.id as string,
    project_id: row.project_id as string,
    org_id: row.org_id as string,
    intake_revision: Number(row.intake_revision),
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
    approvals,
    plan: parse<EvaluationPlan>(row.plan),
  };
}

async function approvalsOf(tx: Tx, plan_ids: string[]): Promise<Map<string, PlanApproval[]>> {
  const out = new Map<string, PlanApproval[]>(plan_ids.map((id) => [id, []]));
  if (plan_ids.length === 0) return out;
  const rows = await tx.query(`select * from plan_approvals where plan_id in (${plan_ids.map(() => '?').join(', ')}) order by approved_at, scope`, plan_ids);
  for (const row of rows) {
    out.get(row.plan_id as string)?.push({ scope: row.scope as string, approved_by: row.approved_by as string, approved_at: isoRequired(row.approved_at) });
  }
  return out;
}

export async function createPlan(tx: Tx, input: { project_id: string; org_id: string; plan: EvaluationPlan; created_by: string }): Promise<PlanView> {
  const [row] = await tx.query(
    'insert into evaluation_plans (id, project_id, org_id, intake_revision, plan, created_by) values (?, ?, ?, ?, ?::jsonb, ?) returning *',
    [newId('plan'), input.project_id, input.org_id, input.plan.intake_revision, JSON.stringify(input.plan), input.created_by],
  );
  return view(row!, []);
}

/** The plan of a project, or undefined (another project's plan id is not found here). */
export async function findPlan(tx: Tx, project_id: string, plan_id: string, options: { lock?: boolean } = {}): Promise<PlanView | undefined> {
  const row = await tx.one(`select * from evaluation_plans where id = ? and project_id = ?${options.lock ? ' for update' : ''}`, [plan_id, project_id]);
  if (!row) return undefined;
  return view(row, (await approvalsOf(tx, [plan_id])).get(plan_id)!);
}

export async function listPlans(tx: Tx, project_id: string, offset: number, limit: number): Promise<PlanView[]> {
  const rows = await tx.query('select * from evaluation_plans where project_id = ? order by created_at desc, id desc offset ? limit ?', [
    project_id,
    offset,
    limit + 1,
  ]);
  const approvals = await approvalsOf(
    tx,
    rows.map((r) => r.id as string),
  );
  return rows.map((row) => view(row, approvals.get(row.id as string)!));
}

/** Records an approval; approving a scope twice keeps the first approval. */
export async function approvePlan(tx: Tx, input: { plan_id: string; scope: string; approved_by: string }): Promise<void> {
  await tx.query('insert into plan_approvals (plan_id, scope, approved_by) values (?, ?, ?) on conflict (plan_id, scope) do nothing', [
    input.plan_id,
    input.scope,
    input.approved_by,
  ]);
}

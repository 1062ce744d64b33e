// Evaluation plans: create, and approve one scope explicitly.
import type { Command } from 'commander';
import { unwrapAs } from '../../../sdk/src/index.ts';
import { fields, table } from '../output.ts';
import type { Any, CommandContext } from './context.ts';

export function registerPlans(program: Command, context: CommandContext): void {
  const plan = program.command('plan').description('Evaluation plans');
  plan
    .command('create')
    .requiredOption('--project <project_id>')
    .option('--idempotency-key <key>')
    .action(async (o: Any) => {
      const created = unwrapAs<Any>(
        await context.client().POST('/v1/projects/{project_id}/evaluation-plans', {
          path: { project_id: o.project },
          body: {} as never,
          idempotencyKey: o.idempotencyKey,
        }),
      );
      context.out().result(created, () =>
        [
          fields([
            ['plan', created.id],
            ['approvals needed', (created.plan?.approvals_needed ?? []).map((a: Any) => a.scope).join(', ')],
          ]),
          table(created.plan?.evaluations ?? [], [
            { header: 'evaluation', value: (e: Any) => e.kind },
            { header: 'decision', value: (e: Any) => e.decision },
            { header: 'explanation', value: (e: Any) => e.explanation },
          ]),
        ].join('\n'),
      );
    });
  plan
    .command('approve')
    .description('Approve one scope the plan lists (explicit: nothing is approved implicitly)')
    .requiredOption('--project <project_id>')
    .requiredOption('--plan <plan_id>')
    .requiredOption('--scope <scope>', 'for example hosted_inference')
    .action(async (o: Any) => {
      const approved = unwrapAs<Any>(
        await context.client().POST('/v1/projects/{project_id}/evaluation-plans/{plan_id}/approve', {
          path: { project_id: o.project, plan_id: o.plan },
          body: { scope: o.scope } as never,
        }),
      );
      context.out().result(approved, () => `Approved ${o.scope} on plan ${o.plan}.`);
    });
}

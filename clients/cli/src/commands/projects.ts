// Projects: list, create, show.
import type { Command } from 'commander';
import { unwrap, unwrapAs } from '../../../sdk/src/index.ts';
import { fields, table } from '../output.ts';
import { type Any, type CommandContext, orgOf } from './context.ts';

export function registerProjects(program: Command, context: CommandContext): void {
  const projects = program.command('projects').description('Projects');
  projects
    .command('list')
    .option('--org <org_id>')
    .action(async (o: Any) => {
      const client = context.client();
      const page = unwrapAs<Any>(await client.GET('/v1/projects', { query: { org_id: await orgOf(client, o.org) } as never }));
      context.out().result(page, () =>
        table(page.data, [
          { header: 'id', value: (p: Any) => p.id },
          { header: 'title', value: (p: Any) => p.title },
          { header: 'created', value: (p: Any) => p.created_at },
        ]),
      );
    });
  projects
    .command('create')
    .requiredOption('--title <title>')
    .option('--org <org_id>')
    .option('--idempotency-key <key>')
    .action(async (o: Any) => {
      const client = context.client();
      const project = unwrap(
        await client.POST('/v1/projects', { body: { title: o.title, org_id: await orgOf(client, o.org) }, idempotencyKey: o.idempotencyKey }),
      );
      context.out().result(project, () =>
        fields([
          ['id', project.id],
          ['title', project.title],
          ['org', project.org_id],
        ]),
      );
    });
  projects.command('show <project_id>').action(async (id: string) => {
    const project = unwrap(await context.client().GET('/v1/projects/{project_id}', { path: { project_id: id } }));
    context.out().result(project, () => fields(Object.entries(project)));
  });
}

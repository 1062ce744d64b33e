// Credits: the organization's balance and its ledger.
import type { Command } from 'commander';
import { unwrapAs } from '../../../sdk/src/index.ts';
import { fields, table } from '../output.ts';
import { type Any, type CommandContext, integer, orgOf } from './context.ts';

export function registerCredits(program: Command, context: CommandContext): void {
  program
    .command('credits')
    .option('--org <org_id>')
    .action(async (o: Any) => {
      const client = context.client();
      const org_id = await orgOf(client, o.org);
      const credits = unwrapAs<Any>(await client.GET('/v1/orgs/{org_id}/credits', { path: { org_id } }));
      context.out().result(credits, () => fields(Object.entries(credits).filter(([, v]) => typeof v !== 'object')));
    });
  program
    .command('ledger')
    .option('--org <org_id>')
    .option('--limit <n>', '1 to 200', integer('--limit'))
    .option('--offset <n>', 'rows to skip', integer('--offset'))
    .action(async (o: Any) => {
      const client = context.client();
      const org_id = await orgOf(client, o.org);
      const page = unwrapAs<Any>(await client.GET('/v1/orgs/{org_id}/ledger', { path: { org_id }, query: { limit: o.limit, offset: o.offset } as never }));
      context.out().result(page, () =>
        table(page.data ?? [], [
          { header: 'entry', value: (e: Any) => e.id },
          { header: 'kind', value: (e: Any) => e.kind ?? e.type },
          { header: 'credits', value: (e: Any) => e.credits ?? e.amount },
          { header: 'at', value: (e: Any) => e.created_at },
        ]),
      );
    });
}

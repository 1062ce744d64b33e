// The organization's own AI provider keys: list, add (read from stdin or a prompt, never echoed), revoke.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { unwrap, unwrapAs } from '../../../sdk/src/index.ts';
import { fields, table } from '../output.ts';
import { type Any, type CommandContext, orgOf, promptSecret } from './context.ts';

export function registerProviderKeys(program: Command, context: CommandContext): void {
  const keys = program.command('provider-keys').description("The organization's own AI provider keys");
  keys
    .command('list')
    .option('--org <org_id>')
    .action(async (o: Any) => {
      const client = context.client();
      const page = unwrapAs<Any>(await client.GET('/v1/orgs/{org_id}/provider-keys', { path: { org_id: await orgOf(client, o.org) } }));
      context.out().result(page, () =>
        table(page.data ?? [], [
          { header: 'key', value: (k: Any) => k.id },
          { header: 'provider', value: (k: Any) => k.provider },
          { header: 'label', value: (k: Any) => k.label },
          { header: 'last four', value: (k: Any) => k.last_four ?? k.last4 },
        ]),
      );
    });
  add(keys, context);
  keys
    .command('revoke <key_id>')
    .option('--org <org_id>')
    .action(async (key_id: string, o: Any) => {
      const client = context.client();
      unwrap(await client.DELETE('/v1/orgs/{org_id}/provider-keys/{key_id}', { path: { org_id: await orgOf(client, o.org), key_id } }));
      context.out().result({ revoked: key_id }, () => `Revoked ${key_id}; its ciphertext is destroyed.`);
    });
}

function add(keys: Command, context: CommandContext): void {
  keys
    .command('add')
    .description('Store a key; it is read from stdin (or prompted on a terminal) and never echoed')
    .requiredOption('--provider <provider>')
    .requiredOption('--label <label>')
    .option('--org <org_id>')
    .option('--idempotency-key <key>')
    .action(async (o: Any) => {
      const client = context.client();
      const api_key = process.stdin.isTTY ? await promptSecret('API key: ') : readFileSync(0, 'utf8').trim();
      const created = unwrapAs<Any>(
        await client.POST('/v1/orgs/{org_id}/provider-keys', {
          path: { org_id: await orgOf(client, o.org) },
          body: { provider: o.provider, label: o.label, api_key } as never,
          idempotencyKey: o.idempotencyKey,
        }),
      );
      context.out().result(created, () =>
        fields([
          ['key', created.id],
          ['provider', created.provider],
          ['label', created.label],
        ]),
      );
    });
}

// Sign-in and token storage: login, logout, whoami.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { createCrucibleClient, unwrapAs } from '../../../sdk/src/index.ts';
import { forgetStored, resolveBaseUrl, writeStored } from '../credentials.ts';
import { UsageError } from '../exit.ts';
import { fields, table } from '../output.ts';
import { type Any, type CommandContext, promptSecret } from './context.ts';

export function registerAuth(program: Command, context: CommandContext): void {
  login(program, context);
  program
    .command('logout')
    .description('Forget the stored token')
    .action(() => {
      forgetStored();
      context.out().result({ forgotten: true }, () => 'Stored token removed.');
    });
  program
    .command('whoami')
    .description('The signed-in user and memberships')
    .action(async () => {
      const me = unwrapAs<Any>(await context.client().GET('/v1/me'));
      context.out().result(me, () =>
        [
          fields([['user', me.user?.email ?? me.email ?? me.user_id]]),
          table(me.memberships ?? [], [
            { header: 'org', value: (m: Any) => m.org_id },
            { header: 'role', value: (m: Any) => m.role },
          ]),
        ].join('\n'),
      );
    });
}

function login(program: Command, context: CommandContext): void {
  program
    .command('login')
    .description('Store a token (API token from --token-stdin, or a user session from email and password)')
    .option('--email <email>')
    .option('--password-stdin', 'read the password from stdin')
    .option('--token-stdin', 'read an API token from stdin')
    .option('--org <org_id>', 'default organization for later commands')
    .action(async (o: Any) => {
      const base_url = resolveBaseUrl(context.global().url);
      let token: string;
      if (o.tokenStdin) token = readFileSync(0, 'utf8').trim();
      else {
        const email = o.email ?? (process.stdin.isTTY ? await promptSecret('Email: ') : undefined);
        if (!email) throw new UsageError('--email or --token-stdin is needed');
        const password = o.passwordStdin ? readFileSync(0, 'utf8').trim() : await promptSecret('Password: ');
        const client = createCrucibleClient({ baseUrl: base_url });
        token = unwrapAs<Any>(await client.POST('/v1/auth/sessions', { body: { email, password } })).token;
      }
      const path = writeStored({ base_url, token, ...(o.org ? { org_id: o.org } : {}) });
      // The token itself is never printed.
      context.out().result({ stored: path, base_url }, () => `Signed in; token stored in ${path} (mode 0600).`);
    });
}

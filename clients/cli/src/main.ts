#!/usr/bin/env node
// `crucible`: the command-line tool on @crucible/sdk. Every command takes --json (one JSON document on stdout for
// scripts); otherwise it prints human tables. Progress goes to stderr. Exit codes: `crucible help exit-codes`.
import { Command, CommanderError, Option } from 'commander';
import { SDK_VERSION } from '../../sdk/src/index.ts';
import { registerAuth } from './commands/auth.ts';
import { type Any, commandContext, type ExitState } from './commands/context.ts';
import { registerCredits } from './commands/credits.ts';
import { registerIntake } from './commands/intake.ts';
import { registerPlans } from './commands/plans.ts';
import { registerProjects } from './commands/projects.ts';
import { registerProviderKeys } from './commands/providerKeys.ts';
import { registerReviews } from './commands/reviews.ts';
import { registerRuns } from './commands/runs.ts';
import { registerSessions } from './commands/sessions.ts';
import { registerWorlds } from './commands/worlds.ts';
import { resolveBaseUrl, resolveToken } from './credentials.ts';
import { EXIT, EXIT_CODES_HELP, errorExitCode } from './exit.ts';
import { conflictLine, printable, safeJson } from './output.ts';
import { REQUEST_TIMEOUT_ENV, REQUEST_TIMEOUT_SECONDS_DEFAULT } from './timeouts.ts';

/** The program with every command; the order of the groups is the order `crucible --help` lists them in. */
export function buildProgram(exit: ExitState = { code: EXIT.ok }): Command {
  const program = new Command('crucible')
    .description('Command-line tool for the Crucible API')
    .version(SDK_VERSION)
    .addOption(new Option('--url <base_url>', 'service base URL (or CRUCIBLE_URL)'))
    .option('--json', 'print one JSON document for scripts')
    .addOption(
      new Option('--request-timeout <seconds>', `how long one request may take (or ${REQUEST_TIMEOUT_ENV}; default ${REQUEST_TIMEOUT_SECONDS_DEFAULT})`),
    )
    .showHelpAfterError()
    .exitOverride();
  const context = commandContext(program, exit);

  program.command('help-exit-codes', { hidden: true }).action(() => {
    process.stdout.write(EXIT_CODES_HELP);
  });
  registerAuth(program, context);
  registerProjects(program, context);
  registerIntake(program, context);
  registerPlans(program, context);
  registerReviews(program, context);
  registerWorlds(program, context);
  registerRuns(program, context);
  registerSessions(program, context);
  registerCredits(program, context);
  registerProviderKeys(program, context);

  // The MCP server for assistants.
  program
    .command('mcp')
    .description('Serve the Model Context Protocol over stdio for your own assistant')
    .action(async () => {
      const { serveMcp } = await import('./mcp.ts');
      await serveMcp({ base_url: resolveBaseUrl(context.global().url), token: resolveToken(), request_timeout_seconds: context.requestTimeout() });
      exit.code = -1; // the server runs until stdin closes
    });

  program.addHelpText('after', '\nExit codes: crucible help exit-codes');
  return program;
}

function printError(error: unknown, json: boolean): void {
  const e = error as Any;
  if (json) {
    const body = e?.body ?? { code: e?.name ?? 'ERROR', message: e?.message ?? String(error) };
    process.stdout.write(`${safeJson({ error: { status: e?.status ?? null, ...body } })}\n`);
  } else {
    if (e?.status === 409 && e?.body) {
      process.stderr.write(`crucible: ${printable(conflictLine(e.body), true)}\n`);
      return;
    }
    const id = e?.request_id ? ` (request ${e.request_id})` : '';
    process.stderr.write(`crucible: ${printable(`${e?.message ?? String(error)}${id}`, true)}\n`);
  }
}

export async function main(argv: string[]): Promise<number> {
  const exit: ExitState = { code: EXIT.ok };
  // `crucible help exit-codes` is the documented spelling.
  const args = argv[0] === 'help' && argv[1] === 'exit-codes' ? ['help-exit-codes'] : argv;
  const program = buildProgram(exit);
  const json = args.includes('--json');
  try {
    await program.parseAsync(args, { from: 'user' });
    return exit.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    printError(error, json);
    return errorExitCode(error);
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/crucible')) {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exitCode = code;
}

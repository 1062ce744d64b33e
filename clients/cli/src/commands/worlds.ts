// WorldSpecs: validate (no token needed) and save as a project's next world revision.
import type { Command } from 'commander';
import { unwrapAs } from '../../../sdk/src/index.ts';
import { EXIT } from '../exit.ts';
import { fields, table } from '../output.ts';
import { type Any, type CommandContext, readJsonFile } from './context.ts';

export function registerWorlds(program: Command, context: CommandContext): void {
  const worlds = program.command('worlds').description('WorldSpecs: validate and save');
  worlds.command('validate <file>').action(async (file: string) => {
    const result = unwrapAs<Any>(await context.client(false).POST('/v1/world-specs/validate', { body: readJsonFile(file) as never }));
    if (!result.valid) context.exit.code = EXIT.api_error;
    context.out().result(result, () =>
      result.valid
        ? 'valid'
        : table(result.problems, [
            { header: 'pointer', value: (p: Any) => p.path ?? p.pointer },
            { header: 'problem', value: (p: Any) => p.message },
          ]),
    );
  });
  worlds
    .command('save <file>')
    .requiredOption('--project <project_id>')
    .action(async (file: string, o: Any) => {
      const saved = unwrapAs<Any>(
        await context.client().POST('/v1/projects/{project_id}/worlds', { path: { project_id: o.project }, body: readJsonFile(file) as never }),
      );
      context.out().result(saved, () =>
        fields([
          ['world revision', saved.world_revision_id],
          ['revision', saved.revision],
        ]),
      );
    });
}

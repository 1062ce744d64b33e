// Intake: extract (files and stdin), then draft, correct and confirm an IntakeSpec.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { type CrucibleClient, jobEnded, unwrapAs } from '../../../sdk/src/index.ts';
import { UsageError } from '../exit.ts';
import { fields, fieldsPresent, failureLine, table } from '../output.ts';
import { projectSourceIds } from '../sources.ts';
import { type Any, type CommandContext, orgOf, readJsonFile, waitOptions, waitToEnd } from './context.ts';

export function registerIntake(program: Command, context: CommandContext): void {
  extract(program, context);
  const intake = program.command('intake').description('Draft and confirm an IntakeSpec');
  draft(intake, context);
  intake
    .command('show-draft <draft_id>')
    .option('--out <file>', 'write the drafted IntakeSpec to a file to correct it')
    .action(async (id: string, o: Any) => {
      const draft = await readDraft(context.client(), id);
      if (o.out && draft.spec) writeFileSync(o.out, `${JSON.stringify(draft.spec, null, 2)}\n`);
      context.out().result(draft, () => showDraft(draft, [['spec', o.out && draft.spec ? `written to ${o.out}` : draft.spec ? 'present (use --out)' : '-']]));
    });
  intake.command('cancel-draft <draft_id>').action(async (id: string) => {
    const draft = unwrapAs<Any>(await context.client().POST('/v1/intake-drafts/{draft_id}/cancel', { path: { draft_id: id } }));
    context.out().result(draft, () => showDraft(draft));
  });
  confirm(intake, context);
}

/** A draft: its state, its failure when it has one, and the credits it used (its AI call's charge). */
function showDraft(draft: Any, more: [string, unknown][] = []): string {
  return fieldsPresent([
    ['draft', draft.id],
    ['status', draft.status],
    ['failure', failureLine(draft)],
    // 0 once it ended without a charged AI call; unknown while it runs.
    ['credits used', draft.usage?.credits_charged ?? (jobEnded('intake_draft', draft.status) ? 0 : '-')],
    ...more,
  ]);
}

async function readDraft(client: CrucibleClient, draft_id: string): Promise<Any> {
  return unwrapAs<Any>(await client.GET('/v1/intake-drafts/{draft_id}', { path: { draft_id } }));
}

function extract(program: Command, context: CommandContext): void {
  program
    .command('extract [files...]')
    .description('Read and screen text and files without AI; "-" (or no file) reads pasted text from stdin')
    .option('--project <project_id>')
    .option('--org <org_id>')
    .action(async (files: string[], o: Any) => {
      const client = context.client();
      const form = new FormData();
      if (o.project) form.append('project_id', o.project);
      else form.append('org_id', await orgOf(client, o.org));
      const paths = files.length ? files : ['-'];
      for (const path of paths) {
        if (path === '-') form.append('text', readFileSync(0, 'utf8'));
        else form.append('files', new Blob([readFileSync(path)]), basename(path));
      }
      const extracted = unwrapAs<Any>(await client.POST('/v1/intakes/extract', { body: form }));
      context.out().result(extracted, () =>
        table(extracted.sources, [
          { header: 'source', value: (s: Any) => s.id },
          { header: 'name', value: (s: Any) => s.name ?? s.filename ?? s.kind },
          { header: 'status', value: (s: Any) => s.status },
          { header: 'findings', value: (s: Any) => (s.findings ?? []).length },
        ]),
      );
    });
}

function draft(intake: Command, context: CommandContext): void {
  const command = intake
    .command('draft')
    .requiredOption('--project <project_id>')
    .option('--source <source_id...>', "processed sources to draft from (default: all of the project's processed sources, at most 50)")
    .option('--byok-provider <provider>')
    .option('--idempotency-key <key>');
  waitOptions(command, 'wait for the draft to end, with progress on stderr').action(async (o: Any) => {
    const client = context.client();
    // No --source: every processed source of the project (the API's request names them).
    const body: Any = { source_ids: o.source ?? (await projectSourceIds(client, o.project)) };
    if (o.byokProvider) body.byok_provider = o.byokProvider;
    let draft = unwrapAs<Any>(
      await client.POST('/v1/projects/{project_id}/intakes/parse', {
        path: { project_id: o.project },
        body: body as never,
        idempotencyKey: o.idempotencyKey,
      }),
    );
    if (o.wait) {
      const id = draft.id;
      draft = await waitToEnd(
        context,
        'intake_draft',
        `intake draft ${id}`,
        (poll) => client.GET('/v1/intake-drafts/{draft_id}', { path: { draft_id: id }, ...poll }),
        (d) => d.status,
        o.timeout,
      );
    }
    context.out().result(draft, () => showDraft(draft));
  });
}

function confirm(intake: Command, context: CommandContext): void {
  intake
    .command('confirm')
    .description('Confirm an IntakeSpec: a corrected draft (--spec FILE) or the draft unchanged (--draft ID)')
    .requiredOption('--project <project_id>')
    .option('--draft <draft_id>')
    .option('--spec <file>', 'an IntakeSpec JSON file, "-" for stdin')
    .option('--idempotency-key <key>')
    .action(async (o: Any) => {
      const client = context.client();
      if (!o.draft && !o.spec) throw new UsageError('--draft or --spec is needed');
      let spec = o.spec ? readJsonFile(o.spec) : undefined;
      if (!spec) spec = (await readDraft(client, o.draft)).spec;
      const confirmed = unwrapAs<Any>(
        await client.POST('/v1/projects/{project_id}/intakes', {
          path: { project_id: o.project },
          body: { spec, ...(o.draft ? { draft_id: o.draft } : {}) } as never,
          idempotencyKey: o.idempotencyKey,
        }),
      );
      context.out().result(confirmed, () =>
        fields([
          ['revision', confirmed.revision],
          ['citations dropped', (confirmed.dropped_citations ?? confirmed.citations_dropped ?? []).length],
        ]),
      );
    });
}

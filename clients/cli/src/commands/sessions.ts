// Authoring sessions (beta): exit 4 while a session waits for answers or approval (spec: Versioning).
import { randomUUID } from 'node:crypto';
import { type Command, Option } from 'commander';
import { jobEnded, unwrapAs } from '../../../sdk/src/index.ts';
import { EXIT, openQuestions, sessionExitCode, UsageError } from '../exit.ts';
import { fieldsPresent, failureLine, table } from '../output.ts';
import { type Any, type CommandContext, integer, type Poll, readJsonFile, untyped, wait_max_seconds_default, waitFor } from './context.ts';

function showSession(s: Any): string {
  const next_steps: Any[] = Array.isArray(s.checkpoint?.next_steps) ? s.checkpoint.next_steps : [];
  // What stands between the drafted world and a valid, complete model: its validation problems and model-check warnings.
  const problems: Any[] = [
    ...(s.checkpoint?.validation?.problems ?? []).map((p: Any) => ({ kind: 'invalid', where: p.pointer, message: p.message })),
    ...(s.checkpoint?.model_check ?? []).map((w: Any) => ({ kind: 'model check', where: w.pointer, message: w.message })),
  ];
  return [
    fieldsPresent([
      ['session', s.id],
      ['status', s.status],
      ['failure', failureLine(s)],
      ['checkpoint', s.checkpoint?.number ?? '-'],
      ['open questions', openQuestions(s).length],
      ['accepts', (s.accepts ?? []).join(', ') || '-'],
      ['world revision', s.world_revision_id ?? '-'],
    ]),
    problems.length
      ? table(problems, [
          { header: 'problem', value: (p: Any) => p.kind },
          { header: 'where', value: (p: Any) => p.where },
          { header: 'message', value: (p: Any) => p.message },
        ])
      : '',
    openQuestions(s).length
      ? table(openQuestions(s), [
          { header: 'question', value: (q: Any) => q.id },
          { header: 'unit', value: (q: Any) => q.unit },
          { header: 'text', value: (q: Any) => q.text },
        ])
      : '',
    next_steps.length
      ? table(next_steps, [
          { header: 'next step', value: (n: Any) => n.kind },
          { header: 'tool', value: (n: Any) => n.tool },
          { header: 'source', value: (n: Any) => n.source },
        ])
      : '',
  ]
    .filter(Boolean)
    .join('\n');
}

function reportSession(context: CommandContext, s: Any): void {
  context.exit.code = sessionExitCode(s);
  context.out().result(s, () => showSession(s));
  if (context.exit.code === EXIT.session_waiting) {
    context
      .out()
      .note(
        openQuestions(s).length
          ? 'The session waits for answers: `crucible sessions answer` (exit code 4).'
          : 'The session waits for approval or a revision: `crucible sessions approve` (exit code 4).',
      );
  }
}

/** A step's Idempotency-Key: give the same --idempotency-key to retry an ambiguous failure as the same step. */
function stepKey(o: Any): string {
  return o.idempotencyKey ?? `cli-${randomUUID()}`;
}

/**
 * One session step: a POST to the session's `step` path, reported with exit code 4 while the session waits. The body is
 * read after the client is made, so a missing token is reported before a bad body file.
 */
async function postStep(context: CommandContext, session_id: string, step: string, body: () => unknown, o: Any): Promise<void> {
  const api = untyped(context.client());
  const path = `/v1/authoring-sessions/{session_id}/${step}`;
  reportSession(context, unwrapAs<Any>(await api.POST(path, { path: { session_id }, body: body(), idempotencyKey: stepKey(o) })));
}

/** A read of a session; a --wait adds its long poll (`poll`). */
function readSession(context: CommandContext, session_id: string, poll: Poll = {}) {
  return untyped(context.client()).GET('/v1/authoring-sessions/{session_id}', { path: { session_id }, ...poll });
}

export function registerSessions(program: Command, context: CommandContext): void {
  const sessions = program.command('sessions').description('Authoring sessions (beta); exit code 4 while one waits for answers or approval');
  start(sessions, context);
  sessions
    .command('list')
    .requiredOption('--project <project_id>')
    .action(async (o: Any) => {
      const page = unwrapAs<Any>(await untyped(context.client()).GET('/v1/projects/{project_id}/authoring-sessions', { path: { project_id: o.project } }));
      context.out().result(page, () =>
        table(page.data ?? [], [
          { header: 'session', value: (s: Any) => s.id },
          { header: 'status', value: (s: Any) => s.status },
        ]),
      );
    });
  for (const name of ['show', 'questions']) {
    sessions
      .command(`${name} <session_id>`)
      .description(name === 'show' ? 'A session with its checkpoint and next steps' : 'The questions the session waits on')
      .action(async (session_id: string) => {
        reportSession(context, unwrapAs<Any>(await readSession(context, session_id)));
      });
  }
  answer(sessions, context);
  sessions
    .command('revise <session_id>')
    .option('--body <file>', 'request body as JSON ("-" for stdin)')
    .option('--idempotency-key <key>')
    .action(async (session_id: string, o: Any) => postStep(context, session_id, 'revise', () => (o.body ? readJsonFile(o.body) : {}), o));
  sessions
    .command('approve <session_id>')
    .option('--idempotency-key <key>')
    .action(async (session_id: string, o: Any) => postStep(context, session_id, 'approve', () => ({}), o));
}

function start(sessions: Command, context: CommandContext): void {
  sessions
    .command('start')
    .requiredOption('--project <project_id>')
    .option('--body <file>', 'request body as JSON ("-" for stdin)')
    .option('--idempotency-key <key>')
    .option('--wait', 'wait until the first checkpoint is stored (the session waits, or has ended)')
    .addOption(new Option('--timeout <seconds>').argParser(integer('--timeout')).default(wait_max_seconds_default))
    .action(async (o: Any) => {
      const api = untyped(context.client());
      let session = unwrapAs<Any>(
        await api.POST('/v1/projects/{project_id}/authoring-sessions', {
          path: { project_id: o.project },
          body: o.body ? readJsonFile(o.body) : {},
          idempotencyKey: stepKey(o),
        }),
      );
      if (o.wait) {
        const id = session.id;
        const read = (poll: Poll) => readSession(context, id, poll);
        session = await waitFor(
          context.global(),
          `authoring session ${id}`,
          read,
          (v) => v.status,
          o.timeout,
          // A session stops for a person while it waits for answers, as well as when it ended.
          (v) => v.status === 'waiting' || jobEnded('authoring', v.status),
        );
      }
      reportSession(context, session);
    });
}

/** --answer QUESTION_ID=NUMBER pairs as the answers body. */
function answersBody(pairs: string[]): unknown {
  return {
    answers: pairs.map((pair) => {
      const at = pair.indexOf('=');
      const value = Number(pair.slice(at + 1));
      if (at < 1 || pair.slice(at + 1).trim() === '' || !Number.isFinite(value)) throw new UsageError(`--answer takes QUESTION_ID=NUMBER, got ${pair}`);
      return { question_id: pair.slice(0, at), value };
    }),
  };
}

function answer(sessions: Command, context: CommandContext): void {
  sessions
    .command('answer <session_id>')
    .description('Answer open questions with numbers: --answer QUESTION_ID=VALUE (repeatable) or --file answers.json')
    .option('--answer <id=value...>')
    .option('--file <file>', 'the answers body as JSON ("-" for stdin)')
    .option('--idempotency-key <key>')
    .action(async (session_id: string, o: Any) => {
      let body: unknown;
      if (o.file) body = readJsonFile(o.file);
      else if (o.answer) body = answersBody(o.answer);
      else throw new UsageError('--answer or --file is needed');
      await postStep(context, session_id, 'answers', () => body, o);
    });
}

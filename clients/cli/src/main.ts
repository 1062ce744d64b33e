#!/usr/bin/env node
// `crucible`: the command-line tool on @crucible/sdk. Every command takes --json (one JSON document on stdout for
// scripts); otherwise it prints human tables. Progress goes to stderr. Exit codes: `crucible help exit-codes`.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { Command, CommanderError, Option } from 'commander';
import ora from 'ora';
import { type ApiResult, type CrucibleClient, createCrucibleClient, SDK_VERSION, unwrap, unwrapAs } from '../../sdk/src/index.ts';
import { forgetStored, readStored, resolveBaseUrl, resolveToken, writeStored } from './credentials.ts';
import { AuthenticationError, EXIT, EXIT_CODES_HELP, errorExitCode, openQuestions, sessionExitCode, UsageError } from './exit.ts';
import { fields, printer, table } from './output.ts';
import { projectSourceIds } from './sources.ts';

type Any = Record<string, any>;
type Global = { url?: string; json?: boolean };

/** Polling: one read per second, at most this long (a --wait is explicit; the SDK never polls). */
const poll_interval_ms = 1000;
const wait_max_seconds_default = 1800;
const ENDED = ['succeeded', 'failed', 'canceled', 'timed_out'];

function clientFor(global: Global, require_token = true): CrucibleClient {
  const token = resolveToken();
  if (require_token && !token) throw new AuthenticationError('No token: set CRUCIBLE_TOKEN or run `crucible login`.');
  return createCrucibleClient({ baseUrl: resolveBaseUrl(global.url), getToken: () => token, userAgent: `crucible-cli/${SDK_VERSION}` });
}

/** Calls to paths the bundled document may not list yet (authoring sessions while they are in beta). */
type Untyped = (path: string, options?: Any) => Promise<ApiResult<unknown>>;
function untyped(client: CrucibleClient): { GET: Untyped; POST: Untyped } {
  return { GET: client.GET as unknown as Untyped, POST: client.POST as unknown as Untyped };
}

function readJsonFile(path: string): unknown {
  const text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

function integer(name: string) {
  return (value: string) => {
    if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number, got ${value}`);
    return Number(value);
  };
}

/** Waits for a workflow-backed resource to end, with a progress display on stderr (none with --json). */
async function waitFor(
  global: Global,
  what: string,
  read: () => Promise<Any>,
  describe: (value: Any) => string,
  timeout_seconds: number,
  done: (value: Any) => boolean = (value) => ENDED.includes(value.status),
): Promise<Any> {
  // --json keeps stderr free for scripts: no progress at all.
  const spinner = global.json ? null : ora({ text: `${what}: waiting`, stream: process.stderr });
  spinner?.start();
  const deadline = Date.now() + timeout_seconds * 1000;
  try {
    for (;;) {
      const value = await read();
      if (spinner) spinner.text = `${what}: ${describe(value)}`;
      if (done(value)) {
        if (!['failed', 'canceled', 'timed_out', 'expired'].includes(value.status)) spinner?.succeed(`${what}: ${describe(value)}`);
        else spinner?.fail(`${what}: ${describe(value)}`);
        return value;
      }
      if (Date.now() > deadline) throw new UsageError(`${what} did not end within ${timeout_seconds} s (--timeout); it goes on, read it again later.`);
      await delay(poll_interval_ms);
    }
  } catch (error) {
    if (spinner?.isSpinning) spinner.stop();
    throw error;
  }
}

function endedExit(value: Any): number {
  return value.status === 'succeeded' || value.status === 'timed_out' ? EXIT.ok : EXIT.api_error;
}

async function promptSecret(question: string): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError(`${question.trim()} is needed: pass it with a flag or on stdin (prompts appear only on a terminal).`);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // Never echo what is typed.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  process.stderr.write(question);
  const answer = await rl.question('');
  rl.close();
  process.stderr.write('\n');
  return answer.trim();
}

async function orgOf(client: CrucibleClient, flag: string | undefined): Promise<string> {
  if (flag) return flag;
  const stored = readStored().org_id;
  if (stored) return stored;
  const me = unwrapAs<Any>(await client.GET('/v1/me'));
  const org = me.memberships?.[0]?.org_id ?? me.org_id;
  if (!org) throw new UsageError('No organization: pass --org.');
  return org;
}

let exit_code: number = EXIT.ok;

export function buildProgram(): Command {
  const program = new Command('crucible')
    .description('Command-line tool for the Crucible API')
    .version(SDK_VERSION)
    .addOption(new Option('--url <base_url>', 'service base URL (or CRUCIBLE_URL)'))
    .option('--json', 'print one JSON document for scripts')
    .showHelpAfterError()
    .exitOverride();
  const g = (): Global => program.opts<Global>();
  const out = () => printer(Boolean(g().json));

  program.command('help-exit-codes', { hidden: true }).action(() => {
    process.stdout.write(EXIT_CODES_HELP);
  });

  // Sign-in and token storage.
  program
    .command('login')
    .description('Store a token (API token from --token-stdin, or a user session from email and password)')
    .option('--email <email>')
    .option('--password-stdin', 'read the password from stdin')
    .option('--token-stdin', 'read an API token from stdin')
    .option('--org <org_id>', 'default organization for later commands')
    .action(async (o: Any) => {
      const base_url = resolveBaseUrl(g().url);
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
      out().result({ stored: path, base_url }, () => `Signed in; token stored in ${path} (mode 0600).`);
    });
  program
    .command('logout')
    .description('Forget the stored token')
    .action(() => {
      forgetStored();
      out().result({ forgotten: true }, () => 'Stored token removed.');
    });
  program
    .command('whoami')
    .description('The signed-in user and memberships')
    .action(async () => {
      const me = unwrapAs<Any>(await clientFor(g()).GET('/v1/me'));
      out().result(me, () =>
        [
          fields([['user', me.user?.email ?? me.email ?? me.user_id]]),
          table(me.memberships ?? [], [
            { header: 'org', value: (m: Any) => m.org_id },
            { header: 'role', value: (m: Any) => m.role },
          ]),
        ].join('\n'),
      );
    });

  // Projects.
  const projects = program.command('projects').description('Projects');
  projects
    .command('list')
    .option('--org <org_id>')
    .action(async (o: Any) => {
      const client = clientFor(g());
      const page = unwrapAs<Any>(await client.GET('/v1/projects', { query: { org_id: await orgOf(client, o.org) } as never }));
      out().result(page, () =>
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
      const client = clientFor(g());
      const project = unwrap(
        await client.POST('/v1/projects', { body: { title: o.title, org_id: await orgOf(client, o.org) }, idempotencyKey: o.idempotencyKey }),
      );
      out().result(project, () =>
        fields([
          ['id', project.id],
          ['title', project.title],
          ['org', project.org_id],
        ]),
      );
    });
  projects.command('show <project_id>').action(async (id: string) => {
    const project = unwrap(await clientFor(g()).GET('/v1/projects/{project_id}', { path: { project_id: id } }));
    out().result(project, () => fields(Object.entries(project)));
  });

  // Intake: extract (files and stdin), draft, confirm.
  program
    .command('extract [files...]')
    .description('Read and screen text and files without AI; "-" (or no file) reads pasted text from stdin')
    .option('--project <project_id>')
    .option('--org <org_id>')
    .action(async (files: string[], o: Any) => {
      const client = clientFor(g());
      const form = new FormData();
      if (o.project) form.append('project_id', o.project);
      else form.append('org_id', await orgOf(client, o.org));
      const paths = files.length ? files : ['-'];
      for (const path of paths) {
        if (path === '-') form.append('text', readFileSync(0, 'utf8'));
        else form.append('files', new Blob([readFileSync(path)]), basename(path));
      }
      const extracted = unwrapAs<Any>(await client.POST('/v1/intakes/extract', { body: form }));
      out().result(extracted, () =>
        table(extracted.sources, [
          { header: 'source', value: (s: Any) => s.id },
          { header: 'name', value: (s: Any) => s.name ?? s.filename ?? s.kind },
          { header: 'status', value: (s: Any) => s.status },
          { header: 'findings', value: (s: Any) => (s.findings ?? []).length },
        ]),
      );
    });
  const intake = program.command('intake').description('Draft and confirm an IntakeSpec');
  intake
    .command('draft')
    .requiredOption('--project <project_id>')
    .option('--source <source_id...>', "processed sources to draft from (default: all of the project's processed sources, at most 50)")
    .option('--byok-provider <provider>')
    .option('--idempotency-key <key>')
    .option('--wait', 'wait for the draft to end, with progress on stderr')
    .option('--timeout <seconds>', 'with --wait', integer('--timeout'), wait_max_seconds_default)
    .action(async (o: Any) => {
      const client = clientFor(g());
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
        draft = await waitFor(
          g(),
          `intake draft ${id}`,
          async () => unwrapAs<Any>(await client.GET('/v1/intake-drafts/{draft_id}', { path: { draft_id: id } })),
          (d) => d.status,
          o.timeout,
        );
        exit_code = endedExit(draft);
      }
      out().result(draft, () =>
        fields([
          ['draft', draft.id],
          ['status', draft.status],
          ['credits used', draft.usage?.credits ?? draft.credits_used],
        ]),
      );
    });
  intake
    .command('show-draft <draft_id>')
    .option('--out <file>', 'write the drafted IntakeSpec to a file to correct it')
    .action(async (id: string, o: Any) => {
      const draft = unwrapAs<Any>(await clientFor(g()).GET('/v1/intake-drafts/{draft_id}', { path: { draft_id: id } }));
      if (o.out && draft.spec) writeFileSync(o.out, `${JSON.stringify(draft.spec, null, 2)}\n`);
      out().result(draft, () =>
        fields([
          ['draft', draft.id],
          ['status', draft.status],
          ['spec', o.out && draft.spec ? `written to ${o.out}` : draft.spec ? 'present (use --out)' : null],
        ]),
      );
    });
  intake.command('cancel-draft <draft_id>').action(async (id: string) => {
    const draft = unwrapAs<Any>(await clientFor(g()).POST('/v1/intake-drafts/{draft_id}/cancel', { path: { draft_id: id } }));
    out().result(draft, () =>
      fields([
        ['draft', draft.id],
        ['status', draft.status],
      ]),
    );
  });
  intake
    .command('confirm')
    .description('Confirm an IntakeSpec: a corrected draft (--spec FILE) or the draft unchanged (--draft ID)')
    .requiredOption('--project <project_id>')
    .option('--draft <draft_id>')
    .option('--spec <file>', 'an IntakeSpec JSON file, "-" for stdin')
    .option('--idempotency-key <key>')
    .action(async (o: Any) => {
      const client = clientFor(g());
      if (!o.draft && !o.spec) throw new UsageError('--draft or --spec is needed');
      let spec = o.spec ? readJsonFile(o.spec) : undefined;
      if (!spec) spec = unwrapAs<Any>(await client.GET('/v1/intake-drafts/{draft_id}', { path: { draft_id: o.draft } })).spec;
      const confirmed = unwrapAs<Any>(
        await client.POST('/v1/projects/{project_id}/intakes', {
          path: { project_id: o.project },
          body: { spec, ...(o.draft ? { draft_id: o.draft } : {}) } as never,
          idempotencyKey: o.idempotencyKey,
        }),
      );
      out().result(confirmed, () =>
        fields([
          ['revision', confirmed.revision],
          ['citations dropped', (confirmed.dropped_citations ?? confirmed.citations_dropped ?? []).length],
        ]),
      );
    });

  // Plan and approve.
  const plan = program.command('plan').description('Evaluation plans');
  plan
    .command('create')
    .requiredOption('--project <project_id>')
    .option('--idempotency-key <key>')
    .action(async (o: Any) => {
      const created = unwrapAs<Any>(
        await clientFor(g()).POST('/v1/projects/{project_id}/evaluation-plans', {
          path: { project_id: o.project },
          body: {} as never,
          idempotencyKey: o.idempotencyKey,
        }),
      );
      out().result(created, () =>
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
        await clientFor(g()).POST('/v1/projects/{project_id}/evaluation-plans/{plan_id}/approve', {
          path: { project_id: o.project, plan_id: o.plan },
          body: { scope: o.scope } as never,
        }),
      );
      out().result(approved, () => `Approved ${o.scope} on plan ${o.plan}.`);
    });

  // Review.
  const review = program.command('review').description('Concept and evidence reviews');
  const showReview = (r: Any) =>
    [
      fields([
        ['review', r.id],
        ['status', r.status],
        ['credits used', r.credits_used],
      ]),
      r.review?.dimensions
        ? table(r.review.dimensions, [
            { header: 'dimension', value: (d: Any) => d.name ?? d.key ?? d.id },
            { header: 'label', value: (d: Any) => d.label },
          ])
        : '',
    ]
      .filter(Boolean)
      .join('\n');
  review
    .command('start')
    .requiredOption('--project <project_id>')
    .requiredOption('--plan <plan_id>')
    .option('--byok-provider <provider>')
    .option('--idempotency-key <key>')
    .option('--wait', 'wait for the review to end, with progress on stderr')
    .option('--timeout <seconds>', 'with --wait', integer('--timeout'), wait_max_seconds_default)
    .action(async (o: Any) => {
      const client = clientFor(g());
      const body: Any = { plan_id: o.plan };
      if (o.byokProvider) body.byok_provider = o.byokProvider;
      let started = unwrapAs<Any>(
        await client.POST('/v1/projects/{project_id}/reviews', { path: { project_id: o.project }, body: body as never, idempotencyKey: o.idempotencyKey }),
      );
      if (o.wait) {
        const id = started.id;
        started = await waitFor(
          g(),
          `review ${id}`,
          async () => unwrapAs<Any>(await client.GET('/v1/reviews/{review_id}', { path: { review_id: id } })),
          (r) => r.status,
          o.timeout,
        );
        exit_code = endedExit(started);
      }
      out().result(started, () => showReview(started));
    });
  review
    .command('show <review_id>')
    .option('--wait', 'wait for it to end')
    .option('--timeout <seconds>', 'with --wait', integer('--timeout'), wait_max_seconds_default)
    .action(async (id: string, o: Any) => {
      const client = clientFor(g());
      const read = async () => unwrapAs<Any>(await client.GET('/v1/reviews/{review_id}', { path: { review_id: id } }));
      const value = o.wait ? await waitFor(g(), `review ${id}`, read, (r) => r.status, o.timeout) : await read();
      if (o.wait) exit_code = endedExit(value);
      out().result(value, () => showReview(value));
    });
  review.command('cancel <review_id>').action(async (review_id: string) => {
    const r = unwrapAs<Any>(await clientFor(g()).POST('/v1/reviews/{review_id}/cancel', { path: { review_id } }));
    out().result(r, () => showReview(r));
  });
  review
    .command('download <review_id>')
    .requiredOption('--out <file>')
    .action(async (id: string, o: Any) => {
      const file = unwrap(await clientFor(g()).GET('/v1/reviews/{review_id}/download', { path: { review_id: id }, parseAs: 'text' }));
      writeFileSync(o.out, file as string);
      out().result({ written: o.out }, () => `Review with its citation record written to ${o.out}.`);
    });

  // Worlds.
  const worlds = program.command('worlds').description('WorldSpecs: validate and save');
  worlds.command('validate <file>').action(async (file: string) => {
    const result = unwrapAs<Any>(await clientFor(g(), false).POST('/v1/world-specs/validate', { body: readJsonFile(file) as never }));
    if (!result.valid) exit_code = EXIT.api_error;
    out().result(result, () =>
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
        await clientFor(g()).POST('/v1/projects/{project_id}/worlds', { path: { project_id: o.project }, body: readJsonFile(file) as never }),
      );
      out().result(saved, () =>
        fields([
          ['world revision', saved.world_revision_id],
          ['revision', saved.revision],
        ]),
      );
    });

  // Runs.
  const runs = program.command('runs').description('World runs');
  const showRun = (r: Any) =>
    fields([
      ['run', r.run_id],
      ['status', r.status],
      ['replications', `${r.replications_completed ?? 0}/${r.replications_requested ?? '?'}`],
      ['credits used', r.credits_used],
      ['budget', r.budget_limit_credits],
    ]);
  runs
    .command('estimate')
    .requiredOption('--world-revision <world_revision_id>')
    .requiredOption('--budget <credits>', 'budget_limit_credits', integer('--budget'))
    .action(async (o: Any) => {
      const quote = unwrapAs<Any>(
        await clientFor(g()).POST('/v1/runs/estimate', { body: { world_revision_id: o.worldRevision, budget_limit_credits: o.budget } }),
      );
      out().result(quote, () =>
        [
          fields([
            ['runnable', quote.runnable],
            ['estimate', quote.credits_estimate],
            ['reserved', quote.reserved_credits],
            ['available', quote.available_credits],
          ]),
          quote.issues?.length ? table(quote.issues, [{ header: 'issue', value: (i: Any) => i.message ?? i }]) : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    });
  runs
    .command('create')
    .description('Run a world revision under an explicit credit budget')
    .requiredOption('--world-revision <world_revision_id>')
    .requiredOption('--budget <credits>', 'budget_limit_credits (explicit: no budget is chosen for you)', integer('--budget'))
    .option('--idempotency-key <key>')
    .option('--wait', 'wait for the run to end, with progress on stderr')
    .option('--timeout <seconds>', 'with --wait', integer('--timeout'), wait_max_seconds_default)
    .action(async (o: Any) => {
      const client = clientFor(g());
      let created = unwrapAs<Any>(
        await client.POST('/v1/runs', { body: { world_revision_id: o.worldRevision, budget_limit_credits: o.budget }, idempotencyKey: o.idempotencyKey }),
      );
      if (o.wait) {
        const run_id = created.run_id;
        created = await waitFor(
          g(),
          `run ${run_id}`,
          async () => unwrapAs<Any>(await client.GET('/v1/runs/{run_id}', { path: { run_id } })),
          (r) => `${r.status} ${r.replications_completed ?? 0}/${r.replications_requested ?? '?'} replications`,
          o.timeout,
        );
        exit_code = endedExit(created);
      }
      out().result(created, () => showRun(created));
    });
  runs.command('show <run_id>').action(async (run_id: string) => {
    const r = unwrapAs<Any>(await clientFor(g()).GET('/v1/runs/{run_id}', { path: { run_id } }));
    out().result(r, () => showRun(r));
  });
  runs.command('cancel <run_id>').action(async (run_id: string) => {
    const r = unwrapAs<Any>(await clientFor(g()).POST('/v1/runs/{run_id}/cancel', { path: { run_id } }));
    out().result(r, () => showRun(r));
  });
  runs.command('results <run_id>').action(async (run_id: string) => {
    const results = unwrapAs<Any>(await clientFor(g()).GET('/v1/runs/{run_id}/results', { path: { run_id } }));
    out().result(results, () =>
      [
        table(results.metrics ?? [], [
          { header: 'measure', value: (m: Any) => m.measure_id },
          { header: 'variant', value: (m: Any) => m.variant_id },
          { header: 'n', value: (m: Any) => m.n },
          { header: 'mean', value: (m: Any) => (typeof m.mean === 'number' ? Number(m.mean.toPrecision(4)) : m.mean) },
        ]),
        '',
        table(results.findings ?? [], [
          { header: 'finding', value: (f: Any) => f.statement ?? f.text ?? f.id },
          { header: 'label', value: (f: Any) => f.label },
        ]),
      ].join('\n'),
    );
  });
  runs.command('compare <run_id>').action(async (run_id: string) => {
    const compared = unwrapAs<Any>(await clientFor(g()).POST('/v1/experiments/compare', { body: { run_id } as never }));
    out().result(compared, () =>
      table(
        compared.metrics ?? [],
        Object.keys(compared.metrics?.[0] ?? {})
          .slice(0, 6)
          .map((k) => ({ header: k, value: (m: Any) => m[k] })),
      ),
    );
  });
  runs
    .command('export <run_id>')
    .description('Make a signed link and download the ZIP (the download sends no bearer credential)')
    .requiredOption('--out <file>')
    .action(async (run_id: string, o: Any) => {
      const client = clientFor(g());
      const link = unwrapAs<Any>(await client.POST('/v1/runs/{run_id}/export', { path: { run_id } }));
      const url = new URL(link.url, `${client.baseUrl}/`).toString();
      const response = await fetch(url);
      if (!response.ok) throw new UsageError(`export download failed: HTTP ${response.status}`);
      writeFileSync(o.out, new Uint8Array(await response.arrayBuffer()));
      out().result({ written: o.out, expires_at: link.expires_at }, () => `Run export written to ${o.out}.`);
    });

  // Authoring sessions (beta): exit 4 while a session waits for answers or approval (spec: Versioning).
  const sessions = program.command('sessions').description('Authoring sessions (beta); exit code 4 while one waits for answers or approval');
  const showSession = (s: Any) => {
    const next_steps: Any[] = Array.isArray(s.checkpoint?.next_steps) ? s.checkpoint.next_steps : [];
    return [
      fields([
        ['session', s.id],
        ['status', s.status],
        ['checkpoint', s.checkpoint?.number ?? '-'],
        ['open questions', openQuestions(s).length],
        ['accepts', (s.accepts ?? []).join(', ') || '-'],
        ['world revision', s.world_revision_id ?? '-'],
      ]),
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
  };
  const reportSession = (s: Any) => {
    exit_code = sessionExitCode(s);
    out().result(s, () => showSession(s));
    if (exit_code === EXIT.session_waiting) {
      out().note(
        openQuestions(s).length
          ? 'The session waits for answers: `crucible sessions answer` (exit code 4).'
          : 'The session waits for approval or a revision: `crucible sessions approve` (exit code 4).',
      );
    }
  };
  // A step's Idempotency-Key: give the same --idempotency-key to retry an ambiguous failure as the same step.
  const stepKey = (o: Any): string => o.idempotencyKey ?? `cli-${randomUUID()}`;
  const readSession = async (session_id: string) =>
    unwrapAs<Any>(await untyped(clientFor(g())).GET('/v1/authoring-sessions/{session_id}', { path: { session_id } }));
  sessions
    .command('start')
    .requiredOption('--project <project_id>')
    .option('--body <file>', 'request body as JSON ("-" for stdin)')
    .option('--idempotency-key <key>')
    .option('--wait', 'wait until the first checkpoint is stored (the session waits, or has ended)')
    .addOption(new Option('--timeout <seconds>').argParser(integer('--timeout')).default(wait_max_seconds_default))
    .action(async (o: Any) => {
      const api = untyped(clientFor(g()));
      let session = unwrapAs<Any>(
        await api.POST('/v1/projects/{project_id}/authoring-sessions', {
          path: { project_id: o.project },
          body: o.body ? readJsonFile(o.body) : {},
          idempotencyKey: stepKey(o),
        }),
      );
      if (o.wait) {
        const id = session.id;
        session = await waitFor(
          g(),
          `authoring session ${id}`,
          () => readSession(id),
          (v) => v.status,
          o.timeout,
          (v) => v.status !== 'drafting',
        );
      }
      reportSession(session);
    });
  sessions
    .command('list')
    .requiredOption('--project <project_id>')
    .action(async (o: Any) => {
      const page = unwrapAs<Any>(await untyped(clientFor(g())).GET('/v1/projects/{project_id}/authoring-sessions', { path: { project_id: o.project } }));
      out().result(page, () =>
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
        reportSession(await readSession(session_id));
      });
  }
  sessions
    .command('answer <session_id>')
    .description('Answer open questions with numbers: --answer QUESTION_ID=VALUE (repeatable) or --file answers.json')
    .option('--answer <id=value...>')
    .option('--file <file>', 'the answers body as JSON ("-" for stdin)')
    .option('--idempotency-key <key>')
    .action(async (session_id: string, o: Any) => {
      let body: unknown;
      if (o.file) body = readJsonFile(o.file);
      else if (o.answer) {
        body = {
          answers: (o.answer as string[]).map((pair) => {
            const at = pair.indexOf('=');
            const value = Number(pair.slice(at + 1));
            if (at < 1 || pair.slice(at + 1).trim() === '' || !Number.isFinite(value)) throw new UsageError(`--answer takes QUESTION_ID=NUMBER, got ${pair}`);
            return { question_id: pair.slice(0, at), value };
          }),
        };
      } else throw new UsageError('--answer or --file is needed');
      reportSession(
        unwrapAs<Any>(
          await untyped(clientFor(g())).POST('/v1/authoring-sessions/{session_id}/answers', { path: { session_id }, body, idempotencyKey: stepKey(o) }),
        ),
      );
    });
  sessions
    .command('revise <session_id>')
    .option('--body <file>', 'request body as JSON ("-" for stdin)')
    .option('--idempotency-key <key>')
    .action(async (session_id: string, o: Any) => {
      reportSession(
        unwrapAs<Any>(
          await untyped(clientFor(g())).POST('/v1/authoring-sessions/{session_id}/revise', {
            path: { session_id },
            body: o.body ? readJsonFile(o.body) : {},
            idempotencyKey: stepKey(o),
          }),
        ),
      );
    });
  sessions
    .command('approve <session_id>')
    .option('--idempotency-key <key>')
    .action(async (session_id: string, o: Any) => {
      reportSession(
        unwrapAs<Any>(
          await untyped(clientFor(g())).POST('/v1/authoring-sessions/{session_id}/approve', { path: { session_id }, body: {}, idempotencyKey: stepKey(o) }),
        ),
      );
    });

  // Credits and ledger.
  program
    .command('credits')
    .option('--org <org_id>')
    .action(async (o: Any) => {
      const client = clientFor(g());
      const org_id = await orgOf(client, o.org);
      const credits = unwrapAs<Any>(await client.GET('/v1/orgs/{org_id}/credits', { path: { org_id } }));
      out().result(credits, () => fields(Object.entries(credits).filter(([, v]) => typeof v !== 'object')));
    });
  program
    .command('ledger')
    .option('--org <org_id>')
    .option('--limit <n>', '1 to 200', integer('--limit'))
    .option('--offset <n>', 'rows to skip', integer('--offset'))
    .action(async (o: Any) => {
      const client = clientFor(g());
      const org_id = await orgOf(client, o.org);
      const page = unwrapAs<Any>(await client.GET('/v1/orgs/{org_id}/ledger', { path: { org_id }, query: { limit: o.limit, offset: o.offset } as never }));
      out().result(page, () =>
        table(page.data ?? [], [
          { header: 'entry', value: (e: Any) => e.id },
          { header: 'kind', value: (e: Any) => e.kind ?? e.type },
          { header: 'credits', value: (e: Any) => e.credits ?? e.amount },
          { header: 'at', value: (e: Any) => e.created_at },
        ]),
      );
    });

  // Provider keys.
  const keys = program.command('provider-keys').description("The organization's own AI provider keys");
  keys
    .command('list')
    .option('--org <org_id>')
    .action(async (o: Any) => {
      const client = clientFor(g());
      const page = unwrapAs<Any>(await client.GET('/v1/orgs/{org_id}/provider-keys', { path: { org_id: await orgOf(client, o.org) } }));
      out().result(page, () =>
        table(page.data ?? [], [
          { header: 'key', value: (k: Any) => k.id },
          { header: 'provider', value: (k: Any) => k.provider },
          { header: 'label', value: (k: Any) => k.label },
          { header: 'last four', value: (k: Any) => k.last_four ?? k.last4 },
        ]),
      );
    });
  keys
    .command('add')
    .description('Store a key; it is read from stdin (or prompted on a terminal) and never echoed')
    .requiredOption('--provider <provider>')
    .requiredOption('--label <label>')
    .option('--org <org_id>')
    .option('--idempotency-key <key>')
    .action(async (o: Any) => {
      const client = clientFor(g());
      const api_key = process.stdin.isTTY ? await promptSecret('API key: ') : readFileSync(0, 'utf8').trim();
      const created = unwrapAs<Any>(
        await client.POST('/v1/orgs/{org_id}/provider-keys', {
          path: { org_id: await orgOf(client, o.org) },
          body: { provider: o.provider, label: o.label, api_key } as never,
          idempotencyKey: o.idempotencyKey,
        }),
      );
      out().result(created, () =>
        fields([
          ['key', created.id],
          ['provider', created.provider],
          ['label', created.label],
        ]),
      );
    });
  keys
    .command('revoke <key_id>')
    .option('--org <org_id>')
    .action(async (key_id: string, o: Any) => {
      const client = clientFor(g());
      unwrap(await client.DELETE('/v1/orgs/{org_id}/provider-keys/{key_id}', { path: { org_id: await orgOf(client, o.org), key_id } }));
      out().result({ revoked: key_id }, () => `Revoked ${key_id}; its ciphertext is destroyed.`);
    });

  // The MCP server for assistants.
  program
    .command('mcp')
    .description('Serve the Model Context Protocol over stdio for your own assistant')
    .action(async () => {
      const { serveMcp } = await import('./mcp.ts');
      await serveMcp({ base_url: resolveBaseUrl(g().url), token: resolveToken() });
      exit_code = -1; // the server runs until stdin closes
    });

  program.addHelpText('after', '\nExit codes: crucible help exit-codes');
  return program;
}

function printError(error: unknown, json: boolean): void {
  const e = error as Any;
  if (json) {
    const body = e?.body ?? { code: e?.name ?? 'ERROR', message: e?.message ?? String(error) };
    process.stdout.write(`${JSON.stringify({ error: { status: e?.status ?? null, ...body } })}\n`);
  } else {
    const id = e?.request_id ? ` (request ${e.request_id})` : '';
    process.stderr.write(`crucible: ${e?.message ?? String(error)}${id}\n`);
  }
}

export async function main(argv: string[]): Promise<number> {
  exit_code = EXIT.ok;
  // `crucible help exit-codes` is the documented spelling.
  const args = argv[0] === 'help' && argv[1] === 'exit-codes' ? ['help-exit-codes'] : argv;
  const program = buildProgram();
  const json = args.includes('--json');
  try {
    await program.parseAsync(args, { from: 'user' });
    return exit_code;
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

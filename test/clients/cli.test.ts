// crucible, the CLI: the paragraph → review and sample world → run results walks with --json, an authoring session
// (exit 4 while it waits, 0 once approved), the error envelope with
// exit codes, token storage, and (in tmux, a real terminal) the progress display and the human tables.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectWithIntake } from '../support/authoring.ts';
import { VALID_NHS_NUMBER } from '../support/corpus.ts';
import { eventually } from '../support/harness.ts';
import { REPO_DIR, run, startClientWorld, temporaryDirectory, type ClientWorld } from './support.ts';

const CLI = join(REPO_DIR, 'clients', 'cli', 'src', 'main.ts');
const PARAGRAPH = [
  'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.',
  'Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.',
  'Intended users: heart failure nurses in community care.',
  'Stage: idea, nothing is built yet.',
].join('\n');

let world: ClientWorld;
let home: { path: string; remove(): void };
beforeAll(async () => {
  world = await startClientWorld('cli');
  home = temporaryDirectory('crucible-cli-home-');
}, 240_000);
afterAll(async () => {
  await world?.stop();
  home?.remove();
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { CRUCIBLE_URL: world.service.url, CRUCIBLE_TOKEN: world.token, XDG_CONFIG_HOME: home.path, ...extra };
}

async function crucible(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  const result = await run(process.execPath, [CLI, '--json', ...args], { env: options.env ?? env(), input: options.input });
  const last = result.stdout.trim().split('\n').at(-1);
  return { ...result, body: last ? JSON.parse(last) : null };
}

/** The CLI as a person runs it: human tables on stdout, messages on stderr. */
async function human(args: string[]) {
  return run(process.execPath, [CLI, ...args], { env: env() });
}

describe('the walks with --json', () => {
  it('goes from a pasted paragraph (stdin) to a finished, downloaded review', async () => {
    const project = await crucible(['projects', 'create', '--title', 'CLI walk', '--org', world.user.org_id, '--idempotency-key', 'cli-project']);
    expect(project.code, project.stderr).toBe(0);
    const project_id = project.body.id;
    const extracted = await crucible(['extract', '--project', project_id, '-'], { input: PARAGRAPH });
    expect(extracted.code, extracted.stderr).toBe(0);
    expect(extracted.body.sources[0].status).toBe('processed');
    const draft = await crucible(['intake', 'draft', '--project', project_id, '--source', extracted.body.sources[0].id, '--wait']);
    expect(draft.code, draft.stderr).toBe(0);
    expect(draft.body.status).toBe('succeeded');
    // --json prints no progress: stderr stays free of spinner frames.
    expect(draft.stderr).toBe('');
    const confirmed = await crucible(['intake', 'confirm', '--project', project_id, '--draft', draft.body.id]);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.body.revision).toBe(1);
    const plan = await crucible(['plan', 'create', '--project', project_id]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.body.plan.approvals_needed.map((a: { scope: string }) => a.scope)).toEqual(['hosted_inference']);
    const approved = await crucible(['plan', 'approve', '--project', project_id, '--plan', plan.body.id, '--scope', 'hosted_inference']);
    expect(approved.code, approved.stderr).toBe(0);
    const review = await crucible(['review', 'start', '--project', project_id, '--plan', plan.body.id, '--idempotency-key', 'cli-review', '--wait']);
    expect(review.code, review.stderr).toBe(0);
    expect(review.body.status).toBe('succeeded');
    expect(review.body.review.dimensions).toHaveLength(13);
    // As a person reads them: the draft's credits used, and every dimension's finding and evidence claim in its sentence.
    const draft_shown = await human(['intake', 'show-draft', draft.body.id]);
    expect(draft_shown.code, draft_shown.stderr).toBe(0);
    expect(draft_shown.stdout).toMatch(new RegExp(`^credits used +${draft.body.usage.credits_charged}$`, 'm'));
    const review_shown = await human(['review', 'show', review.body.id]);
    expect(review_shown.code, review_shown.stderr).toBe(0);
    expect(review_shown.stdout).toMatch(/^DIMENSION +LABEL +FINDING$/m);
    for (const dimension of review.body.review.dimensions) expect(review_shown.stdout).toContain(dimension.summary.replace(/\s+/g, ' ').trim());
    const claims = review.body.review.dimensions.flatMap((d: { evidence_claims: { claim: string }[] }) => d.evidence_claims);
    for (const claim of claims) expect(review_shown.stdout).toContain(claim.claim.replace(/\s+/g, ' ').trim());
    const file = join(home.path, 'review.json');
    const downloaded = await crucible(['review', 'download', review.body.id, '--out', file]);
    expect(downloaded.code, downloaded.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).citation_record.records).toHaveLength(5);
    const credits = await crucible(['ledger', '--org', world.user.org_id]);
    expect(credits.code).toBe(0);
    expect(credits.body.data.length).toBeGreaterThan(0);
  }, 300_000);

  it('goes from a sample world to run results, a comparison and an export', async () => {
    const project = await crucible(['projects', 'create', '--title', 'CLI runs', '--org', world.user.org_id]);
    const world_file = join(REPO_DIR, 'clients', 'sdk', 'resources', 'worlds', 'remote_monitoring_admissions.json');
    const valid = await crucible(['worlds', 'validate', world_file]);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.body.valid).toBe(true);
    const saved = await crucible(['worlds', 'save', world_file, '--project', project.body.id]);
    expect(saved.code, saved.stderr).toBe(0);
    const wrev = saved.body.world_revision_id;
    const quote = await crucible(['runs', 'estimate', '--world-revision', wrev, '--budget', '1000000']);
    expect(quote.body).toMatchObject({ runnable: true });
    const created = await crucible([
      'runs',
      'create',
      '--world-revision',
      wrev,
      '--budget',
      String(quote.body.credits_estimate * 2),
      '--idempotency-key',
      'cli-run',
      '--wait',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.body.status).toBe('succeeded');
    const results = await crucible(['runs', 'results', created.body.run_id]);
    expect(results.code).toBe(0);
    expect(results.body.findings.length).toBeGreaterThan(0);
    const compared = await crucible(['runs', 'compare', created.body.run_id]);
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.body.metrics.length).toBeGreaterThan(0);
    // The whole comparison table as a person reads it: one row a comparison, with both means, the difference and its interval.
    const table_shown = await human(['runs', 'compare', created.body.run_id]);
    expect(table_shown.code, table_shown.stderr).toBe(0);
    expect(table_shown.stdout).toMatch(/^MEASURE +BASELINE +TREATMENT +UNIT +MEAN BASELINE +MEAN TREATMENT +DIFFERENCE +95% INTERVAL +PAIRS$/m);
    for (const metric of compared.body.metrics) {
      const row = table_shown.stdout.split('\n').find((line) => line.startsWith(`${metric.measure_id} `) && line.includes(` ${metric.treatment_variant_id} `));
      expect(row, metric.measure_id).toBeDefined();
      expect(row).toContain(` to `);
      expect(row!.trimEnd().endsWith(` ${metric.n_pairs}`)).toBe(true);
    }
    expect(table_shown.stdout.split('\n').filter((line) => / to /.test(line))).toHaveLength(compared.body.metrics.length);
    const zip = join(home.path, 'export.zip');
    const exported = await crucible(['runs', 'export', created.body.run_id, '--out', zip]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(zip).subarray(0, 2).toString('latin1')).toBe('PK');
  }, 300_000);
});

describe('intake draft without --source', () => {
  it('drafts from every processed source of the project, never a quarantined one; a project with none is a usage error', async () => {
    const project = await crucible(['projects', 'create', '--title', 'CLI default sources', '--org', world.user.org_id]);
    const project_id = project.body.id;
    const empty = await crucible(['intake', 'draft', '--project', project_id]);
    expect(empty.code).toBe(2);
    expect(empty.body.error.message).toContain(`crucible extract --project ${project_id}`);

    const first = await crucible(['extract', '--project', project_id, '-'], { input: PARAGRAPH });
    const quarantined = await crucible(['extract', '--project', project_id, '-'], {
      input: `Patient NHS number ${VALID_NHS_NUMBER} was referred on the urgent pathway.`,
    });
    expect(quarantined.body.sources[0].status).toBe('excluded_for_privacy');
    const second = await crucible(['extract', '--project', project_id, '-'], { input: 'Stage: idea, nothing is built yet.' });
    const draft = await crucible(['intake', 'draft', '--project', project_id, '--wait']);
    expect(draft.code, draft.stderr).toBe(0);
    expect(draft.body).toMatchObject({ status: 'succeeded', source_ids: [first.body.sources[0].id, second.body.sources[0].id], skipped_source_ids: [] });
    // Another project's material is not this project's.
    const other = await crucible(['projects', 'create', '--title', 'CLI other', '--org', world.user.org_id]);
    expect((await crucible(['intake', 'draft', '--project', other.body.id])).code).toBe(2);
  }, 300_000);
});

describe('an authoring session with --json', () => {
  it('exits 4 while the session waits for answers or approval and 0 once it is approved', async () => {
    const project_id = await projectWithIntake(world.service, world.user);
    const started = await crucible(['sessions', 'start', '--project', project_id, '--wait', '--idempotency-key', 'cli-session']);
    expect(started.code, started.stderr).toBe(4);
    expect(started.body.status).toBe('waiting');
    const questions = started.body.checkpoint.questions;
    expect(questions.map((q: { slot: string }) => q.slot).sort()).toEqual(['arrival_rate', 'mean_service', 'servers', 'treatment.mean_service']);
    expect(started.stderr).toBe(''); // --json: no progress, no note

    const asked = await crucible(['sessions', 'questions', started.body.id]);
    expect(asked.code).toBe(4);
    expect(asked.body.checkpoint.number).toBe(1);

    // As a person reads it: each of the drafted world's problems with its message.
    const problems = asked.body.checkpoint.validation.problems;
    expect(problems.length).toBeGreaterThan(0);
    const session_shown = await human(['sessions', 'show', started.body.id]);
    expect(session_shown.code).toBe(4);
    expect(session_shown.stdout).toMatch(/^PROBLEM +WHERE +MESSAGE$/m);
    for (const problem of problems) expect(session_shown.stdout).toContain(problem.message.replace(/\s+/g, ' ').trim());

    const usage = await crucible(['sessions', 'answer', started.body.id, '--answer', `${questions[0].id}=many`]);
    expect(usage.code).toBe(2);

    const values: Record<string, number> = { arrival_rate: 4, mean_service: 20, servers: 2, 'treatment.mean_service': 12 };
    const pairs = questions.flatMap((q: { id: string; slot: string }) => ['--answer', `${q.id}=${values[q.slot]}`]);
    const answered = await crucible(['sessions', 'answer', started.body.id, ...pairs, '--idempotency-key', 'cli-answers']);
    // Every question answered: the session still waits, now for an approval.
    expect(answered.code, answered.stderr).toBe(4);
    expect(answered.body.checkpoint.number).toBe(2);
    expect(answered.body.checkpoint.questions).toEqual([]);
    expect(answered.body.accepts).toEqual(['revise', 'approve']);
    // The same step again (same key): the same checkpoint, not a new one.
    const again = await crucible(['sessions', 'answer', started.body.id, ...pairs, '--idempotency-key', 'cli-answers']);
    expect(again.code).toBe(4);
    expect(again.body.checkpoint.number).toBe(2);
    // An answer while nothing is asked: the API's 409, exit 1.
    const refused = await crucible(['sessions', 'answer', started.body.id, ...pairs]);
    expect(refused.code).toBe(1);
    expect(refused.body.error).toMatchObject({ status: 409, code: 'CONFLICT' });

    const approved = await crucible(['sessions', 'approve', started.body.id]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.body.status).toBe('approved');
    expect(approved.body.world_revision_id).toMatch(/^wrev_/);
    const shown = await crucible(['sessions', 'show', started.body.id]);
    expect(shown.code).toBe(0);
    const listed = await crucible(['sessions', 'list', '--project', project_id]);
    expect(listed.code).toBe(0);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([started.body.id]);
  }, 300_000);
});

describe('errors and exit codes', () => {
  it('prints the envelope for a 404, a 409 and a 422, exiting 1; 401 exits 3; a usage error exits 2; no service exits 5', async () => {
    const missing = await crucible(['projects', 'show', 'proj_doesnotexist']);
    expect(missing.code).toBe(1);
    expect(missing.body.error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(missing.body.error.request_id).toMatch(/\S/);

    const project = await crucible(['projects', 'create', '--title', 'errors', '--org', world.user.org_id]);
    const extracted = await crucible(['extract', '--project', project.body.id], { input: 'An idea about triage.' });
    expect(extracted.code, extracted.stderr).toBe(0);
    const draft = await crucible(['intake', 'draft', '--project', project.body.id, '--source', extracted.body.sources[0].id, '--wait']);
    expect(draft.body.status, draft.stdout).toBe('succeeded');
    // Canceling a draft that already ended is a conflict.
    const conflict = await crucible(['intake', 'cancel-draft', draft.body.id]);
    expect(conflict.code).toBe(1);
    expect(conflict.body.error).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(conflict.body.error.message).toMatch(/already ended/);
    // As a person reads it: one plain line, not the envelope.
    const conflict_shown = await human(['intake', 'cancel-draft', draft.body.id]);
    expect(conflict_shown.code).toBe(1);
    expect(conflict_shown.stderr.trim().split('\n')).toHaveLength(1);
    expect(conflict_shown.stderr).toMatch(/^crucible: .*already ended.* Nothing changed\. \(CONFLICT, request \S+\)$/m);
    expect(conflict_shown.stderr).not.toContain('{');
    // A failed job's code and message: a run canceled by request says CANCELED with its sentence.
    const world_file = join(REPO_DIR, 'clients', 'sdk', 'resources', 'worlds', 'gp_triage_digital_front_door.json');
    const saved = await crucible(['worlds', 'save', world_file, '--project', project.body.id]);
    const quote = await crucible(['runs', 'estimate', '--world-revision', saved.body.world_revision_id, '--budget', '1000000']);
    const started_run = await crucible(['runs', 'create', '--world-revision', saved.body.world_revision_id, '--budget', String(quote.body.credits_estimate)]);
    expect(started_run.code, started_run.stderr).toBe(0);
    await crucible(['runs', 'cancel', started_run.body.run_id]);
    const canceled = await crucible(['runs', 'show', started_run.body.run_id]);
    if (canceled.body.status === 'canceled') {
      expect(canceled.body.failure).toMatchObject({ code: 'CANCELED' });
      const run_shown = await human(['runs', 'show', started_run.body.run_id]);
      expect(run_shown.stdout).toMatch(new RegExp(`^failure +CANCELED: ${canceled.body.failure.message}$`, 'm'));
    } else {
      // The run ended before the cancel reached it: a succeeded run shows no failure line.
      expect(canceled.body.status).toBe('succeeded');
      expect((await human(['runs', 'show', started_run.body.run_id])).stdout).not.toMatch(/^failure/m);
    }

    const invalid = await crucible(['worlds', 'save', join(REPO_DIR, 'package.json'), '--project', project.body.id]);
    expect(invalid.code).toBe(1);
    expect(invalid.body.error).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    expect(invalid.body.error.details).toBeDefined();

    const unauthenticated = await crucible(['projects', 'list', '--org', world.user.org_id], { env: env({ CRUCIBLE_TOKEN: 'cru.tok_nope.nope' }) });
    expect(unauthenticated.code).toBe(3);
    expect(unauthenticated.body.error.status).toBe(401);

    const usage = await crucible(['runs', 'create', '--world-revision', 'wrev_x', '--budget', 'lots']);
    expect(usage.code).toBe(2);

    const unreachable = await crucible(['projects', 'list', '--org', world.user.org_id], { env: env({ CRUCIBLE_URL: 'http://127.0.0.1:9' }) });
    expect(unreachable.code).toBe(5);

    const help = await run(process.execPath, [CLI, 'help', 'exit-codes']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}4 {2}input or approval needed/m);
  }, 300_000);

  it('stores a token from stdin in a 0600 file under XDG_CONFIG_HOME, never printing it, and uses it', async () => {
    const stored_env = { CRUCIBLE_URL: world.service.url, XDG_CONFIG_HOME: home.path, CRUCIBLE_TOKEN: '' };
    const login = await crucible(['login', '--token-stdin', '--org', world.user.org_id], { input: `${world.token}\n`, env: stored_env });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout + login.stderr).not.toContain(world.token);
    const path = join(home.path, 'crucible', 'credentials.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const listed = await crucible(['projects', 'list'], { env: stored_env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.body.data.length).toBeGreaterThan(0);
    const out = await crucible(['logout'], { env: stored_env });
    expect(out.code).toBe(0);
    expect((await crucible(['projects', 'list'], { env: stored_env })).code).toBe(3);
  });
});

describe('names stored before names were checked', () => {
  it('prints a project title holding ESC, OSC, CR, LF and U+202E without any of them: human table and --json', async () => {
    // Stored directly, as a title saved before the API refused such characters would be.
    const forged = 'Budget\u001b[2K\r\u001b]0;owned\u0007\nproj_fake  Forged line\u202egnp.exe\u009b31m';
    await world.service.db.query('insert into projects (id, org_id, title, created_by) values (?, ?, ?, ?)', [
      `proj_legacy${Date.now().toString(36)}`,
      world.user.org_id,
      forged,
      world.user.user_id,
    ]);
    const human = await run(process.execPath, [CLI, 'projects', 'list', '--org', world.user.org_id], { env: env() });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    // the title stays on its own table line: no forged row starts with an id
    const line = human.stdout.split('\n').find((l) => l.includes('Budget'));
    expect(line).toContain('Forged line');
    expect(human.stdout.split('\n').filter((l) => l.startsWith('proj_fake'))).toEqual([]);
    const json = await crucible(['projects', 'list', '--org', world.user.org_id]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    // --json still carries the title as stored, escaped
    expect(json.body.data.map((p: { title: string }) => p.title)).toContain(forged);
  });
});

describe('in a terminal (tmux)', () => {
  it('shows the progress display while a run is awaited, then human tables', async () => {
    const project = await crucible(['projects', 'create', '--title', 'CLI terminal', '--org', world.user.org_id]);
    const world_file = join(REPO_DIR, 'clients', 'sdk', 'resources', 'worlds', 'gp_triage_digital_front_door.json');
    const saved = await crucible(['worlds', 'save', world_file, '--project', project.body.id]);
    const quote = await crucible(['runs', 'estimate', '--world-revision', saved.body.world_revision_id, '--budget', '1000000']);
    const session = `crucible-${process.pid}`;
    const script = join(home.path, 'terminal.sh');
    writeFileSync(
      script,
      [
        `export CRUCIBLE_URL='${world.service.url}' CRUCIBLE_TOKEN='${world.token}' XDG_CONFIG_HOME='${home.path}'`,
        `'${process.execPath}' '${CLI}' runs create --world-revision ${saved.body.world_revision_id} --budget ${quote.body.credits_estimate * 2} --wait`,
        `'${process.execPath}' '${CLI}' projects list --org ${world.user.org_id}`,
        'echo "exit=$?"',
        'sleep 600',
      ].join('\n'),
    );
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '50', `bash ${script}`]);
    try {
      const screen = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
      // The spinner line while waiting (ora's frames are braille dots), or its final mark once the run ended.
      const seen = await eventually(
        async () => {
          const text = screen();
          return /run run_[0-9a-z]+: /.test(text) ? text : null;
        },
        60_000,
        'the progress line',
      );
      expect(seen).toMatch(/run run_[0-9a-z]+: (waiting|queued|running|succeeded)/);
      const done = await eventually(
        async () => {
          const text = screen();
          return text.includes('exit=0') ? text : null;
        },
        120_000,
        'the commands to end',
      );
      expect(done).toMatch(/✔ run run_[0-9a-z]+: succeeded/);
      expect(done).toMatch(/^run +run_[0-9a-z]+$/m);
      expect(done).toMatch(/^ID +TITLE +CREATED$/m);
      expect(done).toMatch(/^-+ +-+ +-+$/m);
      expect(done).toContain('CLI terminal');
    } finally {
      execFileSync('tmux', ['kill-session', '-t', session]);
    }
  }, 300_000);
});

// The README's shell blocks run as written — bash, curl, jq and `npm run operator` — against `crucible-server start`
// on embedded defaults with a fake Europe PMC. Only the placeholders a reader fills in are replaced: the API address,
// `<password>` / `<printed password>` and `org_…`. Not run: the set-up commands (`npm install && npm start`, which this
// test is) and the PostgreSQL deployment block, which starts long-running processes against an external Temporal.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { freePort } from '../../runtime/temporal.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { eventually } from '../support/harness.ts';
import { type Launched, launch, stopped } from '../support/processes.ts';
import { fiveLiteratureRecords } from '../support/reviewFixtures.ts';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
const README_URL = 'http://127.0.0.1:8080';

/** The README's ```sh blocks, in order. */
function readmeBlocks(): string[] {
  const text = readFileSync(join(repo, 'README.md'), 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

function blockContaining(blocks: string[], needle: string): string {
  const found = blocks.filter((block) => block.includes(needle));
  if (found.length !== 1) throw new Error(`expected one README block containing ${JSON.stringify(needle)}, found ${found.length}`);
  return found[0]!;
}

let pmc: FakeEuropePmc;
let service: Launched;
let url: string;
let dataDir: string;
let cwd: string;
let admin_password: string;

beforeAll(async () => {
  pmc = await startFakeEuropePmc(fiveLiteratureRecords());
  dataDir = mkdtempSync(join(tmpdir(), 'crucible-readme-data-'));
  // The walk writes idea.txt, intake.json, the downloaded review and run.zip where it runs: a scratch directory that
  // looks like the repository (every top-level entry linked), so `npm run` and `samples/…` work as in a clone.
  cwd = mkdtempSync(join(tmpdir(), 'crucible-readme-'));
  for (const entry of readdirSync(repo)) if (!entry.startsWith('.')) symlinkSync(join(repo, entry), join(cwd, entry));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CRUCIBLE_DATA_DIR: dataDir,
    PORT: String(port),
    CRUCIBLE_TEMPORAL_UI_PORT: String(await freePort()),
    CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url,
  };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  service = launch(['runtime/cli.ts', 'start'], env, { cwd: repo });
  const { child, output } = service;
  await eventually(async () => output().includes('Press Ctrl+C to stop.') || child.exitCode !== null, 180_000, 'the service to start');
  expect(child.exitCode, output()).toBeNull();
  admin_password = /password: (\S+)/.exec(service.output())![1]!;
  await eventually(
    async () => {
      const health = (await (await fetch(`${url}/v1/health`)).json()) as { checks: Record<string, { ok: boolean }> };
      return health.checks.worker?.ok === true;
    },
    60_000,
    'the worker to poll',
  );
}, 240_000);

afterAll(async () => {
  if (service) await stopped(service.child);
  await pmc?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

/** Runs shell text in bash in the scratch directory, with the placeholders filled in; stdout and stderr together. */
async function bash(script: string, fill: Record<string, string>): Promise<string> {
  let filled = script.replaceAll(README_URL, url);
  for (const [placeholder, value] of Object.entries(fill)) filled = filled.replaceAll(placeholder, value);
  const env: NodeJS.ProcessEnv = { ...process.env, CRUCIBLE_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  try {
    const { stdout, stderr } = await run('bash', ['-o', 'pipefail', '-c', filled], { cwd, env, timeout: 300_000, maxBuffer: 32 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    throw new Error(`the README block failed (exit ${failed.code}):\n${filled}\n--- output ---\n${failed.stdout}${failed.stderr}`);
  }
}

/** Splits joined output at the markers `echo "::N::"` put between blocks. */
function sections(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text
    .split(/^::(\w+)::$/m)
    .slice(1)
    .reduce<string[][]>((pairs, item, index) => {
      if (index % 2 === 0) pairs.push([item]);
      else pairs[pairs.length - 1]!.push(item);
      return pairs;
    }, [])) {
    out[part[0]!] = part[1] ?? '';
  }
  return out;
}

describe("the README's shell blocks", () => {
  it('bootstrap a user, sign in, create an API token and a project with it', async () => {
    const block = blockContaining(readmeBlocks(), 'bootstrap --email you@example.org');
    const [bootstrap, ...rest] = block.split('\n\n');
    const created = JSON.parse((await bash(bootstrap!, {})).trim().split('\n').at(-1)!) as { password: string; org_id: string };
    expect(created).toMatchObject({ email: 'you@example.org', org_id: expect.stringMatching(/^org_/) });
    const printed = await bash(`${rest.join('\n\n')}`, { '<password>': created.password, 'org_…': created.org_id });
    const project = JSON.parse(printed.trim().split('\n').at(-1)!);
    expect(project).toMatchObject({ id: expect.stringMatching(/^proj_/), title: 'Virtual ward triage', org_id: created.org_id });
  }, 120_000);

  it('walk from credits and sign-in to a downloaded review, then a simulated pathway, its export, and a long-poll', async () => {
    const blocks = readmeBlocks();
    const token = (
      (await await fetch(`${url}/v1/auth/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@localhost.localdomain', password: admin_password }),
      }).then((r) => r.json())) as { token: string }
    ).token;
    const me = (await (await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { memberships: Array<{ org_id: string }> };
    const admin_org = me.memberships[0]!.org_id;
    const walk = [
      ['signin', blockContaining(blocks, 'grant-credits --org')],
      ['project', blockContaining(blocks, 'PROJECT=$(')],
      ['extract', blockContaining(blocks, 'cat > idea.txt')],
      ['draft', blockContaining(blocks, '/intakes/parse')],
      ['confirm', blockContaining(blocks, '--slurpfile spec intake.json')],
      ['plan', blockContaining(blocks, 'PLAN=$(curl')],
      ['approve', blockContaining(blocks, '/approve ')],
      ['review', blockContaining(blocks, 'REVIEW=$(')],
      ['read', blockContaining(blocks, '.review.evidence_summary')],
      ['download', blockContaining(blocks, '/download')],
      ['simulate', blockContaining(blocks, '/v1/world-specs/validate')],
      ['poll', blockContaining(blocks, '?wait=25')],
    ] as const;
    const script = walk.map(([name, block]) => `echo "::${name}::"\n${block}`).join('\n');
    const printed = await bash(script, { '<printed password>': admin_password, 'org_…': admin_org });
    const out = sections(printed);
    // what the blocks printed, shown when an assertion below fails
    onTestFailed(() => console.error(`--- the README walk printed ---\n${printed}`));

    // nothing the blocks ran complained (jq and curl write their errors to stderr, which is part of the output)
    expect(printed).not.toMatch(/jq: error|jq: \d+ compile error|curl: \(\d+\)|parse error/);
    expect(out.signin).toMatch(/credits: 1000/);
    expect(JSON.parse(readFileSync(join(cwd, 'intake.json'), 'utf8')).problem.text).toMatch(/heart failure/);
    expect(out.confirm).toMatch(/"revision": 1/);
    // the plan step prints each evaluation, then the approvals needed and the unknowns (never a bare null)
    expect(out.plan).toContain('"decision"');
    expect(out.plan).toContain('hosted_inference');
    expect(out.plan.split('\n').filter((line) => line.trim() === 'null')).toEqual([]);
    expect(out.approve).toContain('hosted_inference');
    expect(out.review!.trim().split('\n').at(-1)).toBe('succeeded');
    expect(out.read!.match(/"label": "ai_hypothesis"/g)).toHaveLength(13);
    expect(out.download).toMatch(/"status": "excluded"/);
    expect(out.download).toMatch(/"exclusion_reason": "retracted_publication"/);
    expect(out.simulate).toMatch(/"runnable": true/);
    expect(out.simulate).toMatch(/^succeeded$/m);
    expect(out.simulate).toMatch(/"replications_completed": [1-9]/);
    expect(readFileSync(join(cwd, 'run.zip')).subarray(0, 2).toString()).toBe('PK');
    expect(out.poll!.trim()).toBe('304');
  }, 600_000);
});

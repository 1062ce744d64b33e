// docs/clients.md, run as written: the CLI's documented start (`npx crucible` in the checkout, the alias to the pinned
// Node from anywhere) and every documented `crucible` command in order against a started service, with the ids filled
// in from the outputs as they come. The commands are read from the document itself, so the page cannot drift from the
// tool. The machine's own `node` on PATH is replaced by one that refuses to run: the documented start must not need it.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_DIR, run, startClientWorld, temporaryDirectory, type ClientWorld } from './support.ts';

const DOC = readFileSync(join(REPO_DIR, 'docs', 'clients.md'), 'utf8');
/** The ids a documented command may stand in for (`proj_…`), by prefix. */
const ID_PREFIXES = ['proj', 'drf', 'plan', 'rev', 'wrev', 'run', 'sess'] as const;
const MACHINE_NODE_REFUSES = 97;
/** The README walkthrough's paragraph. */
const IDEA = [
  'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.',
  'Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.',
  'Intended users: heart failure nurses in community care.',
  'Stage: idea, nothing is built yet.',
].join('\n');

/** The fenced blocks of one `## ` section of docs/clients.md, by language. */
function sectionBlocks(doc: string, heading: string, language: string): string[] {
  const start = doc.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`docs/clients.md has no section "## ${heading}"`);
  const next = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
}

type Step = { command: string; expected_exit: number };

/** Each documented line split at `&&` and ` ; ` into commands; a trailing "# exit N" comment sets the last one's code. */
function documentedSteps(block: string): Step[] {
  return block
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const hash = line.search(/\s#\s/);
      const code = hash < 0 ? line : line.slice(0, hash);
      const comment = hash < 0 ? '' : line.slice(hash);
      const exit = /^\s#\s*exit (\d)/.exec(comment);
      const parts = code.split(/\s&&\s|\s;\s/).map((part) => part.trim());
      return parts.map((command, index) => ({ command, expected_exit: index === parts.length - 1 && exit ? Number(exit[1]) : 0 }));
    });
}

/** A PATH without the project's node_modules/.bin, with a `node` first that refuses to run anything. */
function machinePath(fake_bin: string): string {
  const rest = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '' && !dir.includes('node_modules'));
  return [fake_bin, ...rest].join(delimiter);
}

let world: ClientWorld;
let work: { path: string; remove(): void };
beforeAll(async () => {
  world = await startClientWorld('documented');
  work = temporaryDirectory('crucible-documented-');
  mkdirSync(join(work.path, 'bin'));
  writeFileSync(join(work.path, 'bin', 'node'), `#!/bin/sh\necho "the machine's node was used" >&2\nexit ${MACHINE_NODE_REFUSES}\n`);
  chmodSync(join(work.path, 'bin', 'node'), 0o755);
}, 240_000);
afterAll(async () => {
  await world?.stop();
  work?.remove();
});

describe('the documented start of the CLI', () => {
  const [start] = sectionBlocks(DOC, '`crucible` (clients/cli)', 'sh');

  it('npx crucible runs inside the checkout on the pinned Node, whatever node the machine has', async () => {
    const line = start!.split('\n').find((l) => l.startsWith('npx crucible'))!;
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !dir.includes('node_modules'))
      .join(delimiter);
    const result = await run('bash', ['-c', line.replace(/\s#.*$/, '')], { cwd: REPO_DIR, env: { PATH: path } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: crucible /m);
  });

  it('the alias runs from any directory without the machine node', async () => {
    const alias = start!
      .split('\n')
      .find((l) => l.startsWith('alias crucible='))!
      .replace(/\s#.*$/, '');
    const script = `shopt -s expand_aliases\n${alias.replaceAll('/path/to/crucible', REPO_DIR)}\ncrucible --version\nnode --version\n`;
    const result = await run('bash', ['-c', script], { cwd: work.path, env: { PATH: machinePath(join(work.path, 'bin')) } });
    // The last line (`node --version`) proves the machine node on PATH is the refusing one.
    expect(result.code).toBe(MACHINE_NODE_REFUSES);
    expect(result.stdout.trim()).toBe('0.1.0');
  });
});

describe('every documented crucible command, in order', () => {
  it('runs as docs/clients.md shows it, each with the exit code the page gives', async () => {
    const [start, commands] = sectionBlocks(DOC, '`crucible` (clients/cli)', 'sh');
    const alias = start!
      .split('\n')
      .find((l) => l.startsWith('alias crucible='))!
      .replace(/\s#.*$/, '')
      .replaceAll('/path/to/crucible', REPO_DIR);
    const steps = documentedSteps(commands!);
    expect(steps.length).toBeGreaterThan(20);

    writeFileSync(join(work.path, 'idea.txt'), `${IDEA}\n`);
    writeFileSync(join(work.path, 'token.txt'), `${world.token}\n`);
    writeFileSync(join(work.path, 'key.txt'), `sk-documented-${'x'.repeat(40)}\n`);
    copyFileSync(join(REPO_DIR, 'samples', 'worlds', 'gp_triage_digital_front_door.json'), join(work.path, 'world.json'));
    const env = { PATH: machinePath(join(work.path, 'bin')), CRUCIBLE_URL: world.service.url, CRUCIBLE_TOKEN: '', XDG_CONFIG_HOME: join(work.path, 'config') };
    const ids: Record<string, string> = { org: world.user.org_id };

    for (const step of steps) {
      const command = step.command.replace(/\b(org|proj|drf|plan|rev|wrev|run|sess)_…/g, (_placeholder, prefix: string) => {
        if (!ids[prefix]) throw new Error(`${step.command}: no ${prefix}_ id has been printed by an earlier documented command`);
        return ids[prefix]!;
      });
      const result = await run('bash', ['-c', `shopt -s expand_aliases\n${alias}\n${command}\n`], { cwd: work.path, env });
      expect(result.code, `${command}\n${result.stdout}\n${result.stderr}`).toBe(step.expected_exit);
      for (const prefix of ID_PREFIXES) {
        if (step.command.includes(`${prefix}_…`)) continue; // it reads that id; it does not make one
        const found = new RegExp(`(?<![0-9a-z_])${prefix}_[0-9a-z]+`).exec(result.stdout);
        if (found) ids[prefix] = found[0];
      }
    }

    // What the walk left behind: the files it wrote and the objects it made.
    expect(JSON.parse(readFileSync(join(work.path, 'review.json'), 'utf8')).citation_record.records.length).toBeGreaterThan(0);
    expect(readFileSync(join(work.path, 'run.zip')).subarray(0, 2).toString('latin1')).toBe('PK');
    const headers = { authorization: `Bearer ${world.token}` };
    const read = async (path: string): Promise<any> => (await fetch(`${world.service.url}${path}`, { headers })).json();
    const session = await read(`/v1/authoring-sessions/${ids.sess}`);
    expect(session).toMatchObject({ status: 'approved', world_revision_id: expect.stringMatching(/^wrev_/) });
    // `intake draft` without --source drafted from the project's one processed source: the pasted paragraph.
    const sources = await read(`/v1/intake-sources?org_id=${world.user.org_id}&project_id=${ids.proj}`);
    expect(sources.data.map((s: { status: string }) => s.status)).toEqual(['processed']);
    const draft = await read(`/v1/intake-drafts/${ids.drf}`);
    expect(draft).toMatchObject({ status: 'succeeded', source_ids: [sources.data[0].id], skipped_source_ids: [] });
    const keys = await read(`/v1/orgs/${world.user.org_id}/provider-keys`);
    expect(keys.data.map((key: { provider: string; label: string }) => [key.provider, key.label])).toContainEqual(['openai', 'ops']);
  }, 600_000);
});

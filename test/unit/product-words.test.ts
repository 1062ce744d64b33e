// The project's files speak of the product only: docs, comments and the CHANGELOG name what the service does and why,
// never the team's working history (a numbered session, a tracker issue, a branch, a machine path). Git keeps the
// history; a figure is dated and names its commit.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** What the team's history looks like in a file, each with what to write instead. */
const HISTORY_TALK: Array<{ pattern: RegExp; instead: string }> = [
  { pattern: /\bsessions? \d+\b/i, instead: 'a date and a commit, or nothing: git keeps the history' },
  { pattern: /\bissues? #?\d+\b/i, instead: 'what the change does; the tracker is not part of the product' },
  { pattern: /\b(?:on|in|from) (?:the |this )?branch `?[\w-]+`?/i, instead: 'the commit, or nothing' },
  { pattern: /\(branch `?[\w-]+`?\)/i, instead: 'the commit, or nothing' },
  { pattern: /\bworktrees?\b/i, instead: 'a checkout' },
  { pattern: /(?:^|[\s(`'"])\/(?:work|root|home)\/[\w.-]+/, instead: 'a path inside the project, or an environment variable' },
];

/** Files that are not prose or code of ours: recorded data, generated output, lockfiles, images. */
const SKIPPED = /^(?:test\/unit\/product-words\.test\.ts$|test\/fixtures\/|samples\/|docs\/screens\/)|(?:package-lock\.json|\.png|\.pdf|\.bin|\.ico)$/;

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((path) => path !== '' && !SKIPPED.test(path));
}

/** Each line of `text` that speaks of the team's history, with the rule it breaks. */
function historyTalk(text: string): Array<{ line: number; text: string; instead: string }> {
  const found: Array<{ line: number; text: string; instead: string }> = [];
  text.split('\n').forEach((line, index) => {
    for (const rule of HISTORY_TALK) {
      if (rule.pattern.test(line)) found.push({ line: index + 1, text: line.trim().slice(0, 160), instead: rule.instead });
    }
  });
  return found;
}

describe('project files speak of the product', () => {
  it('finds a planted session number, issue number, branch name and machine path', () => {
    const planted = [
      '// measured in session 4 on a quiet machine',
      '- **The edge** (issue 26): answers 401',
      'Figures on branch `perf2`, 2 cores.',
      'the bench ran from /work/main/bench',
      'a checkout of its own (a worktree)',
    ].join('\n');
    expect(historyTalk(planted).map((hit) => hit.line)).toEqual([1, 2, 3, 4, 5]);
  });

  it('leaves the product’s own words alone', () => {
    const product = [
      'An authoring session answers 404 to another organization.',
      'POST /v1/auth/sessions signs in; a session read is 33.2 % of hello-world.',
      'A run branches to a step by probability.',
      'Figures of 2026-11-28 on commit `1c43bdd`.',
    ].join('\n');
    expect(historyTalk(product)).toEqual([]);
  });

  it('no tracked doc, comment or changelog line names a session, an issue, a branch or a machine path', () => {
    const offenders: string[] = [];
    for (const path of trackedFiles()) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, path), 'utf8');
      } catch {
        continue; // listed by git but not in this checkout (a deleted file not yet staged)
      }
      if (text.includes('\u0000')) continue; // binary
      for (const hit of historyTalk(text)) offenders.push(`${path}:${hit.line}: ${hit.text} (write ${hit.instead})`);
    }
    expect(offenders).toEqual([]);
  });
});

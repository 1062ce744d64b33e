// `npm test` on a machine without the suite's system tools and no way to install them: it stops at once with one line
// naming the command to run (test/support/system-tools.ts). The tools are hidden by an empty PATH and a Chromium path
// that does not exist; without apt-get on that PATH nothing is installed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const emptyDir = mkdtempSync(join(tmpdir(), 'crucible-no-tools-'));
afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

describe("the suite's system tools", () => {
  it('stops at once with one line naming the command when they are missing and cannot be installed', () => {
    const result = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('./test/support/system-tools.ts'); m.default(); console.log('went on');"],
      {
        env: { HOME: process.env.HOME, PATH: emptyDir, CRUCIBLE_CHROMIUM: join(emptyDir, 'chromium') },
        encoding: 'utf8',
      },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).not.toContain('went on');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
    expect(lines[0]).toBe(
      `npm test needs system tools that are missing (chromium, tmux, jq, curl, python3, openssl); run: ${sudo}apt-get install -y chromium tmux jq curl python3 openssl (or set CRUCIBLE_CHROMIUM to a Chromium binary)`,
    );
  });
});

// The data directory is private: created 0700, and what an earlier version left readable by others is tightened at start.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { securePrivateDir } from '../../runtime/dataDir.ts';

const root = mkdtempSync(join(tmpdir(), 'crucible-data-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

describe('the private data directory', () => {
  it('creates a missing directory with mode 0700', () => {
    const dir = join(root, 'fresh', '.data');
    expect(securePrivateDir(dir)).toBe(0);
    expect(mode(dir)).toBe(0o700);
  });

  it('tightens a looser directory and every file and directory under it, and leaves symbolic links alone', () => {
    const dir = join(root, 'old');
    mkdirSync(join(dir, 'pg', 'base'), { recursive: true });
    writeFileSync(join(dir, 'master.key'), 'k');
    writeFileSync(join(dir, 'pg', 'base', '1'), 'rows');
    writeFileSync(join(dir, 'temporal.db'), 'db');
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'not ours');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dir, 'link'));
    for (const path of [dir, join(dir, 'pg'), join(dir, 'pg', 'base')]) chmodSync(path, 0o755);
    for (const path of [join(dir, 'master.key'), join(dir, 'pg', 'base', '1')]) chmodSync(path, 0o644);
    chmodSync(join(dir, 'temporal.db'), 0o600);
    expect(securePrivateDir(dir)).toBe(5);
    for (const path of [dir, join(dir, 'pg'), join(dir, 'pg', 'base')]) expect(mode(path)).toBe(0o700);
    for (const path of [join(dir, 'master.key'), join(dir, 'pg', 'base', '1'), join(dir, 'temporal.db')]) expect(mode(path)).toBe(0o600);
    expect(mode(outside)).toBe(0o644);
    expect(securePrivateDir(dir)).toBe(0); // once tightened, a second start has nothing to do
  });
});

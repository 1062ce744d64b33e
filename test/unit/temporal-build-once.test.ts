// The Go build of the Temporal CLI runs once per machine: parallel first runs wait for the one that builds, and a lock
// left by a builder that died is taken over.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { singleBuild } from '../../runtime/temporal.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function cacheDir(): { dir: string; cached: string } {
  const dir = mkdtempSync(join(tmpdir(), 'temporal-build-once-'));
  dirs.push(dir);
  return { dir, cached: join(dir, 'temporal') };
}

/** A stand-in for `go install`: once `ready` resolves, writes an executable into GOBIN, counting its calls. */
function fakeGo(calls: string[], ready: Promise<void> = Promise.resolve()): (bin: string) => Promise<void> {
  return async (bin) => {
    calls.push(bin);
    await ready;
    writeFileSync(join(bin, 'temporal'), '#!/bin/sh\necho fake\n');
    chmodSync(join(bin, 'temporal'), 0o755);
  };
}

describe('building the Temporal CLI once', () => {
  it('builds once for three callers at the same time, each getting the binary, and leaves no lock or build folder', async () => {
    const { dir, cached } = cacheDir();
    const calls: string[] = [];
    const said: string[] = [];
    // the build finishes only once both other callers said they wait for it
    let bothWaiting!: () => void;
    const ready = new Promise<void>((resolve) => {
      bothWaiting = resolve;
    });
    const say = (line: string) => {
      said.push(line);
      if (said.filter((l) => l.startsWith('waiting for process')).length === 2) bothWaiting();
    };
    const results = await Promise.all([0, 1, 2].map(() => singleBuild(dir, cached, say, fakeGo(calls, ready))));
    expect(calls).toHaveLength(1);
    expect(results).toEqual([cached, cached, cached]);
    expect(said.some((line) => line.startsWith(`waiting for process ${process.pid}`))).toBe(true);
    expect(readdirSync(dir)).toEqual(['temporal']);
  });

  it('takes over the lock of a builder that died, and builds', async () => {
    const { dir, cached } = cacheDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, 'build.lock'), dead.stdout);
    const calls: string[] = [];
    expect(await singleBuild(dir, cached, undefined, fakeGo(calls))).toBe(cached);
    expect(calls).toHaveLength(1);
    expect(existsSync(join(dir, 'build.lock'))).toBe(false);
  });

  it('takes over a lock that stayed empty (its taker died before writing its pid), not one just taken', async () => {
    const { dir, cached } = cacheDir();
    const lock = join(dir, 'build.lock');
    writeFileSync(lock, '');
    const minute_ago = new Date(Date.now() - 60_000);
    utimesSync(lock, minute_ago, minute_ago);
    const calls: string[] = [];
    expect(await singleBuild(dir, cached, undefined, fakeGo(calls))).toBe(cached);
    expect(calls).toHaveLength(1);

    const { dir: other, cached: other_cached } = cacheDir();
    writeFileSync(join(other, 'build.lock'), '');
    const waiting = singleBuild(other, other_cached, undefined, fakeGo(calls));
    // the fresh empty lock's holder writes its pid, builds and releases: the waiter then finds the binary
    writeFileSync(join(other, 'build.lock'), String(process.pid));
    await fakeGo([])(other);
    renameSync(join(other, 'temporal'), other_cached);
    rmSync(join(other, 'build.lock'));
    expect(await waiting).toBe(other_cached);
    expect(calls).toHaveLength(1);
  });

  it('releases the lock when the build fails, so the next caller can try again', async () => {
    const { dir, cached } = cacheDir();
    await expect(singleBuild(dir, cached, undefined, async () => Promise.reject(new Error('go: module lookup disabled')))).rejects.toThrow('module lookup');
    expect(readdirSync(dir)).toEqual([]);
    const calls: string[] = [];
    expect(await singleBuild(dir, cached, undefined, fakeGo(calls))).toBe(cached);
  });
});

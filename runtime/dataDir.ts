// The data directory holds private data: the generated secrets, PGlite's files (every password hash, quarantined
// sources), the Temporal dev server's database. It is the service user's alone: 0700, and nothing under it readable by
// group or others. Every service process sets its umask to 077 at start, so what it, PGlite and the dev server (a child,
// which inherits the umask) write next is 0600; what an earlier version left looser is tightened once at start.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Files 0600, directories 0700: no group or other bits (spec: Privacy; docs/deploy.md "Private data on disk"). */
export const PRIVATE_UMASK = 0o077;
const GROUP_OTHER_BITS = 0o077;
/** A bound on the walk: a data directory of PGlite and Temporal holds a few thousand entries. */
const PRIVATE_WALK_ENTRIES_MAX = 1_000_000;

/** Sets the process's umask so every file it (or a child) creates is private. Call first thing in an entrypoint. */
export function setPrivateUmask(): void {
  process.umask(PRIVATE_UMASK);
}

/**
 * Creates the data directory 0700, or tightens it when it exists looser, and removes group and other permissions from
 * everything under it (symbolic links are left alone: their targets are not ours to change). Answers how many entries
 * it tightened.
 */
export function securePrivateDir(dir: string): number {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let tightened = 0;
  let seen = 0;
  const tighten = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    seen += 1;
    if (seen > PRIVATE_WALK_ENTRIES_MAX)
      throw new Error(`the data directory ${dir} holds more than PRIVATE_WALK_ENTRIES_MAX (${PRIVATE_WALK_ENTRIES_MAX}) entries`);
    if ((stat.mode & GROUP_OTHER_BITS) !== 0) {
      chmodSync(path, stat.mode & 0o700);
      tightened += 1;
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) tighten(join(path, name));
  };
  tighten(dir);
  return tightened;
}

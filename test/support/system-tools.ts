// The suite's system tools (a vitest globalSetup, run before the Temporal one): the browser tests drive Chromium, the
// CLI's terminal test tmux, the Python client's tests python3, the README's shell blocks curl and jq, the TLS tests openssl (their throwaway certificates). On a fresh machine
// with only Node, PostgreSQL and npm's packages they are installed here with apt-get when this runs as root (as
// `npm run bench` does for its references); otherwise the run stops at once with one line naming the command to run.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { CHROMIUM_PATH } from './browser.ts';

/** Each tool, the Debian package that brings it, and how to tell it is there. */
export const SYSTEM_TOOLS = [
  { tool: 'chromium', package: 'chromium', present: () => existsSync(CHROMIUM_PATH) },
  { tool: 'tmux', package: 'tmux', present: () => onPath('tmux') },
  { tool: 'jq', package: 'jq', present: () => onPath('jq') },
  { tool: 'curl', package: 'curl', present: () => onPath('curl') },
  { tool: 'python3', package: 'python3', present: () => onPath('python3') },
  { tool: 'openssl', package: 'openssl', present: () => onPath('openssl') },
];

function onPath(command: string): boolean {
  return spawnSync('/bin/sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

const missingPackages = () => SYSTEM_TOOLS.filter((entry) => !entry.present()).map((entry) => entry.package);

function aptInstall(packages: string[]): void {
  process.stderr.write(`installing the test suite's system tools with apt-get: ${packages.join(' ')}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'inherit', 'inherit'], env });
  spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { stdio: ['ignore', 'inherit', 'inherit'], env });
}

export default function setup(): void {
  let missing = missingPackages();
  if (missing.length === 0) return;
  const root = process.getuid?.() === 0;
  if (root && onPath('apt-get')) {
    aptInstall(missing);
    missing = missingPackages();
    if (missing.length === 0) return;
  }
  const command = `${root ? '' : 'sudo '}apt-get install -y ${missing.join(' ')}`;
  const chromium = missing.includes('chromium') ? ' (or set CRUCIBLE_CHROMIUM to a Chromium binary)' : '';
  process.stderr.write(`npm test needs system tools that are missing (${missing.join(', ')}); run: ${command}${chromium}\n`);
  process.exit(1);
}

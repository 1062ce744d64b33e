// What every client test needs: the real service (PGlite, Temporal dev server, offline AI provider, fake Europe PMC),
// an owner with credits, and an API token with all three scopes, as a script author would have.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOperator } from '../../runtime/operator.ts';
import { type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { apiToken, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { fiveLiteratureRecords } from '../support/reviewFixtures.ts';

export const REPO_DIR = join(import.meta.dirname, '..', '..');

export type ClientWorld = { service: TestService; user: TestUser; token: string; stop(): Promise<void> };

export async function startClientWorld(label: string, credits = 1_000_000): Promise<ClientWorld> {
  const pmc: FakeEuropePmc = await startFakeEuropePmc(fiveLiteratureRecords());
  const service = await startTestService({ env: { CRUCIBLE_EUROPE_PMC_BASE_URL: pmc.base_url } });
  const user = await signedInOwner(service, label);
  await runOperator(service.db, { command: 'grant-credits', flags: { org: user.org_id, credits: String(credits), reason: label } });
  const token = await apiToken(service, user, ['read', 'write', 'run']);
  return {
    service,
    user,
    token,
    async stop() {
      await service.stop();
      await pmc.close();
    },
  };
}

export type Ran = { code: number; stdout: string; stderr: string };

/** Runs a program to its end (never throws on a nonzero exit: the code is what a test asserts). */
export function run(
  file: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string; timeout_ms?: number } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { cwd: options.cwd ?? REPO_DIR, env: { ...process.env, ...options.env }, timeout: options.timeout_ms ?? 280_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(Object.assign(error, { stdout, stderr }));
        else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

export function temporaryDirectory(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

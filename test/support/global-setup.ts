// One Temporal dev server and one workflow bundle for the whole test run, found by the same code `start` uses.
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { downloadedDevServer, findTemporalCli, startDevServer } from '../../runtime/temporal.ts';
import { fileURLToPath } from 'node:url';
import { bundleWorkflows } from '../../runtime/worker.ts';
import { ensureWebBuild } from '../../runtime/webBuild.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporal_address: string;
    temporal_cli: string;
    workflow_bundle_path: string;
  }
}

export default async function setup(project: TestProject) {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const cli = await findTemporalCli({ say });
  const dir = mkdtempSync(join(tmpdir(), 'crucible-bundle-'));
  const server = cli ? await startDevServer({ cli, ui_port: null }) : await downloadedDevServer({ db_file: join(dir, 'temporal.db'), say });
  // The production workflows plus the test-only ones (test/support/workflows/), which the production bundle leaves out.
  const bundle = await bundleWorkflows(fileURLToPath(new URL('./workflows/index.ts', import.meta.url)));
  // the browser tests load the built app from the service under test; built here once (no network), skipped when fresh
  await ensureWebBuild({ say });
  const path = join(dir, 'workflows.js');
  writeFileSync(path, bundle.code);
  project.provide('temporal_address', server.address);
  project.provide('temporal_cli', cli ?? 'downloaded by @temporalio/testing');
  project.provide('workflow_bundle_path', path);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

// The Python client (standard library only): its unittest suite runs against the live service — the walks, the error
// envelope for a 404, a 409 and a 422, retries only for GETs and keyed creates, and the calls its documents show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { REPO_DIR, run, startClientWorld, type ClientWorld } from './support.ts';

let world: ClientWorld;
beforeAll(async () => {
  world = await startClientWorld('python');
}, 240_000);
afterAll(async () => {
  await world?.stop();
});

describe('the Python client', () => {
  it('passes its unittest suite (python3 -m unittest) against the live service', async () => {
    const python = join(REPO_DIR, 'clients', 'python');
    const result = await run('python3', ['-m', 'unittest', 'discover', '-v', '-s', 'tests', '-t', '.'], {
      cwd: python,
      env: { CRUCIBLE_URL: world.service.url, CRUCIBLE_TOKEN: world.token, CRUCIBLE_ORG: world.user.org_id, PYTHONDONTWRITEBYTECODE: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^Ran 15 tests in /m);
    expect(result.stderr).toMatch(/^OK$/m);
    expect(result.stderr).toMatch(/test_paragraph_to_review .* ok/);
    expect(result.stderr).toMatch(/test_sample_world_to_run_results .* ok/);
    expect(result.stderr).toMatch(/test_errors_carry_the_envelope .* ok/);
    expect(result.stderr).toMatch(/test_authoring_session_to_world_revision .* ok/);
    // The documented calls: docs/clients.md's and the README's examples as written, every method they name.
    expect(result.stderr).toMatch(/test_the_example_in_docs_clients_md_runs_as_written .* ok/);
    expect(result.stderr).toMatch(/test_the_readme_example_runs_as_written .* ok/);
    expect(result.stderr).toMatch(/test_every_method_the_pages_name_exists_with_the_keywords_shown .* ok/);
  }, 300_000);
});

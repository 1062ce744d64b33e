// @crucible/sdk: generated types and bundled resources are current; the packed tarball (with its README) installs into
// a clean directory; the README's and docs/clients.md's examples and a TypeScript program on it type-check and run,
// walking paragraph → review and sample world → run results; errors carry the envelope (spec: Versioning, Errors).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrucibleApiError, CrucibleNetworkError, createCrucibleClient, unwrap } from '../../clients/sdk/src/index.ts';
import { REPO_DIR, run, startClientWorld, temporaryDirectory, type ClientWorld } from './support.ts';

const SDK_DIR = join(REPO_DIR, 'clients', 'sdk');
const NODE = process.execPath;
const TSC = join(REPO_DIR, 'node_modules', 'typescript', 'bin', 'tsc');

function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[relative(dir, join(entry.parentPath, entry.name))] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

/** The fenced TypeScript blocks of a Markdown text. */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** The SDK's section of docs/clients.md. */
function sdkSection(doc: string): string {
  const start = doc.indexOf('\n## `@crucible/sdk`');
  return doc.slice(start, doc.indexOf('\n## ', start + 1));
}

let world: ClientWorld;
beforeAll(async () => {
  world = await startClientWorld('sdk');
}, 240_000);
afterAll(async () => {
  await world?.stop();
});

describe('generated types and bundled resources', () => {
  it('match a fresh regeneration from the served API (run npm run clients:generate when this fails)', async () => {
    const out = temporaryDirectory('crucible-sdk-gen-');
    try {
      const generated = await run(NODE, [join(SDK_DIR, 'scripts', 'generate.ts'), '--out', out.path]);
      expect(generated.code, generated.stderr).toBe(0);
      for (const part of ['resources', join('src', 'generated')]) {
        const fresh = files(join(out.path, part));
        const committed = files(join(SDK_DIR, part));
        expect(Object.keys(committed).sort(), `${part}: files`).toEqual(Object.keys(fresh).sort());
        for (const [name, text] of Object.entries(fresh)) expect(committed[name], `${part}/${name} is stale`).toBe(text);
      }
      const python = readFileSync(join(REPO_DIR, 'clients', 'python', 'crucible', 'types_gen.py'), 'utf8');
      expect(python, 'clients/python/crucible/types_gen.py is stale').toBe(readFileSync(join(out.path, 'python', 'types_gen.py'), 'utf8'));
    } finally {
      out.remove();
    }
    // The regeneration is a child process that type-checks and formats the whole SDK: on a loaded 2-core machine it has
    // taken over the suite's 60 s default, so it gets its own limit (a bound on a hang, not a speed check).
  }, 180_000);

  it('bundle the OpenAPI document the running service serves', async () => {
    const served = (await (await fetch(`${world.service.url}/v1/openapi.json`)).json()) as Record<string, unknown>;
    const bundled = JSON.parse(readFileSync(join(SDK_DIR, 'resources', 'openapi.json'), 'utf8')) as Record<string, unknown>;
    expect(bundled).toEqual({ ...served, servers: [] });
    const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'resources', 'manifest.json'), 'utf8'));
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual(
      expect.arrayContaining([
        'openapi.json',
        'models.json',
        'prompts.json',
        'schemas/WorldSpec.json',
        'worlds/remote_monitoring_admissions.json',
        'guides/walkthrough.md',
      ]),
    );
    expect(manifest.files.filter((f: { path: string }) => f.path.startsWith('worlds/'))).toHaveLength(4);
  });

  it('bundle the tool registry the running service serves', async () => {
    const served = (await (await fetch(`${world.service.url}/v1/tools`)).json()) as { version: string; data: Array<{ name: string }> };
    const bundled = JSON.parse(readFileSync(join(SDK_DIR, 'resources', 'tools.json'), 'utf8'));
    expect(bundled).toEqual(served);
    expect(bundled.version).toBe('2026-10-12.2');
    expect(bundled.data.map((tool: { name: string }) => tool.name)).toEqual(['concept_and_evidence_review', 'synthetic_simulation']);
    const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'resources', 'manifest.json'), 'utf8'));
    expect(manifest.files.map((f: { path: string }) => f.path)).toContain('tools.json');
  });
});

describe('the packed tarball', () => {
  it('installs into a clean directory; a TypeScript program on it type-checks and walks to a review and to run results', async () => {
    const pack = temporaryDirectory('crucible-sdk-pack-');
    const app = temporaryDirectory('crucible-sdk-app-');
    try {
      const built = await run(NODE, [TSC, '-p', join(SDK_DIR, 'tsconfig.json')]);
      expect(built.code, built.stdout + built.stderr).toBe(0);
      const packed = await run('npm', ['pack', '--silent', '--pack-destination', pack.path], { cwd: SDK_DIR });
      expect(packed.code, packed.stderr).toBe(0);
      expect(packed.stdout.trim().split('\n').at(-1)).toBe('crucible-sdk-0.1.0.tgz');

      writeFileSync(join(app.path, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
      const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--offline', join(pack.path, 'crucible-sdk-0.1.0.tgz')], { cwd: app.path });
      expect(installed.code, installed.stderr).toBe(0);
      const installed_files = readdirSync(join(app.path, 'node_modules', '@crucible', 'sdk'), { recursive: true }) as string[];
      expect(installed_files).toEqual(
        expect.arrayContaining(['README.md', 'dist/index.js', 'dist/index.d.ts', 'resources/manifest.json', 'resources/openapi.json']),
      );
      expect(installed_files.some((f) => f.startsWith('src') || f.startsWith('scripts'))).toBe(false);

      writeFileSync(join(app.path, 'walk.ts'), readFileSync(join(SDK_DIR, 'examples', 'walk.ts')));
      // The examples the README in the tarball and docs/clients.md show, as written there.
      const [readme_example] = tsBlocks(readFileSync(join(app.path, 'node_modules', '@crucible', 'sdk', 'README.md'), 'utf8'));
      const [doc_example] = tsBlocks(sdkSection(readFileSync(join(REPO_DIR, 'docs', 'clients.md'), 'utf8')));
      writeFileSync(join(app.path, 'readme.ts'), readme_example!);
      writeFileSync(join(app.path, 'doc.ts'), doc_example!);
      writeFileSync(
        join(app.path, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2022', 'DOM'],
            strict: true,
            noEmit: true,
            allowImportingTsExtensions: true,
            types: ['node'],
            typeRoots: [join(REPO_DIR, 'node_modules', '@types')],
          },
          files: ['walk.ts', 'readme.ts', 'doc.ts'],
        }),
      );
      const checked = await run(NODE, [TSC, '--noEmit', '-p', app.path], { cwd: app.path });
      expect(checked.code, checked.stdout).toBe(0);

      const example_env = { CRUCIBLE_URL: world.service.url, CRUCIBLE_TOKEN: world.token, CRUCIBLE_ORG: world.user.org_id };
      const readme = await run(NODE, ['readme.ts'], { cwd: app.path, env: example_env });
      expect(readme.code, readme.stderr).toBe(0);
      expect(JSON.parse(readme.stdout.trim())).toEqual({
        draft: expect.stringMatching(/^drf_/),
        sources: 2,
        error: { status: 404, code: 'NOT_FOUND', request_id: expect.stringMatching(/\S/) },
      });
      const doc = await run(NODE, ['doc.ts'], { cwd: app.path, env: example_env });
      expect(doc.code, doc.stderr).toBe(0);
      expect(JSON.parse(doc.stdout.trim())).toEqual({ project: expect.stringMatching(/^proj_/), source: 'processed', role: 'owner' });

      const walked = await run(NODE, ['walk.ts'], {
        cwd: app.path,
        env: { CRUCIBLE_URL: world.service.url, CRUCIBLE_TOKEN: world.token, CRUCIBLE_ORG: world.user.org_id },
      });
      expect(walked.code, walked.stderr).toBe(0);
      const summary = JSON.parse(walked.stdout.trim().split('\n').at(-1)!);
      expect(summary).toMatchObject({ review_status: 'succeeded', dimensions: 13, world_valid: true, runnable: true, run_status: 'succeeded' });
      expect(summary.findings).toBeGreaterThan(0);
      expect(summary.metrics).toBeGreaterThan(0);
      expect(summary.errors.not_found).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      expect(summary.errors.conflict).toMatchObject({ status: 409, code: 'CONFLICT' });
      expect(summary.errors.invalid).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
      for (const error of Object.values(summary.errors) as { request_id: string; details: unknown }[]) {
        expect(error.request_id).toMatch(/\S/);
        expect(error.details).toBeDefined();
      }
    } finally {
      pack.remove();
      app.remove();
    }
  }, 300_000);
});

describe('errors', () => {
  it('a 404, a 409 and a 422 raise CrucibleApiError with status, code, message, details and request_id', async () => {
    const client = createCrucibleClient({ baseUrl: world.service.url, getToken: () => world.token });
    const caught = async (promise: Promise<unknown>) => {
      try {
        await promise;
      } catch (error) {
        return error as CrucibleApiError;
      }
      throw new Error('expected an error');
    };
    const missing = await caught(client.GET('/v1/runs/{run_id}', { path: { run_id: 'run_doesnotexist' } }).then(unwrap));
    expect(missing).toBeInstanceOf(CrucibleApiError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(missing.request_id).toMatch(/\S/);

    const project = unwrap(await client.POST('/v1/projects', { body: { title: 'errors', org_id: world.user.org_id }, idempotencyKey: 'sdk-errors' }));
    expect(project.title).toBe('errors');
    // The same key with a changed body is refused; the same body replays.
    const reused = await caught(
      client.POST('/v1/projects', { body: { title: 'changed', org_id: world.user.org_id }, idempotencyKey: 'sdk-errors' }).then(unwrap),
    );
    expect(reused).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    const replay = await client.POST('/v1/projects', { body: { title: 'errors', org_id: world.user.org_id }, idempotencyKey: 'sdk-errors' });
    expect(unwrap(replay).id).toBe(project.id);

    const extracted = unwrap(await client.POST('/v1/intakes/extract', { body: { text: ['A paragraph about an idea.'], project_id: project.id } })) as any;
    const draft = unwrap(
      await client.POST('/v1/projects/{project_id}/intakes/parse', { path: { project_id: project.id }, body: { source_ids: [extracted.sources[0].id] } }),
    ) as any;
    let conflict: CrucibleApiError | null = null;
    // Canceling twice: the second cancel finds the draft ended, a 409 (the first may also find it ended already).
    for (let attempt = 0; attempt < 2 && !conflict; attempt += 1) {
      const result = await client.POST('/v1/intake-drafts/{draft_id}/cancel', { path: { draft_id: draft.id } });
      if (!result.ok) conflict = await caught(Promise.resolve(result).then(unwrap));
    }
    expect(conflict).toBeInstanceOf(CrucibleApiError);
    expect(conflict).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(conflict!.message).toMatch(/already ended/);

    const invalid = await caught(client.POST('/v1/projects', { body: { org_id: world.user.org_id } as never }).then(unwrap));
    expect(invalid).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    expect(Array.isArray(invalid.details)).toBe(true);
    expect((invalid.details as { path: string }[]).some((d) => d.path === '/title')).toBe(true);
  });

  it('a failure before any answer is a CrucibleNetworkError, not an API error', async () => {
    const client = createCrucibleClient({ baseUrl: 'http://127.0.0.1:9', getToken: () => 'none' });
    const error = await client.GET('/v1/models').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrucibleNetworkError);
    expect(error).not.toBeInstanceOf(CrucibleApiError);
  });

  it("an error answer that is not the envelope (a proxy's page) still becomes one: the status in words, the page's start in details", async () => {
    const page = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    const proxy = createServer((_request, response) => {
      response.writeHead(502, 'Bad Gateway', { 'content-type': 'text/html', 'x-request-id': 'req_proxy' });
      response.end(page);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const client = createCrucibleClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, credentials: 'same-origin' });
      const result = await client.GET('/v1/me');
      expect(result.ok).toBe(false);
      const error = await Promise.resolve(result)
        .then(unwrap)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CrucibleApiError);
      expect((error as CrucibleApiError).body).toEqual({
        code: 'HTTP_502',
        message: 'The service answered 502 Bad Gateway.',
        details: { body: page },
        request_id: 'req_proxy',
      });
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

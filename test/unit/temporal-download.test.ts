// The Temporal CLI comes from its release download when the host is reachable (checksum verified), before the
// minutes-long Go build; an unreachable host or a wrong checksum falls back without leaving anything behind.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadTemporalRelease, findTemporalCli, freePort, TEMPORAL_CLI_VERSION, temporalCacheDir, temporalReleaseAsset } from '../../runtime/temporal.ts';

const asset = temporalReleaseAsset()!;
let work: string;
let server: Server;
let base_url: string;
let archive: Buffer;
let published_sha: string;
const requests: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'temporal-release-'));
  const staging = join(work, 'staging');
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'temporal'), `#!/bin/sh\necho "temporal version ${TEMPORAL_CLI_VERSION} (fake release)"\n`);
  writeFileSync(join(staging, 'LICENSE'), 'MIT\n');
  await tar.c({ gzip: true, file: join(work, asset), cwd: staging }, ['LICENSE', 'temporal']);
  archive = readFileSync(join(work, asset));
  published_sha = createHash('sha256').update(archive).digest('hex');
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const release = `/v${TEMPORAL_CLI_VERSION}`;
    if (request.url === `${release}/temporal_cli_${TEMPORAL_CLI_VERSION}_checksums.txt`) {
      response.end(`${'0'.repeat(64)}  temporal_cli_${TEMPORAL_CLI_VERSION}_other_arch.tar.gz\n${published_sha}  ${asset}\n`);
    } else if (request.url === `${release}/${asset}`) {
      response.end(archive);
    } else if (request.url?.startsWith('/tampered')) {
      if (request.url.endsWith('checksums.txt')) response.end(`${'f'.repeat(64)}  ${asset}\n`);
      else response.end(archive);
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base_url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

describe('the Temporal CLI release download', () => {
  it('names the archive of this machine', () => {
    expect(temporalReleaseAsset('1.5.1', 'linux', 'x64')).toBe('temporal_cli_1.5.1_linux_amd64.tar.gz');
    expect(temporalReleaseAsset('1.5.1', 'darwin', 'arm64')).toBe('temporal_cli_1.5.1_darwin_arm64.tar.gz');
    expect(temporalReleaseAsset('1.5.1', 'aix', 'ppc64')).toBeNull();
  });

  it('downloads, checks the published SHA-256 and unpacks an executable binary', async () => {
    const dir = join(work, 'ok');
    const path = await downloadTemporalRelease({ base_url, dir });
    expect(path).toBe(join(dir, 'temporal'));
    expect(execFileSync(path!).toString()).toContain('fake release');
    expect(readdirSync(dir)).toEqual(['temporal']);
  });

  it('refuses an archive whose checksum is not the published one, leaving nothing behind', async () => {
    const said: string[] = [];
    const dir = join(work, 'tampered');
    expect(await downloadTemporalRelease({ base_url: `${base_url}/tampered`, dir, say: (line) => said.push(line) })).toBeNull();
    expect(said.join('\n')).toMatch(/is not the published/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('falls back when the release host cannot be reached', async () => {
    const said: string[] = [];
    const closed = `http://127.0.0.1:${await freePort()}`;
    expect(await downloadTemporalRelease({ base_url: closed, dir: join(work, 'offline'), say: (line) => said.push(line) })).toBeNull();
    expect(said.join('\n')).toMatch(/not reachable.*building it with Go instead/);
  });

  it('is what findTemporalCli uses before a Go build when nothing is installed or cached', async () => {
    const saved = { ...process.env };
    try {
      delete process.env.TEMPORAL_CLI;
      process.env.PATH = '/nonexistent';
      process.env.XDG_CACHE_HOME = join(work, 'cache');
      process.env.CRUCIBLE_TEMPORAL_DOWNLOAD_URL = base_url;
      const before = requests.length;
      const path = await findTemporalCli();
      expect(path).toBe(join(temporalCacheDir(), 'temporal'));
      expect(requests.slice(before)).toEqual([
        `/v${TEMPORAL_CLI_VERSION}/temporal_cli_${TEMPORAL_CLI_VERSION}_checksums.txt`,
        `/v${TEMPORAL_CLI_VERSION}/${asset}`,
      ]);
      // the second call finds it in the cache without asking again
      expect(await findTemporalCli()).toBe(path);
      expect(requests.length).toBe(before + 2);
    } finally {
      // restored key by key: the unit project shares one module state per worker (isolate: false)
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});

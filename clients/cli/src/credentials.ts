// Token storage (issue: CRUCIBLE_TOKEN first, then a file under XDG_CONFIG_HOME with mode 0600, never echoed).
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Stored = { base_url?: string; token?: string; org_id?: string };

export function configDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'crucible');
}

export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDirectory(env), 'credentials.json');
}

export function readStored(env: NodeJS.ProcessEnv = process.env): Stored {
  const path = credentialsPath(env);
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Stored;
  } catch {
    return {};
  }
}

export function writeStored(stored: Stored, env: NodeJS.ProcessEnv = process.env): string {
  const dir = configDirectory(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = credentialsPath(env);
  writeFileSync(path, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its old mode on write
  return path;
}

export function forgetStored(env: NodeJS.ProcessEnv = process.env): void {
  rmSync(credentialsPath(env), { force: true });
}

/** The token a command uses: the environment first, then the stored file. */
export function resolveToken(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.CRUCIBLE_TOKEN || readStored(env).token || null;
}

export function resolveBaseUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.CRUCIBLE_URL || readStored(env).base_url || 'http://127.0.0.1:8080';
}

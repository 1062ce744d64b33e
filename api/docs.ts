// Writes docs/api.md: the table of operation → scope and role, generated from the route registry (`npm run docs:api`).
// A test checks the committed file matches, so the table cannot drift from what is served.
import { randomBytes } from 'node:crypto';
import { createLogger } from './logger.ts';
import { loadConfig } from '../runtime/config.ts';
import type { Db } from '../store/db.ts';
import type { RouteDef } from './registry.ts';

const AUTH_TEXT: Record<RouteDef['auth'], string> = {
  public: 'none (public)',
  user: 'API token or user session',
  session: 'user session only (API tokens get 403)',
  signed: 'signed link, no bearer credential',
  webhook: 'provider signature, no bearer credential',
};

export function apiTable(routes: RouteDef[]): string {
  const lines = [
    '# API operations: authentication, scope and role',
    '',
    'Generated from the route registry by `npm run docs:api`; a test fails when it is stale. The full request and',
    'response shapes are in the OpenAPI document at `GET /v1/openapi.json`.',
    '',
    'Checks run in this order: credential (401) → scope (403) → tenant, i.e. membership of the owning organization',
    '(404, the same as a missing object) → role (403). A token acts only inside its own organization; a user session',
    'carries all three scopes.',
    '',
    '| Method | Path | Operation | Authentication | Scope | Role | Idempotency-Key |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of routes) {
    lines.push(
      `| ${r.method.toUpperCase()} | \`${r.path}\` | ${r.summary} | ${AUTH_TEXT[r.auth]} | ${r.scope ?? '—'} | ${r.role ?? (r.auth === 'user' ? 'member' : '—')}${r.audience ? ` (${r.audience})` : ''} | ${r.idempotency ?? '—'} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { createApp } = await import('./app.ts');
  const config = loadConfig({ SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64') });
  const { routes } = createApp({ config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null });
  process.stdout.write(apiTable(routes));
}

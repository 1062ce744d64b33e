import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { apiTable } from '../../api/docs.ts';
import { createLogger } from '../../runtime/logger.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { Db } from '../../store/db.ts';

describe('docs/api.md', () => {
  it('is the table generated from the routes the app serves (run `npm run docs:api` after changing routes)', () => {
    const config = loadConfig({ SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64') });
    const { routes } = createApp({ config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null });
    expect(readFileSync('docs/api.md', 'utf8')).toBe(apiTable(routes));
  });

  it('gives every non-public operation a scope or a session requirement', () => {
    const config = loadConfig({ SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64') });
    const { routes } = createApp({ config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null });
    for (const route of routes) {
      if (route.auth === 'user') expect(route.scope, `${route.method} ${route.path}`).toBeDefined();
    }
  });
});

// What a route declares is what happens: for every registered operation, no credential → 401, a token without the
// declared scope → 403 (API tokens on session-only operations → 403), a body violating the schema → 422, a missing
// required query parameter → 422. Runs on PGlite and, in the PostgreSQL suite, on PostgreSQL.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../runtime/logger.ts';
import { pathParameters, type RouteDef } from '../../api/registry.ts';
import { SCOPES } from '../../domain/accounts/rules.ts';
import type { Db } from '../../store/db.ts';
import { apiToken, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let owner: TestUser;
let routes: RouteDef[];
const tokens = new Map<string, string>();

/** A value for each path parameter that has the right shape but names nothing. */
const SAMPLE_PARAMS: Record<string, string> = { revision: '1', name: 'IntakeSpec', prompt_id: 'intake-draft', token: 'x' };
function samplePath(route: RouteDef): string {
  let path = route.path;
  for (const name of pathParameters(route.path)) {
    path = path.replace(`{${name}}`, SAMPLE_PARAMS[name] ?? `${name.replace(/_id$/, '').slice(0, 4)}_0000000000000000`);
  }
  return path;
}

const guarded = () => routes.filter((route) => route.auth === 'user' || route.auth === 'session');
const label = (route: RouteDef) => `${route.method.toUpperCase()} ${route.path}`;

beforeAll(async () => {
  service = await startTestService({ env: { SERVICE_SPONSOR_API_ENABLED: 'true', SERVICE_BILLING_ENABLED: 'true' } });
  owner = await signedInOwner(service, 'registry');
  routes = createApp({ config: service.config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null }).routes;
  for (const scope of SCOPES) {
    tokens.set(
      scope,
      await apiToken(
        service,
        owner,
        SCOPES.filter((other) => other !== scope),
      ),
    );
  }
  tokens.set('all', await apiToken(service, owner, [...SCOPES]));
});
afterAll(async () => {
  await service?.stop();
});

describe('the route registry is the enforcement', () => {
  it('declares a scope on every operation that takes a user credential', () => {
    for (const route of routes.filter((r) => r.auth === 'user')) expect(route.scope, label(route)).toBeDefined();
  });

  it('answers 401 without a credential on every guarded operation, before reading the body', async () => {
    for (const route of guarded()) {
      const withBody = route.method !== 'get' ? { raw: 'not json', headers: { 'content-type': 'application/json' } } : {};
      const response = await http(service, route.method.toUpperCase(), samplePath(route), withBody);
      expect(response.status, label(route)).toBe(401);
      expect(response.body.code, label(route)).toBe('UNAUTHENTICATED');
    }
  });

  it('answers 403 to a token that lacks the declared scope, and to an API token on session-only operations', async () => {
    for (const route of guarded()) {
      const token = route.auth === 'session' ? tokens.get('all')! : tokens.get(route.scope!)!;
      const response = await http(service, route.method.toUpperCase(), samplePath(route), { token, body: route.method !== 'get' ? [] : undefined });
      expect(response.status, label(route)).toBe(403);
      expect(response.body.code, label(route)).toBe('FORBIDDEN');
    }
  });

  it('answers 422 naming the field when the JSON body violates the declared schema', async () => {
    for (const route of routes.filter((r) => r.body && r.auth !== 'signed' && r.auth !== 'webhook')) {
      for (const body of [[], null, 'text', 42]) {
        const response = await http(service, route.method.toUpperCase(), samplePath(route), { token: owner.session, body });
        expect(response.status, `${label(route)} with ${JSON.stringify(body)}`).toBe(422);
        expect(response.body.code).toBe('VALIDATION_FAILED');
        expect(response.body.details.length, label(route)).toBeGreaterThan(0);
      }
    }
  });

  it('answers 422 when a declared query parameter is missing or malformed', async () => {
    for (const route of routes.filter((r) => r.query && (r.auth === 'user' || r.auth === 'public'))) {
      const required = Object.entries(route.query!).filter(([, param]) => param.required);
      const typed = Object.entries(route.query!).find(([, param]) => (param.schema as { type?: string }).type === 'integer');
      if (required.length > 0) {
        const response = await http(service, route.method.toUpperCase(), samplePath(route), { token: owner.session });
        expect(response.status, label(route)).toBe(422);
        expect(
          response.body.details.map((d: { path: string }) => d.path),
          label(route),
        ).toContain(`/query/${required[0]![0]}`);
      }
      if (typed) {
        const response = await http(service, route.method.toUpperCase(), `${samplePath(route)}?${typed[0]}=-x`, { token: owner.session });
        expect(response.status, label(route)).toBe(422);
      }
    }
  });

  it('answers a path id that cannot be an id with a plain 404', async () => {
    for (const route of guarded().filter((r) => pathParameters(r.path).some((name) => name.endsWith('_id')))) {
      const name = pathParameters(route.path).find((n) => n.endsWith('_id'))!;
      const path = samplePath(route).replace(/[a-z]{1,4}_0000000000000000/, encodeURIComponent(`bad id ${name}\u0000`));
      const response = await http(service, route.method.toUpperCase(), path, { token: owner.session, body: route.body_optional ? {} : undefined });
      expect(response.status, label(route)).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('handlers hold only their own rule', () => {
  it('no route handler checks a scope, reads or validates its own JSON body, or pages by hand', () => {
    const dir = 'api/routes';
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(files).toContain('projects/createProject.ts');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const forbidden of ['requireScope', 'requireAuth(', 'readJsonBody(', 'validate(', 'paging(', 'ctx.params', 'ctx.query']) {
        expect(text.includes(forbidden), `${file} uses ${forbidden}`).toBe(false);
      }
    }
  });
});

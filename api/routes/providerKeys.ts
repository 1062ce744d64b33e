// Provider keys (spec: Provider key; Provider keys endpoints) and the metered AI calls of an organization.
import { createHmac } from 'node:crypto';
import { Type } from 'typebox';
import { trimmedName } from '../../domain/accounts/rules.ts';
import {
  checkProviderKey,
  PROVIDER_KEY_LABEL_LENGTH_MAX,
  PROVIDER_KEY_LENGTH_MAX,
  PROVIDER_KEY_LENGTH_MIN,
} from '../../domain/ai/keys.ts';
import { addProviderKey, listProviderKeys, revokeProviderKey } from '../../store/keys/keys.ts';
import { listAiUsage } from '../../store/keys/usage.ts';
import { authorizeOrg} from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { page} from '../http.ts';
import { idempotent, respond } from '../idempotency.ts';
import { route, type RouteDef } from '../registry.ts';
import { Credits, Id, Page, PageQuery, Timestamp } from '../schemas.ts';

// spec: Provider key — BYOK_PROVIDERS, spelled out so the static type keeps the literals.
const Provider = Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('google')]);

const CreateProviderKey = Type.Object(
  {
    provider: Provider,
    label: Type.String({ maxLength: 1000 }),
    // Length and characters are checked by checkProviderKey, whose messages never echo the key.
    api_key: Type.String({ description: `accepted on creation only, never returned; ${PROVIDER_KEY_LENGTH_MIN} to ${PROVIDER_KEY_LENGTH_MAX} printable characters, no whitespace` }),
  },
  { additionalProperties: false },
);

export const ProviderKeyOut = Type.Object({
  id: Id('key'),
  provider: Provider,
  label: Type.String(),
  last4: Type.String({ maxLength: 4, description: 'the last four characters of the key; never more' }),
  created_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
});

const ProviderKeyCreated = Type.Object({ id: Id('key'), provider: Provider, label: Type.String(), last4: Type.String({ maxLength: 4 }), created_at: Timestamp });

export const AiUsageOut = Type.Object({
  id: Id('use'),
  org_id: Id('org'),
  provider: Type.Union([Provider, Type.Literal('offline')]),
  model: Type.String(),
  byok: Type.Boolean(),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  duration_ms: Type.Integer({ minimum: 0 }),
  subject: Type.Object({ project_id: Type.Union([Type.String(), Type.Null()]), kind: Type.String(), id: Type.String() }),
  task: Type.String(),
  credits_charged: Credits,
  created_at: Timestamp,
});

export function providerKeyRoutes(deps: AppDeps): RouteDef[] {
  const { db, config } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/orgs/{org_id}/provider-keys',
      operation_id: 'createProviderKey',
      summary: "Store the organization's key for an AI provider (replaces the live key for that provider)",
      tag: 'provider-keys',
      auth: 'user',
      scope: 'write',
      role: 'admin',
      idempotency: 'optional',
      body: CreateProviderKey,
      responses: { 201: { description: 'stored; only the last four characters are shown', schema: ProviderKeyCreated } },
      handler: async (ctx, input) => {
        const org_id = input.params.org_id;
        const { auth } = await authorizeOrg(deps, ctx, org_id);
        const body = input.body;
        const label = trimmedName(body.label, 'label', PROVIDER_KEY_LABEL_LENGTH_MAX);
        checkProviderKey(body.api_key);
        // The replay hash sees a keyed digest of the key, never the key (and no bare hash that could be tested offline).
        const key_digest = createHmac('sha256', config.master_key ?? Buffer.alloc(0)).update(body.api_key).digest('hex');
        const outcome = await idempotent(db, ctx, { owner_id: org_id, hashed_body: { provider: body.provider, label, key_digest } }, async (tx) => {
          const { key } = await addProviderKey(tx, config.master_key, { org_id, provider: body.provider, label, api_key: body.api_key, created_by: auth.user_id });
          return { status: 201, body: { id: key.id, provider: key.provider, label: key.label, last4: key.last4, created_at: key.created_at } };
        });
        respond(ctx, outcome);
      },
    }),
    route({
      method: 'get',
      path: '/v1/orgs/{org_id}/provider-keys',
      operation_id: 'listProviderKeys',
      summary: "List the organization's provider keys (provider, label, last four characters), newest first",
      tag: 'provider-keys',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'keys, live and revoked', schema: Page(ProviderKeyOut) } },
      handler: async (ctx, input) => {
        const org_id = input.params.org_id;
        const { offset, limit } = input.query;
        await authorizeOrg(deps, ctx, org_id);
        ctx.body = page(await listProviderKeys(db, org_id, offset, limit), offset, limit);
      },
    }),
    route({
      method: 'delete',
      path: '/v1/orgs/{org_id}/provider-keys/{key_id}',
      operation_id: 'revokeProviderKey',
      summary: 'Revoke a provider key and destroy its ciphertext',
      tag: 'provider-keys',
      auth: 'user',
      scope: 'write',
      role: 'admin',
      responses: { 200: { description: 'revoked (repeating the call returns the revoked key)', schema: ProviderKeyOut } },
      handler: async (ctx, input) => {
        const org_id = input.params.org_id;
        const { auth } = await authorizeOrg(deps, ctx, org_id);
        ctx.body = await db.transaction((tx) => revokeProviderKey(tx, org_id, input.params.key_id, auth.user_id));
      },
    }),
    route({
      method: 'get',
      path: '/v1/orgs/{org_id}/usage',
      operation_id: 'listAiUsage',
      summary: "The organization's metered AI calls, newest first",
      tag: 'provider-keys',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'metered calls', schema: Page(AiUsageOut) } },
      handler: async (ctx, input) => {
        const org_id = input.params.org_id;
        const { offset, limit } = input.query;
        await authorizeOrg(deps, ctx, org_id);
        ctx.body = page(await listAiUsage(db, org_id, offset, limit), offset, limit);
      },
    }),
  ];
}

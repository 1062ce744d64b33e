import { createHmac } from 'node:crypto';
import { trimmedName } from '../../../domain/accounts/rules.ts';
import { checkProviderKey, PROVIDER_KEY_LABEL_LENGTH_MAX } from '../../../domain/ai/keys.ts';
import { CreateProviderKeyBody, ProviderKeyCreated } from '../../../domain/contracts/providerKeys.ts';
import { addProviderKey } from '../../../store/providerKeys/keys.ts';
import { authorizeOrg } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { idempotent, respond } from '../../idempotency.ts';
import { route, type RouteDef } from '../../registry.ts';
import { presentCreatedKey } from './present.ts';

export function createProviderKeyRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  return route({
    method: 'post',
    path: '/v1/orgs/{org_id}/provider-keys',
    operation_id: 'createProviderKey',
    summary: "Store the organization's key for an AI provider (replaces the live key for that provider)",
    tag: 'provider-keys',
    no_store: true,
    auth: 'user',
    scope: 'write',
    role: 'admin',
    idempotency: 'optional',
    body: CreateProviderKeyBody,
    responses: { 201: { description: 'stored; only the last four characters are shown', schema: ProviderKeyCreated } },
    handler: async (ctx, input) => {
      const org_id = input.params.org_id;
      const { auth } = await authorizeOrg(deps, ctx, org_id);
      const body = input.body;
      const label = trimmedName(body.label, 'label', PROVIDER_KEY_LABEL_LENGTH_MAX);
      checkProviderKey(body.api_key);
      // The replay hash sees a keyed digest of the key, never the key (and no bare hash that could be tested offline).
      const key_digest = createHmac('sha256', config.master_key ?? Buffer.alloc(0))
        .update(body.api_key)
        .digest('hex');
      const outcome = await idempotent(db, ctx, { owner_id: org_id, hashed_body: { provider: body.provider, label, key_digest } }, async (tx) => {
        const { key } = await addProviderKey(tx, config.master_key, {
          org_id,
          provider: body.provider,
          label,
          api_key: body.api_key,
          created_by: auth.user_id,
        });
        return { status: 201, body: presentCreatedKey(key) };
      });
      respond(ctx, outcome);
    },
  });
}

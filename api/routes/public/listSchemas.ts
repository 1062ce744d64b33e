import { CONTRACTS } from '../../../domain/contracts/registry.ts';
import { SchemaList } from '../../../domain/contracts/public.ts';
import { CHANGELOG } from '../../openapi.ts';
import { route, type RouteDef } from '../../registry.ts';

export function listSchemasRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/v1/schemas',
    operation_id: 'listSchemas',
    summary: 'Named contracts with name and version',
    tag: 'public',
    auth: 'public',
    responses: { 200: { description: 'contracts', schema: SchemaList } },
    handler: async (ctx) => {
      ctx.body = {
        data: CONTRACTS.map((c) => ({
          name: c.name,
          version: c.version,
          experimental: c.experimental ?? false,
          description: c.description,
          url: `/v1/schemas/${c.name}`,
          changelog: CHANGELOG,
        })),
        changelog: CHANGELOG,
      };
    },
  });
}

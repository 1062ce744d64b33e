import { buildOpenApi } from '../../openapi.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

/** `routes` gives every route of the app once it is built (the document describes them all; built once, on first ask). */
export function getOpenApiRoute(deps: AppDeps, routes: () => RouteDef[]): RouteDef {
  let openapi: Record<string, unknown> | null = null;
  return route({
    method: 'get',
    path: '/v1/openapi.json',
    operation_id: 'getOpenApi',
    summary: 'The OpenAPI 3.1 document of every route',
    tag: 'public',
    auth: 'public',
    responses: { 200: { description: 'OpenAPI document' } },
    handler: async (ctx) => {
      openapi ??= buildOpenApi(routes(), deps.config.public_url);
      ctx.body = openapi;
    },
  });
}

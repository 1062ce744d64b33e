import { TOOL_REGISTRY_VERSION, TOOLS } from '../../../domain/authoring/tools.ts';
import { ToolRegistry } from '../../../domain/contracts/tools.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';

export function listToolsRoute(_deps: AppDeps): RouteDef {
  return route({
    method: 'get',
    path: '/v1/tools',
    operation_id: 'listTools',
    summary: 'The tool registry: each tool with what it needs (approval, credits, inputs) and the endpoints that run it (no token)',
    tag: 'public',
    auth: 'public',
    responses: { 200: { description: 'the registry', schema: ToolRegistry } },
    handler: async (ctx) => {
      ctx.body = { version: TOOL_REGISTRY_VERSION, data: TOOLS };
    },
  });
}

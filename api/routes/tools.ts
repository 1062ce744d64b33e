// The tool registry (spec: Versioning — tool registry version 2026-10-12.2), public: what each tool needs (approval,
// credits, inputs) and the endpoints that run it. Authoring next_steps[].tool and plan evaluations name these tools.
import { Type } from 'typebox';
import { TOOL_REGISTRY_VERSION, TOOLS } from '../../domain/authoring/tools.ts';
import type { AppDeps } from '../context.ts';
import { route, type RouteDef } from '../registry.ts';

const ToolOut = Type.Object({
  name: Type.String(),
  summary: Type.String(),
  label: Type.String(),
  needs: Type.Object({ approval: Type.String(), credits: Type.String(), inputs: Type.Array(Type.String()) }),
  endpoints: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), purpose: Type.String() })),
});

export function toolRoutes(_deps: AppDeps): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/v1/tools',
      operation_id: 'listTools',
      summary: 'The tool registry: each tool with what it needs (approval, credits, inputs) and the endpoints that run it (no token)',
      tag: 'public',
      auth: 'public',
      responses: { 200: { description: 'the registry', schema: Type.Object({ version: Type.Literal(TOOL_REGISTRY_VERSION), data: Type.Array(ToolOut) }) } },
      handler: async (ctx) => {
        ctx.body = { version: TOOL_REGISTRY_VERSION, data: TOOLS };
      },
    }),
  ];
}

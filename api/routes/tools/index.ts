// The tool registry (spec: Versioning — tool registry version 2026-10-12.2), public: what each tool needs (approval,
// credits, inputs) and the endpoints that run it. Authoring next_steps[].tool and plan evaluations name these tools.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { listToolsRoute } from './listTools.ts';

export function toolRoutes(deps: AppDeps): RouteDef[] {
  return [listToolsRoute(deps)];
}

// Public discovery, no token: features, health, model catalog, OpenAPI, schemas, prompts.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { getFeaturesRoute } from './getFeatures.ts';
import { getHealthRoute } from './getHealth.ts';
import { getLivenessRoute } from './getLiveness.ts';
import { getOpenApiRoute } from './getOpenApi.ts';
import { getPromptRoute } from './getPrompt.ts';
import { getSchemaRoute } from './getSchema.ts';
import { listModelsRoute } from './listModels.ts';
import { listPromptsRoute } from './listPrompts.ts';
import { listSchemasRoute } from './listSchemas.ts';

/** `routes` gives every route of the app once it is built (the OpenAPI document describes them all). */
export function publicRoutes(deps: AppDeps, routes: () => RouteDef[]): RouteDef[] {
  return [
    getFeaturesRoute(deps),
    getHealthRoute(deps),
    getLivenessRoute(),
    listModelsRoute(deps),
    getOpenApiRoute(deps, routes),
    listSchemasRoute(),
    getSchemaRoute(),
    listPromptsRoute(),
    getPromptRoute(),
  ];
}

// Public discovery, no token: health, model catalog, OpenAPI, schemas, prompts.
import { Type } from 'typebox';
import { CONTRACTS } from '../../domain/contracts/registry.ts';
import { ServiceError } from '../../domain/errors.ts';
import { PROMPTS } from '../../domain/prompts/registry.ts';
import { HOSTED_AI_PROVIDERS } from '../../domain/ai/providers.ts';
import type { AppDeps } from '../context.ts';
import { buildOpenApi, CHANGELOG } from '../openapi.ts';
import { PROBE_DEADLINE_MS, READINESS_CACHE_MS, readiness } from '../readiness.ts';
import { route, type RouteDef } from '../registry.ts';

const PROVIDER_PURPOSE = 'structured drafting (intake, review) and support judging';
export const OFFLINE_MODEL = 'offline-heuristic-1';

export function modelCatalog(deps: AppDeps) {
  const { config } = deps;
  const price = config.ai_credits_per_1k_tokens;
  return {
    hosted_provider: config.hosted_provider,
    providers: [
      ...HOSTED_AI_PROVIDERS.map((provider) => ({
        provider,
        model: config.models[provider],
        purpose: PROVIDER_PURPOSE,
        configured: config.models[provider] !== null,
        hosted: config.hosted_provider === provider,
        kind: 'ai',
        // The service's own key is used only for the hosted provider; a customer's key (byok) costs 0 credits.
        hosted_inference_credits_per_1k_tokens: config.hosted_provider === provider ? price : null,
        byok_credits_per_1k_tokens: 0,
      })),
      {
        provider: 'offline',
        model: OFFLINE_MODEL,
        purpose: 'extractive intake drafting and lexical support judging',
        configured: true,
        hosted: config.hosted_provider === 'offline',
        kind: 'heuristic',
        description: 'A deterministic heuristic, not AI: it copies sentences from your sources and judges support by word overlap. No network call is made.',
        hosted_inference_credits_per_1k_tokens: config.hosted_provider === 'offline' ? price : null,
        byok_credits_per_1k_tokens: null,
      },
    ],
  };
}

const FeaturesOut = Type.Object({
  sponsor_api: Type.Boolean({ description: 'SERVICE_SPONSOR_API_ENABLED: the sponsor endpoints answer (otherwise 503 SPONSOR_NOT_CONFIGURED)' }),
  billing: Type.Boolean({ description: 'SERVICE_BILLING_ENABLED: the billing endpoints answer (otherwise 503 BILLING_NOT_CONFIGURED)' }),
});

const CheckOut = Type.Object({ ok: Type.Boolean(), detail: Type.String() });
const HealthOut = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  checks: Type.Object({ database: CheckOut, temporal: CheckOut, worker: CheckOut }),
});
const LiveOut = Type.Object({ status: Type.Literal('ok') });

/** `routes` gives every route of the app once it is built (the OpenAPI document describes them all). */
export function publicRoutes(deps: AppDeps, routes: () => RouteDef[]): RouteDef[] {
  let openapi: Record<string, unknown> | null = null;
  return [
    route({
      method: 'get',
      path: '/v1/features',
      operation_id: 'getFeatures',
      summary: "The deployment flags a client needs to know which screens to offer (the sponsor API and billing); what any feature route's 503 would say anyway",
      tag: 'public',
      auth: 'public',
      responses: { 200: { description: 'the flags', schema: FeaturesOut } },
      handler: async (ctx) => {
        ctx.body = { sponsor_api: deps.config.sponsor_api_enabled, billing: deps.config.billing_enabled };
      },
    }),
    route({
      method: 'get',
      path: '/v1/health',
      operation_id: 'getHealth',
      summary: `Readiness: database, Temporal and worker, each probe bounded by ${PROBE_DEADLINE_MS} ms; the result is shared for up to ${READINESS_CACHE_MS} ms`,
      tag: 'public',
      auth: 'public',
      responses: {
        200: { description: 'ready: every check ok', schema: HealthOut },
        503: { description: 'not ready: a check failed (its detail says which and why)', schema: HealthOut },
      },
      handler: async (ctx) => {
        const report = await readiness(deps).report();
        ctx.status = report.ok ? 200 : 503;
        ctx.body = { status: report.ok ? 'ok' : 'degraded', checks: report.checks };
      },
    }),
    route({
      method: 'get',
      path: '/v1/health/live',
      operation_id: 'getLiveness',
      summary: 'Liveness: the process answers (no database or Temporal call); restart the process only when this fails',
      tag: 'public',
      auth: 'public',
      responses: { 200: { description: 'the process is serving', schema: LiveOut } },
      handler: async (ctx) => {
        ctx.body = { status: 'ok' };
      },
    }),
    route({
      method: 'get',
      path: '/v1/models',
      operation_id: 'listModels',
      summary: 'Public model catalog: per provider the model, purpose, whether configured, and the hosted-inference credit price',
      tag: 'public',
      auth: 'public',
      responses: { 200: { description: 'catalog' } },
      handler: async (ctx) => {
        ctx.body = modelCatalog(deps);
      },
    }),
    route({
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
    }),
    route({
      method: 'get',
      path: '/v1/schemas',
      operation_id: 'listSchemas',
      summary: 'Named contracts with name and version',
      tag: 'public',
      auth: 'public',
      responses: { 200: { description: 'contracts', schema: Type.Object({ data: Type.Array(Type.Object({ name: Type.String(), version: Type.String() })) }) } },
      handler: async (ctx) => {
        ctx.body = {
          data: CONTRACTS.map((c) => ({ name: c.name, version: c.version, experimental: c.experimental ?? false, description: c.description, url: `/v1/schemas/${c.name}`, changelog: CHANGELOG })),
          changelog: CHANGELOG,
        };
      },
    }),
    route({
      method: 'get',
      path: '/v1/schemas/{name}',
      operation_id: 'getSchema',
      summary: 'The JSON Schema of one named contract',
      tag: 'public',
      auth: 'public',
      responses: { 200: { description: 'JSON Schema', content_type: 'application/schema+json' } },
      handler: async (ctx, { params }) => {
        const contract = CONTRACTS.find((c) => c.name === params.name);
        if (!contract) throw new ServiceError('NOT_FOUND', `No contract named ${params.name}; see /v1/schemas for the list.`);
        ctx.body = {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          title: contract.name,
          'x-contract-version': contract.version,
          ...(contract.experimental ? { 'x-experimental': true } : {}),
          ...JSON.parse(JSON.stringify(contract.schema)),
        };
      },
    }),
    route({
      method: 'get',
      path: '/v1/prompts',
      operation_id: 'listPrompts',
      summary: 'The prompts the service sends to AI providers',
      tag: 'public',
      auth: 'public',
      responses: { 200: { description: 'prompts' } },
      handler: async (ctx) => {
        ctx.body = { data: PROMPTS.map((p) => ({ id: p.id, version: p.version, purpose: p.purpose, url: `/v1/prompts/${p.id}` })) };
      },
    }),
    route({
      method: 'get',
      path: '/v1/prompts/{prompt_id}',
      operation_id: 'getPrompt',
      summary: 'One prompt, whole, so your own assistant can draft the same way',
      tag: 'public',
      auth: 'public',
      params: { prompt_id: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,99}$' }) },
      responses: { 200: { description: 'prompt' } },
      handler: async (ctx, { params }) => {
        const prompt = PROMPTS.find((p) => p.id === params.prompt_id);
        if (!prompt) throw new ServiceError('NOT_FOUND', `No prompt ${params.prompt_id}; see /v1/prompts for the list.`);
        ctx.body = prompt;
      },
    }),
  ];
}

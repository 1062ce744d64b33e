// `crucible mcp`: a Model Context Protocol server over stdio, so a user's own assistant can draft an intake and
// evaluate without a hosted model. Tools are the tool registry's tools (GET /v1/tools, bundled with the SDK) and the
// intake steps, review, worlds and runs, each with a JSON Schema; the
// service's published prompts are MCP prompts. spec: "No call implicitly approves processing, chooses a budget or runs
// a world" — approvals, budgets and runs are explicit tool arguments, and each such tool does exactly one call.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type ApiResult, CrucibleApiError, type CrucibleClient, createCrucibleClient, resourceUrl, SDK_VERSION } from '../../sdk/src/index.ts';
import { Value } from 'typebox/value';
import { conflictLine, printable, printableDeep, safeJson } from './output.ts';
import { projectSourceIds } from './sources.ts';
import { withRequestTimeouts } from './timeouts.ts';

type Json = Record<string, unknown>;
type Call = (path: string, options?: Json) => Promise<ApiResult<unknown>>;

function bundledSchema(name: string): Json {
  const schema = JSON.parse(readFileSync(resourceUrl(`schemas/${name}.json`), 'utf8')) as Json;
  delete schema.$schema;
  return schema;
}

const id = (description: string) => ({ type: 'string', description });
const idempotency_key = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'Idempotency-Key: retry an ambiguous failure with the same key and arguments',
};

export type ToolDef = {
  name: string;
  description: string;
  inputSchema: Json & { type: 'object' };
  run(api: { GET: Call; POST: Call }, args: Json): Promise<ApiResult<unknown>>;
};

function object(properties: Json, required: string[]): Json & { type: 'object' } {
  return { type: 'object', properties, required, additionalProperties: false };
}

type OpenApiDocument = { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema: Json }> } }>> };
let bundled_openapi: OpenApiDocument | null = null;

/** The JSON request body schema of an operation in the bundled OpenAPI document: the API's own limits, not a copy. */
function requestBody(method: 'post', path: string): Json & { properties?: Record<string, Json>; required?: string[] } {
  bundled_openapi ??= JSON.parse(readFileSync(resourceUrl('openapi.json'), 'utf8')) as OpenApiDocument;
  const schema = bundled_openapi.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema;
  if (!schema || schema.type !== 'object') throw new Error(`the bundled OpenAPI document has no JSON request body for ${method.toUpperCase()} ${path}`);
  return schema as Json & { properties?: Record<string, Json>; required?: string[] };
}

/**
 * A tool's input schema from an operation's request body: its properties and limits as the API declares them, plus the
 * path parameters the tool takes as arguments and any argument of the tool's own (`extra`); `optional` names the body
 * fields the tool fills in when left out.
 */
function fromRequest(
  path: string,
  options: { params?: Record<string, string>; extra?: Json; optional?: string[]; also_required?: string[] } = {},
): Json & { type: 'object' } {
  const body = requestBody('post', path);
  const params = Object.fromEntries(Object.entries(options.params ?? {}).map(([name, description]) => [name, id(description)]));
  const required = [...Object.keys(params), ...(body.required ?? []).filter((name) => !options.optional?.includes(name)), ...(options.also_required ?? [])];
  const schema = object({ ...params, ...(body.properties ?? {}), ...(options.extra ?? {}) }, [...new Set(required)]);
  CHECKED_INPUTS.add(schema);
  return schema;
}

/**
 * The input schemas taken from the API's request bodies: arguments are checked against these before a call. A WorldSpec
 * argument is not (validate_world exists to send one that may not fit and read the service's problems).
 */
const CHECKED_INPUTS = new WeakSet<object>();

/** Why arguments do not fit a tool's input schema, in words (the first few problems), or null when they fit. */
export function argumentProblems(tool: Pick<ToolDef, 'name' | 'inputSchema'>, args: unknown): string | null {
  if (!CHECKED_INPUTS.has(tool.inputSchema) || Value.Check(tool.inputSchema, args)) return null;
  const problems = [...Value.Errors(tool.inputSchema, args)].slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message}`);
  return `${tool.name} was not called: its arguments do not fit its input schema (${problems.join('; ')}). Nothing was sent to the service; correct the arguments and call it again.`;
}

/** Starts a review of a plan: the tool start_review and the registry's concept_and_evidence_review make this one call. */
const startReview: ToolDef['run'] = (api, a) =>
  api.POST('/v1/projects/{project_id}/reviews', {
    path: { project_id: a.project_id },
    body: { plan_id: a.plan_id, ...(a.byok_provider ? { byok_provider: a.byok_provider } : {}) },
    idempotencyKey: a.idempotency_key,
  });

/** Runs a world revision under the budget given: the tool create_run and the registry's synthetic_simulation. */
const createRun: ToolDef['run'] = (api, a) =>
  api.POST('/v1/runs', {
    body: { world_revision_id: a.world_revision_id, budget_limit_credits: a.budget_limit_credits },
    idempotencyKey: a.idempotency_key,
  });

/** start_review's and the registry review's arguments: the review request body and the project. */
function reviewInput(): Json & { type: 'object' } {
  return fromRequest('/v1/projects/{project_id}/reviews', {
    params: { project_id: 'project id (proj_…) with a confirmed intake' },
    extra: { idempotency_key },
  });
}

/** create_run's and the registry simulation's arguments: the run request body (a budget of at least 1 credit). */
function runInput(): Json & { type: 'object' } {
  return fromRequest('/v1/runs', { extra: { idempotency_key } });
}

/** The tools: one service call each, arguments passed through as the API takes them. */
export function tools(): ToolDef[] {
  return [...intakeTools(), ...planAndReviewTools(), ...worldAndRunTools(bundledSchema('WorldSpec'))];
}

/** A project and its intake: create, extract, read a source, draft, read the draft, confirm. */
function intakeTools(): ToolDef[] {
  return [
    {
      name: 'create_project',
      description: 'Create a project in an organization.',
      inputSchema: fromRequest('/v1/projects', { extra: { idempotency_key } }),
      run: (api, a) => api.POST('/v1/projects', { body: { title: a.title, org_id: a.org_id }, idempotencyKey: a.idempotency_key }),
    },
    {
      name: 'extract_intake',
      description:
        'Read and screen pasted text without AI. Returns each source with its status (processed, unsupported, excluded_for_privacy, error) and masked findings.',
      inputSchema: fromRequest('/v1/intakes/extract', { also_required: ['project_id'] }),
      run: (api, a) => api.POST('/v1/intakes/extract', { body: { text: a.text, project_id: a.project_id } }),
    },
    {
      name: 'get_source_text',
      description: "A processed source's numbered lines, to cite them in an IntakeSpec you draft yourself.",
      inputSchema: object({ source_id: id('intake source id') }, ['source_id']),
      run: (api, a) => api.GET('/v1/intake-sources/{source_id}/text', { path: { source_id: a.source_id } }),
    },
    {
      name: 'draft_intake',
      description:
        "Ask the service to draft an IntakeSpec from the project's processed sources (metered in credits): the sources named, or without source_ids every processed source of the project (at most 50). Poll with get_intake_draft.",
      inputSchema: fromRequest('/v1/projects/{project_id}/intakes/parse', {
        params: { project_id: 'project id' },
        extra: { idempotency_key },
        optional: ['source_ids'],
      }),
      run: async (api, a) =>
        api.POST('/v1/projects/{project_id}/intakes/parse', {
          path: { project_id: a.project_id },
          body: {
            source_ids: a.source_ids ?? (await projectSourceIds(api as unknown as Pick<CrucibleClient, 'GET'>, a.project_id as string)),
            ...(a.byok_provider ? { byok_provider: a.byok_provider } : {}),
          },
          idempotencyKey: a.idempotency_key,
        }),
    },
    {
      name: 'get_intake_draft',
      description: 'Read a drafting run: status and, once succeeded, the drafted IntakeSpec. Read again until it ends.',
      inputSchema: object({ draft_id: id('intake draft id') }, ['draft_id']),
      run: (api, a) => api.GET('/v1/intake-drafts/{draft_id}', { path: { draft_id: a.draft_id } }),
    },
    {
      name: 'confirm_intake',
      description: 'Confirm (or import) an IntakeSpec the user has reviewed: citations are checked, failing ones dropped and listed.',
      inputSchema: fromRequest('/v1/projects/{project_id}/intakes', { params: { project_id: 'project id' }, extra: { idempotency_key } }),
      run: (api, a) =>
        api.POST('/v1/projects/{project_id}/intakes', {
          path: { project_id: a.project_id },
          body: { spec: a.spec, ...(a.draft_id ? { draft_id: a.draft_id } : {}) },
          idempotencyKey: a.idempotency_key,
        }),
    },
  ];
}

/** Plans and reviews: plan, approve a scope explicitly, start a review, read it. */
function planAndReviewTools(): ToolDef[] {
  return [
    {
      name: 'create_plan',
      description: 'Plan the evaluations for the latest confirmed intake: a decision with an explanation per evaluation, approvals needed, estimated credits.',
      inputSchema: fromRequest('/v1/projects/{project_id}/evaluation-plans', { params: { project_id: 'project id' }, extra: { idempotency_key } }),
      run: (api, a) =>
        api.POST('/v1/projects/{project_id}/evaluation-plans', {
          path: { project_id: a.project_id },
          body: a.intake_revision === undefined ? {} : { intake_revision: a.intake_revision },
          idempotencyKey: a.idempotency_key,
        }),
    },
    {
      name: 'approve_plan',
      description: 'Approve one scope a plan lists, only when the user has said so (hosted_inference approves hosted inference for this plan).',
      inputSchema: fromRequest('/v1/projects/{project_id}/evaluation-plans/{plan_id}/approve', { params: { project_id: 'project id', plan_id: 'plan id' } }),
      run: (api, a) =>
        api.POST('/v1/projects/{project_id}/evaluation-plans/{plan_id}/approve', {
          path: { project_id: a.project_id, plan_id: a.plan_id },
          body: { scope: a.scope },
        }),
    },
    {
      name: 'start_review',
      description: 'Start a concept and evidence review for a plan that recommends it (credits are reserved, settled at actual usage). Poll with get_review.',
      inputSchema: reviewInput(),
      run: startReview,
    },
    {
      name: 'get_review',
      description: 'Read a review: its state and, once succeeded, the ConceptReview (13 dimensions, each an ai_hypothesis). Read again until it ends.',
      inputSchema: object({ review_id: id('review id') }, ['review_id']),
      run: (api, a) => api.GET('/v1/reviews/{review_id}', { path: { review_id: a.review_id } }),
    },
  ];
}

/** Worlds and runs: validate and save a WorldSpec, estimate, run under an explicit budget, read the run and its results. */
function worldAndRunTools(world_spec: Json): ToolDef[] {
  return [
    {
      name: 'validate_world',
      description: 'Validate a WorldSpec: its problems (the first 100, and how many more) with a JSON pointer and a message.',
      inputSchema: object({ world: world_spec }, ['world']),
      run: (api, a) => api.POST('/v1/world-specs/validate', { body: a.world }),
    },
    {
      name: 'save_world',
      description: 'Save a valid WorldSpec as the next world revision of a project.',
      inputSchema: object({ project_id: id('project id'), world: world_spec }, ['project_id', 'world']),
      run: (api, a) => api.POST('/v1/projects/{project_id}/worlds', { path: { project_id: a.project_id }, body: a.world }),
    },
    {
      name: 'estimate_run',
      description: 'Estimate a run of a world revision under a budget: runnable, issues, reserved and available credits. Spends nothing.',
      inputSchema: fromRequest('/v1/runs/estimate'),
      run: (api, a) => api.POST('/v1/runs/estimate', { body: { world_revision_id: a.world_revision_id, budget_limit_credits: a.budget_limit_credits } }),
    },
    {
      name: 'create_run',
      description: 'Run a world revision under the credit budget the user chose (explicit; never guessed). Poll with get_run.',
      inputSchema: runInput(),
      run: createRun,
    },
    {
      name: 'get_run',
      description: 'Read a run: status, progress and credits. Read again until it ends.',
      inputSchema: object({ run_id: id('run id') }, ['run_id']),
      run: (api, a) => api.GET('/v1/runs/{run_id}', { path: { run_id: a.run_id } }),
    },
    {
      name: 'get_run_results',
      description: 'Results of a succeeded or timed-out run: RunManifest, MetricSummary per measure and variant, Findings (synthetic), cost report.',
      inputSchema: object({ run_id: id('run id') }, ['run_id']),
      run: (api, a) => api.GET('/v1/runs/{run_id}/results', { path: { run_id: a.run_id } }),
    },
    {
      name: 'compare_run',
      description: 'Paired baseline/treatment differences with 95% intervals within one run (read-only).',
      inputSchema: fromRequest('/v1/experiments/compare'),
      run: (api, a) => api.POST('/v1/experiments/compare', { body: { run_id: a.run_id } }),
    },
  ];
}

/** An entry of the tool registry (GET /v1/tools; spec: Versioning), as the SDK bundles it (resources/tools.json). */
type RegistryEntry = {
  name: string;
  summary: string;
  label: string;
  needs: { approval: string; credits: string; inputs: string[] };
  endpoints: Array<{ method: string; path: string; purpose: string }>;
};

/** What starts each registry tool: one call, with its approval and budget explicit (the registry says what it needs). */
const REGISTRY_RUNNERS: Record<string, Pick<ToolDef, 'inputSchema' | 'run'>> = {
  concept_and_evidence_review: {
    inputSchema: reviewInput(),
    run: startReview,
  },
  synthetic_simulation: {
    inputSchema: runInput(),
    run: createRun,
  },
};

/**
 * The tool registry's tools (the bundled GET /v1/tools document), each an MCP tool named as in the registry whose
 * description says what it needs (approval, credits, inputs) and which endpoints follow it. A registry tool this
 * version does not know how to start is left out.
 */
export function registryTools(): ToolDef[] {
  const registry = JSON.parse(readFileSync(resourceUrl('tools.json'), 'utf8')) as { version: string; data: RegistryEntry[] };
  return registry.data.flatMap((entry) => {
    const runner = REGISTRY_RUNNERS[entry.name];
    if (!runner) return [];
    const description = [
      `${entry.summary} (tool registry ${registry.version}; results are ${entry.label}).`,
      `Approval: ${entry.needs.approval}.`,
      `Credits: ${entry.needs.credits}.`,
      `Inputs: ${entry.needs.inputs.join('; ')}.`,
      `Endpoints: ${entry.endpoints.map((e) => `${e.method} ${e.path} (${e.purpose})`).join('; ')}.`,
    ].join(' ');
    return [{ name: entry.name, description, ...runner }];
  });
}

export function createMcpServer(client: CrucibleClient): Server {
  const api = { GET: client.GET as unknown as Call, POST: client.POST as unknown as Call };
  const defs = [...registryTools(), ...tools()];
  const server = new Server({ name: 'crucible', version: SDK_VERSION }, { capabilities: { tools: {}, prompts: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: defs.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = defs.find((t) => t.name === request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text' as const, text: `No tool ${request.params.name}.` }] };
    const args = (request.params.arguments ?? {}) as Json;
    // The arguments are checked against the tool's input schema (the API's request body) before anything is sent.
    const problems = argumentProblems(tool, args);
    if (problems) return { isError: true, content: [{ type: 'text' as const, text: printable(problems, true) }] };
    try {
      const result = await tool.run(api, args);
      // What the service stored is passed on without control characters or bidirectional overrides (output.ts).
      if (result.ok) {
        const data = printableDeep(result.data);
        return { content: [{ type: 'text' as const, text: safeJson(data) }], structuredContent: { status: result.status, data } };
      }
      // A 409: one plain line (the state changed under the call; nothing was done), then the envelope for its details.
      if (result.status === 409) {
        const envelope = printableDeep({ status: result.status, ...result.error });
        return {
          isError: true,
          content: [
            { type: 'text' as const, text: printable(conflictLine(result.error), true) },
            { type: 'text' as const, text: safeJson(envelope) },
          ],
        };
      }
      // The service's error envelope, as sent: the assistant reads the code and the details.
      return { isError: true, content: [{ type: 'text' as const, text: safeJson(printableDeep({ status: result.status, ...result.error })) }] };
    } catch (error) {
      const message = error instanceof CrucibleApiError ? `${error.code}: ${error.message}` : (error as Error).message;
      return { isError: true, content: [{ type: 'text' as const, text: printable(message, true) }] };
    }
  });

  // The published prompts (GET /v1/prompts), so an assistant drafts the way the service's providers are asked to.
  type Prompt = { id: string; version: string; purpose: string; system: string; instructions: string; output_schema?: string };
  const readPrompts = async () => ((await api.GET('/v1/prompts')) as { ok: boolean; data: { data: { id: string; purpose: string }[] } }).data?.data ?? [];
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: (await readPrompts()).map((p) => ({ name: p.id, description: p.purpose })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const result = await api.GET('/v1/prompts/{prompt_id}', { path: { prompt_id: request.params.name } });
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    const prompt = result.data as Prompt;
    const text = [prompt.system, '', prompt.instructions, ...(prompt.output_schema ? ['', `Output schema: ${prompt.output_schema}`] : [])].join('\n');
    return { description: `${prompt.purpose} (version ${prompt.version})`, messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
  });
  return server;
}

export async function serveMcp(options: { base_url: string; token: string | null; request_timeout_seconds: number }): Promise<void> {
  const client = createCrucibleClient({ baseUrl: options.base_url, getToken: () => options.token, userAgent: `crucible-mcp/${SDK_VERSION}` });
  // No answer in time is a tool error; the message names no CLI command (the assistant has its own tools).
  const server = createMcpServer(withRequestTimeouts(client, options.request_timeout_seconds, false));
  await server.connect(new StdioServerTransport());
}

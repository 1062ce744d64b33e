// crucible mcp: an MCP client (the official SDK's own) lists the tools (the tool registry's among them) and the published
// prompts and runs the walks
// through the server over stdio; approvals and budgets are explicit tool arguments (spec: What the service does).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectWithIntake } from '../support/authoring.ts';
import { eventually } from '../support/harness.ts';
import { REPO_DIR, startClientWorld, type ClientWorld } from './support.ts';

let world: ClientWorld;
let mcp: Client;
beforeAll(async () => {
  world = await startClientWorld('mcp');
  mcp = new Client({ name: 'crucible-test', version: '0.0.0' });
  // The configuration docs/clients.md gives an assistant, as written there.
  const doc = readFileSync(join(REPO_DIR, 'docs', 'clients.md'), 'utf8');
  const config = JSON.parse(/```json\n(\{ "command"[\s\S]*?)```/.exec(doc)![1]!.replaceAll('/path/to/crucible', REPO_DIR)) as {
    command: string;
    args: string[];
  };
  expect(config.args.at(-1)).toBe('mcp');
  await mcp.connect(
    new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: { ...(process.env as Record<string, string>), CRUCIBLE_URL: world.service.url, CRUCIBLE_TOKEN: world.token },
      stderr: 'pipe',
    }),
  );
}, 240_000);
afterAll(async () => {
  await mcp?.close();
  await world?.stop();
});

async function tool(name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await mcp.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  // A 409 says what happened in a plain line first; the envelope is the last content item of every error.
  const body = JSON.parse(result.content.at(-1)!.text);
  if (result.isError) throw Object.assign(new Error(`${name}: ${result.content[0]!.text}`), { body });
  return body;
}

describe('crucible mcp', () => {
  it('lists the intake, review, world and run tools with JSON Schemas, and the published prompts', async () => {
    const { tools } = await mcp.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'extract_intake',
        'draft_intake',
        'confirm_intake',
        'create_plan',
        'approve_plan',
        'start_review',
        'get_review',
        'validate_world',
        'save_world',
        'estimate_run',
        'create_run',
        'get_run_results',
      ]),
    );
    const confirm = tools.find((t) => t.name === 'confirm_intake')!;
    expect(confirm.inputSchema.required).toEqual(['project_id', 'spec']);
    expect((confirm.inputSchema.properties as any).spec.title).toMatch(/^IntakeSpec/);
    // Budgets and approvals are required arguments: nothing is chosen for the user.
    expect(tools.find((t) => t.name === 'create_run')!.inputSchema.required).toContain('budget_limit_credits');
    expect(tools.find((t) => t.name === 'approve_plan')!.inputSchema.required).toContain('scope');

    const { prompts } = await mcp.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['intake-draft', 'review-draft', 'review-judge']));
    const prompt = await mcp.getPrompt({ name: 'intake-draft' });
    expect((prompt.messages[0]!.content as { text: string }).text.length).toBeGreaterThan(100);
  });

  it('walks from a pasted paragraph to a review, and from a sample world to run results', async () => {
    const project = await tool('create_project', { title: 'MCP walk', org_id: world.user.org_id, idempotency_key: 'mcp-project' });
    const extracted = await tool('extract_intake', {
      project_id: project.id,
      text: 'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.\nIntended users: heart failure nurses in community care.\nStage: idea, nothing is built yet.',
    });
    const source_id = extracted.sources[0].id;
    const lines = await tool('get_source_text', { source_id });
    expect(JSON.stringify(lines)).toMatch(/heart failure/);
    // No source_ids: every processed source of the project (here the one pasted).
    const parse = await tool('draft_intake', { project_id: project.id });
    expect(parse.source_ids).toEqual([source_id]);
    const draft = await eventually(
      async () => {
        const read = await tool('get_intake_draft', { draft_id: parse.id });
        return ['succeeded', 'failed', 'canceled'].includes(read.status) ? read : null;
      },
      60_000,
      'the draft',
    );
    expect(draft.status).toBe('succeeded');
    const confirmed = await tool('confirm_intake', { project_id: project.id, spec: draft.spec, draft_id: draft.id });
    expect(confirmed.revision).toBe(1);
    const plan = await tool('create_plan', { project_id: project.id });
    // Without the approval the review is refused: the server never approves implicitly.
    await expect(tool('start_review', { project_id: project.id, plan_id: plan.id })).rejects.toMatchObject({
      body: { status: 409, code: 'APPROVAL_REQUIRED' },
    });
    await tool('approve_plan', { project_id: project.id, plan_id: plan.id, scope: 'hosted_inference' });
    const started = await tool('start_review', { project_id: project.id, plan_id: plan.id, idempotency_key: 'mcp-review' });
    const review = await eventually(
      async () => {
        const read = await tool('get_review', { review_id: started.id });
        return ['succeeded', 'failed', 'canceled'].includes(read.status) ? read : null;
      },
      60_000,
      'the review',
    );
    expect(review.status).toBe('succeeded');
    expect(review.review.dimensions).toHaveLength(13);

    const spec = JSON.parse(readFileSync(join(REPO_DIR, 'clients', 'sdk', 'resources', 'worlds', 'ai_imaging_reading_queue.json'), 'utf8'));
    expect((await tool('validate_world', { world: spec })).valid).toBe(true);
    const saved = await tool('save_world', { project_id: project.id, world: spec });
    const quote = await tool('estimate_run', { world_revision_id: saved.world_revision_id, budget_limit_credits: 1_000_000 });
    expect(quote.runnable).toBe(true);
    const created = await tool('create_run', {
      world_revision_id: saved.world_revision_id,
      budget_limit_credits: quote.credits_estimate * 2,
      idempotency_key: 'mcp-run',
    });
    const run = await eventually(
      async () => {
        const read = await tool('get_run', { run_id: created.run_id });
        return ['succeeded', 'failed', 'canceled', 'timed_out'].includes(read.status) ? read : null;
      },
      120_000,
      'the run',
    );
    expect(run.status).toBe('succeeded');
    const results = await tool('get_run_results', { run_id: created.run_id });
    expect(results.findings.length).toBeGreaterThan(0);
    expect((await tool('compare_run', { run_id: created.run_id })).metrics).toBeDefined();
  }, 300_000);

  it("exposes the tool registry's tools, with what each needs, and runs them with explicit approval and budget", async () => {
    const registry = (await (await fetch(`${world.service.url}/v1/tools`)).json()) as {
      version: string;
      data: Array<{ name: string; needs: { approval: string } }>;
    };
    const { tools } = await mcp.listTools();
    for (const entry of registry.data) {
      const listed = tools.find((t) => t.name === entry.name);
      expect(listed, `${entry.name} is an MCP tool`).toBeDefined();
      expect(listed!.description).toContain(`tool registry ${registry.version}`);
      expect(listed!.description).toContain(entry.needs.approval);
    }
    expect(tools.find((t) => t.name === 'synthetic_simulation')!.inputSchema.required).toEqual(['world_revision_id', 'budget_limit_credits']);
    expect(tools.find((t) => t.name === 'concept_and_evidence_review')!.inputSchema.required).toEqual(['project_id', 'plan_id']);

    // concept_and_evidence_review: refused until the user approves the plan's scope.
    const project_id = await projectWithIntake(world.service, world.user);
    const plan = await tool('create_plan', { project_id });
    await expect(tool('concept_and_evidence_review', { project_id, plan_id: plan.id })).rejects.toMatchObject({
      body: { status: 409, code: 'APPROVAL_REQUIRED' },
    });

    // synthetic_simulation: runs a saved world revision under the budget given.
    const spec = JSON.parse(readFileSync(join(REPO_DIR, 'clients', 'sdk', 'resources', 'worlds', 'gp_triage_digital_front_door.json'), 'utf8'));
    const saved = await tool('save_world', { project_id, world: spec });
    const quote = await tool('estimate_run', { world_revision_id: saved.world_revision_id, budget_limit_credits: 1_000_000 });
    const created = await tool('synthetic_simulation', {
      world_revision_id: saved.world_revision_id,
      budget_limit_credits: quote.credits_estimate * 2,
      idempotency_key: 'mcp-registry-run',
    });
    expect(created.run_id).toMatch(/^run_/);
    const run = await eventually(
      async () => {
        const read = await tool('get_run', { run_id: created.run_id });
        return ['succeeded', 'failed', 'canceled', 'timed_out'].includes(read.status) ? read : null;
      },
      120_000,
      'the registry tool run',
    );
    expect(run.status).toBe('succeeded');
  }, 300_000);

  it('refuses draft_intake without source_ids for a project with no processed source, saying what to do', async () => {
    const project = await tool('create_project', { title: 'MCP empty', org_id: world.user.org_id });
    const result = (await mcp.callTool({ name: 'draft_intake', arguments: { project_id: project.id } })) as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('extract_intake');
  });

  it('takes estimate_run and create_run arguments from the API request body, refusing a budget of 0 before any call, saying what to fix', async () => {
    const { tools } = await mcp.listTools();
    const openapi = JSON.parse(readFileSync(join(REPO_DIR, 'clients', 'sdk', 'resources', 'openapi.json'), 'utf8'));
    const body = openapi.paths['/v1/runs/estimate'].post.requestBody.content['application/json'].schema;
    const estimate = tools.find((t) => t.name === 'estimate_run')!;
    expect(estimate.inputSchema.properties).toEqual(body.properties);
    expect((estimate.inputSchema.properties as any).budget_limit_credits.minimum).toBe(1);
    const result = (await mcp.callTool({ name: 'estimate_run', arguments: { world_revision_id: 'wrev_anything', budget_limit_credits: 0 } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(
      /^estimate_run was not called: .*\/budget_limit_credits must be >= 1.*Nothing was sent to the service; correct the arguments/,
    );
    // The same rule the API applies: the service refuses a budget of 0 with its own 422.
    const refused = await fetch(`${world.service.url}/v1/runs/estimate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ world_revision_id: 'wrev_anything', budget_limit_credits: 0 }),
    });
    expect(refused.status).toBe(422);
    const create = tools.find((t) => t.name === 'create_run')!;
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['world_revision_id', 'budget_limit_credits']));
    expect((create.inputSchema.properties as any).idempotency_key).toMatchObject({ type: 'string' });
  });

  it('answers a 409 with one plain line, then the envelope', async () => {
    const project_id = await projectWithIntake(world.service, world.user);
    const plan = await tool('create_plan', { project_id });
    // A review of a plan nobody approved for hosted inference: 409 APPROVAL_REQUIRED, nothing started.
    const result = (await mcp.callTool({ name: 'start_review', arguments: { project_id, plan_id: plan.id } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Plan plan_\S+ has no hosted_inference approval\..* Nothing changed\. \(APPROVAL_REQUIRED, request \S+\)$/);
    expect(result.content[0]!.text.split('\n')).toHaveLength(1);
    expect(JSON.parse(result.content[1]!.text)).toMatchObject({ status: 409, code: 'APPROVAL_REQUIRED' });
  });

  it('returns the error envelope as a tool error for a 404 and a 422', async () => {
    await expect(tool('get_run', { run_id: 'run_doesnotexist' })).rejects.toMatchObject({ body: { status: 404, code: 'NOT_FOUND' } });
    await expect(tool('create_project', { title: '', org_id: world.user.org_id })).rejects.toMatchObject({ body: { status: 422, code: 'VALIDATION_FAILED' } });
  });
});

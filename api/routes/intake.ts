// Intake endpoints (spec: Intake and review endpoints - extract, parse, intakes).
// Extraction reads and screens without AI and sends nothing anywhere; drafting starts only on an explicit parse request.
import { basename } from 'node:path';
import busboy from 'busboy';
import type { Context } from 'koa';
import { type Static, Type } from 'typebox';
import { type ExtractionInput, extractSources, screenDocument } from '../../compute/extraction.ts';
import { cancelJob, startJob } from '../../integrations/temporal/jobs.ts';
import { BYOK_PROVIDERS, type ByokProvider } from '../../domain/ai/keys.ts';
import { citedSourceIds, IntakeSpec, intakeSpecErrors } from '../../domain/contracts/intakeSpec.ts';
import { ServiceError, type ErrorDetail } from '../../domain/errors.ts';
import { citationLookupFrom, checkCitations } from '../../domain/intake/citations.ts';
import { intakeDraftCreditsBound } from '../../domain/intake/register.ts';
import {
  BYTES_PER_REQUEST_MAX,
  BYTES_PER_SOURCE_MAX,
  SOURCES_PER_REQUEST_MAX,
  draftSources,
  SourceSummary,
} from '../../domain/intake/sources.ts';
import { buildIntakeDraftUserMessage, numberLines } from '../../domain/prompts/intakeDraft.ts';
import { assertCanCover } from '../../store/credits/ledger.ts';
import { assertAiAvailable } from '../../store/keys/availability.ts';
import { createDraft, DRAFT_STATUSES, type DraftView, findDraft, markQueuedDraftCanceled, TERMINAL_DRAFT_STATUSES } from '../../store/intake/drafts.ts';
import { createIntakeRevision, getIntakeRevision, type IntakeRevisionView, listIntakeRevisions } from '../../store/intake/revisions.ts';
import {
  attachSourcesToProject,
  citedSources,
  findOrgSources,
  findSource,
  insertSources,
  listSources,
  processedSourceLines,
} from '../../store/intake/sources.ts';
import { lockProject } from '../../store/projects/projects.ts';
import { authorizeOrg, authorizeOwned, callerOf } from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { isStorableString, page, refuseRest } from '../http.ts';
import { idempotent, respond } from '../idempotency.ts';
import { route, type RouteDef } from '../registry.ts';
import { Id, Page, PageQuery, Timestamp } from '../schemas.ts';
import { loadProject } from './projects.ts';
import '../../domain/intake/register.ts';

// ---------- limits (each named in the error it causes; docs/intake.md) ----------

/** Multipart framing (boundaries, part headers) allowed on top of BYTES_PER_REQUEST_MAX of source bytes. */
export const MULTIPART_OVERHEAD_BYTES_MAX = 1024 * 1024;
/** Form fields besides `text`: org_id and project_id. */
export const MULTIPART_OTHER_FIELDS_MAX = 2;
/** A file name is kept to this many characters. */
export const SOURCE_NAME_CHARS_MAX = 255;
/** Sources named in one drafting request. */
export const SOURCES_PER_DRAFT_MAX = 50;
/** A confirmed IntakeSpec document, as JSON. */
export const INTAKE_DOCUMENT_BYTES_MAX = 4 * 1024 * 1024;

// ---------- schemas ----------

const OwnerFields = {
  org_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'whose material it is: an organization (org_…)' })),
  project_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'or a project (proj_…); the source is then attached to it' })),
};
const ExtractJson = Type.Object(
  {
    text: Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: SOURCES_PER_REQUEST_MAX })], {
      description: `pasted text; an array gives one source per item (at most SOURCES_PER_REQUEST_MAX = ${SOURCES_PER_REQUEST_MAX})`,
    }),
    ...OwnerFields,
  },
  { additionalProperties: false },
);
const ExtractMultipart = Type.Object({
  text: Type.Optional(Type.Array(Type.String(), { description: 'pasted text; each `text` field is one source' })),
  files: Type.Optional(Type.Array(Type.String({ format: 'binary' }), { description: 'files of any field name: TXT, Markdown, JSON, PDF' })),
  ...OwnerFields,
});

/** The stored source as returned: the extraction summary (never the text) plus whose it is and when it was read. */
export const SourceOut = Type.Object({
  ...SourceSummary.properties,
  id: Id('src'),
  org_id: Id('org'),
  project_id: Type.Union([Id('proj'), Type.Null()]),
  created_by: Type.String(),
  created_at: Timestamp,
});
const ExtractOut = Type.Object({ org_id: Id('org'), project_id: Type.Union([Id('proj'), Type.Null()]), sources: Type.Array(SourceOut) });
const SourceTextOut = Type.Object({
  id: Id('src'),
  name: Type.String(),
  line_count: Type.Integer({ minimum: 0 }),
  numbered_text: Type.String({ description: 'the lines as `12| text`, the numbering citations refer to' }),
});

const ParseBody = Type.Object(
  {
    source_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: SOURCES_PER_DRAFT_MAX }),
    byok_provider: Type.Optional(Type.Union([...BYOK_PROVIDERS.map((p) => Type.Literal(p)), Type.Null()])),
  },
  { additionalProperties: false },
);

// The contract carries $id 'IntakeSpec'; inline copies in the OpenAPI document go without it (one $id per document).
const { $id: _intake_id, ...IntakeSpecInline } = JSON.parse(JSON.stringify(IntakeSpec)) as Record<string, unknown>;
const IntakeSpecDoc = Type.Unsafe<unknown>(IntakeSpecInline);

const DroppedCitationOut = Type.Object({
  path: Type.String(),
  source_id: Type.String(),
  line_start: Type.Integer(),
  line_end: Type.Integer(),
  reason: Type.String(),
  message: Type.String(),
});
const DroppedClaimOut = Type.Object({ path: Type.String(), reason: Type.String(), message: Type.String() });
const UsageOut = Type.Object({
  provider: Type.String(),
  model: Type.String(),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  credits_charged: Type.Integer({ minimum: 0 }),
});
export const DraftOut = Type.Object({
  id: Id('drf'),
  project_id: Id('proj'),
  org_id: Id('org'),
  status: Type.Enum(DRAFT_STATUSES),
  source_ids: Type.Array(Type.String(), { description: 'processed sources sent for drafting' }),
  skipped_source_ids: Type.Array(Type.String(), { description: 'requested sources that were not processed: never sent' }),
  byok_provider: Type.Union([Type.String(), Type.Null()]),
  credits_reserved: Type.Integer({ minimum: 0, description: 'upper bound reserved at start; settled at actual usage' }),
  spec: Type.Union([IntakeSpecDoc, Type.Null()], { description: 'the drafted IntakeSpec (citations checked) once succeeded' }),
  dropped_citations: Type.Array(DroppedCitationOut),
  dropped_claims: Type.Array(DroppedClaimOut),
  usage: Type.Union([UsageOut, Type.Null()]),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  created_by: Type.String(),
  created_at: Timestamp,
  started_at: Type.Union([Timestamp, Type.Null()]),
  finished_at: Type.Union([Timestamp, Type.Null()]),
});

const ConfirmBody = Type.Object(
  {
    spec: IntakeSpecDoc,
    draft_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the draft this document was corrected from, if any' })),
  },
  { additionalProperties: false },
);
export const IntakeRevisionOut = Type.Object({
  id: Id('int'),
  project_id: Id('proj'),
  org_id: Id('org'),
  revision: Type.Integer({ minimum: 1 }),
  spec: IntakeSpecDoc,
  dropped_citations: Type.Array(DroppedCitationOut),
  dropped_claims: Type.Array(DroppedClaimOut),
  draft_id: Type.Union([Id('drf'), Type.Null()]),
  created_by: Type.String(),
  created_at: Timestamp,
});
const IntakeRevisionSummaryOut = Type.Object({
  id: Id('int'),
  project_id: Id('proj'),
  org_id: Id('org'),
  revision: Type.Integer({ minimum: 1 }),
  draft_id: Type.Union([Id('drf'), Type.Null()]),
  dropped_citation_count: Type.Integer({ minimum: 0 }),
  dropped_claim_count: Type.Integer({ minimum: 0 }),
  created_by: Type.String(),
  created_at: Timestamp,
});

// ---------- views ----------

function draftOut(draft: DraftView) {
  return {
    id: draft.id,
    project_id: draft.project_id,
    org_id: draft.org_id,
    status: draft.status,
    source_ids: draft.source_ids,
    skipped_source_ids: draft.skipped_source_ids,
    byok_provider: draft.byok_provider,
    credits_reserved: draft.credits_max,
    spec: draft.spec,
    dropped_citations: draft.dropped_citations?.citations ?? [],
    dropped_claims: draft.dropped_citations?.claims ?? [],
    usage: draft.usage,
    error: draft.error,
    created_by: draft.created_by,
    created_at: draft.created_at,
    started_at: draft.started_at,
    finished_at: draft.finished_at,
  };
}

function revisionOut(revision: IntakeRevisionView) {
  return revision;
}

// ---------- reading the extraction request ----------

type ExtractRequest = { org_id?: string; project_id?: string; inputs: ExtractionInput[] };

function limitError(code: 'PAYLOAD_TOO_LARGE' | 'VALIDATION_FAILED', message: string, path: string, limit: string, limit_value: number): ServiceError {
  return new ServiceError(code, message, [{ path, message: `at most ${limit_value}`, limit, limit_value }]);
}

const tooManySources = () =>
  limitError(
    'VALIDATION_FAILED',
    `too many sources; SOURCES_PER_REQUEST_MAX is ${SOURCES_PER_REQUEST_MAX} files and text fields per request; split them over several requests`,
    '/sources',
    'SOURCES_PER_REQUEST_MAX',
    SOURCES_PER_REQUEST_MAX,
  );
const sourceTooLarge = (index: number) =>
  limitError(
    'PAYLOAD_TOO_LARGE',
    `source ${index + 1} is larger than BYTES_PER_SOURCE_MAX (${BYTES_PER_SOURCE_MAX} bytes); split or shorten it`,
    `/sources/${index}`,
    'BYTES_PER_SOURCE_MAX',
    BYTES_PER_SOURCE_MAX,
  );
const requestTooLarge = () =>
  limitError(
    'PAYLOAD_TOO_LARGE',
    `the request holds more than BYTES_PER_REQUEST_MAX (${BYTES_PER_REQUEST_MAX} bytes) of sources; send them over several requests`,
    '/sources',
    'BYTES_PER_REQUEST_MAX',
    BYTES_PER_REQUEST_MAX,
  );

const unstorableField = (path: string) =>
  new ServiceError('VALIDATION_FAILED', `The form field ${path.slice(1)} holds a NUL character or a lone UTF-16 surrogate; remove it (such text cannot be stored).`, [
    { path, message: 'contains a NUL character or a lone surrogate' },
  ]);

function sourceName(filename: string | undefined, index: number): string {
  const name = basename((filename ?? '').replace(/\\/g, '/')).trim();
  return (name || `file ${index + 1}`).slice(0, SOURCE_NAME_CHARS_MAX);
}

/**
 * Streams a multipart body through busboy with the named limits enforced while reading: files per request, bytes per
 * file or text field, bytes per request. On the first limit hit it stops collecting, drains the rest and throws.
 */
function readMultipart(ctx: Context): Promise<ExtractRequest> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > BYTES_PER_REQUEST_MAX + MULTIPART_OVERHEAD_BYTES_MAX) {
    refuseRest(ctx);
    return Promise.reject(requestTooLarge());
  }
  return new Promise<ExtractRequest>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        defParamCharset: 'utf8',
        limits: {
          files: SOURCES_PER_REQUEST_MAX,
          fields: SOURCES_PER_REQUEST_MAX + MULTIPART_OTHER_FIELDS_MAX,
          parts: SOURCES_PER_REQUEST_MAX + MULTIPART_OTHER_FIELDS_MAX,
          fileSize: BYTES_PER_SOURCE_MAX,
          fieldSize: BYTES_PER_SOURCE_MAX,
        },
      });
    } catch (error) {
      ctx.req.resume();
      reject(new ServiceError('VALIDATION_FAILED', `the multipart body cannot be read: ${(error as Error).message}`, [{ path: '/', message: 'malformed multipart' }]));
      return;
    }
    const out: ExtractRequest = { inputs: [] };
    const pending: Array<Promise<void>> = [];
    let total_bytes = 0;
    let failed = false;
    const fail = (error: ServiceError) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(parser);
      refuseRest(ctx); // the client reads the answer; the connection closes after it
      reject(error);
    };
    const count = (bytes: number) => {
      total_bytes += bytes;
      if (total_bytes > BYTES_PER_REQUEST_MAX) fail(requestTooLarge());
    };
    let text_fields = 0;
    parser.on('field', (name, value, info) => {
      if (failed) return;
      if (name === 'text') text_fields += 1;
      // Form fields are text, refused like a JSON body's strings: a NUL or a lone surrogate cannot be stored.
      if ((name === 'text' || name === 'org_id' || name === 'project_id') && !isStorableString(value)) {
        return fail(unstorableField(name === 'text' ? `/text/${text_fields - 1}` : `/${name}`));
      }
      if (name === 'text') {
        const index = out.inputs.length;
        if (info.valueTruncated) return fail(sourceTooLarge(index));
        count(Buffer.byteLength(value, 'utf8'));
        out.inputs.push({ kind: 'text', text: value });
      } else if (name === 'org_id' || name === 'project_id') {
        out[name] = value.trim();
      } else {
        fail(new ServiceError('VALIDATION_FAILED', `unknown form field "${name.slice(0, 64)}"; send text fields named "text", files, and org_id or project_id`, [
          { path: `/${name.slice(0, 64)}`, message: 'is not an allowed field' },
        ]));
      }
    });
    parser.on('file', (_name, stream, info) => {
      if (failed) {
        stream.resume();
        return;
      }
      const index = out.inputs.length;
      const input: ExtractionInput = { kind: 'file', filename: sourceName(info.filename, index), content_type: info.mimeType, bytes: new Uint8Array() };
      out.inputs.push(input);
      const chunks: Buffer[] = [];
      pending.push(
        new Promise<void>((done) => {
          stream.on('data', (chunk: Buffer) => {
            if (failed) return;
            chunks.push(chunk);
            count(chunk.length);
          });
          stream.on('limit', () => fail(sourceTooLarge(index)));
          stream.on('end', () => {
            input.bytes = new Uint8Array(Buffer.concat(chunks));
            done();
          });
          stream.on('error', () => done());
        }),
      );
    });
    parser.on('filesLimit', () => fail(tooManySources()));
    parser.on('fieldsLimit', () => fail(tooManySources()));
    parser.on('partsLimit', () => fail(tooManySources()));
    parser.on('error', (error) => fail(new ServiceError('VALIDATION_FAILED', `the multipart body cannot be read: ${(error as Error).message}`, [{ path: '/', message: 'malformed multipart' }])));
    parser.on('close', () => {
      if (failed) return;
      Promise.all(pending).then(() => {
        if (!failed) resolve(out);
      }, reject);
    });
    // A client that leaves mid-body ends the read (logged as 499 by api/app.ts) instead of leaving it waiting forever.
    const left = (error?: Error) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(parser);
      reject(error ?? Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    };
    ctx.req.on('error', left);
    ctx.req.on('close', () => {
      if (!ctx.req.complete) left();
    });
    ctx.req.pipe(parser);
  });
}

/** The router read and validated a JSON body; a multipart body is streamed here. */
async function readExtractRequest(ctx: Context, json: Static<typeof ExtractJson> | undefined): Promise<ExtractRequest> {
  if (!json) return readMultipart(ctx);
  const texts = Array.isArray(json.text) ? json.text : [json.text];
  return { org_id: json.org_id, project_id: json.project_id, inputs: texts.map((text) => ({ kind: 'text', text })) };
}

/** `org_id` or `project_id` says whose material it is; with both, they must agree. */
async function resolveOwner(deps: AppDeps, ctx: Context, request: ExtractRequest): Promise<{ org_id: string; project_id: string | null; user_id: string }> {
  if (request.project_id) {
    const project = await loadProject(deps, ctx, request.project_id);
    if (request.org_id && request.org_id !== project.org_id) {
      throw new ServiceError('VALIDATION_FAILED', 'org_id and project_id name different organizations; send one of them', [{ path: '/org_id', message: 'does not own the project' }]);
    }
    return { org_id: project.org_id, project_id: project.id, user_id: callerOf(ctx).user_id };
  }
  if (!request.org_id) {
    throw new ServiceError('VALIDATION_FAILED', 'say whose material this is: send org_id or project_id', [{ path: '/org_id', message: 'org_id or project_id is required' }]);
  }
  const { auth } = await authorizeOrg(deps, ctx, request.org_id);
  return { org_id: request.org_id, project_id: null, user_id: auth.user_id };
}

// ---------- workflow start ----------

function prefixed(details: ErrorDetail[], prefix: string): ErrorDetail[] {
  return details.map((detail) => ({ ...detail, path: `${prefix}${detail.path === '/' ? '' : (detail.path ?? '')}` }));
}

// ---------- routes ----------

export function intakeRoutes(deps: AppDeps): RouteDef[] {
  const { db, config } = deps;
  return [
    route({
      method: 'post',
      path: '/v1/intakes/extract',
      operation_id: 'extractIntakeSources',
      summary: 'Read and screen pasted text and files without AI; returns each source with its status and masked findings',
      tag: 'intake',
      auth: 'user',
      scope: 'write',
      role: 'member',
      body: ExtractJson,
      body_content: { 'multipart/form-data': { schema: ExtractMultipart } },
      body_limit: { bytes: BYTES_PER_REQUEST_MAX + MULTIPART_OVERHEAD_BYTES_MAX, name: 'BYTES_PER_REQUEST_MAX' },
      responses: {
        201: { description: 'the sources as stored (never their text)', schema: ExtractOut },
        413: { description: 'PAYLOAD_TOO_LARGE: BYTES_PER_SOURCE_MAX or BYTES_PER_REQUEST_MAX' },
        422: { description: 'VALIDATION_FAILED: SOURCES_PER_REQUEST_MAX, no sources, no owner' },
      },
      handler: async (ctx, { body }) => {
        const request = await readExtractRequest(ctx, body);
        const owner = await resolveOwner(deps, ctx, request);
        const extracted = await extractSources(request.inputs);
        const sources = await db.transaction((tx) =>
          insertSources(tx, { org_id: owner.org_id, project_id: owner.project_id, created_by: owner.user_id, sources: extracted }),
        );
        ctx.status = 201;
        ctx.body = { org_id: owner.org_id, project_id: owner.project_id, sources };
      },
    }),
    route({
      method: 'get',
      path: '/v1/intake-sources',
      operation_id: 'listIntakeSources',
      summary: "List an organization's intake sources (or one project's), newest first; never their text",
      tag: 'intake',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: {
        org_id: { schema: Type.String({ minLength: 1, maxLength: 64 }), required: true, description: 'the organization' },
        project_id: { schema: Type.String({ minLength: 1, maxLength: 64 }), description: 'only this project' },
        ...PageQuery,
      },
      responses: { 200: { description: 'sources', schema: Page(SourceOut) } },
      handler: async (ctx, { query: { org_id, project_id, offset, limit } }) => {
        await authorizeOrg(deps, ctx, org_id);
        ctx.body = page(await listSources(db, { org_id, project_id }, offset, limit), offset, limit);
      },
    }),
    route({
      method: 'get',
      path: '/v1/intake-sources/{source_id}',
      operation_id: 'getIntakeSource',
      summary: 'One intake source: status, kind, size, line count, masked findings, details; never its text',
      tag: 'intake',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'the source', schema: SourceOut } },
      handler: async (ctx, input) => {
        ctx.body = await loadSource(deps, ctx, input.params.source_id);
      },
    }),
    route({
      method: 'get',
      path: '/v1/intake-sources/{source_id}/text',
      operation_id: 'getIntakeSourceText',
      summary: "A processed source's numbered lines, for citing it (for example from your own assistant); refused for any other status",
      tag: 'intake',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'numbered lines', schema: SourceTextOut }, 409: { description: 'CONFLICT: the source is not processed' } },
      handler: async (ctx, input) => {
        const source = await loadSource(deps, ctx, input.params.source_id);
        // spec: Intake source - a quarantined source's text is never returned.
        if (source.status !== 'processed') {
          throw new ServiceError('CONFLICT', `source ${source.id} has status ${source.status}; only a processed source's text is returned`, { status: source.status });
        }
        const [text] = await processedSourceLines(db, source.org_id, [source.id]);
        if (!text) throw new ServiceError('NOT_FOUND', `Intake source ${source.id} was not found.`);
        ctx.body = { id: source.id, name: source.name, line_count: text.lines.length, numbered_text: numberLines(text.lines) };
      },
    }),
    route({
      method: 'post',
      path: '/v1/projects/{project_id}/intakes/parse',
      operation_id: 'parseIntake',
      starts_job: 'the intake draft',
      summary: "Request drafting of an IntakeSpec from the project's processed sources (the intake-draft workflow, metered in credits)",
      tag: 'intake',
      auth: 'user',
      scope: 'write',
      role: 'member',
      idempotency: 'optional',
      body: ParseBody,
      responses: {
        202: { description: 'the draft, queued; poll GET /v1/intake-drafts/{draft_id}', schema: DraftOut },
        402: { description: 'INSUFFICIENT_CREDITS: the balance cannot cover the reservation' },
        503: { description: 'PROVIDER_NOT_CONFIGURED' },
      },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'write');
        const { user_id } = input.auth;
        const body = input.body;
        const { processed, skipped } = draftSources(body.source_ids, await findOrgSources(db, project.org_id, [...new Set(body.source_ids)]), project.id);
        const byok_provider: ByokProvider | null = body.byok_provider ?? null;
        const texts = await processedSourceLines(db, project.org_id, processed);
        const prompt = buildIntakeDraftUserMessage(texts); // throws 422 naming DRAFT_INPUT_CHARS_MAX
        const credits_max = intakeDraftCreditsBound({ prompt, byok: byok_provider !== null, credits_per_1k_tokens: config.ai_credits_per_1k_tokens });
        const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, ...body } }, async (tx) => {
          // Checked inside the idempotent transaction: a replay returns the original answer, not today's balance.
          await assertAiAvailable({ config, db: tx }, project.org_id, byok_provider);
          if (credits_max > 0) await assertCanCover(tx, project.org_id, credits_max);
          await lockProject(tx, project.id);
          await attachSourcesToProject(tx, { org_id: project.org_id, project_id: project.id, ids: processed });
          const draft = await createDraft(tx, {
            project_id: project.id,
            org_id: project.org_id,
            source_ids: processed,
            skipped_source_ids: skipped,
            byok_provider,
            credits_max,
            created_by: user_id,
          });
          return { status: 202, body: draftOut(draft) };
        });
        // After the commit, on replays too: the deterministic id makes a repeated start a no-op.
        const started = outcome.body as { id: string; org_id: string; project_id: string };
        await startJob(deps.temporal, { kind: 'intake_draft', resource_id: started.id, org_id: started.org_id, project_id: started.project_id }, { draft_id: started.id });
        respond(ctx, outcome);
      },
    }),
    route({
      method: 'get',
      path: '/v1/intake-drafts/{draft_id}',
      operation_id: 'getIntakeDraft',
      summary: 'Poll a drafting run: status, the drafted IntakeSpec, usage (tokens, credits), error',
      tag: 'intake',
      auth: 'user',
      scope: 'read',
      role: 'member',
      pollable: true,
      responses: { 200: { description: 'the draft', schema: DraftOut }, 304: { description: 'not modified: the If-None-Match version is current' } },
      handler: async (ctx, input) => {
        const id = input.params.draft_id;
        ctx.body = draftOut(await authorizeOwned(deps, ctx, `Intake draft ${id}`, await findDraft(db, id)));
      },
    }),
    route({
      method: 'post',
      path: '/v1/intake-drafts/{draft_id}/cancel',
      operation_id: 'cancelIntakeDraft',
      summary: 'Cancel a drafting run: a queued draft ends at once; a running one stops and pays only for what it used',
      tag: 'intake',
      auth: 'user',
      scope: 'write',
      role: 'member',
      responses: {
        200: { description: 'the draft as it is now (canceled, or drafting while the workflow stops)', schema: DraftOut },
        409: { description: 'CONFLICT: the draft already ended' },
      },
      handler: async (ctx, input) => {
        const id = input.params.draft_id;
        const what = `Intake draft ${id}`;
        const draft = await authorizeOwned(deps, ctx, what, await findDraft(db, id));
        if (TERMINAL_DRAFT_STATUSES.includes(draft.status)) {
          throw new ServiceError('CONFLICT', `${what} already ended with status ${draft.status}; nothing to cancel.`, { status: draft.status });
        }
        // A queued draft has reserved and used nothing: it ends here. A drafting one is stopped by its workflow,
        // which settles what was used and marks the row canceled (the workflow is the only writer once it started).
        const ended = await db.transaction((tx) => markQueuedDraftCanceled(tx, id));
        await cancelJob(deps.temporal, { kind: 'intake_draft', resource_id: id });
        ctx.body = draftOut(ended ?? (await findDraft(db, id))!);
      },
    }),
    route({
      method: 'post',
      path: '/v1/projects/{project_id}/intakes',
      operation_id: 'confirmIntake',
      summary: 'Confirm an IntakeSpec (a corrected draft or JSON from your own assistant): citations are checked, failing ones dropped and listed; creates revision n+1',
      tag: 'intake',
      auth: 'user',
      scope: 'write',
      role: 'member',
      idempotency: 'optional',
      body: ConfirmBody,
      body_limit: { bytes: INTAKE_DOCUMENT_BYTES_MAX, name: 'INTAKE_DOCUMENT_BYTES_MAX' },
      responses: { 201: { description: 'the new revision with the citations that were dropped', schema: IntakeRevisionOut } },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'write');
        const { user_id } = input.auth;
        const body = input.body;
        const errors = intakeSpecErrors(body.spec); // the schema held; the line ranges are checked here
        if (errors.length > 0) {
          throw new ServiceError('VALIDATION_FAILED', 'the document is not a valid IntakeSpec 1.0.0; fix the listed fields', prefixed(errors, '/spec'));
        }
        const spec = body.spec as IntakeSpec;
        // spec: Intake — a confirmed or imported document is screened like a source before anything stores or sends it.
        const findings = await screenDocument(spec);
        if (findings.length > 0) {
          const kinds = [...new Set(findings.map((finding) => finding.kind))].join(', ');
          throw new ServiceError(
            'VALIDATION_FAILED',
            `the document holds possible secrets or patient identifiers (${kinds}); remove them and confirm again. Nothing was stored.`,
            findings.map((finding) => ({ path: `/spec${finding.pointer}`, message: `possible ${finding.kind}`, kind: finding.kind, category: finding.category, masked: finding.masked })),
          );
        }
        if (body.draft_id !== undefined) {
          const draft = await findDraft(db, body.draft_id);
          if (!draft || draft.project_id !== project.id) {
            throw new ServiceError('NOT_FOUND', `Intake draft ${body.draft_id} was not found in project ${project.id}.`, [{ path: '/draft_id', message: 'not found' }]);
          }
        }
        const outcome = await idempotent(db, ctx, { owner_id: project.org_id, hashed_body: { project_id: project.id, ...body } }, async (tx) => {
          // The project lock comes first: concurrent confirmations queue here and get distinct, gapless numbers.
          await lockProject(tx, project.id);
          const ids = citedSourceIds(spec);
          await attachSourcesToProject(tx, { org_id: project.org_id, project_id: project.id, ids });
          const cited = await citedSources(tx, { org_id: project.org_id, project_id: project.id, ids });
          const check = checkCitations(spec, citationLookupFrom([...cited].map(([id, source]) => ({ id, ...source }))));
          const revision = await createIntakeRevision(tx, {
            project_id: project.id,
            spec: check.spec,
            dropped_citations: check.dropped,
            dropped_claims: check.dropped_claims,
            draft_id: body.draft_id ?? null,
            created_by: user_id,
          });
          return { status: 201, body: revisionOut(revision) };
        });
        respond(ctx, outcome);
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects/{project_id}/intakes',
      operation_id: 'listIntakes',
      summary: "A project's confirmed intake revisions, newest first (without the documents)",
      tag: 'intake',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'revisions', schema: Page(IntakeRevisionSummaryOut) } },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'read');
        const { offset, limit } = input.query;
        ctx.body = page(await listIntakeRevisions(db, project.id, offset, limit), offset, limit);
      },
    }),
    route({
      method: 'get',
      path: '/v1/projects/{project_id}/intakes/{revision}',
      operation_id: 'getIntake',
      summary: 'One confirmed intake revision with its IntakeSpec and the citations dropped when it was confirmed',
      tag: 'intake',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'the revision', schema: IntakeRevisionOut } },
      handler: async (ctx, input) => {
        const project = await loadProject(deps, ctx, input.params.project_id, 'read');
        const raw = input.params.revision;
        const number = /^[1-9][0-9]{0,8}$/.test(raw) ? Number(raw) : null;
        const revision = number === null ? undefined : await getIntakeRevision(db, project.id, number);
        if (!revision) throw new ServiceError('NOT_FOUND', `Intake revision ${raw.slice(0, 20)} of project ${project.id} was not found.`);
        ctx.body = revisionOut(revision);
      },
    }),
  ];
}

async function loadSource(deps: AppDeps, ctx: Context, id: string) {
  return authorizeOwned(deps, ctx, `Intake source ${id}`, await findSource(deps.db, id));
}


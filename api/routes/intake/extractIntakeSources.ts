import { type ExtractionInput, extractSources, readsPdf } from '../../../compute/extraction.ts';
import { ExtractJson, ExtractMultipart, ExtractResult, MULTIPART_OVERHEAD_BYTES_MAX } from '../../../domain/contracts/intake.ts';
import { BYTES_PER_REQUEST_MAX } from '../../../domain/intake/sources.ts';
import { insertSources, type SourceView } from '../../../store/intake/sources.ts';
import type { StagedOwner } from '../../../store/intake/staged.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { readExtractRequest, resolveOwner } from './extractRequest.ts';
import { extractOnWorker, READER_UNAVAILABLE } from './readOnWorker.ts';

/** Reads and screens a request without PDFs in this process, then stores its sources. */
async function extractHere(deps: AppDeps, owner: StagedOwner, inputs: ExtractionInput[]): Promise<SourceView[]> {
  const extracted = await extractSources(inputs, { org_id: owner.org_id });
  return deps.db.transaction((tx) => insertSources(tx, { ...owner, sources: extracted, master_key: deps.config.master_key }));
}

export function extractIntakeSourcesRoute(deps: AppDeps): RouteDef {
  return route({
    method: 'post',
    path: '/v1/intakes/extract',
    operation_id: 'extractIntakeSources',
    summary: 'Read and screen pasted text and files without AI; returns each source with its status and masked findings',
    tag: 'intake',
    no_store: true,
    auth: 'user',
    scope: 'write',
    role: 'member',
    body: ExtractJson,
    body_content: { 'multipart/form-data': { schema: ExtractMultipart } },
    body_limit: { bytes: BYTES_PER_REQUEST_MAX + MULTIPART_OVERHEAD_BYTES_MAX, name: 'BYTES_PER_REQUEST_MAX' },
    responses: {
      201: { description: 'the sources as stored (never their text)', schema: ExtractResult },
      413: { description: 'PAYLOAD_TOO_LARGE: BYTES_PER_SOURCE_MAX or BYTES_PER_REQUEST_MAX' },
      422: { description: 'VALIDATION_FAILED: SOURCES_PER_REQUEST_MAX, no sources, no owner' },
      503: { description: READER_UNAVAILABLE },
    },
    handler: async (ctx, { body }) => {
      const request = await readExtractRequest(ctx, body);
      const owner = await resolveOwner(deps, ctx, request);
      const stored = { org_id: owner.org_id, project_id: owner.project_id, created_by: owner.user_id };
      // PDFs are read on a worker (docs/deploy.md "Where the work runs"); text is read and screened here.
      const sources = request.inputs.some(readsPdf) ? await extractOnWorker(deps, stored, request.inputs) : await extractHere(deps, stored, request.inputs);
      ctx.status = 201;
      ctx.body = { org_id: owner.org_id, project_id: owner.project_id, sources };
    },
  });
}

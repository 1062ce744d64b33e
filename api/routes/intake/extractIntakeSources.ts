import { extractSources } from '../../../compute/extraction.ts';
import { ExtractJson, ExtractMultipart, ExtractResult, MULTIPART_OVERHEAD_BYTES_MAX } from '../../../domain/contracts/intake.ts';
import { BYTES_PER_REQUEST_MAX } from '../../../domain/intake/sources.ts';
import { insertSources } from '../../../store/intake/sources.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { readExtractRequest, resolveOwner } from './extractRequest.ts';

export function extractIntakeSourcesRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
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
    },
    handler: async (ctx, { body }) => {
      const request = await readExtractRequest(ctx, body);
      const owner = await resolveOwner(deps, ctx, request);
      const extracted = await extractSources(request.inputs, { org_id: owner.org_id });
      const sources = await db.transaction((tx) =>
        insertSources(tx, {
          org_id: owner.org_id,
          project_id: owner.project_id,
          created_by: owner.user_id,
          sources: extracted,
          master_key: deps.config.master_key,
        }),
      );
      ctx.status = 201;
      ctx.body = { org_id: owner.org_id, project_id: owner.project_id, sources };
    },
  });
}

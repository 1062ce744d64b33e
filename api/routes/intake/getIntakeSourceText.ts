import { SourceText } from '../../../domain/contracts/intake.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { numberLines } from '../../../domain/prompts/intakeDraft.ts';
import { processedSourceLines } from '../../../store/intake/sources.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { loadSource } from './load.ts';

export function getIntakeSourceTextRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'get',
    path: '/v1/intake-sources/{source_id}/text',
    operation_id: 'getIntakeSourceText',
    summary: "A processed source's numbered lines, for citing it (for example from your own assistant); refused for any other status",
    tag: 'intake',
    no_store: true,
    auth: 'user',
    scope: 'read',
    role: 'member',
    responses: { 200: { description: 'numbered lines', schema: SourceText }, 409: { description: 'CONFLICT: the source is not processed' } },
    handler: async (ctx, input) => {
      const source = await loadSource(deps, ctx, input.params.source_id);
      // spec: Intake source - a quarantined source's text is never returned.
      if (source.status !== 'processed') {
        throw new ServiceError('CONFLICT', `source ${source.id} has status ${source.status}; only a processed source's text is returned`, {
          status: source.status,
        });
      }
      const [text] = await processedSourceLines(db, source.org_id, [source.id]);
      if (!text) throw new ServiceError('NOT_FOUND', `Intake source ${source.id} was not found.`);
      ctx.body = { id: source.id, name: source.name, line_count: text.lines.length, numbered_text: numberLines(text.lines) };
    },
  });
}

import { IntakeDraft } from '../../../domain/contracts/intake.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { cancelJob } from '../../../integrations/temporal/jobs.ts';
import { findDraft, markQueuedDraftCanceled, TERMINAL_DRAFT_STATUSES } from '../../../store/intake/drafts.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { presentDraft } from './present.ts';

export function cancelIntakeDraftRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'post',
    path: '/v1/intake-drafts/{draft_id}/cancel',
    operation_id: 'cancelIntakeDraft',
    summary: 'Cancel a drafting run: a queued draft ends at once; a running one stops and pays only for what it used',
    tag: 'intake',
    auth: 'user',
    scope: 'write',
    role: 'member',
    responses: {
      200: { description: 'the draft as it is now (canceled, or drafting while the workflow stops)', schema: IntakeDraft },
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
      ctx.body = presentDraft(ended ?? (await findDraft(db, id))!);
    },
  });
}

// One authoring session (spec: Authoring sessions (beta)), started by POST /v1/projects/{project_id}/authoring-sessions with
// id authoring-<session id>. Reads top to bottom as the process:
//   load the intake and template → draft (one AI iteration, metered through the credit saga) → checkpoint (validate,
//   smoke run, rules, stored by an activity) → wait for answers / revise / approve (the Updates of workflows/messages.ts,
//   with validators) → repeat; approve saves a world revision and ends; no step within the configured wait → expired.
// A step that cannot go on ends the session failed with the innermost cause's code (INSUFFICIENT_CREDITS, ...), and the
// Update that asked for it fails with the same code; a cancel through Temporal ends it failed with CANCELED. Long
// sessions continue-as-new carrying their state. The state and the steps live in workflows/authoringSessionState.ts.
// Deterministic: workflow SDK, domain, activity types.
import {
  allHandlersFinished,
  CancellationScope,
  ContinueAsNew,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { AuthoringSessionResult } from '../domain/authoring/session.ts';
import type { JobInputs } from '../domain/jobs.ts';
import { AuthoringSession } from './authoringSessionState.ts';
import { startingStep } from './common.ts';
import { answersUpdate, approveUpdate, reviseUpdate } from './messages.ts';

/** A session canceled before its cancel ended the row replays without that step (Temporal's patching). */
export const AUTHORING_CANCEL_ENDS_PATCH = 'authoring-cancel-ends';

export async function authoringSessionWorkflow(input: JobInputs['authoring']): Promise<AuthoringSessionResult> {
  const session = await startingStep(() => AuthoringSession.load(input));
  const { state } = session;
  setHandler(answersUpdate, (body) => session.enqueue({ kind: 'answers', answers: body.answers }), {
    validator: (body, deadline) => session.validateAnswers(body, deadline),
  });
  setHandler(reviseUpdate, (body) => session.enqueue({ kind: 'revise', revise: body }), {
    validator: (body, deadline) => session.validateRevise(body, deadline),
  });
  setHandler(approveUpdate, (body) => session.approve(body), { validator: (_body, deadline) => session.validateApprove(deadline) });
  try {
    if (state.checkpoint === 0) await session.next({ id: 0, kind: 'draft' });
    for (;;) {
      const woke = await condition(() => session.queue.length > 0 || state.status === 'approved', state.start.wait_seconds_max * 1000);
      if (state.status === 'approved') {
        await condition(() => session.world_revision_id !== null);
        await condition(allHandlersFinished);
        return { status: 'approved', world_revision_id: session.world_revision_id! };
      }
      if (!woke) {
        await session.expire();
        return { status: 'expired' };
      }
      await session.next();
      if (session.shouldContinueAsNew(workflowInfo().continueAsNewSuggested)) {
        await condition(allHandlersFinished);
        if (session.queue.length === 0 && state.status === 'waiting')
          await continueAsNew<typeof authoringSessionWorkflow>({ session_id: state.start.session_id, state });
      }
    }
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    if (isCancellation(error)) {
      // Canceled through Temporal (an operator): the row ends failed with CANCELED and the unused reservation is voided,
      // where it used to stay drafting, holding it. A session canceled before this replays without the step.
      if (patched(AUTHORING_CANCEL_ENDS_PATCH)) await CancellationScope.nonCancellable(() => session.cancel());
      throw error;
    }
    await session.end(error);
    await condition(allHandlersFinished); // the Update that asked for the step fails with the same cause
    return { status: 'failed' };
  }
}

// The shared loop of the reconcilers (ARCHITECTURE.md: How a request flows, step 3): start the workflow of every row
// left queued as an abandoned child under the row's deterministic id; one already started is skipped.
import { ParentClosePolicy, startChild, type Workflow } from '@temporalio/workflow';

export async function startQueued<I>(
  ids: string[],
  workflow: (input: I) => Promise<unknown>,
  child: (id: string) => { workflowId: string; input: I },
): Promise<{ started: number }> {
  let started = 0;
  for (const id of ids) {
    const { workflowId, input } = child(id);
    try {
      await startChild(workflow as unknown as Workflow, { workflowId, args: [input], parentClosePolicy: ParentClosePolicy.ABANDON });
      started += 1;
    } catch (error) {
      if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
    }
  }
  return { started };
}

// Reading an extraction request's sources on a worker (docs/deploy.md "Where the work runs"): the API staged them
// sealed in the database (store/intake/staged.ts); this activity reads them on the worker's compute pool with the same
// extraction the API uses for text, then stores the sources and deletes the staged row in one transaction. It returns
// the source ids only: no text or bytes ever enter a Temporal payload. Idempotent: the source ids are chosen by the API
// and passed in, so an attempt that finds the staged row gone and the sources stored returns the same ids, and two
// attempts at once serialize on the staged row's lock (the second finds it gone).
import { Context } from '@temporalio/activity';
import { extractSources } from '../compute/extraction.ts';
import { invariant, ServiceError } from '../domain/errors.ts';
import type { IntakeReadInput, IntakeReadResult } from '../domain/jobs.ts';
import { deleteStagedRead, lockStagedRead, readStagedSources } from '../store/intake/staged.ts';
import { findSource, insertSources } from '../store/intake/sources.ts';
import type { ActivityDeps } from './deps.ts';
import type { Tx } from '../store/db.ts';

/** How often the read heartbeats while the compute pool reads the staged sources. */
export const INTAKE_READ_HEARTBEAT_INTERVAL_MS = 2_000;

/** The sources among `ids` already stored (a finished earlier attempt stored all of them, in one transaction). */
async function storedCount(tx: Tx, ids: string[]): Promise<number> {
  let count = 0;
  for (const id of ids) if (await findSource(tx, id)) count++;
  return count;
}

function gone(staged_id: string): ServiceError {
  return new ServiceError(
    'TEMPORARILY_UNAVAILABLE',
    `The uploaded files of request ${staged_id} are no longer staged: the request was given up before a document reader took it. Send the files again.`,
  );
}

async function readStaged(deps: ActivityDeps, input: IntakeReadInput): Promise<IntakeReadResult> {
  const { db, config } = deps;
  const staged = await readStagedSources(db, input.staged_id, config.master_key, config.master_keys_previous);
  if (!staged) {
    if ((await storedCount(db, input.source_ids)) === input.source_ids.length) return { source_ids: input.source_ids };
    throw gone(input.staged_id);
  }
  invariant(staged.inputs.length === input.source_ids.length, `staged request ${input.staged_id} has one source id per source`);
  // Heartbeats while the pool reads: a worker that dies mid-read is noticed within the heartbeat timeout.
  const context = Context.current();
  const beating = setInterval(() => context.heartbeat(), INTAKE_READ_HEARTBEAT_INTERVAL_MS);
  let extracted: Awaited<ReturnType<typeof extractSources>>;
  try {
    extracted = await extractSources(staged.inputs, { org_id: staged.org_id });
  } finally {
    clearInterval(beating);
  }
  const sources = extracted.map((source, index) => ({ ...source, id: input.source_ids[index]! }));
  return db.transaction(async (tx) => {
    if (!(await lockStagedRead(tx, input.staged_id))) {
      if ((await storedCount(tx, input.source_ids)) === input.source_ids.length) return { source_ids: input.source_ids };
      throw gone(input.staged_id);
    }
    await insertSources(tx, {
      org_id: staged.org_id,
      project_id: staged.project_id,
      created_by: staged.created_by,
      sources,
      master_key: config.master_key,
    });
    await deleteStagedRead(tx, input.staged_id);
    return { source_ids: input.source_ids };
  });
}

export function intakeReadActivities(deps: ActivityDeps) {
  return {
    readStagedIntakeSources: (input: IntakeReadInput): Promise<IntakeReadResult> => readStaged(deps, input),
  };
}

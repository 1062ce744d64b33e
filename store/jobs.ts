// What the maintenance reconcilers read of a row left queued: its id and owner (the job's search attributes, domain/jobs.ts).
export type QueuedJobRow = { id: string; org_id: string; project_id: string };

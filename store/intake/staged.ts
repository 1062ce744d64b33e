// An extraction request's sources staged for a worker to read (docs/deploy.md "Where the work runs"): the API process
// that received a request with a PDF stores its sources here, sealed under SERVICE_MASTER_KEY with the provider keys'
// AES-256-GCM and bound to the organization and the row, and a worker's activity reads them, stores the extracted
// sources and deletes the row in one transaction. Only what reading needs is kept: each source's name, its declared
// content type and its bytes (pasted text as UTF-8), and whose request it was. Nothing else reads them.
import { ServiceError } from '../../domain/errors.ts';
import type { Db, Tx } from '../db.ts';
import { openUnderMasterKeys, sealUnderMasterKey } from '../providerKeys/crypto.ts';

/** A staged source: pasted text or an uploaded file, as the extraction reads it (compute/extraction.ts: ExtractionInput). */
export type StagedInput = { kind: 'text'; text: string; name?: string } | { kind: 'file'; filename: string; content_type?: string; bytes: Uint8Array };

export type StagedOwner = { org_id: string; project_id: string | null; created_by: string };

/** Versioned like the provider keys' binding: the purpose, then the row's owner and id. */
const AAD_PREFIX = 'crucible/staged-read/v1';

function stagedBinding(org_id: string, id: string): Buffer {
  return Buffer.from(`${AAD_PREFIX}\u0000${org_id}\u0000${id}`, 'utf8');
}

type PartHeader = { kind: 'text'; name?: string; bytes: number } | { kind: 'file'; filename: string; content_type?: string; bytes: number };

/** The sources as one byte string: a 4-byte length, a JSON header of names and sizes, then each source's bytes. */
export function frameInputs(inputs: StagedInput[]): Buffer {
  const bodies = inputs.map((input) => (input.kind === 'text' ? Buffer.from(input.text, 'utf8') : Buffer.from(input.bytes)));
  const parts: PartHeader[] = inputs.map((input, index) =>
    input.kind === 'text'
      ? { kind: 'text', ...(input.name !== undefined ? { name: input.name } : {}), bytes: bodies[index]!.byteLength }
      : {
          kind: 'file',
          filename: input.filename,
          ...(input.content_type !== undefined ? { content_type: input.content_type } : {}),
          bytes: bodies[index]!.byteLength,
        },
  );
  const header = Buffer.from(JSON.stringify(parts), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.byteLength);
  return Buffer.concat([length, header, ...bodies]);
}

export function unframeInputs(framed: Buffer): StagedInput[] {
  const header_bytes = framed.readUInt32BE(0);
  const parts = JSON.parse(framed.subarray(4, 4 + header_bytes).toString('utf8')) as PartHeader[];
  let offset = 4 + header_bytes;
  return parts.map((part): StagedInput => {
    const body = framed.subarray(offset, offset + part.bytes);
    offset += part.bytes;
    if (part.kind === 'text') return { kind: 'text', text: body.toString('utf8'), ...(part.name !== undefined ? { name: part.name } : {}) };
    return {
      kind: 'file',
      filename: part.filename,
      ...(part.content_type !== undefined ? { content_type: part.content_type } : {}),
      bytes: new Uint8Array(body),
    };
  });
}

function requireMasterKey(master_key: Buffer | null): Buffer {
  if (!master_key) throw new ServiceError('INTERNAL', 'SERVICE_MASTER_KEY is not set: uploaded files cannot be staged for a worker');
  return master_key;
}

/** Stages a request's sources under `id` (one row, sealed); the caller starts the worker's read. */
export async function stageSources(db: Db, input: StagedOwner & { id: string; master_key: Buffer | null; inputs: StagedInput[] }): Promise<void> {
  const sealed = sealUnderMasterKey(requireMasterKey(input.master_key), stagedBinding(input.org_id, input.id), frameInputs(input.inputs));
  // Bound parameters: the bytes travel beside the statement, not escaped into its text.
  await db.bound('insert into intake_staged_reads (id, org_id, project_id, created_by, ciphertext, nonce, auth_tag) values ($1, $2, $3, $4, $5, $6, $7)', [
    input.id,
    input.org_id,
    input.project_id,
    input.created_by,
    sealed.ciphertext,
    sealed.nonce,
    sealed.auth_tag,
  ]);
}

type StagedRow = { org_id: string; project_id: string | null; created_by: string; ciphertext: Uint8Array; nonce: Uint8Array; auth_tag: Uint8Array };

/**
 * The staged sources and their owner, or null when the row is gone (read and deleted, or given up by the API). Opened
 * under the current master key or a previous one, so a request staged just before a rotation is still read.
 */
export async function readStagedSources(
  db: Db,
  id: string,
  master_key: Buffer | null,
  previous: readonly Buffer[] = [],
): Promise<(StagedOwner & { inputs: StagedInput[] }) | null> {
  const row = await db.one<StagedRow>('select org_id, project_id, created_by, ciphertext, nonce, auth_tag from intake_staged_reads where id = ?', [id]);
  if (!row) return null;
  const sealed = { ciphertext: Buffer.from(row.ciphertext), nonce: Buffer.from(row.nonce), auth_tag: Buffer.from(row.auth_tag) };
  const opened = openUnderMasterKeys(requireMasterKey(master_key), previous, stagedBinding(row.org_id, id), sealed);
  if (!opened)
    throw new ServiceError(
      'INTERNAL',
      `staged sources ${id} could not be opened: the API that staged them holds a SERVICE_MASTER_KEY this worker holds neither as SERVICE_MASTER_KEY nor in SERVICE_MASTER_KEY_PREVIOUS`,
    );
  return { org_id: row.org_id, project_id: row.project_id ?? null, created_by: row.created_by, inputs: unframeInputs(opened.bytes) };
}

/** Locks the staged row for the transaction that consumes it; false when it is gone. */
export async function lockStagedRead(tx: Tx, id: string): Promise<boolean> {
  return (await tx.one('select id from intake_staged_reads where id = ? for update', [id])) !== undefined;
}

/** Deletes the staged row; false when it was already gone. */
export async function deleteStagedRead(tx: Tx, id: string): Promise<boolean> {
  return (await tx.query('delete from intake_staged_reads where id = ? returning id', [id])).length > 0;
}

/**
 * A staged row older than this was left by an API process that died while it waited: its read's workflow ended long
 * ago (its execution timeout is CRUCIBLE_PDF_READ_WAIT_SECONDS, at most 600 s), so nothing will ever read it.
 */
export const STAGED_READ_ABANDONED_SECONDS = 3600;

/** Deletes the staged rows nobody will read any more (STAGED_READ_ABANDONED_SECONDS); safe to repeat. */
export async function purgeAbandonedStagedReads(db: Db): Promise<number> {
  const rows = await db.query('delete from intake_staged_reads where created_at < now() - make_interval(secs => ?) returning id', [
    STAGED_READ_ABANDONED_SECONDS,
  ]);
  return rows.length;
}

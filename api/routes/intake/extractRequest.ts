// The extraction request, read from its JSON body (validated by the router) or streamed from multipart through the
// busboy adapter (api/http/multipart.ts) with the named limits, and whose material it is.
import { basename } from 'node:path';
import type { Context } from 'koa';
import type { Static } from 'typebox';
import type { ExtractionInput } from '../../../compute/extraction.ts';
import { type ExtractJson, MULTIPART_OTHER_FIELDS_MAX, MULTIPART_OVERHEAD_BYTES_MAX, SOURCE_NAME_CHARS_MAX } from '../../../domain/contracts/intake.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { checkNameCharacters } from '../../../domain/names.ts';
import { BYTES_PER_REQUEST_MAX, BYTES_PER_SOURCE_MAX, SOURCES_PER_REQUEST_MAX } from '../../../domain/intake/sources.ts';
import { authorizeOrg, callerOf } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { isStorableString } from '../../http/request.ts';
import { readMultipart } from '../../http/multipart.ts';
import { loadProject } from '../projects/load.ts';

export type ExtractRequest = { org_id?: string; project_id?: string; inputs: ExtractionInput[] };

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
  new ServiceError(
    'VALIDATION_FAILED',
    `The form field ${path.slice(1)} holds a NUL character or a lone UTF-16 surrogate; remove it (such text cannot be stored).`,
    [{ path, message: 'contains a NUL character or a lone surrogate' }],
  );

/** A file's name as sent, without folders; refused (422) with control characters or bidirectional overrides (domain/names.ts). */
function sourceName(filename: string | undefined, index: number, file_index: number): string {
  checkNameCharacters(filename ?? '', `/files/${file_index}/filename`);
  const name = basename((filename ?? '').replace(/\\/g, '/')).trim();
  return (name || `file ${index + 1}`).slice(0, SOURCE_NAME_CHARS_MAX);
}

/**
 * A multipart extraction: `text` fields and files of any field name are the sources, in order; `org_id` and
 * `project_id` say whose they are; any other field is refused. Form fields are text, refused like a JSON body's strings:
 * a NUL or a lone surrogate cannot be stored.
 */
async function readExtractMultipart(ctx: Context): Promise<ExtractRequest> {
  let text_fields = 0;
  const body = await readMultipart(ctx, {
    limits: {
      files: SOURCES_PER_REQUEST_MAX,
      fields: SOURCES_PER_REQUEST_MAX + MULTIPART_OTHER_FIELDS_MAX,
      parts: SOURCES_PER_REQUEST_MAX + MULTIPART_OTHER_FIELDS_MAX,
      part_bytes_max: BYTES_PER_SOURCE_MAX,
      total_bytes_max: BYTES_PER_REQUEST_MAX,
      declared_bytes_max: BYTES_PER_REQUEST_MAX + MULTIPART_OVERHEAD_BYTES_MAX,
    },
    field: (name, value) => {
      if (name === 'text') text_fields += 1;
      if ((name === 'text' || name === 'org_id' || name === 'project_id') && !isStorableString(value)) {
        throw unstorableField(name === 'text' ? `/text/${text_fields - 1}` : `/${name}`);
      }
      if (name === 'text') return true;
      if (name === 'org_id' || name === 'project_id') return false;
      throw new ServiceError('VALIDATION_FAILED', `unknown form field "${name.slice(0, 64)}"; send text fields named "text", files, and org_id or project_id`, [
        { path: `/${name.slice(0, 64)}`, message: 'is not an allowed field' },
      ]);
    },
    refusals: { tooManyParts: tooManySources, partTooLarge: sourceTooLarge, tooLarge: requestTooLarge },
  });
  let files = 0;
  const inputs = body.parts.map(
    (part, index): ExtractionInput =>
      part.kind === 'field'
        ? { kind: 'text', text: part.value }
        : { kind: 'file', filename: sourceName(part.filename, index, files++), content_type: part.mime_type, bytes: part.bytes },
  );
  return {
    inputs,
    ...(body.fields.org_id !== undefined ? { org_id: body.fields.org_id.trim() } : {}),
    ...(body.fields.project_id !== undefined ? { project_id: body.fields.project_id.trim() } : {}),
  };
}

/** The router read and validated a JSON body; a multipart body is streamed here. */
export async function readExtractRequest(ctx: Context, json: Static<typeof ExtractJson> | undefined): Promise<ExtractRequest> {
  if (!json) return readExtractMultipart(ctx);
  const texts = Array.isArray(json.text) ? json.text : [json.text];
  return { org_id: json.org_id, project_id: json.project_id, inputs: texts.map((text) => ({ kind: 'text', text })) };
}

/** `org_id` or `project_id` says whose material it is; with both, they must agree. */
export async function resolveOwner(
  deps: AppDeps,
  ctx: Context,
  request: ExtractRequest,
): Promise<{ org_id: string; project_id: string | null; user_id: string }> {
  if (request.project_id) {
    const project = await loadProject(deps, ctx, request.project_id);
    if (request.org_id && request.org_id !== project.org_id) {
      throw new ServiceError('VALIDATION_FAILED', 'org_id and project_id name different organizations; send one of them', [
        { path: '/org_id', message: 'does not own the project' },
      ]);
    }
    return { org_id: project.org_id, project_id: project.id, user_id: callerOf(ctx).user_id };
  }
  if (!request.org_id) {
    throw new ServiceError('VALIDATION_FAILED', 'say whose material this is: send org_id or project_id', [
      { path: '/org_id', message: 'org_id or project_id is required' },
    ]);
  }
  const { auth } = await authorizeOrg(deps, ctx, request.org_id);
  return { org_id: request.org_id, project_id: null, user_id: auth.user_id };
}

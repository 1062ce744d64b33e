// "All of the project's readable sources": what `crucible intake draft` (and the MCP tool draft_intake) send when no
// source is named. The API's drafting request names its sources (source_ids, 1 to 50), so the client lists them.
import { type CrucibleClient, unwrap } from '../../sdk/src/index.ts';
import { UsageError } from './exit.ts';

/** The API's limit on source_ids in one drafting request (maxItems in the OpenAPI document). */
export const SOURCES_PER_DRAFT_MAX = 50;
/** The list endpoint's largest page. */
const SOURCES_PAGE_LIMIT = 200;
/** A project holds at most this many pages of sources before the listing stops (a bound on the loop). */
const SOURCES_PAGES_MAX = 50;

/**
 * The ids of the project's processed sources (status `processed`: readable and unflagged; spec: Intake source), oldest
 * first. None, or more than one request may name, is a usage error that says what to do.
 */
export async function projectSourceIds(client: Pick<CrucibleClient, 'GET'>, project_id: string): Promise<string[]> {
  const project = unwrap(await client.GET('/v1/projects/{project_id}', { path: { project_id } }));
  const processed: string[] = [];
  let seen = 0;
  let offset: number | null = 0;
  for (let pages = 0; offset !== null && pages < SOURCES_PAGES_MAX; pages += 1) {
    const page: { data: { id: string; status: string }[]; next_offset?: number | null } = unwrap(
      await client.GET('/v1/intake-sources', { query: { org_id: project.org_id, project_id, offset, limit: SOURCES_PAGE_LIMIT } }),
    );
    seen += page.data.length;
    for (const source of page.data) if (source.status === 'processed') processed.push(source.id);
    offset = page.next_offset ?? null;
  }
  if (processed.length === 0) {
    const why = seen === 0 ? 'has no sources' : `has ${seen} source(s), none of them processed`;
    throw new UsageError(`Project ${project_id} ${why}: add material first (\`crucible extract --project ${project_id}\`, or the MCP tool extract_intake).`);
  }
  if (processed.length > SOURCES_PER_DRAFT_MAX) {
    throw new UsageError(
      `Project ${project_id} has ${processed.length} processed sources; one draft reads at most ${SOURCES_PER_DRAFT_MAX}: name them (--source, or source_ids).`,
    );
  }
  // The listing is newest first; a draft reads the material in the order it was added.
  return processed.reverse();
}

// Intake sources as stored: the visible summary plus the numbered lines (spec: Intake source).
// The lines of a quarantined source are kept sealed (store/intake/quarantine.ts) until the retention purges them; no
// function here hands lines out except `processedSourceLines`, which refuses anything that is not processed.
import { invariant } from '../../domain/errors.ts';
import type { ExtractedSource, Finding, PdfReport, SourceKind, SourceStatus } from '../../domain/intake/sources.ts';
import { isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';
import { storeQuarantinedLines } from './quarantine.ts';

/** What the API returns for a source: never its text. */
export type SourceView = {
  id: string;
  org_id: string;
  project_id: string | null;
  name: string;
  status: SourceStatus;
  kind: SourceKind;
  content_type: string | null;
  size_bytes: number;
  line_count: number;
  findings: Finding[];
  findings_not_listed: number;
  lines_split: number;
  reason: string | null;
  pdf: PdfReport | null;
  conversion_prompt: string | null;
  created_by: string;
  created_at: string;
};

/** lines_split is absent from sources stored before long lines were split (none was). */
type SourceDetails = { reason: string | null; pdf: PdfReport | null; conversion_prompt: string | null; lines_split?: number };

export function parseJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function view(row: Record<string, unknown>): SourceView {
  const details = parseJson<SourceDetails>(row.details) ?? { reason: null, pdf: null, conversion_prompt: null };
  return {
    id: row.id as string,
    org_id: row.org_id as string,
    project_id: (row.project_id as string | null) ?? null,
    name: row.name as string,
    status: row.status as SourceStatus,
    kind: row.kind as SourceKind,
    content_type: (row.content_type as string | null) ?? null,
    size_bytes: Number(row.size_bytes),
    line_count: Number(row.line_count),
    findings: parseJson<Finding[]>(row.findings) ?? [],
    findings_not_listed: Number(row.findings_not_listed),
    lines_split: details.lines_split ?? 0,
    reason: details.reason ?? null,
    pdf: details.pdf ?? null,
    conversion_prompt: details.conversion_prompt ?? null,
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
  };
}

// PostgreSQL text and jsonb cannot hold U+0000; a PDF text layer can. Stored as U+FFFD so the line count stays true.
const NUL = /\u0000/g;

const SUMMARY_COLUMNS =
  'id, org_id, project_id, name, status, kind, content_type, size_bytes, line_count, findings, findings_not_listed, details, created_by, created_at';

/** Stores extracted sources (one row each) and returns their views, in input order. */
export async function insertSources(
  tx: Tx,
  input: { org_id: string; project_id: string | null; created_by: string; sources: ExtractedSource[]; master_key: Buffer | null },
): Promise<SourceView[]> {
  const out: SourceView[] = [];
  for (const source of input.sources) {
    // A quarantined source's lines are sealed in intake_quarantine (store/intake/quarantine.ts), never kept as text here.
    const lines = source.status === 'processed' ? source.lines : null;
    invariant(source.status !== 'processed' || lines !== null, `processed source ${source.id} has lines`);
    const details: SourceDetails = { reason: source.reason, pdf: source.pdf, conversion_prompt: source.conversion_prompt, lines_split: source.lines_split };
    const [row] = await tx.query(
      `insert into intake_sources (id, org_id, project_id, status, kind, name, content_type, size_bytes, line_count, lines, findings,
         findings_not_listed, details, created_by)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?::jsonb, ?) returning ${SUMMARY_COLUMNS}`,
      [
        source.id,
        input.org_id,
        input.project_id,
        source.status,
        source.kind,
        source.name.replace(NUL, '\uFFFD'),
        source.content_type,
        source.size_bytes,
        source.line_count,
        lines === null ? null : JSON.stringify(lines.map((line) => line.replace(NUL, '\uFFFD'))),
        JSON.stringify(source.findings),
        source.findings_not_listed,
        JSON.stringify(details),
        input.created_by,
      ],
    );
    if (source.status === 'excluded_for_privacy' && source.quarantined_lines) {
      await storeQuarantinedLines(tx, { master_key: input.master_key, org_id: input.org_id, source_id: source.id, lines: source.quarantined_lines });
    }
    out.push(view(row!));
  }
  return out;
}

export async function findSource(tx: Tx, id: string): Promise<SourceView | undefined> {
  const row = await tx.one(`select ${SUMMARY_COLUMNS} from intake_sources where id = ?`, [id]);
  return row && view(row);
}

/** The sources among `ids` that belong to `org_id` (others, and unknown ids, are simply absent). */
export async function findOrgSources(tx: Tx, org_id: string, ids: string[]): Promise<SourceView[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query(`select ${SUMMARY_COLUMNS} from intake_sources where org_id = ? and id in (${ids.map(() => '?').join(', ')})`, [org_id, ...ids]);
  return rows.map(view);
}

/**
 * Attaches organization-level sources (project_id null) among `ids` to the project: a source becomes a project's the first
 * time the project uses it (docs/decisions.md, Intake). Sources already attached elsewhere are left alone.
 */
export async function attachSourcesToProject(tx: Tx, input: { org_id: string; project_id: string; ids: string[] }): Promise<number> {
  if (input.ids.length === 0) return 0;
  const rows = await tx.query(
    `update intake_sources set project_id = ? where org_id = ? and project_id is null and id in (${input.ids.map(() => '?').join(', ')}) returning id`,
    [input.project_id, input.org_id, ...input.ids],
  );
  return rows.length;
}

export async function listSources(tx: Tx, filter: { org_id: string; project_id?: string }, offset: number, limit: number): Promise<SourceView[]> {
  const rows = filter.project_id
    ? await tx.query(`select ${SUMMARY_COLUMNS} from intake_sources where org_id = ? and project_id = ? order by created_at desc, id desc offset ? limit ?`, [
        filter.org_id,
        filter.project_id,
        offset,
        limit + 1,
      ])
    : await tx.query(`select ${SUMMARY_COLUMNS} from intake_sources where org_id = ? order by created_at desc, id desc offset ? limit ?`, [
        filter.org_id,
        offset,
        limit + 1,
      ]);
  return rows.map(view);
}

export type ProcessedSourceText = { id: string; name: string; status: 'processed'; project_id: string | null; org_id: string; lines: string[] };

/**
 * The numbered lines of processed sources among `ids` in `org_id`, in the order of `ids`. Only status processed is ever
 * read (spec: only readable, unflagged sources are sent to an AI provider); the SQL filter and an assertion both say so.
 */
export async function processedSourceLines(tx: Tx, org_id: string, ids: string[]): Promise<ProcessedSourceText[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query(
    `select id, name, status, org_id, project_id, lines from intake_sources
     where org_id = ? and status = 'processed' and id in (${ids.map(() => '?').join(', ')})`,
    [org_id, ...ids],
  );
  const by_id = new Map<string, ProcessedSourceText>();
  for (const row of rows) {
    invariant(row.status === 'processed', 'only processed sources are read for a provider');
    const lines = parseJson<string[] | null>(row.lines);
    invariant(Array.isArray(lines), `processed source ${row.id as string} has its lines`);
    by_id.set(row.id as string, {
      id: row.id as string,
      name: row.name as string,
      status: 'processed',
      org_id: row.org_id as string,
      project_id: (row.project_id as string | null) ?? null,
      lines,
    });
  }
  return ids.flatMap((id) => by_id.get(id) ?? []);
}

export type CitedSource = { status: SourceStatus; belongs_to_project: boolean; lines: string[] | null };

/**
 * What a citation check needs about each of `ids`: status, whether it is the project's, and (processed only) its lines.
 * Sources of other organizations are absent, so they look exactly like unknown ids.
 */
export async function citedSources(tx: Tx, input: { org_id: string; project_id: string; ids: string[] }): Promise<Map<string, CitedSource>> {
  const out = new Map<string, CitedSource>();
  if (input.ids.length === 0) return out;
  const rows = await tx.query(
    `select id, status, project_id, case when status = 'processed' then lines else null end as lines from intake_sources
     where org_id = ? and id in (${input.ids.map(() => '?').join(', ')})`,
    [input.org_id, ...input.ids],
  );
  for (const row of rows) {
    out.set(row.id as string, {
      status: row.status as SourceStatus,
      belongs_to_project: row.project_id === input.project_id,
      lines: row.status === 'processed' ? parseJson<string[]>(row.lines) : null,
    });
  }
  return out;
}

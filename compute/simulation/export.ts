// A run's export: its files built purely by domain/simulation (buildExportFiles) and zipped, on a compute pool thread
// (compute/worker.ts) so a large run's export never holds the event loop; the API stores the archive once per run
// (store/runs/exports.ts) and serves later downloads from it.
import { strToU8, type Zippable, zipSync } from 'fflate';
import { buildExportFiles, compare, costReport, eventTrace, findings, summarize } from '../../domain/simulation/index.ts';
import { decodeChunk } from '../../domain/simulation/traceChunks.ts';
import type { RunExportInput } from '../tasks.ts';

export type { RunExportInput };

/** A ZIP archive of `files` (name -> text or bytes), deflated, with a fixed timestamp so the same run zips to the same bytes. */
export function zipExport(files: Record<string, string | Uint8Array>): Uint8Array {
  const entries: Zippable = {};
  for (const [name, content] of Object.entries(files))
    entries[name] = [typeof content === 'string' ? strToU8(content) : content, { level: 6, mtime: new Date('2026-01-01T00:00:00Z') }];
  return zipSync(entries);
}

/** The ZIP of a run: manifest, world, metrics, comparison, findings, cost report and the stored trace. */
export function buildRunExport(input: RunExportInput): Uint8Array {
  const { world, results } = input;
  const events = input.event_chunks.flatMap(decodeChunk);
  // The stored trace goes back onto replication 0 of each variant, so eventTrace sees what the run kept.
  const withTrace = results.map((result) =>
    result.replication_index === 0 ? { ...result, trace: events.filter((event) => event.variant_id === result.variant_id) } : result,
  );
  const summaries = summarize(world, results);
  const comparison = compare(world, results);
  const costs = costReport(world, results);
  const files = buildExportFiles({
    manifest: input.manifest,
    world,
    summaries,
    comparison,
    findings: findings(world, summaries, comparison, costs),
    cost_report: costs,
    trace: eventTrace(world, withTrace),
  });
  return zipExport(files);
}

/** Builds the run's export on the process's compute pool, as `org_id`'s work (one of its extraction-kind shares). */
export async function buildRunExportOnPool(input: RunExportInput, options: { org_id: string }): Promise<Uint8Array> {
  const { runComputeTask } = await import('../pool.ts');
  return runComputeTask<Uint8Array>({ kind: 'export', input }, { org_id: options.org_id });
}

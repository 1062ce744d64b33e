// Zips the export files of a run (the content is built purely by domain/simulation buildExportFiles).
import { strToU8, type Zippable, zipSync } from 'fflate';

/** A ZIP archive of `files` (name -> text or bytes), deflated, with a fixed timestamp so the same run zips to the same bytes. */
export function zipExport(files: Record<string, string | Uint8Array>): Uint8Array {
  const entries: Zippable = {};
  for (const [name, content] of Object.entries(files))
    entries[name] = [typeof content === 'string' ? strToU8(content) : content, { level: 6, mtime: new Date('2026-01-01T00:00:00Z') }];
  return zipSync(entries);
}

// Screening runs on the compute pool with a deadline, as PDF reading does: the event loop only posts the lines and
// receives the hits, and a screening past SCREENING_SECONDS_MAX is answered with a reason and its thread ended.
import { afterAll, describe, expect, it } from 'vitest';
import { extractSources } from '../../compute/extraction.ts';
import { secretlintHits } from '../../compute/extraction/secretlint.ts';
import { screenOnPool } from '../../compute/extraction/screen.ts';
import { closeComputePool } from '../../compute/pool.ts';
import { screenLinesForHits } from '../../domain/intake/screening.ts';
import { LINE_CHARS_MAX } from '../../domain/intake/sources.ts';
import { AWS_ACCESS_KEY_ID, VALID_NHS_NUMBER } from '../support/corpus.ts';

afterAll(async () => {
  await closeComputePool();
});

describe('screening on the compute pool', () => {
  it('finds on a pool thread what our rules and secretlint find in this thread, in the same order', async () => {
    const lines = ['Patient seen on the ward', `NHS ${VALID_NHS_NUMBER}`, `aws_access_key_id = ${AWS_ACCESS_KEY_ID}`, 'nothing here'];
    const screened = await screenOnPool(lines);
    expect(screened).toEqual({ ok: true, hits: [...screenLinesForHits(lines), ...(await secretlintHits(lines))] });
    expect(screened.ok && screened.hits.length).toBeGreaterThan(1);
  });

  it('answers a screening past its deadline with a reason naming SCREENING_SECONDS_MAX, and the pool goes on', async () => {
    const lines = Array.from({ length: 2_000 }, (_, index) => `ward line ${index} ${'word '.repeat(400)}`);
    const late = await screenOnPool(lines, { seconds_max: 0 });
    expect(late).toEqual({ ok: false, reason: expect.stringContaining('SCREENING_SECONDS_MAX is 0') });
    const next = await screenOnPool(['password = correct-horse-battery']);
    expect(next.ok && next.hits.map((hit) => hit.kind)).toContain('password');
  });

  it('extracts a source with a line longer than LINE_CHARS_MAX as several numbered lines and says so', async () => {
    const [source] = await extractSources([{ kind: 'text', text: `first\n${'word '.repeat(LINE_CHARS_MAX)}\nlast` }]);
    expect(source!.status).toBe('processed');
    expect(source!.lines_split).toBe(1);
    // 5 × LINE_CHARS_MAX characters cut after a space: six parts, between the first and last lines.
    expect(source!.line_count).toBe(8);
    expect(source!.lines!.length).toBe(8);
    expect(source!.lines!.every((line) => line.length <= LINE_CHARS_MAX)).toBe(true);
    expect(source!.lines!.join('')).toBe(`first${'word '.repeat(LINE_CHARS_MAX)}last`);
  });
});

// bench/run.ts gathers each benchmark's GOAL lines from its piped stdout for the final summary (bench/goals.ts goalLines).
import { describe, expect, it } from 'vitest';
import { goalLines } from '../../bench/goals.ts';

const OUTPUT = [
  'engine in one pool thread, M/M/5; load average 1.00, 1.00, 1.00 on 2 cores at the start',
  'round 1: 10 events/s',
  'GOAL engine ≥ 60x SimPy: 44.5x — NOT MET (load average 1.00, 1.00, 1.00 on 2 cores)',
  'GOAL pool of 2 ≥ 1.8x one thread (stated for 2 cores): 2.23x — MET (load average 1.00, 1.00, 1.00 on 2 cores)',
  'a line that mentions GOAL in its middle',
  '',
].join('\n');
const EXPECTED = [
  'GOAL engine ≥ 60x SimPy: 44.5x — NOT MET (load average 1.00, 1.00, 1.00 on 2 cores)',
  'GOAL pool of 2 ≥ 1.8x one thread (stated for 2 cores): 2.23x — MET (load average 1.00, 1.00, 1.00 on 2 cores)',
];

/** The output's bytes cut at the given offsets, as a pipe may deliver them in 'data' chunks. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const edges = [0, ...at, bytes.length];
  return edges.slice(1).map((end, index) => bytes.subarray(edges[index]!, end));
}

describe('goalLines', () => {
  it('finds every GOAL line of one chunk, and only lines that start with it', () => {
    expect(goalLines([Buffer.from(OUTPUT)])).toEqual(EXPECTED);
  });

  it('gives the same lines however the output is cut into chunks: inside a line, at a newline, inside a multi-byte character', () => {
    const bytes = Buffer.from(OUTPUT);
    const geq = bytes.indexOf('≥'); // three bytes in UTF-8
    const dash = bytes.indexOf('—', geq);
    const second = bytes.indexOf('GOAL pool');
    const cuts = [[geq + 1], [dash + 2], [second - 1, second, second + 2], [geq + 1, dash + 1, second + 3]];
    for (const at of cuts) expect(goalLines(cut(bytes, at)), `cut at ${at.join(', ')}`).toEqual(EXPECTED);
    // every single-byte cut, and the output delivered a byte at a time
    for (let at = 1; at < bytes.length; at++) expect(goalLines(cut(bytes, [at]))).toEqual(EXPECTED);
    expect(goalLines([...bytes].map((byte) => Buffer.from([byte])))).toEqual(EXPECTED);
  });

  it('reads CRLF line ends and a last line without a newline', () => {
    const crlf = `${EXPECTED.join('\r\n')}`;
    expect(goalLines([Buffer.from(crlf)])).toEqual(EXPECTED);
  });

  it('finds nothing in an output without GOAL lines', () => {
    expect(goalLines([])).toEqual([]);
    expect(goalLines([Buffer.from('JSON {"goal":"x"}\n')])).toEqual([]);
  });
});

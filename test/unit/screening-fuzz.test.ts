// Screening stays linear on hostile text: every screening pattern, and screening as extraction runs it (our rules and
// secretlint's preset over lines split at LINE_CHARS_MAX), is fed inputs built to make a backtracking engine rescan
// (docs/decisions.md, "Screening in linear time"). The bound is generous (SCREENING_MS_PER_KB_MAX): a super-linear
// pattern exceeds it by one or two orders of magnitude at these sizes, a linear one stays far below it.
import { describe, expect, it } from 'vitest';
import { secretlintHits } from '../../compute/extraction/secretlint.ts';
import { SCREENING_PATTERNS, screenLinesForHits, splitLongLines } from '../../domain/intake/screening.ts';
import { LINE_CHARS_MAX } from '../../domain/intake/sources.ts';

/** Milliseconds per KiB of input above which screening counts as super-linear. */
const SCREENING_MS_PER_KB_MAX = 5;
/** A slow measurement is taken again (the machine may be busy); the best of these many counts. */
const ATTEMPTS = 3;

// What the patterns' labels, separators and character classes are made of.
const PREFIXES = [
  '',
  'MRN',
  'SSN',
  'DOB',
  'born on',
  'Patient Name',
  'Mr',
  'password',
  'api_key',
  'aws secret key',
  'Bearer',
  'https://a:',
  'ward',
  'phone',
  '-----BEGIN ',
  'eyJaaaaaaaaa.',
  'sk-',
  'ghp_',
  'glpat-',
  'xoxb-',
  'AccountKey=',
  '1 Aa ',
  '1 Jan',
  'a@',
  'a@a.',
];
const PUMPS = [
  ' ',
  '\t',
  'a',
  'A',
  '1',
  '.',
  '-',
  '_',
  ':',
  '/',
  '@',
  '%',
  '=',
  '#',
  '"',
  'a.',
  'a-',
  'a ',
  'Aa ',
  '1 ',
  '1-',
  'a@',
  'a:',
  ': ',
  '= ',
  '-eyJ',
  'sk-',
  '://a:',
  'A-',
  'aA1+',
];
const SUFFIXES = ['', '!'];

function line(prefix: string, pump: string, suffix: string, length = LINE_CHARS_MAX): string {
  const body = pump.repeat(Math.ceil((length - prefix.length - suffix.length) / pump.length));
  return (prefix + body).slice(0, length - suffix.length) + suffix;
}

function execAll(pattern: RegExp, text: string): void {
  if (!pattern.global) {
    pattern.test(text);
    return;
  }
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) if (match[0].length === 0) pattern.lastIndex++;
}

/** The best of ATTEMPTS timings; a timing under the bound, or ten times over it (no noise does that), ends the attempts. */
async function bestMs(work: () => unknown, bound_ms: number): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const started = performance.now();
    await work();
    best = Math.min(best, performance.now() - started);
    if (best <= bound_ms || best >= bound_ms * 10) break;
  }
  return best;
}

type Slow = { input: string; ms_per_kb: number };

/** Inputs whose screening took more than the bound per KiB, with their cost (the first `listed_max` found). */
async function slowInputs(inputs: Array<{ name: string; text: string }>, screen: (text: string) => unknown, listed_max = 5): Promise<Slow[]> {
  const slow: Slow[] = [];
  for (const { name, text } of inputs) {
    const kb = text.length / 1024;
    const ms_per_kb = (await bestMs(() => screen(text), kb * SCREENING_MS_PER_KB_MAX)) / kb;
    if (ms_per_kb > SCREENING_MS_PER_KB_MAX) slow.push({ input: name, ms_per_kb: Math.round(ms_per_kb * 10) / 10 });
    if (slow.length >= listed_max) break;
  }
  return slow;
}

const lineInputs = PREFIXES.flatMap((prefix) =>
  PUMPS.flatMap((pump) =>
    SUFFIXES.map((suffix) => ({ name: `${JSON.stringify(prefix)} + ${JSON.stringify(pump)}… + ${JSON.stringify(suffix)}`, text: line(prefix, pump, suffix) })),
  ),
);

describe('screening patterns on hostile lines of LINE_CHARS_MAX characters', () => {
  for (const { name, pattern } of SCREENING_PATTERNS) {
    it(`${name} stays under ${SCREENING_MS_PER_KB_MAX} ms per KiB`, async () => {
      expect(await slowInputs(lineInputs, (text) => execAll(pattern, text))).toEqual([]);
    });
  }
});

describe('screening a hostile source as extraction does', () => {
  // A source of hostile lines: each input is repeated over LINE_CHARS_MAX-long stretches of one line, behind a health
  // context word (so the contact patterns run) and an identifier (so the name pattern runs).
  const SOURCE_CHARS = 64 * 1024;
  const sourceOf = (prefix: string, pump: string) => {
    const long_line = line(`ward MRN 12345678 ${prefix}`, pump, '', SOURCE_CHARS);
    return [`Patient seen in clinic, NHS 943 476 5919`, long_line, long_line.slice(0, 1000)];
  };
  const inputs = ['MRN', 'DOB', 'ward', 'https://a:', 'eyJaaaaaaaaa.', 'password', 'a@', 'Mr', '1 Aa '].flatMap((prefix) =>
    [' ', 'a.', 'a-', '1 ', 'a%', ': ', 'Aa '].map((pump) => ({
      name: `${JSON.stringify(prefix)} + ${JSON.stringify(pump)}…`,
      text: sourceOf(prefix, pump).join('\n'),
    })),
  );

  it(`splits each long line and screens it under ${SCREENING_MS_PER_KB_MAX} ms per KiB with our rules`, async () => {
    const screen = (text: string) => screenLinesForHits(splitLongLines(text.split('\n')).lines);
    expect(await slowInputs(inputs, screen, 1)).toEqual([]);
  });

  it(`screens the same lines under ${SCREENING_MS_PER_KB_MAX} ms per KiB with secretlint's preset`, async () => {
    await secretlintHits(['warm-up']);
    const screen = (text: string) => secretlintHits(splitLongLines(text.split('\n')).lines);
    expect(await slowInputs(inputs, screen, 1)).toEqual([]);
  });

  it('says how many lines it split, keeps every character, and cuts at white space where it can', () => {
    const words = 'word '.repeat(2000); // 10,000 characters
    const run = 'x'.repeat(LINE_CHARS_MAX * 2 + 5);
    const { lines, lines_split } = splitLongLines(['short', words, run, '']);
    expect(lines_split).toBe(2);
    expect(lines.join('')).toBe(['short', words, run, ''].join(''));
    expect(lines.every((one) => one.length <= LINE_CHARS_MAX)).toBe(true);
    expect(lines.slice(1, 4).every((one) => one.endsWith(' '))).toBe(true);
    expect(lines.slice(-4, -1).map((one) => one.length)).toEqual([LINE_CHARS_MAX, LINE_CHARS_MAX, 5]);
    const pairs = '😀'.repeat(LINE_CHARS_MAX); // a cut never falls inside a surrogate pair
    expect(splitLongLines([`a${pairs}`]).lines.every((one) => !/[\uD800-\uDBFF]$/.test(one))).toBe(true);
  });

  it('still finds a secret written after a long run once its line is split', () => {
    const { lines } = splitLongLines([`${'lorem '.repeat(1500)}password = hunter2-hunter2`]);
    expect(screenLinesForHits(lines).map((hit) => hit.kind)).toContain('password');
  });
});

// Numbers must be stated by their quotes (spec: IntakeSpec — every statement cites what was really read). A drafted
// claim or statement whose text holds a number that none of its citation quotes states is not kept: a model (or the
// offline drafter) may not add precision, change a quantity or invent a figure on a true quote. Pure.
//
// What counts as stated (docs/intake.md, "Numbers a draft may state"):
// - the same number in the quote, as digits or as a number word ("three" for 3);
// - the quote's number rounded to the claim's precision ("33%" on a quote of "33.3%"), never the other way round;
// - a fraction the quote says in words, as its percentage ("half" 50, "a third" 33, "two thirds" 67, "a quarter" 25,
//   "three quarters" 75, "a fifth" 20, "one in N" 100/N), rounded to the claim's precision;
// - a scale word on either side ("1.2 million" and "1,200,000").
// Years, list numbers and the like follow the same rule: if the claim says it, a quote must too.
import type { Citation, IntakeSpec } from '../contracts/intakeSpec.ts';
import { quoteStatesNumber } from '../authoring/citedNumbers.ts';

/** Digits in a text, with a scale word after them if any ("1.2 million", "3,400", "45"). */
const DIGITS = /(?<![\p{L}\d.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(million|thousand|billion|bn|k|m)\b)?(?![\d])/giu;

const SCALE: Record<string, number> = { thousand: 1e3, k: 1e3, million: 1e6, m: 1e6, billion: 1e9, bn: 1e9 };

/** Fractions said in words, as percentages. */
const FRACTION_WORDS: Array<{ words: RegExp; percent: number }> = [
  { words: /\bthree[- ]quarters\b/i, percent: 75 },
  { words: /\btwo[- ]thirds\b/i, percent: 200 / 3 },
  { words: /\b(?:a|one)[- ]third\b/i, percent: 100 / 3 },
  { words: /\b(?:a|one)[- ]quarter\b/i, percent: 25 },
  { words: /\b(?:a|one)[- ]fifth\b/i, percent: 20 },
  { words: /\bhalf\b/i, percent: 50 },
];
const ONE_IN = /\bone in (\d+|two|three|four|five|six|seven|eight|nine|ten)\b/gi;
const SMALL_WORDS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

type Read = { token: string; value: number; decimals: number };

/** Every number a text states in digits, with its scale applied and its precision. */
export function numbersIn(text: string): Read[] {
  const out: Read[] = [];
  for (const match of text.matchAll(DIGITS)) {
    const digits = match[1]!;
    const scale = match[2] ? (SCALE[match[2].toLowerCase()] ?? 1) : 1;
    const decimals = digits.includes('.') ? digits.split('.')[1]!.length : 0;
    out.push({ token: match[0].trim(), value: Number(digits.replace(/,/g, '')) * scale, decimals: scale === 1 ? decimals : 0 });
  }
  return out;
}

function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** The percentages a quote says in words. */
function fractionPercents(quote: string): number[] {
  const out = FRACTION_WORDS.filter((fraction) => fraction.words.test(quote)).map((fraction) => fraction.percent);
  for (const match of quote.matchAll(ONE_IN)) {
    const n = SMALL_WORDS[match[1]!.toLowerCase()] ?? Number(match[1]);
    if (n > 0) out.push(100 / n);
  }
  return out;
}

/** True when `quote` states `number` by one of the documented readings above. */
export function quoteStates(quote: string, number: Read): boolean {
  if (quoteStatesNumber(quote, number.value)) return true;
  const candidates = [...numbersIn(quote).map((read) => read.value), ...fractionPercents(quote)];
  // the claim may round what the quote says, never add precision to it
  return candidates.some((value) => roundTo(value, number.decimals) === number.value);
}

/** The numbers of `text` that none of `citations` states. */
export function unstatedNumbers(text: string, citations: Citation[]): string[] {
  return numbersIn(text)
    .filter((number) => !citations.some((citation) => quoteStates(citation.quote, number)))
    .map((number) => number.token);
}

export type UnstatedNumber = { path: string; numbers: string[]; message: string };

const STATEMENT_FIELDS = [
  ['problem', 'the problem'],
  ['proposed_solution', 'the proposed solution'],
  ['care_setting', 'the care setting'],
] as const;

function quoted(numbers: string[]): string {
  return numbers.map((number) => `“${number}”`).join(', ');
}

/**
 * Removes each claim whose text holds a number its quotes do not state, and turns each such top-level statement into
 * an unknown with a question; says what it removed, in words.
 */
export function keepStatedNumbers(spec: IntakeSpec): { spec: IntakeSpec; claims_removed: UnstatedNumber[]; statements_unknown: UnstatedNumber[] } {
  const cleaned = structuredClone(spec);
  const claims_removed: UnstatedNumber[] = [];
  cleaned.claims = cleaned.claims.filter((claim, index) => {
    const numbers = unstatedNumbers(claim.text, claim.citations);
    if (numbers.length === 0) return true;
    claims_removed.push({
      path: `/claims/${index}`,
      numbers,
      message: `The claim “${claim.text}” says ${quoted(numbers)}, but the text it quotes does not state ${numbers.length === 1 ? 'that number' : 'those numbers'}; it was removed.`,
    });
    return false;
  });
  const statements_unknown: UnstatedNumber[] = [];
  for (const [field, name] of STATEMENT_FIELDS) {
    const statement = cleaned[field];
    if (!statement || statement.citations.length === 0) continue;
    const numbers = unstatedNumbers(statement.text, statement.citations);
    if (numbers.length === 0) continue;
    statements_unknown.push({
      path: `/${field}`,
      numbers,
      message: `The draft described ${name} with ${quoted(numbers)}, but the text it quotes does not state ${numbers.length === 1 ? 'that number' : 'those numbers'}.`,
    });
    cleaned[field] = null;
    if (!cleaned.unknowns.some((unknown) => unknown.field === field)) {
      cleaned.unknowns.push({ field, question: `What is ${name}? The draft gave ${quoted(numbers)}, which your material does not state.` });
    }
  }
  return { spec: cleaned, claims_removed, statements_unknown };
}

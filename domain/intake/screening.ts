// Screening without AI for secrets and patient identifiers (spec: Intake source).
// Pure and synchronous. The extraction activity adds secretlint's recommended preset on top (compute/extraction/secretlint.ts).
// A finding carries kind, line and a masked value; the raw value never leaves this module.
import type { Finding, FindingKind } from './sources.ts';
import { FINDINGS_PER_SOURCE_MAX, LINE_CHARS_MAX, SECRET_FINDING_KINDS } from './sources.ts';

/** A match with its position, used to merge and de-duplicate findings from several rule sets. */
export type ScreeningHit = { kind: FindingKind; line: number; column_start: number; column_end: number; masked: string };

const SECRET_KINDS: ReadonlySet<FindingKind> = new Set(SECRET_FINDING_KINDS);

export function findingCategory(kind: FindingKind): Finding['category'] {
  return SECRET_KINDS.has(kind) ? 'secret' : 'patient_identifier';
}

// ---------- masking ----------

const ALNUM = /[\p{L}\p{N}]/u;

/** Replaces every letter and digit with `*` except the first keep_start and last keep_end; separators stay (`943 *** **19`). */
export function maskValue(value: string, keep_start: number, keep_end: number): string {
  const chars = [...value];
  const alnum_total = chars.filter((char) => ALNUM.test(char)).length;
  // Reveal at most half of the characters, so a short value is never given away.
  let start = keep_start;
  let end = keep_end;
  while (start + end > 0 && (start + end) * 2 > alnum_total) {
    if (start >= end && start > 0) start--;
    else end--;
  }
  let seen = 0;
  return chars
    .map((char) => {
      if (!ALNUM.test(char)) return char;
      seen++;
      return seen <= start || seen > alnum_total - end ? char : '*';
    })
    .join('');
}

/** The masked form shown for a value of this kind: enough to locate it in the document, never enough to use it. */
export function maskFor(kind: FindingKind, value: string): string {
  switch (kind) {
    case 'nhs_number':
      return maskValue(value, 3, 2);
    case 'us_ssn':
    case 'phone_number':
    case 'medical_record_number':
      return maskValue(value, 0, 2);
    case 'private_key':
      return '-----BEGIN PRIVATE KEY----- ********';
    case 'password':
      return '********'; // not even the length
    case 'aws_access_key':
    case 'ai_provider_key':
    case 'cloud_key':
    case 'token':
    case 'aws_secret_key':
    case 'high_entropy_secret':
      return maskValue(value.slice(0, 24), 4, 0) + (value.length > 24 ? '…' : '');
    case 'email': {
      const at = value.lastIndexOf('@');
      const dot = value.lastIndexOf('.');
      if (at < 1 || dot < at) return maskValue(value, 0, 0);
      return `${maskValue(value.slice(0, at), 1, 0)}@${maskValue(value.slice(at + 1, dot), 0, 0)}${value.slice(dot)}`;
    }
    case 'patient_name':
      return value
        .split(/(\s+|-)/)
        .map((part) => maskValue(part, 1, 0))
        .join('');
    case 'date_of_birth':
    case 'postal_address':
      return maskValue(value, 0, 0);
  }
}

// ---------- check digits ----------

/** NHS number modulus 11: weights 10..2 over the first nine digits; 11 -> 0; 10 -> never valid. */
export function isValidNhsNumber(value: string): boolean {
  const digits = value.replace(/[\s-]/g, '');
  if (!/^\d{10}$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < 9; index++) sum += Number(digits[index]) * (10 - index);
  const check = 11 - (sum % 11);
  if (check === 10) return false;
  return (check === 11 ? 0 : check) === Number(digits[9]);
}

/** US SSN ranges never issued: area 000, 666, 900-999; group 00; serial 0000. */
export function isPossibleSsn(value: string): boolean {
  const digits = value.replace(/[\s-]/g, '');
  if (!/^\d{9}$/.test(digits)) return false;
  const area = Number(digits.slice(0, 3));
  const group = Number(digits.slice(3, 5));
  const serial = Number(digits.slice(5));
  return area !== 0 && area !== 666 && area < 900 && group !== 0 && serial !== 0;
}

// ---------- rules ----------

type Rule = { kind: FindingKind; pattern: RegExp; group?: number; accept?: (value: string, line: string) => boolean };

// Values that stand for a secret rather than being one: masks, templates, variable references, ENV_NAMES.
const PLACEHOLDER = /^(?:[*x.#_-]+|[<{$%[(].*|(?:your|my|example|sample|placeholder|changeme|redacted|none|null|undefined|true|false)\b.*)$/i;
const ENV_NAME = /^[A-Z0-9]+(?:_[A-Z0-9]+)+$/;
const notPlaceholder = (value: string) => !PLACEHOLDER.test(value) && !ENV_NAME.test(value);

const SECRET_RULES: Rule[] = [
  { kind: 'private_key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  { kind: 'aws_access_key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g },
  {
    kind: 'aws_secret_key',
    pattern: /aws.{0,24}?(?:secret|sk|key).{0,24}?[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    group: 1,
  },
  { kind: 'cloud_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g }, // Google Cloud / Gemini API key
  { kind: 'cloud_key', pattern: /AccountKey=([A-Za-z0-9+/=]{60,})/g, group: 1 }, // Azure storage
  { kind: 'cloud_key', pattern: /\b(?:dop|doo|dor)_v1_[a-f0-9]{64}\b/g }, // DigitalOcean
  { kind: 'ai_provider_key', pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}/g },
  { kind: 'ai_provider_key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/g },
  { kind: 'ai_provider_key', pattern: /\b(?:hf_[A-Za-z0-9]{30,}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,})\b/g },
  { kind: 'token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,})\b/g },
  { kind: 'token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'token', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { kind: 'token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  // JWT; starts only where a run of its characters starts (a `\b` start would rescan the run from every `-eyJ`)
  { kind: 'token', pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'token', pattern: /\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)/g, group: 1 },
  {
    kind: 'password',
    pattern: /(?<![A-Za-z])(?:password|passwd|passphrase|pwd|pass)\b["']?\s*(?::=|=>|[:=])\s*["']?([^\s"'`,;]{4,})/gi,
    group: 1,
    accept: notPlaceholder,
  },
  {
    kind: 'token',
    pattern:
      /(?<![A-Za-z])(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key|secret)\b["']?\s*(?::=|=>|[:=])\s*["']?([A-Za-z0-9_./+=-]{12,})/gi,
    group: 1,
    accept: notPlaceholder,
  },
  // A URL with a password; the scheme starts only where a run of scheme characters starts.
  { kind: 'password', pattern: /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:([^\s@/]{3,})@/gi, group: 1, accept: notPlaceholder },
];

const SECRET_CONTEXT = /\b(?:key|secret|token|credential|password|passwd|auth|api|private|bearer|signature)\b/i;
const HIGH_ENTROPY_CANDIDATE = /[A-Za-z0-9+/_=-]{24,}/g;

const IDENTIFIER_LIKE = /^[a-z]+(?:[-_][a-z]+)+$/i; // identifiers-like-this

/** Shannon entropy in bits per character. */
export function entropyBitsPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const share = count / value.length;
    bits -= share * Math.log2(share);
  }
  return bits;
}

function looksRandom(value: string): boolean {
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
  if (IDENTIFIER_LIKE.test(value)) return false;
  return entropyBitsPerChar(value) >= 4.0;
}

// Patient identifiers.
const NHS_SHAPED = /(?<![\d-])(\d{3})([ -]?)(\d{3})\2(\d{4})(?![\d-])/g;
const SSN_SHAPED = /(?<![\d-])(\d{3})-(\d{2})-(\d{4})(?![\d-])/g;
const SSN_CONTEXT_UNFORMATTED = /\b(?:SSN|social security(?: number| no\.?)?)\b\s*(?:[:#]\s*)?(\d{3}\s?\d{2}\s?\d{4})(?!\d)/gi;
const MRN =
  /\b(?:MRN|medical record(?: number| no\.?| #)?|hospital (?:number|no\.?)|patient (?:id|number|no\.?)|case (?:number|no\.?)|unit number)\s*(?:[:#]\s*)?([A-Z]{0,4}-?\d[A-Z0-9-]{3,15})\b/gi;
const DATE = String.raw`(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?,?\s+\d{4}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})`;
const DOB = new RegExp(String.raw`\b(?:DOB|D\.O\.B\.?|date of birth|birth ?date|born(?: on)?)\b\s*(?:[:#-]\s*)?(${DATE})`, 'gi');
const PATIENT_NAME = /\b(?:[Pp]atient(?: [Nn]ame)?|[Nn]ame|[Pp]t|Mr|Mrs|Ms|Miss|Mx)\b\.?\s*(?:[:-]\s*)?([A-Z][a-z'’]+(?:[ -][A-Z][a-z'’]+){1,2})\b/g;
// The local part starts only where a run of its characters starts (a `\b` start would rescan `a.a.a.…` from every letter).
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g;
const PHONE = /(?<![\w-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,5}\)|\d{2,5})[\s.-]?\d{3,4}[\s.-]?\d{3,4}(?![\w-])/g;
const PHONE_CONTEXT = /\b(?:tel|telephone|phone|mobile|mob|cell|call|contact|fax)\b/i;
const UK_POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[ABD-HJLNP-UW-Z]{2}\b/g;
const STREET_ADDRESS =
  /\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Close|Way|Crescent|Court|Ct|Place|Pl|Boulevard|Blvd|Terrace|Gardens)\b\.?/g;
// Words that tie nearby contact details to a person's care (spec: "next to health context").
const HEALTH_CONTEXT =
  /\b(?:patients?|diagnos(?:is|ed|es)|prescri(?:bed|ption)|medications?|symptoms?|admitted|admission|discharged?|referr(?:al|ed)|clinic(?:al)?|hospital|ward|GP|NHS|MRN|DOB|date of birth|treatment|condition|consultant|appointment|allerg(?:y|ies)|next of kin)\b/i;
const IDENTIFIER_KINDS: ReadonlySet<FindingKind> = new Set(['nhs_number', 'us_ssn', 'medical_record_number', 'date_of_birth']);

/**
 * Every pattern screening runs over a line or a value, by name. Each one is linear in its input: no two quantifiers can
 * share the characters they match (a separator is optional only inside a group that starts with it, as in
 * `\s*(?:[:#]\s*)?`), and a pattern whose first part repeats a character class starts only where a run of that class starts
 * (a lookbehind instead of `\b`), so no start rescans a run another start scanned. test/unit/screening-fuzz.test.ts feeds
 * each adversarial inputs of LINE_CHARS_MAX characters (docs/decisions.md, "Screening in linear time").
 */
export const SCREENING_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  ...SECRET_RULES.map((rule, index) => ({ name: `${rule.kind} rule ${index + 1}`, pattern: rule.pattern })),
  { name: 'placeholder', pattern: PLACEHOLDER },
  { name: 'environment variable name', pattern: ENV_NAME },
  { name: 'secret context', pattern: SECRET_CONTEXT },
  { name: 'high-entropy candidate', pattern: HIGH_ENTROPY_CANDIDATE },
  { name: 'identifier-like value', pattern: IDENTIFIER_LIKE },
  { name: 'NHS number', pattern: NHS_SHAPED },
  { name: 'SSN', pattern: SSN_SHAPED },
  { name: 'SSN after its label', pattern: SSN_CONTEXT_UNFORMATTED },
  { name: 'medical record number', pattern: MRN },
  { name: 'date of birth', pattern: DOB },
  { name: 'patient name', pattern: PATIENT_NAME },
  { name: 'e-mail address', pattern: EMAIL },
  { name: 'phone number', pattern: PHONE },
  { name: 'phone context', pattern: PHONE_CONTEXT },
  { name: 'UK postcode', pattern: UK_POSTCODE },
  { name: 'street address', pattern: STREET_ADDRESS },
  { name: 'health context', pattern: HEALTH_CONTEXT },
];

/**
 * Splits every line longer than LINE_CHARS_MAX into numbered lines of at most that many characters, each cut after the
 * last white space in the second half of the window (else at the limit, never inside a surrogate pair), so that no
 * pattern ever runs over more than LINE_CHARS_MAX characters. Returns the lines and how many were split.
 */
export function splitLongLines(lines: string[], chars_max = LINE_CHARS_MAX): { lines: string[]; lines_split: number } {
  if (lines.every((line) => line.length <= chars_max)) return { lines, lines_split: 0 };
  const out: string[] = [];
  let lines_split = 0;
  for (const line of lines) {
    if (line.length <= chars_max) {
      out.push(line);
      continue;
    }
    lines_split++;
    let start = 0;
    while (line.length - start > chars_max) {
      let cut = start + chars_max;
      const space = lastWhiteSpace(line, start + Math.floor(chars_max / 2), cut);
      if (space >= 0) cut = space + 1;
      else if (isHighSurrogate(line.charCodeAt(cut - 1))) cut--;
      out.push(line.slice(start, cut));
      start = cut;
    }
    out.push(line.slice(start));
  }
  return { lines: out, lines_split };
}

function lastWhiteSpace(line: string, from: number, before: number): number {
  for (let index = before - 1; index >= from; index--) {
    const code = line.charCodeAt(index);
    if (code === 0x20 || code === 0x09 || code === 0x0c || code === 0x0b || code === 0xa0) return index;
  }
  return -1;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** How far (in lines) "next to" reaches for context words. */
export const SCREENING_CONTEXT_LINES = 1;

function collect(lines: string[], line_index: number, pattern: RegExp, group: number, visit: (value: string, start: number, match: RegExpExecArray) => void) {
  const line = lines[line_index]!;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(line); match !== null; match = pattern.exec(line)) {
    if (match[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    const value = match[group];
    if (value === undefined) continue;
    const start = match.index + match[0].lastIndexOf(value);
    visit(value, start, match);
  }
}

function nearby(lines: string[], line_index: number, test: RegExp): boolean {
  for (let index = Math.max(0, line_index - SCREENING_CONTEXT_LINES); index <= Math.min(lines.length - 1, line_index + SCREENING_CONTEXT_LINES); index++) {
    if (test.test(lines[index]!)) return true;
  }
  return false;
}

/**
 * The hits found so far, kept per line too so that overlap checks stay per line (a file full of findings stays linear).
 * A later rule never claims a span an earlier one holds, so the order the rules run in decides which kind wins.
 */
class Hits {
  readonly all: ScreeningHit[] = [];
  private readonly by_line = new Map<number, ScreeningHit[]>();

  /** Records the hit unless an earlier one already covers part of its span. */
  claim(kind: FindingKind, line_index: number, start: number, value: string): void {
    const end = start + value.length;
    if ((this.by_line.get(line_index + 1) ?? []).some((hit) => hit.column_start < end && start < hit.column_end)) return;
    const hit = { kind, line: line_index + 1, column_start: start, column_end: end, masked: maskFor(kind, value) };
    this.all.push(hit);
    const on_line = this.by_line.get(hit.line);
    if (on_line) on_line.push(hit);
    else this.by_line.set(hit.line, [hit]);
  }
}

/**
 * Screens numbered lines (line n is lines[n-1]) for secrets and patient identifiers.
 * Returns hits with positions and masked values; use `findingsFromHits` to merge them into Findings.
 */
export function screenLinesForHits(lines: string[]): ScreeningHit[] {
  const hits = new Hits();
  for (let index = 0; index < lines.length; index++) if (lines[index]!.length > 0) screenSecretsAndIdentifiers(lines, index, hits);
  // Second pass: names next to identifiers, and contact details next to health context.
  const identifier_lines = new Set(hits.all.filter((hit) => IDENTIFIER_KINDS.has(hit.kind)).map((hit) => hit.line - 1));
  for (let index = 0; index < lines.length; index++) if (lines[index]!.length > 0) screenNamesAndContacts(lines, index, hits, identifier_lines);
  return hits.all;
}

function screenSecretsAndIdentifiers(lines: string[], index: number, hits: Hits): void {
  const line = lines[index]!;
  for (const rule of SECRET_RULES) {
    collect(lines, index, rule.pattern, rule.group ?? 0, (value, start) => {
      if (!rule.accept || rule.accept(value, line)) hits.claim(rule.kind, index, start, value);
    });
  }
  if (SECRET_CONTEXT.test(line)) {
    collect(lines, index, HIGH_ENTROPY_CANDIDATE, 0, (value, start) => {
      if (looksRandom(value)) hits.claim('high_entropy_secret', index, start, value);
    });
  }
  collect(lines, index, NHS_SHAPED, 0, (value, start) => {
    if (isValidNhsNumber(value)) hits.claim('nhs_number', index, start, value);
  });
  collect(lines, index, SSN_SHAPED, 0, (value, start) => {
    if (isPossibleSsn(value)) hits.claim('us_ssn', index, start, value);
  });
  collect(lines, index, SSN_CONTEXT_UNFORMATTED, 1, (value, start) => {
    if (isPossibleSsn(value)) hits.claim('us_ssn', index, start, value);
  });
  collect(lines, index, MRN, 1, (value, start) => {
    if (/\d{3}/.test(value)) hits.claim('medical_record_number', index, start, value);
  });
  collect(lines, index, DOB, 1, (value, start) => hits.claim('date_of_birth', index, start, value));
}

function screenNamesAndContacts(lines: string[], index: number, hits: Hits, identifier_lines: Set<number>): void {
  let near_identifier = false;
  for (let offset = -SCREENING_CONTEXT_LINES; offset <= SCREENING_CONTEXT_LINES; offset++) if (identifier_lines.has(index + offset)) near_identifier = true;
  if (near_identifier) collect(lines, index, PATIENT_NAME, 1, (value, start) => hits.claim('patient_name', index, start, value));
  if (!nearby(lines, index, HEALTH_CONTEXT)) return;
  collect(lines, index, EMAIL, 0, (value, start) => hits.claim('email', index, start, value));
  collect(lines, index, PHONE, 0, (value, start) => {
    const digits = value.replace(/\D/g, '');
    const phone_like = /^[+(0]/.test(value) || nearby(lines, index, PHONE_CONTEXT);
    if (digits.length >= 9 && digits.length <= 15 && phone_like) hits.claim('phone_number', index, start, value);
  });
  for (const pattern of [UK_POSTCODE, STREET_ADDRESS]) collect(lines, index, pattern, 0, (value, start) => hits.claim('postal_address', index, start, value));
}

/**
 * Merges hits from several rule sets: one finding per overlapping span, in line order, at most FINDINGS_PER_SOURCE_MAX.
 * Earlier hits win an overlap, so pass the most specific rule set first.
 */
export function findingsFromHits(hits: ScreeningHit[]): { findings: Finding[]; findings_not_listed: number } {
  const kept: ScreeningHit[] = [];
  const kept_by_line = new Map<number, ScreeningHit[]>();
  for (const hit of hits) {
    const on_line = kept_by_line.get(hit.line) ?? [];
    if (on_line.some((other) => other.column_start < hit.column_end && hit.column_start < other.column_end)) continue;
    on_line.push(hit);
    kept_by_line.set(hit.line, on_line);
    kept.push(hit);
  }
  kept.sort((a, b) => a.line - b.line || a.column_start - b.column_start);
  const findings = kept.slice(0, FINDINGS_PER_SOURCE_MAX).map((hit) => ({
    kind: hit.kind,
    category: findingCategory(hit.kind),
    line: hit.line,
    masked: hit.masked,
  }));
  return { findings, findings_not_listed: Math.max(0, kept.length - FINDINGS_PER_SOURCE_MAX) };
}

/** Screens lines with this module's rules alone. */
export function screenLines(lines: string[]): { findings: Finding[]; findings_not_listed: number } {
  return findingsFromHits(screenLinesForHits(lines));
}

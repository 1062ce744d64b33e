// The numbers a confirmed intake already cites (authoring never asks for a number the intake cites). Every
// citation quote is read for a demand (a count per hour or per day), a duration (minutes or hours) and a staffing count;
// each is proposed for the slot whose unit it fits, with the cited line as its source and the unit conversion recorded
// (a count per day → per hour over the opening hours the intake cites, or over a stated 24-hour day). Pure.
import type { Conversion } from '../contracts/checkpoint.ts';
import type { Citation, IntakeSpec } from '../contracts/intakeSpec.ts';

export type { Conversion } from '../contracts/checkpoint.ts';

/** A proposal read from the intake (the same shape the model returns). */
export type CitedProposal = {
  slot: string;
  value: number;
  source: { kind: 'intake_line'; source_id: string; line_start: number; line_end: number; quote: string; conversion: Conversion | null };
};

/** What a slot needs from a cited number; only slots of these units are read from the intake. */
type SlotNeed = { id: string; unit: string; variant: string | null };

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
};
const NUMBER = `(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?|${Object.keys(NUMBER_WORDS).join('|')})`;
/** A number standing alone (not the end of a word such as "someone"). */
const N = `\\b${NUMBER}`;
const DEMAND_NOUNS =
  'patients|referrals|calls|requests|appointments|attendances|visits|contacts|admissions|consultations|people|cases|presentations|arrivals|enquiries|bookings';
const STAFF_NOUNS =
  'clinicians|nurses|doctors|GPs|physicians|call handlers|pharmacists|physiotherapists|practitioners|consultants|paramedics|advisers|advisors|therapists|midwives|staff|clinical staff|triage nurses|nurse practitioners|health advisers';
/** "96 referrals a day", "12 patients per hour", "about 40 calls each day" */
const DEMAND = new RegExp(`${N}\\s+(?:[a-z-]+\\s+){0,2}?(?:${DEMAND_NOUNS})\\s+(?:a|an|per|each|every)\\s+(day|hour)\\b`, 'gi');
/** "96 referrals daily" */
const DEMAND_DAILY = new RegExp(`${N}\\s+(?:[a-z-]+\\s+){0,2}?(?:${DEMAND_NOUNS})\\s+(daily|hourly)\\b`, 'gi');
/** "12 minutes", "a 10-minute call", "1.5 hours" */
const DURATION = new RegExp(`${N}[\\s-]*(minutes?|mins?|hours?|hrs?)\\b`, 'gi');
/** "from 15 to 9 minutes", "from 15 minutes to 9 minutes" */
const FROM_TO = new RegExp(`from\\s+${NUMBER}(?:[\\s-]*(?:minutes?|mins?))?\\s+(?:to|down to)\\s+${N}[\\s-]*(minutes?|mins?)\\b`, 'i');
/** "three clinicians", "4 nurses staff the line", "staffed by 2 GPs" */
const STAFF = new RegExp(`${N}\\s+(?:[a-z-]+\\s+){0,1}?(?:${STAFF_NOUNS})\\b`, 'i');
/** A duration cue for the treatment variant: the value the technology would bring. */
const TREATMENT_CUE =
  /\b(reduces?|reduced|cuts?|shortens?|shortened|would|will|could|with (the|our|this) (app|tool|form|platform|service|technology|system|software|device))\b/i;
const TWENTY_FOUR_HOURS = /\b(24 hours a day|24 hours|24-hour|24\/7|around the clock|round the clock|day and night)\b/i;
const OPEN_FOR_HOURS = new RegExp(`\\b(?:open|staffed|runs?|operates?|available)\\b[^.]*?\\b${NUMBER}\\s+hours\\s+(?:a|per|each|every)\\s+day\\b`, 'i');
const TIME = '(\\d{1,2})(?:[:.](\\d{2}))?\\s*(am|pm)?';
const OPEN_FROM_TO = new RegExp(
  `\\b(?:open|opening hours|staff(?:ed|s)?|runs?|operates?|available|hours)\\b[^.]*?\\b(?:from\\s+)?${TIME}\\s*(?:to|until|till|-|–|—)\\s*${TIME}`,
  'i',
);

/** True when a sentence states a quantity a world setting could take: a demand per hour or day, a duration, a staffing count. */
export function statesQuantity(text: string): boolean {
  DEMAND.lastIndex = 0;
  DEMAND_DAILY.lastIndex = 0;
  DURATION.lastIndex = 0;
  return DEMAND.test(text) || DEMAND_DAILY.test(text) || DURATION.test(text) || STAFF.test(text) || OPEN_FROM_TO.test(text) || OPEN_FOR_HOURS.test(text);
}

/** The number a matched token stands for (digits, digits with thousand separators, or a word). */
export function numberOf(token: string): number {
  const word = NUMBER_WORDS[token.toLowerCase()];
  return word ?? Number(token.replace(/,/g, ''));
}

/** True when `quote` states `value` as digits or as a number word (the check a cited or converted value must pass). */
export function quoteStatesNumber(quote: string, value: number): boolean {
  for (const match of quote.matchAll(new RegExp(NUMBER, 'gi'))) {
    const before = quote[(match.index ?? 0) - 1];
    if (before !== undefined && /[\p{L}\d.]/u.test(before)) continue;
    if (numberOf(match[1]!) === value) return true;
  }
  return false;
}

function hourOf(hour: string, minute: string | undefined, meridiem: string | undefined): number {
  let value = Number(hour) % (meridiem ? 12 : 24);
  if (meridiem?.toLowerCase() === 'pm') value += 12;
  return value + Number(minute ?? 0) / 60;
}

type Cited = { citation: Citation; in_solution: boolean };

/** Every citation of the intake, in document order, with whether it backs the proposed solution. */
function citationsOf(intake: IntakeSpec): Cited[] {
  const out: Cited[] = [];
  const visit = (value: unknown, in_solution: boolean) => {
    if (Array.isArray(value)) for (const inner of value) visit(inner, in_solution);
    else if (value && typeof value === 'object') {
      const holder = value as { citations?: Citation[] };
      if (Array.isArray(holder.citations)) for (const citation of holder.citations) out.push({ citation, in_solution });
      for (const [key, inner] of Object.entries(value)) if (key !== 'citations') visit(inner, in_solution || key === 'proposed_solution');
    }
  };
  visit(intake, false);
  return out;
}

/** The opening hours a cited line states (a time range, "open N hours a day", or a 24-hour day), with that line. */
export function citedOpeningHours(intake: IntakeSpec | null): { hours: number; citation: Citation } | null {
  if (!intake) return null;
  for (const { citation } of citationsOf(intake)) {
    const range = OPEN_FROM_TO.exec(citation.quote);
    if (range) {
      const start = hourOf(range[1]!, range[2], range[3]);
      let end = hourOf(range[4]!, range[5], range[6] ?? (range[3] && Number(range[4]) < Number(range[1]) ? 'pm' : undefined));
      if (end <= start) end += 12;
      const hours = end - start;
      if (hours > 0 && hours <= 24) return { hours, citation };
    }
    const open = OPEN_FOR_HOURS.exec(citation.quote);
    if (open && numberOf(open[1]!) > 0 && numberOf(open[1]!) <= 24) return { hours: numberOf(open[1]!), citation };
    if (TWENTY_FOUR_HOURS.test(citation.quote)) return { hours: 24, citation };
  }
  return null;
}

function rounded(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function where(citation: Citation): string {
  return `${citation.source_id} line${citation.line_start === citation.line_end ? ` ${citation.line_start}` : `s ${citation.line_start}-${citation.line_end}`}`;
}

function demandIn(
  citation: Citation,
  hours: { hours: number; citation: Citation } | null,
): { value: number; conversion: Conversion | null; daily_without_hours: number | null } | null {
  for (const pattern of [DEMAND, DEMAND_DAILY]) {
    for (const match of citation.quote.matchAll(pattern)) {
      const count = numberOf(match[1]!);
      const per = match[2]!.toLowerCase();
      if (per === 'hour' || per === 'hourly') return { value: count, conversion: null, daily_without_hours: null };
      if (!hours) return { value: count, conversion: null, daily_without_hours: count };
      const basis =
        hours.hours === 24 && TWENTY_FOUR_HOURS.test(hours.citation.quote)
          ? `${count} per day over a 24-hour day (stated at ${where(hours.citation)}: "${hours.citation.quote}")`
          : `${count} per day over the ${hours.hours} opening hours cited at ${where(hours.citation)} ("${hours.citation.quote}")`;
      return {
        value: rounded(count / hours.hours),
        conversion: { quoted_value: count, quoted_unit: 'per_day', factor: 1 / hours.hours, basis },
        daily_without_hours: null,
      };
    }
  }
  return null;
}

function durationsIn(citation: Citation, in_solution: boolean): Array<{ variant: 'baseline' | 'treatment'; value: number; conversion: Conversion | null }> {
  const from_to = FROM_TO.exec(citation.quote);
  if (from_to)
    return [
      { variant: 'baseline', value: numberOf(from_to[1]!), conversion: null },
      { variant: 'treatment', value: numberOf(from_to[2]!), conversion: null },
    ];
  const out: Array<{ variant: 'baseline' | 'treatment'; value: number; conversion: Conversion | null }> = [];
  for (const match of citation.quote.matchAll(DURATION)) {
    const quoted = numberOf(match[1]!);
    const before = citation.quote.slice(0, match.index);
    if (/\b(open|opening|staffed|runs?|operates?|available)\b/i.test(before) && /^h/i.test(match[2]!)) continue; // opening hours, not a duration
    const variant = in_solution || TREATMENT_CUE.test(before) ? 'treatment' : 'baseline';
    if (/^h/i.test(match[2]!))
      out.push({
        variant,
        value: rounded(quoted * 60),
        conversion: { quoted_value: quoted, quoted_unit: 'hours', factor: 60, basis: `${quoted} hours × 60 minutes` },
      });
    else out.push({ variant, value: quoted, conversion: null });
  }
  return out;
}

/**
 * The proposals the intake's cited lines give, one per open slot at most (the first cited line wins), and the daily
 * counts that could not become a rate for want of opening hours (so the question can say so).
 */
export function citedProposals(intake: IntakeSpec | null, slots: SlotNeed[]): { proposals: CitedProposal[]; daily_without_hours: number | null } {
  if (!intake) return { proposals: [], daily_without_hours: null };
  const hours = citedOpeningHours(intake);
  const found = new Map<string, CitedProposal>();
  let daily_without_hours: number | null = null;
  const offer = (unit: string, variant: 'baseline' | 'treatment', citation: Citation, value: number, conversion: Conversion | null) => {
    const slot = slots.find((candidate) => candidate.unit === unit && (candidate.variant ?? 'baseline') === variant && !found.has(candidate.id));
    if (slot && Number.isFinite(value) && value > 0) found.set(slot.id, { slot: slot.id, value, source: { kind: 'intake_line', ...citation, conversion } });
  };
  for (const { citation, in_solution } of citationsOf(intake)) {
    const demand = demandIn(citation, hours);
    if (demand?.daily_without_hours !== null && demand?.daily_without_hours !== undefined) daily_without_hours ??= demand.daily_without_hours;
    else if (demand) offer('per_hour', 'baseline', citation, demand.value, demand.conversion);
    for (const duration of durationsIn(citation, in_solution)) offer('minutes', duration.variant, citation, duration.value, duration.conversion);
    const staff = STAFF.exec(citation.quote);
    if (staff && Number.isInteger(numberOf(staff[1]!))) offer('count', 'baseline', citation, numberOf(staff[1]!), null);
  }
  return { proposals: [...found.values()], daily_without_hours };
}

/** The factor range each recorded conversion may use (value = quoted_value × factor). */
const CONVERSIONS: Record<string, { to: string; factor_min: number; factor_max: number }[]> = {
  per_day: [{ to: 'per_hour', factor_min: 1 / 24, factor_max: 1 }],
  per_week: [{ to: 'per_hour', factor_min: 1 / 168, factor_max: 1 }],
  hours: [{ to: 'minutes', factor_min: 60, factor_max: 60 }],
  seconds: [{ to: 'minutes', factor_min: 1 / 60, factor_max: 1 / 60 }],
  per_hour: [{ to: 'per_minute', factor_min: 1 / 60, factor_max: 1 / 60 }],
  minutes: [{ to: 'hours', factor_min: 1 / 60, factor_max: 1 / 60 }],
};

/** Relative tolerance between value and quoted_value × factor (values are rounded to four decimals). */
const CONVERSION_TOLERANCE = 1e-3;

/** True when a recorded conversion is one the service knows from `quoted_unit` to the slot's unit and its arithmetic holds. */
export function conversionHolds(conversion: Conversion, slot_unit: string, value: number): boolean {
  const rule = CONVERSIONS[conversion.quoted_unit]?.find((candidate) => candidate.to === slot_unit);
  if (!rule || conversion.basis.trim().length === 0) return false;
  if (!(conversion.factor >= rule.factor_min * (1 - 1e-9) && conversion.factor <= rule.factor_max * (1 + 1e-9))) return false;
  const expected = conversion.quoted_value * conversion.factor;
  return Math.abs(expected - value) <= CONVERSION_TOLERANCE * Math.max(1, Math.abs(expected));
}

// The `offline` provider's drafter: a deterministic, extractive heuristic (ARCHITECTURE.md: AI and literature).
// It reads sentences, not lines (domain/intake/sentences.ts): wrapped lines are joined, every statement is one verbatim
// sentence (two at most) cited with the lines it spans, and each sentence goes to the fields its cues name
// (domain/intake/cues.ts). It never writes a word of its own; what it cannot find goes to `unknowns`.
import { statesQuantity } from '../authoring/citedNumbers.ts';
import {
  type Claim,
  type DraftLabel,
  INTAKE_LIST_ITEMS_MAX,
  INTAKE_SPEC_VERSION,
  type IntakeSpec,
  type PathwayStep,
  type Statement,
  type Unknown,
} from '../contracts/intakeSpec.ts';
import { invariant } from '../errors.ts';
import type { DraftSource } from '../prompts/intakeDraft.ts';
import { classifySentence, type DraftField, fieldForLabel, isClaim, namesPlace, stageIn } from './cues.ts';
import { type SourceSentence, sourceSentences } from './sentences.ts';

export const OFFLINE_DRAFT_LABEL: DraftLabel = {
  provider: 'offline',
  model: 'offline-extractive-2',
  method:
    'extractive heuristic: the material is split into sentences (wrapped lines joined) and each statement is a verbatim sentence picked by headings, labels and the words prose uses for each field; no model, no inference',
};

/** Longest sentence the drafter quotes; a longer run of text without a sentence end is not taken (never cut short). */
export const OFFLINE_QUOTE_CHARS_MAX = 600;
const PER_LIST_MAX = 10;
const CLAIMS_MAX = 20;
const STEPS_MAX = 30;

/** A sentence the drafter may use, with the fields it states. */
type Candidate = {
  sentence: SourceSentence;
  /**
   * rank per field: 0 labelled or under a heading, 1 the sentence's main field, 2 also stated outright, 3 spoken of
   * less than its main field or (care setting) a place named in a sentence about the project, 4 a named place elsewhere.
   */
  ranks: Map<DraftField, number>;
  order: number;
};

/** Fields of sentences about the project in use: a place such a sentence names is where the project would be used. */
const ABOUT_THE_PROJECT: ReadonlySet<DraftField> = new Set(['proposed_solution', 'intended_users', 'proposed_user', 'stage']);

/** Fields a sentence may give to a single-valued slot left empty, when it speaks of them less than of its main field. */
const WEAK_SECOND_FIELDS: ReadonlySet<DraftField> = new Set(['proposed_solution', 'intended_users', 'care_setting', 'dependencies', 'risks']);

function usable(text: string): boolean {
  return text.length >= 8 && text.length <= OFFLINE_QUOTE_CHARS_MAX && /\s/.test(text) && /[A-Za-z]/.test(text);
}

function candidateOf(sentence: SourceSentence, order: number): Candidate {
  const ranks = new Map<DraftField, number>();
  const named = (sentence.label ? fieldForLabel(sentence.label) : null) ?? (sentence.heading ? fieldForLabel(sentence.heading) : null);
  if (named !== null) ranks.set(named, 0);
  // An unrecognised label ("Today: ...") is still read as words of the sentence.
  const words = sentence.label && named === null ? `${sentence.label}: ${sentence.text}` : sentence.text;
  // A title or a fragment (no sentence end, not a list item) is read only for its label or heading.
  const fragment = !/[.!?]["')\]’”]*$/.test(sentence.text) && !sentence.list_item;
  const { fields, scores, setting_in_passing } = fragment ? { fields: [], scores: new Map(), setting_in_passing: false } : classifySentence(words);
  fields.forEach((field, index) => {
    if (named !== null && scores.get(field)! < 3) return; // under a label, only what the sentence states outright
    if (!ranks.has(field)) ranks.set(field, index === 0 && named === null ? 1 : 2);
  });
  // A field the sentence speaks of but less than its main one: taken only when nothing better states it.
  // ("currently" in a sentence about a long wait does not make it the current alternative: not for those fields).
  if (named === null) for (const [field, score] of scores) if (score >= 2 && WEAK_SECOND_FIELDS.has(field) && !ranks.has(field)) ranks.set(field, 3);
  if (setting_in_passing && !ranks.has('care_setting')) {
    const about_project = fields.some((field) => ABOUT_THE_PROJECT.has(field)) || (named !== null && ABOUT_THE_PROJECT.has(named));
    if (about_project) ranks.set('care_setting', 3);
    else if (namesPlace(words)) ranks.set('care_setting', 4);
  }
  const claimable = named !== 'risks' && named !== 'care_pathway' && (named === 'claims' || isClaim(sentence.text) || statesQuantity(sentence.text));
  if (claimable && !ranks.has('claims')) ranks.set('claims', 1);
  return { sentence, ranks, order };
}

function candidatesOf(sources: DraftSource[]): Candidate[] {
  const out: Candidate[] = [];
  for (const source of sources) {
    invariant(
      source.status === 'processed' && source.lines !== null,
      `the offline drafter reads processed sources only (source ${source.id} is ${source.status})`,
    );
    for (const sentence of sourceSentences(source.id, source.lines)) if (usable(sentence.text)) out.push(candidateOf(sentence, out.length));
  }
  return out;
}

/** The candidates for a field, best rank first, then in the order of the material. */
function ranked(candidates: Candidate[], field: DraftField, rank_max = 2): Candidate[] {
  return candidates
    .filter((candidate) => (candidate.ranks.get(field) ?? 99) <= rank_max)
    .sort((a, b) => a.ranks.get(field)! - b.ranks.get(field)! || a.order - b.order);
}

function cite(sentence: SourceSentence) {
  return { source_id: sentence.source_id, line_start: sentence.line_start, line_end: sentence.line_end, quote: sentence.text };
}

function statementOf(sentences: SourceSentence[]): Statement {
  return { text: sentences.map((sentence) => sentence.text).join(' '), provenance: 'user_declared', citations: sentences.map(cite) };
}

// Fields whose statement may run to a second sentence, when the next sentence of the same unit says the same thing.
const TWO_SENTENCE_FIELDS: ReadonlySet<DraftField> = new Set(['problem', 'proposed_solution']);

function single(candidates: Candidate[], field: DraftField): Statement | null {
  const best = ranked(candidates, field, 4)[0];
  if (!best) return null;
  const sentences = [best.sentence];
  const next = candidates[best.order + 1];
  if (
    TWO_SENTENCE_FIELDS.has(field) &&
    next &&
    next.sentence.source_id === best.sentence.source_id &&
    next.sentence.index_in_unit === best.sentence.index_in_unit + 1 &&
    (next.ranks.get(field) ?? 99) <= Math.max(1, best.ranks.get(field)!)
  ) {
    sentences.push(next.sentence);
  }
  return statementOf(sentences);
}

function list(candidates: Candidate[], field: DraftField, max = PER_LIST_MAX): Statement[] {
  const found = ranked(candidates, field);
  // A field the material labels ("Intended users: …") is what it says there: a sentence under another label that also
  // names it ("Our solution: an app that nurses use") is not added to it.
  const labelled = found.filter((candidate) => candidate.ranks.get(field) === 0);
  // Likewise a sentence whose main subject is another field ("We want to build an app that nurses use") is added only
  // when no sentence is mainly about this one ("It would be used by the nursing team").
  const mainly = found.filter((candidate) => candidate.ranks.get(field)! <= 1);
  return (labelled.length > 0 ? labelled : mainly.length > 0 ? mainly : found)
    .sort((a, b) => a.order - b.order)
    .slice(0, max)
    .map((candidate) => statementOf([candidate.sentence]));
}

const PEOPLE_OR_SERVICE =
  /\b(patients?|people|children|adults|women|men|families|parents|residents|carers|staff|clinicians|nurses|doctors|GPs?|users|referrals?|appointments?|waits?|waiting|services?|clinics?|hospitals?|wards?|practices?)\b/i;

/**
 * A pitch usually opens with its problem: when no sentence states one by its words, the first or second sentence of
 * the material is taken if it states nothing else and speaks of people or a service, not of "we" or "it".
 */
function openingProblem(candidates: Candidate[]): Statement | null {
  const opening = candidates
    .slice(0, 2)
    .find(
      (candidate) =>
        candidate.sentence.source_id === candidates[0]!.sentence.source_id &&
        candidate.sentence.label === null &&
        [...candidate.ranks.keys()].every((field) => field === 'claims') &&
        /[.!?]["')\]’”]*$/.test(candidate.sentence.text) &&
        !/^(we|our|it|this|they|i)\b/i.test(candidate.sentence.text) &&
        PEOPLE_OR_SERVICE.test(candidate.sentence.text),
    );
  return opening ? statementOf([opening.sentence]) : null;
}

function stageOf(candidates: Candidate[]): IntakeSpec['stage'] {
  for (const candidate of ranked(candidates, 'stage')) {
    const value = stageIn(candidate.sentence.text);
    if (value !== null) return { value, provenance: 'user_declared', citations: [cite(candidate.sentence)] };
  }
  return { value: null, provenance: 'user_declared', citations: [] };
}

function claimTopic(text: string): Claim['topic'] {
  if (/cost|£|\$|€|saving|revenue|price|budget/i.test(text)) return 'economic';
  if (/outcome|mortality|diagnos|readmi(ssion|tted)|harm|symptom|clinical|safety|recovery|adherence|amputation|falls?\b/i.test(text)) return 'clinical';
  if (/accuracy|sensitivity|specificity|latency|uptime|AUC|precision|recall/i.test(text)) return 'technical';
  return 'operational';
}

function pathwaySteps(candidates: Candidate[]): PathwayStep[] {
  return ranked(candidates, 'care_pathway', 0)
    .slice(0, STEPS_MAX)
    .map((candidate, index) => ({
      order: index + 1,
      description: candidate.sentence.text,
      actor: null,
      provenance: 'user_declared',
      citations: [cite(candidate.sentence)],
    }));
}

/**
 * Drafts an IntakeSpec from processed sources with the extractive heuristic. Deterministic: the same lines give the same draft.
 * Every citation quotes real lines verbatim with their numbers, so the draft passes checkCitations against those sources.
 */
export function draftIntakeOffline(sources: DraftSource[]): IntakeSpec {
  invariant(sources.length > 0, 'drafting needs at least one source');
  const candidates = candidatesOf(sources);
  const intended_users = list(candidates, 'intended_users');
  // The proposed user: a sentence naming the day-to-day user, else the sentence that states the users best.
  const proposed_user = single(candidates, 'proposed_user') ?? single(candidates, 'intended_users');
  const steps = pathwaySteps(candidates);
  const spec: IntakeSpec = {
    version: INTAKE_SPEC_VERSION,
    problem: single(candidates, 'problem') ?? openingProblem(candidates),
    proposed_solution: single(candidates, 'proposed_solution'),
    intended_users,
    care_setting: single(candidates, 'care_setting'),
    stage: stageOf(candidates),
    claims: list(candidates, 'claims', CLAIMS_MAX).map((claim) => ({ ...claim, topic: claimTopic(claim.text), citations: claim.citations })),
    evidence_offered: list(candidates, 'evidence_offered'),
    risks: list(candidates, 'risks'),
    unknowns: [],
    business: {
      proposed_user,
      buyer: single(candidates, 'buyer'),
      budget_owner: single(candidates, 'budget_owner'),
      current_alternative: single(candidates, 'current_alternative'),
      dependencies: list(candidates, 'dependencies'),
      value_hypothesis: single(candidates, 'value_hypothesis'),
    },
    care_pathway: { status: steps.length > 0 ? 'described' : 'none', description: null, steps },
  };
  spec.unknowns = unknownsOf(spec);
  spec.drafted_by = { ...OFFLINE_DRAFT_LABEL, summary: foundSummary(spec) };
  return spec;
}

/** The parts a reader looks for first; the draft says in one line how many of them it found. */
const PARTS: Array<[string, (spec: IntakeSpec) => boolean]> = [
  ['problem', (s) => s.problem !== null],
  ['solution', (s) => s.proposed_solution !== null],
  ['users', (s) => s.intended_users.length > 0],
  ['care setting', (s) => s.care_setting !== null],
  ['stage', (s) => s.stage.value !== null],
  ['buyer', (s) => s.business.buyer !== null || s.business.budget_owner !== null],
  ['what people do today', (s) => s.business.current_alternative !== null],
  ['risks', (s) => s.risks.length > 0],
];

/** One line: how much of the intake the material states, and what is missing ("Found 6 of 8 parts in your material ..."). */
export function foundSummary(spec: IntakeSpec): string {
  const found = PARTS.filter(([, has]) => has(spec)).map(([name]) => name);
  const missing = PARTS.filter(([, has]) => !has(spec)).map(([name]) => name);
  if (found.length === 0) {
    return spec.claims.length === 0
      ? 'Found nothing in your material that the intake asks for: no problem, solution, users, care setting, stage, buyer, current practice or risk. Fill in the cards yourself or add material that states them.'
      : `Found none of the ${PARTS.length} parts in your material, only ${spec.claims.length === 1 ? 'one number' : `${spec.claims.length} numbers`}; fill in the cards yourself or add material that states them.`;
  }
  const rest = missing.length === 0 ? '.' : `; not found: ${missing.join(', ')}.`;
  return `Found ${found.length} of ${PARTS.length} parts in your material (${found.join(', ')})${rest}`;
}

const QUESTIONS: Array<[string, (spec: IntakeSpec) => boolean, string]> = [
  ['problem', (s) => s.problem === null, 'What problem does the project address, and for whom?'],
  ['proposed_solution', (s) => s.proposed_solution === null, 'What is the proposed solution?'],
  ['intended_users', (s) => s.intended_users.length === 0, 'Who will use it?'],
  ['care_setting', (s) => s.care_setting === null, 'In which care setting will it be used?'],
  ['stage', (s) => s.stage.value === null, 'Is it an idea, a prototype, in a pilot, or deployed?'],
  ['claims', (s) => s.claims.length === 0, 'What does the project claim it will change, and by how much?'],
  ['evidence_offered', (s) => s.evidence_offered.length === 0, 'What evidence exists so far?'],
  ['risks', (s) => s.risks.length === 0, 'What could go wrong for patients, staff or the organization?'],
  ['business.proposed_user', (s) => s.business.proposed_user === null, 'Who is the proposed day-to-day user?'],
  ['business.buyer', (s) => s.business.buyer === null, 'Who would buy it?'],
  ['business.budget_owner', (s) => s.business.budget_owner === null, 'Whose budget would pay for it?'],
  ['business.current_alternative', (s) => s.business.current_alternative === null, 'What do people do today instead?'],
  ['business.dependencies', (s) => s.business.dependencies.length === 0, 'What does it depend on (systems, data, staff, approvals)?'],
  ['business.value_hypothesis', (s) => s.business.value_hypothesis === null, 'Why would the buyer find it worth paying for?'],
  ['care_pathway', (s) => s.care_pathway.status === 'none', 'What are the steps of the care pathway it changes, who performs them, and how long do they take?'],
  [
    'care_pathway.status',
    (s) => s.care_pathway.status === 'described',
    'Are the pathway steps specified with actors, durations and volumes so that they could be simulated?',
  ],
];

/** The unknowns a draft should list: every empty field the planner asks about. */
export function unknownsOf(spec: IntakeSpec): Unknown[] {
  return QUESTIONS.filter(([, missing]) => missing(spec))
    .map(([field, , question]) => ({ field, question }))
    .slice(0, INTAKE_LIST_ITEMS_MAX);
}

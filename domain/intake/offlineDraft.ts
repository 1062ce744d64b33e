// The `offline` provider's drafter: a deterministic, extractive keyword heuristic (ARCHITECTURE.md: AI and literature).
// It never writes a word of its own: every statement is a verbatim passage of one processed line, cited with its line number.
// What it cannot find goes to `unknowns`. It is a labelled heuristic, not a model.
import {
  type Claim,
  type DraftLabel,
  INTAKE_SPEC_VERSION,
  type IntakeSpec,
  INTAKE_LIST_ITEMS_MAX,
  type PathwayStep,
  type ProjectStage,
  type Statement,
  type Unknown,
} from '../contracts/intakeSpec.ts';
import { statesQuantity } from '../authoring/citedNumbers.ts';
import { invariant } from '../errors.ts';
import type { DraftSource } from '../prompts/intakeDraft.ts';

export const OFFLINE_DRAFT_LABEL: DraftLabel = {
  provider: 'offline',
  model: 'offline-extractive-1',
  method: 'extractive keyword heuristic: statements are verbatim source lines picked by headings, labels and keywords; no model, no inference',
};

/** Longest quote the drafter takes from one line; longer lines are cut at a word boundary. */
export const OFFLINE_QUOTE_CHARS_MAX = 300;
const PER_LIST_MAX = 10;
const STEPS_MAX = 30;

type Field =
  | 'problem'
  | 'proposed_solution'
  | 'intended_users'
  | 'care_setting'
  | 'stage'
  | 'claims'
  | 'evidence_offered'
  | 'risks'
  | 'proposed_user'
  | 'buyer'
  | 'budget_owner'
  | 'current_alternative'
  | 'dependencies'
  | 'value_hypothesis'
  | 'care_pathway';

// Heading or "Label:" words that name a field; checked in order, first match wins.
const LABELS: Array<[Field, RegExp]> = [
  ['budget_owner', /\bbudget\b/i],
  ['buyer', /\b(buyers?|purchasers?|commissioners?|payers?|who pays)\b/i],
  ['current_alternative', /\b(alternatives?|current (practice|process|care|approach|pathway)|status quo|competitors?|competition)\b/i],
  ['dependencies', /\b(dependenc(y|ies)|integrations?|prerequisites?)\b/i],
  ['value_hypothesis', /\b(value( hypothesis| proposition)?|business model|pricing)\b/i],
  ['care_pathway', /\b(care pathway|pathway|workflow|patient journey|how it works|steps)\b/i],
  ['problem', /\b(problem|challenge|unmet need|pain points?|the need)\b/i],
  ['proposed_solution', /\b(solution|product|proposal|our approach|what we (build|do|offer))\b/i],
  ['proposed_user', /\b(proposed users?|end users?|primary users?)\b/i],
  ['intended_users', /\b(intended users?|target users?|users?|audience|who it is for)\b/i],
  ['care_setting', /\b(care setting|setting|where it is used|deployment setting)\b/i],
  ['stage', /\b(stage|status|maturity|development stage)\b/i],
  ['evidence_offered', /\b(evidence|studies|study|research|validation|data)\b/i],
  ['risks', /\b(risks?|concerns?|limitations?|safety)\b/i],
  ['claims', /\b(claims?|benefits?|outcomes?|impact|results?)\b/i],
];

// Keyword fallbacks for lines outside any recognised heading.
const KEYWORDS: Array<[Field, RegExp]> = [
  ['problem', /\b(problem|challenge|struggle|burden|delays?|shortage|bottleneck|backlog|unmet need|too long|difficult)\b/i],
  [
    'proposed_solution',
    /\b(we propose|our (solution|app|platform|tool|device|service|product)|we (are )?(build|building|develop|developing)|an? (app|platform|tool|device|algorithm|service) that)\b/i,
  ],
  [
    'intended_users',
    /\b(for|used by|designed for|intended for|aimed at)\b.*\b(clinicians?|nurses?|GPs?|doctors?|pharmacists?|carers?|caregivers?|patients?|physiotherapists?|midwives|staff)\b/i,
  ],
  [
    'care_setting',
    /\b(primary care|general practice|GP (surgery|practice)|hospitals?|emergency department|A&E|ICU|intensive care|outpatient|community (care|setting)|care homes?|wards?|at home|clinics?)\b/i,
  ],
  ['buyer', /\b(buyer|commissioners?|procure(ment)?|ICBs?|integrated care boards?|NHS trusts?|payers?|insurers?)\b/i],
  ['budget_owner', /\bbudgets?\b/i],
  ['current_alternative', /\b(currently|today|at present|existing process|instead of|by hand|manually)\b/i],
  ['dependencies', /\b(depends? on|requires?|integrat(e|es|ion) with|EHR|EPR|electronic (health|patient) record|API access)\b/i],
  ['value_hypothesis', /\b(saves?|savings?|cost[- ]effective|return on investment|ROI|worth paying|willing to pay)\b/i],
  ['evidence_offered', /\b(study|trial|audit|survey|evaluation|published|peer[- ]reviewed|interviews?|pilot data|results showed)\b/i],
  ['risks', /\b(risks?|harm|unsafe|bias|liability|misdiagnos\w*|false (positives?|negatives?)|privacy)\b/i],
];

const CLAIM =
  /\b(reduces?|reduced|improves?|improved|increases?|increased|saves?|saved|faster|fewer|cuts?|prevents?|lowers?|shortens?|halves?|doubles?)\b|\d+(\.\d+)?\s?%/i;

const STAGE_WORDS: Array<[ProjectStage, RegExp]> = [
  ['deployed', /\b(deployed|in routine use|rolled out|live (in|at|across)|in use (in|at|across))\b/i],
  ['pilot', /\b(pilot(ing|ed)?|trial(l?ing|l?ed)? (it )?(with|at|in))\b/i],
  ['prototype', /\b(prototype|MVP|minimum viable product|beta version|working demo)\b/i],
  ['idea', /\b(idea|concept stage|early[- ]stage|not (yet )?built|plan to build|exploring)\b/i],
];

type Passage = { source_id: string; line: number; quote: string; quantity?: true };

// Strips list, heading and quote markers; the rest of the line is kept character for character.
const MARKERS = /^\s*(?:#{1,6}\s+|[-*+•]\s+|>\s*|\d{1,3}[.)]\s+|\[[ xX]\]\s+)*/;
const JSON_PAIR = /^\s*"([^"\\]{1,80})"\s*:\s*"((?:[^"\\]){8,})"\s*,?\s*$/;
const LABELLED = /^([A-Za-z][A-Za-z /&'-]{1,40}?)\s*[:–—-]\s+(\S.*)$/;

function cutAtWord(text: string): string {
  if (text.length <= OFFLINE_QUOTE_CHARS_MAX) return text;
  const cut = text.slice(0, OFFLINE_QUOTE_CHARS_MAX);
  const space = cut.search(/\s\S*$/);
  return (space > 20 ? cut.slice(0, space) : cut).trimEnd();
}

function usable(text: string): boolean {
  return text.length >= 8 && /\s/.test(text) && /[A-Za-z]/.test(text);
}

type LineView = { source_id: string; line: number; text: string; label: string | null; heading: string | null; is_heading: boolean; numbered: boolean };

function viewLine(source_id: string, line_number: number, raw: string): LineView {
  const json = JSON_PAIR.exec(raw);
  if (json) return { source_id, line: line_number, text: json[2]!, label: json[1]!.replace(/[_-]/g, ' '), heading: null, is_heading: false, numbered: false };
  const is_heading = /^\s*#{1,6}\s+\S/.test(raw) || /^\s*\*\*[^*]+\*\*\s*:?\s*$/.test(raw);
  const numbered = /^\s*(?:\d{1,3}[.)]|step \d+[:.]?)\s+/i.test(raw);
  const stripped = raw
    .replace(MARKERS, '')
    .replace(/^\*\*([^*]+)\*\*\s*:?\s*$/, '$1')
    .trimEnd();
  const labelled = LABELLED.exec(stripped);
  if (labelled && !is_heading) return { source_id, line: line_number, text: labelled[2]!.trimEnd(), label: labelled[1]!, heading: null, is_heading, numbered };
  return { source_id, line: line_number, text: stripped, label: null, heading: is_heading ? stripped : null, is_heading, numbered };
}

function fieldFor(label: string): Field | null {
  for (const [field, pattern] of LABELS) if (pattern.test(label)) return field;
  return null;
}

function statement(passage: Passage): Statement {
  return {
    text: passage.quote,
    provenance: 'user_declared',
    citations: [{ source_id: passage.source_id, line_start: passage.line, line_end: passage.line, quote: passage.quote }],
  };
}

/** The sentences of a line that state a quantity (a demand, a duration, a staffing count), each verbatim. */
function quantitySentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;])\s+(?=[A-Z0-9"'(])/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => usable(sentence) && sentence.length <= OFFLINE_QUOTE_CHARS_MAX && statesQuantity(sentence));
}

function claimTopic(text: string): Claim['topic'] {
  if (/cost|£|\$|€|saving|revenue|price|budget/i.test(text)) return 'economic';
  if (/outcome|mortality|diagnos|readmission|harm|symptom|clinical|safety|recovery|adherence/i.test(text)) return 'clinical';
  if (/accuracy|sensitivity|specificity|latency|uptime|AUC|precision|recall/i.test(text)) return 'technical';
  if (/time|wait|staff|workload|capacity|hours|minutes|days|throughput|appointments?/i.test(text)) return 'operational';
  return 'other';
}

/** Passages found per field, and the claims: what the drafter reads from the lines before it fills any field. */
type Found = { fields: Map<Field, Passage[]>; claims: Passage[] };

function addPassage(found: Found, field: Field, passage: Passage): void {
  const list = found.fields.get(field) ?? [];
  if (list.length < (field === 'care_pathway' ? STEPS_MAX : PER_LIST_MAX) && !list.some((p) => p.source_id === passage.source_id && p.line === passage.line)) {
    list.push(passage);
    found.fields.set(field, list);
  }
}

/** Reads every line once: a heading opens a section, a labelled line names its field, other lines go by keyword. */
function findPassages(sources: DraftSource[]): Found {
  const found: Found = { fields: new Map(), claims: [] };
  for (const source of sources) {
    invariant(
      source.status === 'processed' && source.lines !== null,
      `the offline drafter reads processed sources only (source ${source.id} is ${source.status})`,
    );
    let section: Field | null = null;
    source.lines.forEach((raw, index) => {
      const view = viewLine(source.id, index + 1, raw);
      if (view.is_heading) section = view.heading ? fieldFor(view.heading) : null;
      else findInLine(found, view, raw, section);
    });
  }
  return found;
}

function findInLine(found: Found, view: LineView, raw: string, section: Field | null): void {
  const { claims } = found;
  const quote = cutAtWord(view.text.trim());
  if (!usable(quote) || !raw.includes(quote)) return;
  const passage: Passage = { source_id: view.source_id, line: view.line, quote };
  const labelled = view.label ? fieldFor(view.label) : null;
  const field = labelled ?? section;
  if (field !== null) addPassage(found, field, passage);
  else {
    const keyword = KEYWORDS.find(([, pattern]) => pattern.test(quote));
    if (keyword) addPassage(found, keyword[0], passage);
  }
  if (CLAIM.test(quote) && claims.length < PER_LIST_MAX && field !== 'risks' && field !== 'care_pathway') claims.push(passage);
  // A number a paragraph states (a daily count, a duration, the staff on a line) is kept as a claim citing its sentence.
  for (const sentence of quantitySentences(view.text)) {
    if (
      claims.length < PER_LIST_MAX &&
      raw.includes(sentence) &&
      !claims.some((claim) => claim.source_id === view.source_id && claim.line === view.line && claim.quote === sentence)
    ) {
      claims.push({ source_id: view.source_id, line: view.line, quote: sentence, quantity: true });
    }
  }
}

/** Stage: a labelled stage line first, then any line with a stage word. */
function stageOf(found: Found, sources: DraftSource[]): IntakeSpec['stage'] {
  const candidates = [
    ...(found.fields.get('stage') ?? []),
    ...sources.flatMap((source) =>
      (source.lines ?? []).map((raw, index) => ({ source_id: source.id, line: index + 1, quote: cutAtWord(viewLine(source.id, index + 1, raw).text.trim()) })),
    ),
  ];
  for (const passage of candidates) {
    if (!usable(passage.quote)) continue;
    for (const [value, pattern] of STAGE_WORDS) {
      if (pattern.test(passage.quote)) {
        return {
          value,
          provenance: 'user_declared',
          citations: [{ source_id: passage.source_id, line_start: passage.line, line_end: passage.line, quote: passage.quote }],
        };
      }
    }
  }
  return { value: null, provenance: 'user_declared', citations: [] };
}

/**
 * Drafts an IntakeSpec from processed sources with the extractive heuristic. Deterministic: the same lines give the same draft.
 * Every citation quotes a real line verbatim with its line number, so the draft passes checkCitations against those sources.
 */
export function draftIntakeOffline(sources: DraftSource[]): IntakeSpec {
  invariant(sources.length > 0, 'drafting needs at least one source');
  const found = findPassages(sources);
  // A line gives itself to one single-valued field at most, the first to ask: the order of the calls below matters.
  const used = new Set<string>();
  const single = (field: Field): Statement | null => {
    const passage = (found.fields.get(field) ?? []).find((candidate) => !used.has(`${candidate.source_id}:${candidate.line}`));
    if (!passage) return null;
    used.add(`${passage.source_id}:${passage.line}`);
    return statement(passage);
  };
  const list = (field: Field) => (found.fields.get(field) ?? []).slice(0, PER_LIST_MAX).map(statement);

  const problem = single('problem');
  const proposed_solution = single('proposed_solution');
  const care_setting = single('care_setting');
  const intended_users = list('intended_users');
  const proposed_user = single('proposed_user') ?? (intended_users[0] ? structuredClone(intended_users[0]) : null);
  const steps: PathwayStep[] = (found.fields.get('care_pathway') ?? []).map((passage, index) => ({
    order: index + 1,
    description: passage.quote,
    actor: null,
    provenance: 'user_declared',
    citations: [{ source_id: passage.source_id, line_start: passage.line, line_end: passage.line, quote: passage.quote }],
  }));

  const spec: IntakeSpec = {
    version: INTAKE_SPEC_VERSION,
    problem,
    proposed_solution,
    intended_users,
    care_setting,
    stage: stageOf(found, sources),
    claims: found.claims.map((passage) => ({ ...statement(passage), topic: passage.quantity ? 'operational' : claimTopic(passage.quote) })),
    evidence_offered: list('evidence_offered'),
    risks: list('risks'),
    unknowns: [],
    business: {
      proposed_user,
      buyer: single('buyer'),
      budget_owner: single('budget_owner'),
      current_alternative: single('current_alternative'),
      dependencies: list('dependencies'),
      value_hypothesis: single('value_hypothesis'),
    },
    care_pathway: { status: steps.length > 0 ? 'described' : 'none', description: null, steps },
    drafted_by: OFFLINE_DRAFT_LABEL,
  };
  spec.unknowns = unknownsOf(spec);
  return spec;
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

// The cues the built-in drafter reads a sentence by: the labels and headings people write ("Problem:", "## Budget") and
// the words ordinary prose uses for each intake field ("patients wait", "we want to build", "would be used by",
// "commissioned by"). Pure tables and one scoring function; docs/intake.md lists them.
import type { ProjectStage } from '../contracts/intakeSpec.ts';

export type DraftField =
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

/** Fields a sentence is sorted into (claims are read separately: a sentence states a number whatever field it has). */
export type SentenceField = Exclude<DraftField, 'claims' | 'care_pathway'>;

// Heading or "Label:" words that name a field; checked in order, first match wins.
const LABELS: Array<[DraftField, RegExp]> = [
  ['budget_owner', /\b(budget|funding|who funds)\b/i],
  ['buyer', /\b(buyers?|purchasers?|commissioners?|payers?|who pays|customer)\b/i],
  ['current_alternative', /\b(alternatives?|current (practice|process|care|approach|pathway)|status quo|competitors?|competition|today)\b/i],
  ['dependencies', /\b(dependenc(y|ies)|integrations?|prerequisites?|requirements?)\b/i],
  ['value_hypothesis', /\b(value( hypothesis| proposition)?|business model|pricing)\b/i],
  ['care_pathway', /\b(care pathway|pathway|workflow|patient journey|how it works|steps)\b/i],
  ['problem', /\b(problem|challenge|unmet need|pain points?|the need|issue)\b/i],
  ['proposed_solution', /\b(solution|product|proposal|our approach|idea|what we (build|do|offer))\b/i],
  ['proposed_user', /\b(proposed users?|end users?|primary users?|main users?)\b/i],
  ['intended_users', /\b(intended users?|target users?|users?|audience|who it is for)\b/i],
  ['care_setting', /\b(care setting|setting|where it is used|deployment setting|location)\b/i],
  ['stage', /\b(stage|status|maturity|development stage)\b/i],
  ['evidence_offered', /\b(evidence|studies|study|research|validation|data)\b/i],
  ['risks', /\b(risks?|concerns?|limitations?|safety)\b/i],
  ['claims', /\b(claims?|benefits?|outcomes?|impact|results?)\b/i],
];

/** The field a heading or label names, or null. */
export function fieldForLabel(label: string): DraftField | null {
  for (const [field, pattern] of LABELS) if (pattern.test(label)) return field;
  return null;
}

const ROLES =
  '(?:nurses?|district nurses?|practice nurses?|school nurses?|midwives|midwife|health visitors?|GPs?|doctors?|clinicians?|consultants?|surgeons?|physiotherapists?|therapists?|pharmacists?|paramedics?|audiologists?|podiatrists?|dietitians?|psychologists?|practitioners?|carers?|caregivers?|care workers?|healthcare assistants?|receptionists?|clerks?|administrators?|coordinators?|care navigators?|social workers?|volunteers?|staff|parents?|families|teams?)';
const PRODUCT =
  '(?:app|apps|application|tool|platform|device|service|system|dashboard|chatbot|website|web app|portal|programme|program|kit|sensor|checklist|guide|course|assistant|form|algorithm|wearable|text message service|video|chart|scheme|questionnaire|report|camera)';
/** A named service or place of care ("the emergency department", "GP practices", "at home"); "ward nurses" names a role. */
export const NAMED_PLACE =
  /\b(?!(?:ward|practice|clinic|community|school|hospital|outpatient) (?:nurses?|staff|doctors?|pharmacists?|clerks?|receptionists?|managers?|matrons?|records?|rounds?|letters?|systems?|notes)\b)(primary care( network)?|general practice|GP (practices?|surgery|surgeries)|emergency departments?|A&E|accident and emergency|urgent care|minor injuries|walk-in centres?|community( [a-z]+){0,3}? (team|teams|service|services|care|clinics?|setting|nursing|pharmac(?:y|ies)|hospitals?)|in the community|outpatients?( clinics?| departments?)?|wards?|at home|from home|home visits?|in their (own )?homes|patients' homes|day units?|care homes?|nursing homes?|residential homes?|hospices?|intensive care|ICU|maternity (unit|units|services|wards?)|mental health (services|trusts?)|schools?|audiology( departments?)?|renal units?|dialysis units?|eye clinics?|theatres|out-of-hours|ambulance service)\b/i;
/** A place too general to be a care setting when it is only mentioned ("leaving hospital", "the clinic is open"). */
const GENERAL_PLACE = /\b(clinics?|hospitals?|practices|pharmac(y|ies)|surgery)\b/i;
export const PLACE = new RegExp(`${NAMED_PLACE.source}|${GENERAL_PLACE.source}`, 'i');

type Cue = [RegExp, number];

// A cue's weight: 3 names the field outright, 2 is a strong sign, 1 a weak one. A field needs 2 to be chosen.
const CUES: Record<SentenceField, Cue[]> = {
  problem: [
    [/\b(wait(s|ing|ed)?|waiting (list|times?))\b/i, 2],
    [/\b(are|is|were|get|gets) readmitted\b|\breadmissions?\b/i, 2],
    [/\b(cannot|can't|can not|unable to|could not|nobody (could|has|knows|checks))\b/i, 2],
    [/\btoo (many|few|long|often|late)\b|\bnot enough\b|\bfar fewer\b/i, 2],
    [/\b(lack(s|ing)?|shortages?|backlogs?|bottlenecks?|burden)\b/i, 2],
    [/\b(delays?|delayed)\b/i, 2],
    [/\b(miss(es|ed|ing)?)\b/i, 2],
    [/\b(struggle|hard to|difficult|put off|end up|falls? through|goes unnoticed|lost|wrongly|overwhelmed|spend hours|for hours)\b/i, 2],
    [/\b(the problem|the issue|the challenge|problem is)\b/i, 3],
    [/\b(high|higher|greater) (chance|risk|rate)s? of\b/i, 2],
    [/\b(cancell?ed|cancell?ations?|errors?|mistakes?|incidents?|isolated|lonely|loneliness|late|not (picked up|spotted|noticed|diagnosed))\b/i, 2],
    [/\b(often|avoided)\b/i, 1],
  ],
  proposed_solution: [
    [/\bwe (give|offer|provide|lend|send|deliver) (them|patients|people|families|parents|each|every|a|an)\b/i, 2],
    [
      /\bwe (want|plan|hope|aim|intend|would like|'d like) to (build|create|develop|make|offer|introduce|set up|launch|design|provide|run|use|start|give|bring|trial)\b/i,
      3,
    ],
    [/\b(our|the) (idea|plan|answer|proposal|solution) is\b|\bwhat we have in mind\b|\bwe propose\b/i, 3],
    [/\bwe (are|were) (building|developing|designing|creating|making)\b|\bwe have (developed|built|designed|created)\b|\bwe built\b/i, 3],
    [new RegExp(`\\b(an?|the)\\s+(?:[\\w-]+\\s+){0,4}${PRODUCT}\\s+(that|which|where|to help|to let)\\b`, 'i'), 2],
    [new RegExp(`\\bour\\s+(?:[\\w-]+\\s+){0,3}${PRODUCT}\\b`, 'i'), 2],
    [new RegExp(`\\b(is|would be|will be) an?\\s+(?:[\\w-]+\\s+){0,3}${PRODUCT}\\b`, 'i'), 2],
  ],
  intended_users: [
    [/\b(would|will|could|is|are|to) be used by\b|\bused by\b|\b(would|will) be (run|delivered|staffed|led) by\b/i, 3],
    [new RegExp(`\\b(shows|lets|helps|tells|alerts|reminds|gives) (every |each |the |our )?(?:[\\w-]+ )?${ROLES}\\b(?!')`, 'i'), 3],
    [/\bthe people who (would |will )?use\b|\b(main|primary|intended|end) users\b|\bthe users (are|would be|will be)\b/i, 3],
    [/\b(aimed at|designed for|intended for|meant for|who it is for|it is for|built for)\b/i, 2],
    // a role as the subject of what it would do: "School nurses would show it", "Audiologists use it"
    [new RegExp(`\\b${ROLES}\\b[^.;,]{0,40}\\b(would|will|could|can)\\s+(?!not\\b|have\\b|be (?!the ones))\\w+`, 'i'), 3],
    [new RegExp(`\\b${ROLES}\\b[^.;,]{0,40}(?<!to )\\b(use|uses|using)\\b`, 'i'), 3],
    [new RegExp(`\\bfor (the |our |a |use by )?(?:[\\w-]+\\s+)?${ROLES}\\b(?!')`, 'i'), 3],
    // a role opening the sentence with the work it does: "Community midwives review the readings each afternoon"
    [
      new RegExp(
        `^(?:the |our |a )?(?:[\\w-]+ ){0,2}${ROLES}(?: and (?:[\\w-]+ ){0,2}${ROLES})? (review|reviews|check|checks|see|sees|read|reads|receive|receives|run|runs|monitor|monitors|triage|triages|assess|assesses|prescribe|answer|answers|record|records|send|sends|carry out|carries out|look at|looks at)\\b`,
        'i',
      ),
      3,
    ],
  ],
  proposed_user: [[/\b(day-to-day users?|proposed users?|main users?|primary users?)\b/i, 3]],
  care_setting: [
    // "It would be delivered in primary schools", "The service runs from three community clinics"
    [
      new RegExp(
        `^(it|this|the (service|app|tool|programme|form|kit|checklist|system))\\b[^.;]*\\b(in|at|within|from|across|for)\\s+(?:[\\w'-]+\\s+){0,3}?(${PLACE.source})`,
        'i',
      ),
      2,
    ],
    [/\b(delivered|based|runs?|run from|offered|provided|sit|sits|set up) (in|at|within|from|across)\b|\bsetting\b/i, 1],
  ],
  stage: [],
  buyer: [
    [/\bbuyers?\b|\b(would|will|could) (buy|purchase|procure)\b|\bcommissioned by\b|\bcommissions?\b|\bcommissioners?\b|\bprocurement\b/i, 3],
    [/\b(would|will|could|might) (probably |likely )?pay for (it|this|the)\b|\bpaid for by\b/i, 3],
  ],
  budget_owner: [
    [/\bbudgets?\b/i, 3],
    [/\b(pays|already pays) for\b|\b(paid for|funded) (by|from|out of)\b|\b(would|will|could|might) (probably |likely )?(fund|cover|pay for)\b/i, 3],
  ],
  current_alternative: [
    [/\b(at the moment|currently|at present|right now|today|nowadays|for now|before this|until now)\b/i, 2],
    [/\b(on paper|paper (diar(y|ies)|charts?|forms?|records?|letters?)|by hand|manually|by phone|faxed|spreadsheets?|whiteboards?|leaflets?|exist, but)\b/i, 2],
    [/\bthe (current|existing|usual) (process|system|approach|practice|pathway|service)\b/i, 2],
  ],
  risks: [
    // "at high risk" describes the patients (a problem), not a risk of the project
    [
      /(?<!\bat (high|higher|highest|greater|increased|most) )\b(risks?|dangers?|unsafe|worr(y|ied)|concerns?|false (reassurance|alarms?|positives?|negatives?)|alert fatigue|privacy|breach)\b/i,
      3,
    ],
    [/\bharm(ful)?\b/i, 1],
    [/\bwould\b[^.;]{0,40}\b(be ignored|be missed|harm|mislead)\b/i, 3],
    [
      /\b(could|might|may)\b[^.;]{0,60}\b(miss(ed|es)?|harm(ed|s)?|fail(s|ed)?|wrong(ly)?|mislead(ing)?|be ignored|ignored|low priority|not return|badly|overlook(ed)?|hide|hidden|worsen|exclude[ds]?|upset|be left out|left behind|look better|look worse|go wrong|be wrong)\b/i,
      3,
    ],
    [/\b(may|might|could) not (have|be able|manage|cope|understand|use|trust|want)\b/i, 2],
    [/\b(must not|should not|never) be\b/i, 2],
  ],
  evidence_offered: [
    [/\b(audit|survey(ed)?|stud(y|ies)|trial data|published|interview(s|ed)?|feedback from|evaluation|we measured|we counted|records show)\b/i, 3],
    // a result measured so far: "fell from 42 to 18 minutes", "readmissions fell by a quarter"
    [
      /\b(fell|rose|dropped|went down|went up|halved|doubled) (by|from|to)\b|\bin the first \w+ (weeks|months)\b|\b(have|has) (halved|doubled|fallen|dropped|risen)\b/i,
      3,
    ],
  ],
  dependencies: [
    [/\b(depends? on|dependent on|relies on|rely on|relying on|requires?|is needed|are needed|need(s)? (a|an|the|read|access|reliable))\b/i, 3],
    [/\b(integrat(e|es|ion) with|connect(s)? to|access to the|link(ed)? to the)\b|\b(EPR|EHR|API|Wi-?Fi|broadband)\b/i, 2],
  ],
  value_hypothesis: [
    [/\b(would|could|will) save\b|\bsave (time|money|£)|\bfree(s|ing)? up\b|\bworth (it|paying)\b|\bpay for itself\b|\bcost(s)? less\b|\bcheaper\b/i, 3],
    [/\bwe expect\b|\breturn on investment\b/i, 2],
  ],
};

// When scores tie, the earlier field wins: the rarer, more specific statements first.
const PRIORITY: SentenceField[] = [
  'stage',
  'budget_owner',
  'buyer',
  'proposed_solution',
  'intended_users',
  'proposed_user',
  'risks',
  'dependencies',
  'value_hypothesis',
  'evidence_offered',
  'problem',
  'current_alternative',
  'care_setting',
];

const STAGE_WORDS: Array<[ProjectStage, RegExp]> = [
  ['deployed', /\b(deployed|in (routine|daily|everyday) use|rolled out|live (in|at|across)|in use (in|at|across))\b/i],
  ['pilot', /\b(pilot(s|ing|ed)?|being trialled|trial(l?ing|l?ed) (it )?(with|at|in))\b/i],
  [
    'prototype',
    /\b(prototypes?|MVP|minimum viable product|beta version|working demo|proof of concept|first version|we have built|we built|(?<!\b(nothing|not|not yet) )has been built)\b/i,
  ],
  [
    'idea',
    /\b((only|just|still) an idea|idea stage|concept stage|early[- ]stage|nothing (is|has been) built|not (yet )?(been )?built|no working (software|product|version)|mock-?ups?|sketches|wireframes|plan to build)\b/i,
  ],
];

/** The stage a sentence states, or null. */
export function stageIn(text: string): ProjectStage | null {
  for (const [value, pattern] of STAGE_WORDS) if (pattern.test(text)) return value;
  return null;
}

// A sentence that says a thing is not known states nothing about it.
const NOT_KNOWN =
  /\b(do not|don't|does not|doesn't) (yet )?know\b|\bnot (yet )?(sure|known|decided|clear)\b|\bunclear\b|\bundecided\b|\byet to (decide|find)\b/i;

/** How strongly a sentence speaks of each field (fields without a cue are absent). */
export function fieldScores(text: string): Map<SentenceField, number> {
  const scores = new Map<SentenceField, number>();
  if (NOT_KNOWN.test(text)) return scores;
  for (const field of PRIORITY) {
    const score = CUES[field].reduce((sum, [pattern, weight]) => sum + (pattern.test(text) ? weight : 0), 0);
    if (score > 0) scores.set(field, score);
  }
  if (stageIn(text) !== null) scores.set('stage', 3);
  if (PLACE.test(text)) scores.set('care_setting', (scores.get('care_setting') ?? 0) + 1);
  return scores;
}

/** True when a sentence names a specific service or place of care, not only "the hospital" or "the clinic". */
export function namesPlace(text: string): boolean {
  return NAMED_PLACE.test(text);
}

/**
 * The fields a sentence states, best first: the highest score of at least 2 (ties by PRIORITY), then any other field
 * it states outright (a score of 3) - "No sentence goes to two fields unless it truly states both".
 * A care setting named in passing (a place, no more) is returned last, as `setting_in_passing`.
 */
export function classifySentence(text: string): { fields: SentenceField[]; scores: Map<SentenceField, number>; setting_in_passing: boolean } {
  const scores = fieldScores(text);
  const ranked = [...scores.entries()].filter(([, score]) => score >= 2).sort((a, b) => b[1] - a[1] || PRIORITY.indexOf(a[0]) - PRIORITY.indexOf(b[0]));
  const fields: SentenceField[] = [];
  ranked.forEach(([field, score], index) => {
    if (index === 0 || score >= 3) fields.push(field);
  });
  const setting_in_passing = !fields.includes('care_setting') && scores.has('care_setting');
  return { fields, scores, setting_in_passing };
}

const QUANTITY_NOUNS =
  '(?:minutes?|mins?|hours?|hrs?|days?|nights?|mornings?|evenings?|shifts?|weeks?|months?|years?|times|patients?|people|persons?|referrals?|appointments?|attendances?|admissions?|calls?|visits?|contacts?|consultations?|cases?|sessions?|episodes?|slots?|readings?|medicines?|doses?|beds?|staff|nurses?|doctors?|GPs?|clinicians?|pharmacists?|physiotherapists?|therapists?|midwives|practitioners?|users?|children|women|men|families|residents?|practices?|clinics?|wards?|hospitals?|trusts?|sites?|boroughs?|departments?|units?|schools?|homes?|teams?|whole-time-equivalents?|WTE|pounds|percent|per cent)';
const NUMBER_WORD =
  '(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|thousand|a quarter|a third|half)';
const QUANTITY = new RegExp(`(?<![\\w.])(?:\\d[\\d,]*(?:\\.\\d+)?|${NUMBER_WORD})(?:[\\s-]+(?![.;])\\S+){0,3}?[\\s-]+${QUANTITY_NOUNS}\\b`, 'i');
const MONEY_OR_SHARE = /\b(once|twice) (a|per|every) (day|week|month|year)\b|[£$€]\s?\d|\d+(\.\d+)?\s?(%|percent|per cent)|\bby (a quarter|a third|half)\b/i;
const CHANGE =
  /\b(reduces?|reduced|improves?|improved|increases?|increased|saves?|saved|cuts?|prevents?|lowers?|shortens?|halves?|halved|doubles?|doubled|fell|rose|dropped)\b/i;
// A comparison is a claim when the project says it will bring it ("we expect fewer falls"), not when it describes today.
const EXPECTED_CHANGE = /\b(would|will|could|expect|expects|means|leads? to)\b[^.;]{0,80}\b(fewer|faster|shorter|less|more|better|earlier|sooner)\b/i;

/** True when a sentence states a quantity with its unit (a number of people, things, time, money, a share) or a change. */
export function isClaim(text: string): boolean {
  return QUANTITY.test(text) || MONEY_OR_SHARE.test(text) || CHANGE.test(text) || EXPECTED_CHANGE.test(text);
}

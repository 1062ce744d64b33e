// The model checker's problems (validate.ts) in a clinician's words: what to change, with the steps, resources and
// settings named, never a field name ("renege_to needs renege_after" → "patients who give up waiting need a maximum
// wait or a patience time"). The problem itself keeps its pointer and message for developers (the API's `details`,
// the validate endpoint); this is the sentence people read, in the app and in an authoring session's next steps.
// Pure and free of imports: the service and the web app read it from the SDK.

/** Names a thing of the model by the words people know it by (a step's label, a setting's description). */
export type NameOf = (kind: 'step' | 'resource' | 'setting' | 'measure' | 'variant' | 'arrival' | 'attribute', id: string) => string;

/** An id read as words, first letter raised: "triage_nurse" → "Triage nurse". */
export function idWords(id: string): string {
  const words = id.replaceAll('_', ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : id;
}

const byId: NameOf = (_kind, id) => idWords(id);

const UNIT_WORDS: Record<string, string> = {
  count: 'a count',
  count_per_arrival: 'a count per arrival',
  count_per_day: 'a count per day',
  per_minute: 'per minute',
  per_hour: 'per hour',
  per_day: 'per day',
};
const unitWords = (unit: string) => UNIT_WORDS[unit] ?? unit.replaceAll('_', ' ');

const CONDITION_WORDS: Record<string, string> = {
  eq: '“is”',
  ne: '“is not”',
  lt: '“is less than”',
  le: '“is at most”',
  gt: '“is more than”',
  ge: '“is at least”',
  in: '“is one of”',
};

const FIELD_NEEDS: Record<string, string> = {
  'a time unit (minutes, hours, days)': 'a time (minutes, hours or days)',
  'a rate unit (per_minute, per_hour, per_day)': 'a rate (per minute, per hour or per day)',
  probability: 'a probability',
  count: 'a count',
  'a dimensionless unit (fraction, ratio, dimensionless)': 'a plain number or a share',
  'a currency code': 'an amount of money',
};

const percent = (value: string) => `${Number((Number(value) * 100).toPrecision(3))}%`;

/** validate.ts's problem for a setting the world does not have (an authoring session reads it as a question to answer). */
const MISSING_SETTING = /^refers to setting '(.+)', which does not exist$/;

/** Whether the problem names a setting the world does not have yet: in an authoring session, a value still to be given. */
export function isMissingSetting(message: string): boolean {
  return MISSING_SETTING.test(message);
}

type Rule = [RegExp, (match: string[], name: NameOf) => string];

/** Each known message of validate.ts, as a pattern and its words; the first that matches the whole message wins. */
const RULES: Rule[] = [
  [/^renege_to needs renege_after \(the maximum wait\) or patience$/, () => 'patients who give up waiting need a maximum wait or a patience time'],
  [
    /^give either renege_after \(one maximum wait\) or patience \(a distribution\), not both$/,
    () => 'give either a maximum wait or a patience time for giving up waiting, not both',
  ],
  [/^step '(.+)' has no renege_after, so nobody reneges there$/, ([, s], n) => `nobody gives up waiting at “${n('step', s!)}”: it has no maximum wait`],
  [
    /^step '(.+)' has no queue_limit, so nobody is turned away there$/,
    ([, s], n) => `nobody is turned away at “${n('step', s!)}”: it has no limit on how many may wait`,
  ],
  [/^min_size must not exceed max_size$/, () => 'the smallest batch must not be larger than the largest batch'],
  [
    /^resource '(.+)' is used by other steps too; a batch-service resource serves only its batch step$/,
    ([, r], n) => `“${n('resource', r!)}” is used by other steps too; a resource that serves in batches serves only its batch step`,
  ],
  [/^batch service cannot pre-empt$/, () => 'a step that serves in batches cannot interrupt the patients it is serving'],
  [
    /^resource '(.+)' breaks down; batch service on a resource that breaks down is not supported yet$/,
    ([, r], n) => `“${n('resource', r!)}” breaks down; serving in batches with a resource that breaks down is not possible yet`,
  ],
  [
    /^resource '(.+)' breaks down; seizing a resource that breaks down is not supported yet$/,
    ([, r], n) => `“${n('resource', r!)}” breaks down; holding a resource that breaks down across several steps is not possible yet`,
  ],
  [
    /^resource '(.+)' has pre-emptive steps; seizing it is not supported$/,
    ([, r], n) => `“${n('resource', r!)}” has steps that interrupt its service; holding it across several steps is not possible`,
  ],
  [
    /^pre-emption needs queue: "priority" and a priority_attribute$/,
    () => 'interrupting a service needs a priority queue and the patient detail that sets the priority',
  ],
  [
    /^a priority queue needs priority_attribute \(lower values are served first\)$/,
    () => 'a priority queue needs the patient detail that sets the priority (lower values are served first)',
  ],
  [/^priority_attribute is set but queue is not 'priority'$/, () => 'a priority is set, but the queue is not a priority queue'],
  [/^attribute '(.+)' is not assigned by any arrival$/, ([, a], n) => `no arrival gives patients the detail “${n('attribute', a!)}”`],
  [/^attribute '(.+)' is not assigned by any arrival or assign step$/, ([, a], n) => `no arrival or step gives patients the detail “${n('attribute', a!)}”`],
  [
    /^attribute '(.+)' must have numeric values to order a priority queue$/,
    ([, a], n) => `the patient detail “${n('attribute', a!)}” must be a number to order a priority queue`,
  ],
  [
    /^step '(.+)' is a (\S+) step; join-the-shortest-queue chooses among service steps$/,
    ([, s], n) => `“${n('step', s!)}” is not a service step; choosing the shortest queue chooses among service steps`,
  ],
  [/^refers to step '(.+)', which does not exist$/, ([, s], n) => `leads to a step “${n('step', s!)}” that does not exist`],
  [/^refers to resource '(.+)', which does not exist$/, ([, r], n) => `uses a resource “${n('resource', r!)}” that does not exist`],
  [MISSING_SETTING, ([, s], n) => `uses a setting “${n('setting', s!)}” that does not exist`],
  [/^refers to measure '(.+)', which does not exist$/, ([, m], n) => `names a measure “${n('measure', m!)}” that does not exist`],
  [/^refers to variant '(.+)', which does not exist$/, ([, v], n) => `names a variant “${n('variant', v!)}” that does not exist`],
  [/^replaces step '(.+)', which does not exist$/, ([, s], n) => `replaces a step “${n('step', s!)}” that does not exist`],
  [/^removes step '(.+)', which does not exist$/, ([, s], n) => `removes a step “${n('step', s!)}” that does not exist`],
  [/^step '(.+)' is both replaced and removed$/, ([, s], n) => `the step “${n('step', s!)}” is both replaced and removed`],
  [/^adds step '(.+)', which already exists: replace it instead$/, ([, s], n) => `adds a step “${n('step', s!)}” that already exists: replace it instead`],
  [/^lists step '(.+)' at '(.+)' twice; list each moment once$/, ([, s, at], n) => `lists “${n('step', s!)}” (${at}) twice; list each moment once`],
  [/^a (\S+) step has no '(.+)' moment \(allowed: (.+)\)$/, ([, kind, at, allowed]) => `a ${kind} step has no “${at}” moment; choose one of: ${allowed}`],
  [/^window end must be after its start$/, () => 'the measured period must end after it starts'],
  [/^window ends after the horizon \((.+)\)$/, ([, h]) => `the measured period ends after the simulation does (at ${h})`],
  [
    /^unit '(.+)' does not match denominator '(.+)' \(expected '(.+)'\)$/,
    ([, , per, expected]) => `what is counted per ${per === 'replication' ? 'run' : per} is measured as ${unitWords(expected!)}`,
  ],
  [
    /^exactly one variant must have role 'baseline' \(found (\d+)\)$/,
    ([, found]) => `exactly one variant must be today's practice, the baseline (there are ${found})`,
  ],
  [/^at least one variant must have role 'treatment'$/, () => 'at least one variant must be a change to compare with today'],
  [/^setting '(.+)' is changed twice in this variant$/, ([, s], n) => `this variant changes “${n('setting', s!)}” twice`],
  [/^end_hour must be after start_hour$/, () => 'a shift must end after it starts'],
  [/^horizon \((.+)\) must be after the warm-up \((.+)\)$/, ([, h, w]) => `the simulation must end (at ${h}) after its warm-up (${w})`],
  [
    /^unknown unit '(.+)': use .*$/,
    ([, u]) => `“${u}” is not a unit Crucible knows: use minutes, hours, days, per minute, per hour, per day, probability, count, fraction or a currency`,
  ],
  [
    /^unit mismatch: setting '(.+)' is in '(.+)' but this field needs (.+)$/,
    ([, s, unit, needs], n) => `the setting “${n('setting', s!)}” is in ${unitWords(unit!)}, but this value needs ${FIELD_NEEDS[needs!] ?? needs}`,
  ],
  [/^duplicate (\S+) id '(.+)'$/, ([, noun, id]) => `two ${noun}s have the name “${idWords(id!)}”`],
  [
    /^needs min <= mode <= max and min < max$/,
    () => 'the most likely value must lie between the smallest and the largest, and the smallest must be below the largest',
  ],
  [/^max must not be below min$/, () => 'the largest value must not be below the smallest'],
  [
    /^max \((.+)\) must be above min \((.+)\); for a fixed duration use .*$/,
    ([, max, min]) => `the largest value (${max}) must be above the smallest (${min}); for a time that never varies, make it fixed`,
  ],
  [/^low must not exceed base$/, () => 'the low price must not be above the base price'],
  [/^high must not be below base$/, () => 'the high price must not be below the base price'],
  [/^the pathway has no 'exit' step$/, () => 'the pathway has no exit: add a step where patients leave'],
  [/^step '(.+)' is unreachable: no arrival or step leads to it$/, ([, s], n) => `no arrival or step leads to “${n('step', s!)}”`],
  [/^step '(.+)' never leads to an exit$/, ([, s], n) => `“${n('step', s!)}” never leads to an exit: patients who reach it would never leave`],
  [
    /^an entity that seizes '(.+)' here can leave the system before a release of '(.+)'$/,
    ([, r], n) => `a patient who takes “${n('resource', r!)}” here can leave before “${n('resource', r!)}” is released`,
  ],
  [
    /^an entity can reach a release of '(.+)' without having seized it$/,
    ([, r], n) => `a patient can reach the release of “${n('resource', r!)}” without having taken it`,
  ],
  [
    /^branch probabilities of step '(.+)' sum to (.+), not 1$/,
    ([, s, sum], n) => `the chances of the branches of “${n('step', s!)}” add up to ${percent(sum!)}, not 100%`,
  ],
  [
    /^probabilities of attribute '(.+)' sum to (.+), not 1$/,
    ([, a, sum], n) => `the chances of the values of “${n('attribute', a!)}” add up to ${percent(sum!)}, not 100%`,
  ],
  [
    /^under variant '(.+)' the branch probabilities of step '(.+)' sum to (.+), not 1$/,
    ([, v, s, sum], n) => `under “${n('variant', v!)}”, the chances of the branches of “${n('step', s!)}” add up to ${percent(sum!)}, not 100%`,
  ],
  [/^'in' needs a list of values$/, () => `${CONDITION_WORDS.in} needs a list of values`],
  [/^'(\w+)' needs one value, not a list$/, ([, op]) => `${CONDITION_WORDS[op!] ?? `“${op}”`} needs one value, not a list`],
  [/^'(\w+)' compares numbers: give a number$/, ([, op]) => `${CONDITION_WORDS[op!] ?? `“${op}”`} compares numbers: give a number`],
  [/^a WorldSpec must be a JSON object$/, () => 'the world is empty or not a world'],
  [/^needs one weight per value(?: \((\d+)\))?$/, () => 'needs one weight for each value'],
  [/^at least one weight must be positive$/, () => 'at least one weight must be more than 0'],
  [/^must be (at least|at most|greater than) (\S+) \(setting '(.+)'\)$/, ([, how, v, s], n) => `must be ${how} ${v} (the setting “${n('setting', s!)}”)`],
];

/**
 * A problem's message in words, without field names, or null when the message is not one of the checker's known
 * sentences (the caller then reads it as it is, with underscores as spaces).
 */
export function problemWords(message: string, name: NameOf = byId): string | null {
  // a variant's own steps are checked as a pathway of their own: its problem is worded as any other
  const variant = /^under variant '(.+?)' \(its steps in order: [^)]*\), \S*: (.+)$/.exec(message);
  if (variant) {
    const inner = problemWords(variant[2]!, name);
    // the pointer names the variant; its steps' order is its own, so the step is not named
    return inner === null ? null : `in this variant's own steps, ${inner}`;
  }
  for (const [pattern, words] of RULES) {
    const match = pattern.exec(message);
    if (match) return words([...match], name);
  }
  return null;
}

type Named = { id?: unknown; label?: unknown };
/** What a world needs to name its parts: any WorldSpec (or the app's copy of one) has this shape. */
export type WorldNames = {
  steps?: unknown;
  resources?: unknown;
  measured?: unknown;
  variants?: unknown;
  arrivals?: unknown;
};

const COLLECTION_KINDS = { steps: 'step', resources: 'resource', measured: 'measure', variants: 'variant', arrivals: 'arrival' } as const;

function itemsOf(world: WorldNames | null, collection: keyof typeof COLLECTION_KINDS): Named[] {
  const items = world?.[collection];
  return Array.isArray(items) ? (items as Named[]) : [];
}

/** Names by the world's labels where it has them (resources, measures, variants), else the id read as words (steps have no label). */
export function namesIn(world: WorldNames | null): NameOf {
  return (kind, id) => {
    const collection = kind === 'measure' ? 'measured' : kind === 'setting' || kind === 'attribute' ? null : (`${kind}s` as keyof typeof COLLECTION_KINDS);
    const label = collection ? itemsOf(world, collection).find((item) => item.id === id)?.label : undefined;
    return typeof label === 'string' && label.trim() ? idWords(label) : idWords(id);
  };
}

/** The part of the world a pointer is in, by its name ("/steps/2/renege_to" → “Triage nurse”), or null for the world as a whole. */
export function problemSubject(world: WorldNames | null, pointer: string): string | null {
  const [head, second] = pointer.split('/').slice(1);
  if (head === 'settings' && second) return `the setting “${idWords(second.replaceAll('~1', '/').replaceAll('~0', '~'))}”`;
  const kind = COLLECTION_KINDS[head as keyof typeof COLLECTION_KINDS];
  if (!kind || second === undefined || !/^\d+$/.test(second)) return null;
  const item = itemsOf(world, head as keyof typeof COLLECTION_KINDS)[Number(second)];
  if (!item || typeof item.id !== 'string') return `${kind} ${Number(second) + 1}`;
  const name = namesIn(world)(kind, item.id);
  // a step is known by its name alone (as the diagram shows it); other parts say what they are
  return kind === 'step' ? `“${name}”` : `the ${kind} “${name}”`;
}

/**
 * A model problem as the sentence a clinician reads: the part of the model by its name, then what to change, in words
 * ("“Triage nurse”: patients who give up waiting need a maximum wait or a patience time."). Null when the message is
 * not one of the checker's known sentences (the caller then shows the place and the message read as words).
 */
export function problemSentence(world: WorldNames | null, problem: { pointer: string; message: string }): string | null {
  const words = problemWords(problem.message, namesIn(world));
  if (words === null) return null;
  const subject = problemSubject(world, problem.pointer);
  const text = subject ? `${subject}: ${words}` : words;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

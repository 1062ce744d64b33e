// Named builders for the review room's tests: confirmed IntakeSpecs at different stages, literature records, model drafts.
import type { IntakeSpec, Statement } from '../../domain/contracts/intakeSpec.ts';
import { emptyIntakeSpec } from './intakeSpecs.ts';
import { type FakeEuropePmcRecord, europePmcRecord } from '../fakes/europepmc.ts';
import type { ConceptReviewDraft } from '../../domain/prompts/reviewDraft.ts';
import { DIMENSION_IDS } from '../../domain/reviews/dimensions.ts';

export function said(text: string, source?: { source_id: string; line: number }): Statement {
  return {
    text,
    provenance: 'user_declared',
    citations: source ? [{ source_id: source.source_id, line_start: source.line, line_end: source.line, quote: text }] : [],
  };
}

/** An idea pasted as a paragraph: problem, solution, users and setting, no pathway, most business facts unknown. */
export function ideaStageIntake(): IntakeSpec {
  const src = 'src_idea';
  return {
    ...emptyIntakeSpec(),
    problem: said('Heart failure patients are readmitted to hospital within 30 days', { source_id: src, line: 1 }),
    proposed_solution: said('remote monitoring app', { source_id: src, line: 2 }),
    intended_users: [said('heart failure nurses', { source_id: src, line: 3 })],
    care_setting: said('community care'),
    stage: { value: 'idea', provenance: 'user_declared', citations: [{ source_id: src, line_start: 2, line_end: 2, quote: 'remote monitoring app' }] },
    claims: [
      {
        text: 'The app could halve readmissions',
        topic: 'clinical',
        provenance: 'user_declared',
        citations: [{ source_id: src, line_start: 4, line_end: 4, quote: 'The app could halve readmissions' }],
      },
    ],
    unknowns: [{ field: 'business.buyer', question: 'Who would pay for the app?' }],
    business: {
      proposed_user: null,
      buyer: null,
      budget_owner: null,
      current_alternative: said('Nurses phone patients weekly'),
      dependencies: [],
      value_hypothesis: said('Fewer readmissions save ward beds', { source_id: src, line: 4 }),
    },
  };
}

/** A prototype with a care pathway given as steps with actors and quantities. */
export function prototypeWithPathwayIntake(): IntakeSpec {
  const src = 'src_proto';
  const step = (order: number, description: string, actor: string) => ({ order, description, actor, provenance: 'user_declared' as const, citations: [] });
  return {
    ...ideaStageIntake(),
    stage: { value: 'prototype', provenance: 'user_declared', citations: [{ source_id: src, line_start: 1, line_end: 1, quote: 'prototype' }] },
    care_pathway: {
      status: 'executable',
      description: said('Patients send readings daily; a nurse reviews alerts within 4 hours; a doctor sees escalations the same day.'),
      steps: [
        step(1, 'Patient sends weight and symptoms each morning (about 120 patients a day)', 'patient'),
        step(2, 'Nurse reviews alerts within 4 hours', 'heart failure nurse'),
        step(3, 'Doctor reviews escalated alerts the same day', 'cardiologist'),
      ],
    },
    business: { ...ideaStageIntake().business, buyer: said('the integrated care board', { source_id: src, line: 5 }) },
  };
}

/** A confirmed intake that names nothing searchable. */
export function emptyIntake(): IntakeSpec {
  return emptyIntakeSpec();
}

// ---------------------------------------------------------------------------------------------
// Literature: the five records of the acceptance test, as a fake Europe PMC serves them

export const OPEN_SENTENCE = 'Remote monitoring reduced heart failure readmissions by 20 percent in community care.';
export const CORRECTED_SENTENCE = 'Nurses reviewed telemonitoring alerts within four hours on most days.';
export const CORRECTED_SECOND_SENTENCE = 'The randomised evaluation measured readmission at 30 days as the primary outcome.';
export const FABRICATED_QUOTE = 'Remote monitoring eliminated all readmissions among elderly patients.';

export const RECORD_IDS = {
  retracted: 'MED:1001',
  retraction_notice: 'MED:1002',
  corrected: 'MED:1003',
  open_access: 'MED:1004',
  closed: 'MED:1005',
} as const;

export function fiveLiteratureRecords(): FakeEuropePmcRecord[] {
  return [
    europePmcRecord({
      pmid: '1001',
      pmcid: 'PMC1001',
      title: 'Telemonitoring cures heart failure',
      pub_types: ['Journal Article', 'Retracted Publication'],
      license: 'cc by',
      open_access: true,
      body_paragraphs: ['Telemonitoring cured heart failure in every patient we followed.'],
      comment_corrections: [{ type: 'Retraction in', id: '1002', reference: 'Retraction notice. 2022.' }],
    }),
    europePmcRecord({ pmid: '1002', title: 'Retraction: Telemonitoring cures heart failure', pub_types: ['Retraction of Publication'] }),
    europePmcRecord({
      pmid: '1003',
      pmcid: 'PMC1003',
      title: 'Nurse-led telemonitoring in practice',
      license: 'CC BY-NC 4.0',
      open_access: true,
      body_paragraphs: [CORRECTED_SENTENCE, CORRECTED_SECOND_SENTENCE],
      comment_corrections: [{ type: 'Erratum in', id: '1006', reference: 'Erratum. 2023.' }],
    }),
    europePmcRecord({
      pmid: '1004',
      pmcid: 'PMC1004',
      title: 'Remote monitoring and readmissions',
      license: 'cc by',
      open_access: true,
      body_paragraphs: [`This cohort study followed 400 patients for a year. ${OPEN_SENTENCE}`, 'Patients reported that the monitoring app was easy to use.'],
    }),
    europePmcRecord({
      pmid: '1005',
      title: 'Costs of remote monitoring programmes',
      abstract: 'Remote monitoring programmes cost less than hospital readmissions.',
    }),
  ];
}

/**
 * What a scripted model returns: one claim per case of the acceptance test, in dimension order —
 * need: true quote from the open paper (judge agrees → supported); users: fabricated quote (quote_not_found);
 * workflow_fit: the retracted paper (unverified_record, citation removed); equity: a record never retrieved
 * (unverified_record); feasibility: true quote from the corrected paper (the judge disagrees → judge_disagrees);
 * adoption: the closed paper (support_not_verified); evaluation_plan: true quote from the corrected paper (supported).
 */
export function scriptedDraft(): ConceptReviewDraft {
  const claims: Record<string, ConceptReviewDraft['dimensions'][number]['evidence_claims']> = {
    need: [
      {
        claim: 'Remote monitoring reduced readmissions in community care.',
        record_id: RECORD_IDS.open_access,
        quote: OPEN_SENTENCE.replace(' by 20', '\n  by  20'),
      },
    ],
    users: [{ claim: 'Elderly patients had no readmissions.', record_id: RECORD_IDS.open_access, quote: FABRICATED_QUOTE }],
    workflow_fit: [
      {
        claim: 'Telemonitoring cures heart failure.',
        record_id: RECORD_IDS.retracted,
        quote: 'Telemonitoring cured heart failure in every patient we followed.',
      },
    ],
    equity: [{ claim: 'Access was equal across groups.', record_id: 'MED:9999', quote: 'Access was equal.' }],
    feasibility: [{ claim: 'Nurses can review alerts within four hours.', record_id: RECORD_IDS.corrected, quote: CORRECTED_SENTENCE }],
    adoption: [
      {
        claim: 'Programmes cost less than readmissions.',
        record_id: RECORD_IDS.closed,
        quote: 'Remote monitoring programmes cost less than hospital readmissions.',
      },
    ],
    evaluation_plan: [{ claim: 'Readmission at 30 days is a usable primary outcome.', record_id: RECORD_IDS.corrected, quote: CORRECTED_SECOND_SENTENCE }],
  };
  return {
    dimensions: DIMENSION_IDS.map((id) => ({
      id,
      summary: `Scripted summary for ${id}.`,
      questions: [`What would test ${id}?`],
      next_experiments: [`Run a small experiment on ${id}.`],
      evidence_claims: claims[id] ?? [],
    })),
  };
}

/** Expected outcome of scriptedDraft() with a judge that disagrees on the feasibility claim only. */
export const SCRIPTED_EXPECTED = {
  claims_total: 7,
  claims_supported: 2,
  failed_checks: { unverified_record: 2, quote_not_found: 1, judge_disagrees: 1, support_not_verified: 1 },
  /** Judge calls happen in dimension order for claims that pass checks 1 and 2: need, feasibility, evaluation_plan. */
  judge_order: ['need.1', 'feasibility.1', 'evaluation_plan.1'],
} as const;

/** The intake as a user would confirm it without source files: citations left out, claims (which need one) dropped. */
export function withoutCitations(spec: IntakeSpec): IntakeSpec {
  const copy = structuredClone(spec) as IntakeSpec;
  const strip = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(strip);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'citations' && Array.isArray(inner)) (value as Record<string, unknown>)[key] = [];
        else strip(inner);
      }
    }
  };
  strip(copy);
  copy.claims = [];
  return copy;
}

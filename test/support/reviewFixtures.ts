// Named builders for the review room's tests: confirmed IntakeSpecs at different stages, literature records, model drafts.
import type { IntakeSpec, Statement } from '../../domain/contracts/intakeSpec.ts';

export function said(text: string, source?: { source_id: string; line: number }): Statement {
  return {
    text,
    provenance: 'user_declared',
    citations: source ? [{ source_id: source.source_id, line_start: source.line, line_end: source.line, quote: text }] : [],
  };
}

function base(): IntakeSpec {
  return {
    version: '1.0.0',
    problem: null,
    proposed_solution: null,
    intended_users: [],
    care_setting: null,
    stage: { value: null, provenance: 'user_declared', citations: [] },
    claims: [],
    evidence_offered: [],
    risks: [],
    unknowns: [],
    business: { proposed_user: null, buyer: null, budget_owner: null, current_alternative: null, dependencies: [], value_hypothesis: null },
    care_pathway: { status: 'none', description: null, steps: [] },
  };
}

/** An idea pasted as a paragraph: problem, solution, users and setting, no pathway, most business facts unknown. */
export function ideaStageIntake(): IntakeSpec {
  const src = 'src_idea';
  return {
    ...base(),
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
  return base();
}
